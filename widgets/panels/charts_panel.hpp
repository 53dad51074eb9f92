#pragma once
// The Charts tab: per-step duration and per-step GPU busy ratio across the
// trace (steady regions and each mode's chosen window shaded behind), the
// gate's busy ratio of every candidate chunk as bars against its threshold,
// and a histogram of step durations with the selected chunk's steps stacked
// on top. Many steps are drawn min/max per bucket (core step_series), never
// dropped. Clicking a point selects its step, a bar its chunk (the one
// SelectionModel); a selected step or chunk is highlighted in every chart.
#include "common/selection_model.hpp"
#include "common/trace_document.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/timeline.hpp>

#include <QPointer>
#include <QVector>
#include <QWidget>

#include <vector>

class QLabel;
class QStackedWidget;
QT_BEGIN_NAMESPACE
class QChartView;
class QChart;
class QScatterSeries;
QT_END_NAMESPACE

namespace steadyscope::widgets {

class ChartsPanel : public QWidget {
  Q_OBJECT
 public:
  /// Buckets of the per-step charts: about one per pixel column of a wide chart.
  static constexpr int kMaxColumns = 800;
  static constexpr int kHistogramBins = 30;
  explicit ChartsPanel(QWidget* parent = nullptr);
  void setDocument(const TraceDocument& doc);
  void setSelectionModel(SelectionModel* model);
  /// The candidate chunks (their bars; the selected one's steps in the histogram).
  void setChunks(QVector<ChunkRow> rows);
  /// The gate's minimum busy ratio, drawn across the bars.
  void setThreshold(double threshold);

  // For tests: what is drawn.
  const std::vector<timeline::StepPoint>& steps() const { return points_; }
  int pointCount() const { return drawnPoints_; }  // points of the duration line
  QChart* durationChart() const;
  QChart* busyChart() const;
  QChart* chunkChart() const;
  QChart* histogramChart() const;
  /// The step a click at x (a step number) on a per-step chart selects: its position, or -1.
  int positionAtStep(double x) const;

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void rebuild();
  void rebuildIfShown();
  void buildStepCharts();
  void buildChunkChart();
  void buildHistogram();
  void showSelection();
  QChart* newChart(const QString& title) const;
  void replaceChart(QChartView* view, QChart* chart);
  /// Empty charts in place of the last trace's, whose series take memory.
  void dropCharts();
  void shadeWindows(QChart* chart, double yMax) const;
  void onStepClicked(double x);

  TraceDocument doc_;
  QVector<ChunkRow> chunks_;
  double threshold_ = 0.05;
  QPointer<SelectionModel> selection_;
  std::vector<timeline::StepPoint> points_;
  bool dirty_ = true;
  int drawnPoints_ = 0;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QChartView* durationView_;
  QChartView* busyView_;
  QChartView* chunkView_;
  QChartView* histogramView_;
  QScatterSeries* durationMark_ = nullptr;  // the selected step
  QScatterSeries* busyMark_ = nullptr;
};

}  // namespace steadyscope::widgets
