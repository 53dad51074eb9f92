#pragma once
// The loader's named anomaly counters (Perfetto-style import stats).
#include <steadyscope/model.hpp>

#include <QAbstractTableModel>
#include <QWidget>

class QTableView;
class QLabel;

namespace steadyscope::widgets {

class AnomalyModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Columns { CodeColumn, CountColumn, ExplanationColumn, FirstEventColumn, NUM_COLUMNS };
  enum Roles { SortRole = Qt::UserRole, FirstEventRole };
  using QAbstractTableModel::QAbstractTableModel;
  void setTrace(TracePtr trace);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  TracePtr trace_;
};

class AnomaliesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AnomaliesPanel(QWidget* parent = nullptr);
  void setTrace(TracePtr trace);
  AnomalyModel* model() const { return model_; }
  QTableView* view() const { return view_; }

 signals:
  /// Double-click on a counter with a first event.
  void eventActivated(qint64 event);

 private:
  AnomalyModel* model_;
  QTableView* view_;
  QLabel* summary_;
};

}  // namespace steadyscope::widgets
