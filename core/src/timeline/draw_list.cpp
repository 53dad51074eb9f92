#include <steadyscope/core/timeline/draw_list.hpp>

#include <algorithm>
#include <cmath>

namespace steadyscope::timeline {

namespace {
float clampPx(double x, double width) { return float(std::clamp(x, -10.0, width + 10.0)); }
int64_t endOf(const Trace& t, EventIdx e) { return t.tsNs[e] + std::max<int64_t>(0, t.durNs[e]); }
} // namespace

void appendRowDrawList(const Trace& trace, const TimelineIndex& index, uint32_t rowId,
                       const TimeMapper& map, const LodParams& lod, std::vector<DrawItem>& out) {
  const SliceRow& row = index.rows[rowId];
  const size_t n = row.events.size();
  if (n == 0) return;
  const double width = map.widthPx();
  const int64_t viewBegin = map.beginNs(), viewEnd = map.endNs();
  size_t i = row.firstOverlapping(viewBegin);
  const double minPx = lod.minSlicePx;
  while (i < n) {
    const EventIdx e = row.events[i];
    const int64_t ts = trace.tsNs[e];
    if (ts > viewEnd) break;
    const double x0 = map.toPx(ts), x1 = map.toPx(endOf(trace, e));
    if (x1 < 0.0) {  // ends before the window (an earlier long slice kept maxEnd high)
      ++i;
      continue;
    }
    if (x1 - x0 >= minPx) {
      out.push_back({clampPx(x0, width), clampPx(x1, width), rowId, uint32_t(i), 1, false});
      ++i;
      continue;
    }
    // Fold a run of narrow slices. Each step jumps (galloping search) to the
    // first slice starting at or after `cut`, and `cut` advances by at least
    // one pixel per step, so the work is bounded by the pixels covered.
    const size_t foldStart = i;
    double foldX1 = std::max(x1, x0);
    double cut = std::max(x0 + minPx, foldX1);
    for (;;) {
      size_t k = row.firstStartingAtOrAfter(trace, map.nsAt(cut), i + 1);
      if (k <= i) k = i + 1;
      foldX1 = std::max(foldX1, map.toPx(endOf(trace, row.events[k - 1])));
      i = k;
      if (i >= n) break;
      const EventIdx ne = row.events[i];
      const double nx0 = map.toPx(trace.tsNs[ne]), nx1 = map.toPx(endOf(trace, ne));
      // Stop at a visible gap, at a wide slice, or past the window.
      if (nx0 >= foldX1 + minPx || nx1 - nx0 >= minPx || trace.tsNs[ne] > viewEnd) break;
      foldX1 = std::max(foldX1, nx1);
      cut = std::max({cut + 1.0, nx0 + minPx, foldX1});
    }
    const double fx1 = std::max(foldX1, x0 + 1.0);
    out.push_back({clampPx(x0, width), clampPx(fx1, width), rowId, uint32_t(foldStart),
                   uint32_t(i - foldStart), true});
  }
}

void coverageColumns(const Coverage& cov, const TimeMapper& map, int columns, int64_t gapThresholdNs,
                     std::vector<float>& fraction, std::vector<uint8_t>& longGap) {
  fraction.assign(size_t(std::max(0, columns)), 0.0f);
  longGap.assign(size_t(std::max(0, columns)), 0);
  if (cov.empty() || columns <= 0) return;
  const double nsPerPx = map.nsPerPx();
  int64_t prev = map.nsAt(0);
  int64_t prevBusy = cov.busyIn(cov.firstNs(), prev);
  // Only columns that intersect [firstNs, lastNs) can be busy.
  const int xFirst = std::max(0, int(std::floor(map.toPx(cov.firstNs()))) - 1);
  const int xLast = std::min(columns - 1, int(std::ceil(map.toPx(cov.lastNs()))) + 1);
  if (xFirst > xLast) return;
  prev = map.nsAt(xFirst);
  prevBusy = cov.busyIn(cov.firstNs(), prev);
  const bool gaps = gapThresholdNs > 0 && double(gapThresholdNs) > 0.0;
  for (int x = xFirst; x <= xLast; ++x) {
    const int64_t next = map.nsAt(x + 1);
    const int64_t busyNext = cov.busyIn(cov.firstNs(), next);
    const double len = double(std::max<int64_t>(1, next - prev));
    fraction[size_t(x)] = float(std::clamp(double(busyNext - prevBusy) / len, 0.0, 1.0));
    if (gaps && nsPerPx > double(gapThresholdNs) * 0.5 && cov.maxGapIn(prev, next) >= gapThresholdNs)
      longGap[size_t(x)] = 1;
    prev = next;
    prevBusy = busyNext;
  }
}

int64_t hitTestRow(const Trace& trace, const TimelineIndex& index, uint32_t rowId,
                   const TimeMapper& map, double x, double catchPx) {
  const SliceRow& row = index.rows[rowId];
  if (row.events.empty()) return -1;
  const int64_t t = map.nsAt(x);
  const int64_t lo = map.nsAt(x - catchPx), hi = map.nsAt(x + catchPx);
  size_t i = row.firstOverlapping(lo);
  int64_t best = -1;
  double bestDist = 1e300;
  for (; i < row.events.size(); ++i) {
    const EventIdx e = row.events[i];
    const int64_t ts = trace.tsNs[e];
    if (ts > hi) break;
    const int64_t end = endOf(trace, e);
    if (end < lo) continue;
    double dist = 0.0;
    if (t < ts) dist = double(ts - t);
    else if (t >= end && end > ts) dist = double(t - end) + 0.5;
    else if (end == ts) dist = double(std::llabs(t - ts));
    if (dist < bestDist) {
      bestDist = dist;
      best = int64_t(e);
      if (dist == 0.0) {
        // Prefer the innermost exact hit: later starts at the same depth
        // cannot contain t unless they overlap; keep scanning a few.
      }
    }
  }
  if (best >= 0 && bestDist * map.pxPerNs() > catchPx) return -1;
  return best;
}

} // namespace steadyscope::timeline
