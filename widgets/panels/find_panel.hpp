#pragma once
// Find results, like Tracy's find zone: how many events match and their total
// time, then one row per matching name (count, total, average, longest),
// sortable, the whole name in its tooltip. Double-click a name to go to its
// next match.
#include "common/trace_document.hpp"

#include <steadyscope/timeline.hpp>

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace steadyscope::widgets {

class FindPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FindPanel(QWidget* parent = nullptr);
  /// Shows `found` for `pattern` (null: nothing searched yet).
  void setResults(const TraceDocument& doc, std::shared_ptr<const timeline::FindResults> found, const QString& pattern);
  /// "Match 3 of 120" under the summary.
  void setCurrent(int index);
  QString summary() const;
  QTableWidget* table() const { return table_; }

 signals:
  /// Double-click on a name's row.
  void nameActivated(quint32 name);

 private:
  QLabel* summary_;
  QTableWidget* table_;
  std::shared_ptr<const timeline::FindResults> found_;
  QString head_;
};

}  // namespace steadyscope::widgets
