#pragma once
// Per-step charts: step duration and per-step GPU busy ratio, decimated to at
// most kMaxPoints points (max per bucket, so peaks survive). Empty until a
// split provides steps.
#include "common/selection_model.hpp"
#include "common/trace_document.hpp"

#include <QPointer>
#include <QWidget>

class QLabel;
class QStackedWidget;
QT_BEGIN_NAMESPACE
class QChartView;
class QChart;
QT_END_NAMESPACE

namespace steadyscope::widgets {

/// A step's GPU busy ratio: the busiest device's busy time inside the step over its duration.
double stepBusyRatio(const timeline::TimelineIndex& index, const timeline::StepBand& step);

class ChartsPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxPoints = 1000;
  explicit ChartsPanel(QWidget* parent = nullptr);
  void setDocument(const TraceDocument& doc);
  void setSelectionModel(SelectionModel* model);
  int pointCount() const { return points_; }

 private:
  void rebuild();
  TraceDocument doc_;
  QPointer<SelectionModel> selection_;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QChartView* durationView_;
  QChartView* busyView_;
  int points_ = 0;
};

}  // namespace steadyscope::widgets
