#pragma once
// The By op view's chart: each aligned step's duration in A and in B, step i
// of A above step i of B (the compare aligns the sides by index), so a side
// that drifts or has slow outliers shows against the other.
#include "panels/by_op_data.hpp"

#include <QChartView>
#include <QList>
#include <QPointF>

class QLineSeries;

namespace steadyscope::widgets {

/// The chart's points: x the aligned step (0 = each side's first compared step), y its duration in ms.
struct StepChartPoints {
  QList<QPointF> a, b;
};
StepChartPoints stepChartPoints(const ByOpData& d);

class AbStepChart : public QChartView {
  Q_OBJECT
 public:
  explicit AbStepChart(QWidget* parent = nullptr);
  void setComparison(const ByOpData& d);
  void clear();
  /// The two series (null before a comparison).
  QLineSeries* seriesA() const { return a_; }
  QLineSeries* seriesB() const { return b_; }

 private:
  void rebuild(const StepChartPoints& p, const QString& nameA, const QString& nameB, const QString& title);
  QLineSeries* a_ = nullptr;
  QLineSeries* b_ = nullptr;
};

}  // namespace steadyscope::widgets
