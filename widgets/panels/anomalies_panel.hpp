#pragma once
// The loader's anomaly counters, grouped: suspicious kinds first (broken or
// unusual data, worth a look), then the kinds expected in any capture (flows
// cut at its edges, …). Each row: the kind in words, its count, what it
// affects (the split, the busy figures) and its first example, which a
// double-click shows on the timeline. The words come from the core's table
// (steadyscope/model.hpp, anomalyKinds).
#include <steadyscope/model.hpp>

#include <QWidget>

class QStandardItemModel;
class QTreeView;
class QLabel;

namespace steadyscope::widgets {

class AnomaliesPanel : public QWidget {
  Q_OBJECT
 public:
  enum Columns { KindColumn, CountColumn, AffectsColumn, ExampleColumn, CodeColumn, NUM_COLUMNS };
  enum Roles { CodeRole = Qt::UserRole + 1, CountRole, FirstEventRole };
  explicit AnomaliesPanel(QWidget* parent = nullptr);
  void setTrace(TracePtr trace);
  /// Two top-level rows, "Suspicious" then "Expected" (a group without counters is left out);
  /// under each, a row per counter, largest first.
  QStandardItemModel* model() const { return model_; }
  QTreeView* view() const { return view_; }
  QString summaryText() const;

 signals:
  /// Double-click on a counter with an example.
  void eventActivated(qint64 event);

 private:
  void addGroup(const Trace& t, AnomalyClass cls);
  QStandardItemModel* model_;
  QTreeView* view_;
  QLabel* summary_;
};

}  // namespace steadyscope::widgets
