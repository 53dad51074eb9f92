#pragma once
// Communication against compute per rank: a bar per rank (rank order, the
// heatmap's rows) of its GPU kernel time, split into compute alone, the
// communication hidden behind compute, and the communication exposed, with the
// hidden share written beside it.
#include "panels/job_rank_layout.hpp"

#include <QWidget>

namespace steadyscope::widgets {

class JobOverlapChart : public QWidget {
  Q_OBJECT
 public:
  explicit JobOverlapChart(QWidget* parent = nullptr);
  void setJob(const JobOverview& job);
  void setHighlighted(const QVector<int>& positions);
  QSize sizeHint() const override { return {600, 360}; }

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
  void paintLegend(QPainter& p) const;
  void paintBar(QPainter& p, const JobRank& r, const QRectF& row, double scaleUs) const;
  int positionAt(const QPoint& pt) const;

  JobOverview job_;
  QVector<int> order_;
  QVector<int> highlighted_;
  double maxUs_ = 0;
};

}  // namespace steadyscope::widgets
