#include <steadyscope/core/timeline/draw_list.hpp>

#include <algorithm>
#include <cmath>
#include <span>

namespace steadyscope::timeline {

namespace {
float clampPx(double x, double width) { return float(std::clamp(x, -10.0, width + 10.0)); }
}  // namespace

void appendRowDrawList(const Trace&, const TimelineIndex& index, uint32_t rowId, const TimeMapper& map,
                       const LodParams& lod, std::vector<DrawItem>& out) {
  // Reads only the row's contiguous start/end arrays: no per-event
  // indirection into the trace, so the work stays in cache.
  const SliceRow& row = index.rows[rowId];
  const size_t n = row.start.size();
  if (n == 0) return;
  const double width = map.widthPx();
  const int64_t viewBegin = map.beginNs(), viewEnd = map.endNs();
  size_t i = row.firstOverlapping(viewBegin);
  const double minPx = lod.minSlicePx;
  while (i < n) {
    const int64_t ts = row.start[i];
    if (ts > viewEnd) break;
    const double x0 = map.toPx(ts), x1 = map.toPx(row.end[i]);
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
    // minSlicePx per step, so the work is bounded by the pixels covered.
    const size_t foldStart = i;
    double foldX1 = std::max(x1, x0);
    double cut = std::max(x0 + minPx, foldX1);
    for (;;) {
      size_t k = row.firstStartingAtOrAfter(map.nsAt(cut), i + 1);
      if (k <= i) k = i + 1;
      foldX1 = std::max(foldX1, map.toPx(row.end[k - 1]));
      i = k;
      if (i >= n) break;
      const double nx0 = map.toPx(row.start[i]), nx1 = map.toPx(row.end[i]);
      // Stop at a visible gap, at a wide slice, or past the window.
      if (nx0 >= foldX1 + minPx || nx1 - nx0 >= minPx || row.start[i] > viewEnd) break;
      foldX1 = std::max(foldX1, nx1);
      cut = std::max({cut + minPx, nx0 + minPx, foldX1});
    }
    const double fx1 = std::max(foldX1, x0 + 1.0);
    out.push_back({clampPx(x0, width), clampPx(fx1, width), rowId, uint32_t(foldStart), uint32_t(i - foldStart), true});
  }
}

namespace {
// First index in [from, v.size()) with v[i] >= t (or > t when `upper`),
// galloping forward from `from`: columns are visited left to right, so each
// search costs the log of the distance and walks memory forward.
size_t gallop(std::span<const int64_t> v, int64_t t, size_t from, bool upper) {
  const size_t n = v.size();
  auto before = [&](size_t i) { return upper ? v[i] <= t : v[i] < t; };
  if (from >= n || !before(from)) return from;
  size_t lo = from, step = 1, hi = from + 1;
  while (hi < n && before(hi)) {
    lo = hi;
    step *= 2;
    hi = std::min(n, hi + step);
  }
  auto first = v.begin() + ptrdiff_t(lo + 1), last = v.begin() + ptrdiff_t(hi);
  return size_t((upper ? std::upper_bound(first, last, t) : std::lower_bound(first, last, t)) - v.begin());
}
}  // namespace

void coverageColumns(const Coverage& cov, const TimeMapper& map, int columns, int64_t gapThresholdNs,
                     std::vector<float>& fraction, std::vector<uint8_t>& longGap) {
  fraction.assign(size_t(std::max(0, columns)), 0.0f);
  longGap.assign(size_t(std::max(0, columns)), 0);
  if (cov.empty() || columns <= 0) return;
  // Only columns that intersect [firstNs, lastNs) can be busy.
  const int xFirst = std::max(0, int(std::floor(map.toPx(cov.firstNs()))) - 1);
  const int xLast = std::min(columns - 1, int(std::ceil(map.toPx(cov.lastNs()))) + 1);
  if (xFirst > xLast) return;
  const auto begins = cov.begins(), ends = cov.ends();
  const bool gaps = gapThresholdNs > 0 && map.nsPerPx() > double(gapThresholdNs) * 0.5;
  int64_t prev = map.nsAt(xFirst);
  size_t kPrev = gallop(begins, prev, 0, false);  // intervals with begin < prev
  int64_t prevBusy = cov.busyBeforeWithCount(prev, kPrev);
  size_t gapLo = 0, gapUb = 0;
  for (int x = xFirst; x <= xLast; ++x) {
    const int64_t next = map.nsAt(x + 1);
    const size_t k = gallop(begins, next, kPrev, false);
    const int64_t busyNext = cov.busyBeforeWithCount(next, k);
    const double len = double(std::max<int64_t>(1, next - prev));
    fraction[size_t(x)] = float(std::clamp(double(busyNext - prevBusy) / len, 0.0, 1.0));
    if (gaps) {
      // Gaps lying inside [prev, next): end[g] >= prev and begin[g + 1] <= next.
      gapLo = gallop(ends, prev, gapLo, false);
      gapUb = gallop(begins, next, std::max(gapUb, k), true);
      const size_t hi = gapUb == 0 ? 0 : gapUb - 1;
      if (gapLo < hi && cov.maxGapRange(gapLo, hi) >= gapThresholdNs) longGap[size_t(x)] = 1;
    }
    prev = next;
    prevBusy = busyNext;
    kPrev = k;
  }
}

int64_t hitTestRow(const Trace&, const TimelineIndex& index, uint32_t rowId, const TimeMapper& map, double x,
                   double catchPx) {
  const SliceRow& row = index.rows[rowId];
  if (row.events.empty()) return -1;
  const int64_t t = map.nsAt(x);
  const int64_t lo = map.nsAt(x - catchPx), hi = map.nsAt(x + catchPx);
  size_t i = row.firstOverlapping(lo);
  int64_t best = -1;
  double bestDist = 1e300;
  for (; i < row.events.size(); ++i) {
    const EventIdx e = row.events[i];
    const int64_t ts = row.start[i];
    if (ts > hi) break;
    const int64_t end = row.end[i];
    if (end < lo) continue;
    double dist = 0.0;
    if (t < ts)
      dist = double(ts - t);
    else if (t >= end && end > ts)
      dist = double(t - end) + 0.5;
    else if (end == ts)
      dist = double(std::llabs(t - ts));
    if (dist < bestDist) {
      bestDist = dist;
      best = int64_t(e);
    }
  }
  if (best >= 0 && bestDist * map.pxPerNs() > catchPx) return -1;
  return best;
}

}  // namespace steadyscope::timeline
