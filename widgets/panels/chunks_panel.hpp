#pragma once
// The candidate chunks of a split (one row per mode window or chunk file),
// with the gate's verdict. Filled by the app through setChunks(); selecting a
// row selects the chunk in the shared SelectionModel.
#include "common/selection_model.hpp"
#include "panels/split_view_data.hpp"

#include <QAbstractTableModel>
#include <QPointer>
#include <QWidget>

class QTableView;
class QLabel;
class QSortFilterProxyModel;

namespace steadyscope::widgets {

class ChunkModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Columns {
    ModeColumn,
    FileColumn,
    StepRangeColumn,
    StepsColumn,
    StartColumn,
    DurationColumn,
    EventsColumn,
    GpuEventsColumn,
    GpuTimeColumn,
    GpuBusyColumn,
    BusyRefColumn,
    BusyUnionColumn,
    BusyWindowColumn,
    LongestGapColumn,
    FindingsColumn,
    VerdictColumn,
    NUM_COLUMNS
  };
  enum Roles { SortRole = Qt::UserRole, MaxCostRole };
  using QAbstractTableModel::QAbstractTableModel;
  void setChunks(QVector<ChunkRow> rows);
  /// Same rows with new values (verdicts after a re-gate): dataChanged, no reset.
  void updateChunks(QVector<ChunkRow> rows);
  /// The open trace's rows (the selection model's chunk indices).
  const QVector<ChunkRow>& chunks() const { return rows_; }
  /// The rows of a compared trace, shown after the open trace's under its name
  /// (empty: none). They take part in A/B only: selecting one selects no chunk.
  void setComparedChunks(QVector<ChunkRow> rows, const QString& traceName);
  const QVector<ChunkRow>& comparedChunks() const { return compared_; }
  QString comparedName() const { return comparedName_; }
  /// The row shown at model row `r`: the open trace's first, then the compared trace's.
  const ChunkRow& rowAt(int r) const { return r < rows_.size() ? rows_[r] : compared_[r - rows_.size()]; }
  bool isCompared(int r) const { return r >= rows_.size(); }
  /// Start times are shown from here (the trace's first event).
  void setTimeOrigin(qint64 ns);
  /// A column's header as shown, and its one-sentence definition (the tooltip).
  static QString headerText(int column);
  static QString headerTip(int column);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  QVariant display(const ChunkRow& c, int column) const;
  QVariant sortValue(const ChunkRow& c, int column) const;
  QVariant toolTip(const ChunkRow& c, int column) const;
  QVector<ChunkRow> rows_;
  QVector<ChunkRow> compared_;
  QString comparedName_;
  qint64 originNs_ = 0;
};

class ChunksPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChunksPanel(QWidget* parent = nullptr);
  void setSelectionModel(SelectionModel* model);
  void setChunks(QVector<ChunkRow> rows);
  /// A compared trace's rows, after the open trace's (ChunkModel::setComparedChunks).
  void setComparedChunks(QVector<ChunkRow> rows, const QString& traceName);
  /// The selected rows as model rows, in the view's order (a compared row: ChunkModel::isCompared).
  QVector<int> selectedModelRows() const;
  /// New values for the same rows (a re-gate): keeps the selection.
  void updateChunks(QVector<ChunkRow> rows);
  /// Shown instead of the table when there are no chunks.
  void setPlaceholder(const QString& text);
  QString placeholderText() const;
  ChunkModel* model() const { return model_; }
  /// The selected rows as tab-separated text, header first, in the view's order (what Ctrl+C copies).
  QString selectedRowsTsv() const;
  void copySelectedRows() const;
  QTableView* view() const { return view_; }

 signals:
  /// A compared trace's row became the current one (its index in comparedChunks()).
  void comparedRowSelected(int index);
  /// A link in the placeholder text was clicked (or activated from the keyboard).
  void placeholderLinkActivated(const QString& link);

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  void fitColumns();
  ChunkModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLabel* placeholder_;
  QPointer<SelectionModel> selection_;
  bool syncing_ = false;  // following the shared selection: no zoom
  void showTableOrPlaceholder();
};

}  // namespace steadyscope::widgets
