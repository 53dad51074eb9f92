#pragma once
// The Job view: every rank of a distributed job side by side. A line of the
// job's figures (the straggler, the spread, failed ranks, mixed world sizes),
// the sortable table of ranks, and below it the rank × step heatmap and the
// comm/compute overlap per rank, their rows in rank order. Enter or a
// double-click asks for a rank's timeline; two selected ranks can be compared.
#include "panels/job_table_model.hpp"

#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace steadyscope::widgets {

class JobHeatmap;
class JobOverlapChart;

class JobView : public QWidget {
  Q_OBJECT
 public:
  explicit JobView(QWidget* parent = nullptr);
  void setJob(JobOverview job);
  const JobOverview& job() const { return model_->job(); }
  /// The selected ranks (positions in job().ranks), in the table's order.
  QVector<int> selectedPositions() const;
  /// Selects these ranks in the table (positions in job().ranks).
  void selectPositions(const QVector<int>& positions);
  /// The selected rows (every row when none is selected) as TSV with the header: what Ctrl+C copies.
  QString selectedRowsTsv() const;
  /// The job's figures in one line, as shown above the table.
  QString summaryText() const;

  JobTableModel* model() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QTableView* view() const { return view_; }
  JobHeatmap* heatmap() const { return heatmap_; }
  JobOverlapChart* overlapChart() const { return overlap_; }

 signals:
  void rankActivated(int position);
  void compareRequested(int positionA, int positionB);

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void activateCurrent();
  void requestCompare();
  void selectionMoved();
  void fitColumns();
  void fitTableHeight();

  JobTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLabel* summary_;
  QPushButton* open_;
  QPushButton* compare_;
  JobHeatmap* heatmap_;
  JobOverlapChart* overlap_;
  QSplitter* split_;
  bool userSized_ = false;  // the user dragged the splitter: window resizes keep it
};

}  // namespace steadyscope::widgets
