#pragma once
// Rank × step heatmap of step durations: a row per rank (rank order), a column
// per step, each cell coloured by its duration against the job's median step
// (blue faster, neutral at the median, vermillion slower). The straggler's row
// is framed, marked ranks are named beside their rows. More steps than pixels:
// each pixel column keeps its farthest-from-median step, so one slow step shows.
// A summary.tsv has no steps: each rank's median and p90 step stand in for them.
#include "panels/job_rank_layout.hpp"

#include <QImage>
#include <QWidget>

namespace steadyscope::widgets {

class JobHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit JobHeatmap(QWidget* parent = nullptr);
  void setJob(const JobOverview& job);
  /// Rows drawn highlighted (positions in job.ranks): the table's selection.
  void setHighlighted(const QVector<int>& positions);
  /// The duration the colours are relative to (the median of the ranks' median steps), 0 when none.
  double referenceUs() const { return referenceUs_; }
  /// The colour of a step `ratio` times the reference.
  static QColor colorForRatio(double ratio, const QPalette& palette);
  QSize sizeHint() const override { return {900, 360}; }

 signals:
  void rankClicked(int position);
  void rankActivated(int position);

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;

 private:
  RankLayout layout() const;
  void buildImage(int columns);
  void paintLegend(QPainter& p) const;
  void paintLabels(QPainter& p, const RankLayout& l) const;
  void paintAxis(QPainter& p, const RankLayout& l) const;
  int positionAt(const QPoint& pt) const;

  JobOverview job_;
  QVector<int> order_;
  QVector<int> highlighted_;
  QVector<QVector<double>> series_;  // per position: its steps, or (median, p90) from a summary.tsv
  int maxSteps_ = 0;
  double referenceUs_ = 0;
  QImage image_;  // a pixel per (rank row, column), rebuilt when the column count changes
  int imageColumns_ = 0;
};

}  // namespace steadyscope::widgets
