#pragma once
// Details of the current selection: an event's fields and its args (read from
// the source text), a step, or a time range's per-name statistics and GPU
// busy ratio.
#include "common/selection_model.hpp"
#include "common/trace_document.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/timeline.hpp>

#include <QPointer>
#include <QWidget>

class QTextBrowser;
class QTableWidget;
class QStackedWidget;
class QLabel;

namespace steadyscope::widgets {

class DetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DetailsPanel(QWidget* parent = nullptr);
  void setDocument(const TraceDocument& doc);
  void setSelectionModel(SelectionModel* model);
  /// The chunk table's rows, for a selected chunk's figures.
  void setChunks(QVector<ChunkRow> rows);
  /// The statistics shown for the current range (empty when none).
  const timeline::RangeStats& rangeStats() const { return range_; }
  QString text() const;
  QTableWidget* rangeTable() const { return table_; }

 private:
  void refresh();
  void showEvent(EventIdx e);
  void showRange(qint64 b, qint64 e);
  void showStep(int s);
  void showChunk(int c);

  TraceDocument doc_;
  QVector<ChunkRow> chunks_;
  QPointer<SelectionModel> selection_;
  timeline::RangeStats range_;
  QStackedWidget* stack_;
  QTextBrowser* text_;
  QWidget* rangePage_;
  QLabel* rangeHeader_;
  QTableWidget* table_;
};

}  // namespace steadyscope::widgets
