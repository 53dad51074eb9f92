#pragma once
// The rank rows the Job view's heatmap and overlap chart share: ranks in rank
// order, one row each in the same plot height, so the two panes side by side
// line their rows up, and labels only where a row is tall enough to read.
#include "panels/job_view_data.hpp"

#include <QRectF>
#include <QVector>

#include <algorithm>
#include <numeric>

namespace steadyscope::widgets {

struct RankLayout {
  static constexpr int kTop = 30, kBottom = 24, kLabelWidth = 150;
  static constexpr double kMinLabelledRow = 11;
  QRectF plot;
  int count = 0;
  double rowHeight() const { return count ? plot.height() / count : 0; }
  QRectF row(int i) const { return {plot.left(), plot.top() + i * rowHeight(), plot.width(), rowHeight()}; }
  int rowAt(double y) const {
    if (!count || y < plot.top() || y >= plot.bottom()) return -1;
    return std::min(count - 1, int((y - plot.top()) / rowHeight()));
  }
  bool labelled() const { return rowHeight() >= kMinLabelledRow; }
};

/// Positions in job.ranks ordered by rank number (then position).
inline QVector<int> rankOrder(const JobOverview& job) {
  QVector<int> order(job.ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&job](int a, int b) { return job.ranks[a].rank < job.ranks[b].rank; });
  return order;
}

/// A rank's label beside its row: "rank 3", with its marks in words.
inline QString rankLabel(const JobRank& r) {
  QString s = QStringLiteral("rank %1").arg(r.rank);
  if (r.straggler) s += QStringLiteral(" straggler");
  if (r.skewed) s += QStringLiteral(" late");
  if (r.otherJob) s += QStringLiteral(" other job");
  return s;
}

}  // namespace steadyscope::widgets
