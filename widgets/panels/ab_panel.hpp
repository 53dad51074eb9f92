#pragma once
// A/B of two chunks, steps or ranges (core timeline/ab_compare): their figures
// side by side with the change from A to B, and every kernel of either side by
// GPU time with absolute and relative deltas (kernels of one side only say
// so). Both tables sort by any column; Ctrl+C copies the selected rows as TSV.
// The By op tab sets two traces side by side op by op (by_op_model) with their
// aligned steps' durations (ab_step_chart); choosing a row says which op.
#include "panels/by_op_data.hpp"

#include <steadyscope/timeline.hpp>

#include <QAbstractTableModel>
#include <QWidget>

#include <vector>

class QLabel;
class QTableView;
class QTabWidget;
class QTreeView;
class QSortFilterProxyModel;

namespace steadyscope::widgets {

/// Rows: duration, GPU time, GPU busy, busy ratio, events, GPU events, then
/// the time of each event category. Columns: figure, A, B, change, change %.
class AbFiguresModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Columns { FigureColumn, AColumn, BColumn, DeltaColumn, RelativeColumn, NUM_COLUMNS };
  using QAbstractTableModel::QAbstractTableModel;
  void setSides(const timeline::AbSideFigures& a, const timeline::AbSideFigures& b);
  /// No rows: nothing is compared.
  void clear();
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  enum class Unit { Time, Count, Ratio };
  struct Row {
    QString figure, tip;
    Unit unit;
    double a, b;
  };
  QVariant display(const Row& r, int column) const;
  std::vector<Row> rows_;
  QString labelA_{QStringLiteral("A")}, labelB_{QStringLiteral("B")};
};

/// One row per kernel (matched by the normalised name): name, A/B time and count, change, change %.
class AbKernelModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Columns {
    KernelColumn,
    ATimeColumn,
    BTimeColumn,
    DeltaColumn,
    RelativeColumn,
    ACountColumn,
    BCountColumn,
    NUM_COLUMNS
  };
  enum Roles { SortRole = Qt::UserRole };
  using QAbstractTableModel::QAbstractTableModel;
  void setDeltas(std::vector<timeline::KernelDelta> deltas);
  const std::vector<timeline::KernelDelta>& deltas() const { return rows_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  QVariant display(const timeline::KernelDelta& d, int column) const;
  QVariant sortValue(const timeline::KernelDelta& d, int column) const;
  std::vector<timeline::KernelDelta> rows_;
};

class AbStepChart;
class ByOpModel;

class AbPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AbPanel(QWidget* parent = nullptr);
  /// Shows A against B (computed by the caller: abSideFigures, compareKernels).
  void setComparison(const timeline::AbSideFigures& a, const timeline::AbSideFigures& b);
  void clear(const QString& hint = {});
  AbFiguresModel* figuresModel() const { return figures_; }
  AbKernelModel* kernelModel() const { return kernels_; }
  QTableView* kernelView() const { return kernelView_; }
  QTableView* figuresView() const { return figuresView_; }
  /// The By op view of two traces; `hint` replaces it when there is none (what to do, or why not).
  void setByOp(const ByOpData& d);
  void clearByOp(const QString& hint);
  /// Brings the By op tab (1) or the kernels' (0) to the front.
  void showTab(int tab);
  int currentTab() const;
  ByOpModel* byOpModel() const { return byOp_; }
  QTreeView* byOpView() const { return byOpView_; }
  AbStepChart* stepChart() const { return stepChart_; }
  QString byOpSummary() const;
  /// The selected rows of the table with focus (else of the shown tab's rows), TSV with a header.
  QString selectedRowsTsv() const;
  void copySelectedRows() const;

 signals:
  /// A By op row was chosen: its op, and the kernel name on a kernel row ("" on an op row); both "": none.
  void opChosen(const QString& op, const QString& kernel);

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  QWidget* buildByOpTab();
  void onByOpCurrent(const QModelIndex& current);

  QTabWidget* tabs_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* byOpSummary_ = nullptr;
  ByOpModel* byOp_ = nullptr;
  QSortFilterProxyModel* byOpProxy_ = nullptr;
  QTreeView* byOpView_ = nullptr;
  AbStepChart* stepChart_ = nullptr;
  AbFiguresModel* figures_ = nullptr;
  AbKernelModel* kernels_ = nullptr;
  QSortFilterProxyModel* kernelProxy_ = nullptr;
  QTableView* figuresView_ = nullptr;
  QTableView* kernelView_ = nullptr;
};

}  // namespace steadyscope::widgets
