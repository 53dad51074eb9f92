#include <steadyscope/core/timeline/timeline_index.hpp>

#include <algorithm>

namespace steadyscope::timeline {

SliceKind sliceKindOf(CatClass c) {
  switch (c) {
    case CatClass::Kernel: return SliceKind::Kernel;
    case CatClass::Memcpy: return SliceKind::Memcpy;
    case CatClass::Memset: return SliceKind::Memset;
    case CatClass::GpuUserAnnotation: return SliceKind::GpuAnnotation;
    case CatClass::UserAnnotation: return SliceKind::Annotation;
    case CatClass::CpuOp: return SliceKind::CpuOp;
    case CatClass::Runtime:
    case CatClass::Driver: return SliceKind::Runtime;
    case CatClass::PythonFunction: return SliceKind::Python;
    default: return SliceKind::Other;
  }
}

const char* sliceKindName(SliceKind k) {
  switch (k) {
    case SliceKind::Kernel: return "kernel";
    case SliceKind::Memcpy: return "memcpy";
    case SliceKind::Memset: return "memset";
    case SliceKind::GpuAnnotation: return "GPU annotation";
    case SliceKind::Annotation: return "annotation";
    case SliceKind::CpuOp: return "CPU op";
    case SliceKind::Runtime: return "runtime";
    case SliceKind::Python: return "python";
    case SliceKind::Other: return "other";
  }
  return "other";
}

// ---------------------------------------------------------------- Coverage

Coverage::Coverage(std::vector<Interval> intervals) {
  intervals.resize(mergeSortedInPlace(intervals));
  begin_.reserve(intervals.size());
  end_.reserve(intervals.size());
  for (const Interval& iv : intervals) {
    begin_.push_back(iv.begin);
    end_.push_back(iv.end);
  }
  cum_.resize(begin_.size());
  int64_t acc = 0;
  for (size_t k = 0; k < begin_.size(); ++k) cum_[k] = (acc += end_[k] - begin_[k]);
  if (begin_.size() > 1) {
    std::vector<int64_t> level(begin_.size() - 1);
    for (size_t k = 0; k + 1 < begin_.size(); ++k) level[k] = begin_[k + 1] - end_[k];
    gapPyramid_.push_back(std::move(level));
    while (gapPyramid_.back().size() > 1) {
      const auto& below = gapPyramid_.back();
      std::vector<int64_t> up((below.size() + 1) / 2);
      for (size_t k = 0; k < up.size(); ++k) {
        const size_t a = 2 * k, b = std::min(2 * k + 1, below.size() - 1);
        up[k] = std::max(below[a], below[b]);
      }
      gapPyramid_.push_back(std::move(up));
    }
  }
}

int64_t Coverage::busyBefore(int64_t t) const {
  // k = number of intervals with begin < t.
  return busyBeforeWithCount(t, size_t(std::lower_bound(begin_.begin(), begin_.end(), t) - begin_.begin()));
}

int64_t Coverage::busyBeforeWithCount(int64_t t, size_t k) const {
  if (k == 0) return 0;
  const int64_t full = cum_[k - 1];
  const int64_t overshoot = end_[k - 1] > t ? end_[k - 1] - t : 0;
  return full - overshoot;
}

int64_t Coverage::busyIn(int64_t a, int64_t b) const {
  if (b <= a || begin_.empty()) return 0;
  return busyBefore(b) - busyBefore(a);
}

int64_t Coverage::maxGapRange(size_t lo, size_t hi) const {
  int64_t best = 0;
  size_t level = 0;
  while (lo < hi) {
    if (level + 1 < gapPyramid_.size() && hi - lo >= 2) {
      if (lo & 1) best = std::max(best, gapPyramid_[level][lo++]);
      if (hi & 1) best = std::max(best, gapPyramid_[level][--hi]);
      lo >>= 1;
      hi >>= 1;
      ++level;
    } else {
      for (size_t k = lo; k < hi; ++k) best = std::max(best, gapPyramid_[level][k]);
      break;
    }
  }
  return best;
}

int64_t Coverage::maxGapIn(int64_t a, int64_t b) const {
  if (b <= a || begin_.size() < 2) return 0;
  // Gap k lies in [end_[k], begin_[k+1]). Wanted: end_[k] >= a and begin_[k+1] <= b.
  const size_t lo = size_t(std::lower_bound(end_.begin(), end_.end(), a) - end_.begin());
  // hi: gaps with begin_[k+1] <= b  <=>  k + 1 < upper_bound(begin_, b)
  const size_t ub = size_t(std::upper_bound(begin_.begin(), begin_.end(), b) - begin_.begin());
  const size_t hi = ub == 0 ? 0 : ub - 1;
  if (lo >= hi) return 0;
  return maxGapRange(lo, hi);
}

// ---------------------------------------------------------------- SliceRow

size_t SliceRow::firstOverlapping(int64_t t) const {
  // maxEnd is non-decreasing: the first position with maxEnd > t. An instant
  // (dur 0) at exactly t has maxEnd == t; include it with >=.
  return size_t(std::lower_bound(maxEnd.begin(), maxEnd.end(), t) - maxEnd.begin());
}

size_t SliceRow::firstStartingAtOrAfter(int64_t t, size_t from) const {
  const size_t n = start.size();
  if (from >= n || start[from] >= t) return from;
  // Galloping search: cost is log of the distance, not of the row size.
  size_t lo = from, step = 1, hi = from + 1;
  while (hi < n && start[hi] < t) {
    lo = hi;
    step *= 2;
    hi = std::min(n, hi + step);
  }
  return size_t(std::lower_bound(start.begin() + ptrdiff_t(lo + 1), start.begin() + ptrdiff_t(hi), t) - start.begin());
}

// ---------------------------------------------------------------- index

bool isDrawable(const Trace& t, EventIdx i) {
  const Ph p = t.ph[i];
  return (p == Ph::Complete || p == Ph::Begin || p == Ph::Instant) && t.has(i, ev::HasTs);
}

std::optional<EventIdx> TimelineIndex::linkedEvent(const Trace& t, EventIdx i) const {
  if (!t.has(i, ev::HasCorr) || t.has(i, ev::CorrIsStr)) return std::nullopt;
  const int64_t c = t.corr[i];
  auto range = std::equal_range(byCorrelation.begin(), byCorrelation.end(), std::pair<int64_t, EventIdx>{c, 0},
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  const bool fromGpu = isGpuWork(t.classOf(i));
  std::optional<EventIdx> best;
  for (auto it = range.first; it != range.second; ++it) {
    const EventIdx o = it->second;
    if (o == i) continue;
    const CatClass oc = t.classOf(o);
    if (fromGpu && (oc == CatClass::Runtime || oc == CatClass::Driver)) return o;
    if (!fromGpu && isGpuWork(oc)) return o;
    if (!best && oc != CatClass::FlowAc2g) best = o;
  }
  return best;
}

TimelineIndexPtr buildTimelineIndex(const Trace& trace, const std::atomic<bool>* cancel) {
  auto out = std::make_shared<TimelineIndex>();
  TimelineIndex& ix = *out;
  ix.kindOfCat.resize(trace.categoryClass.size());
  for (size_t c = 0; c < trace.categoryClass.size(); ++c) ix.kindOfCat[c] = sliceKindOf(trace.categoryClass[c]);

  bool any = false;
  int64_t first = 0, last = 0;
  ix.lanes.resize(trace.lanes.size());
  for (uint32_t l = 0; l < trace.lanes.size(); ++l) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
    const Lane& lane = trace.lanes[l];
    LaneIndex& li = ix.lanes[l];
    li.lane = l;
    li.firstRow = uint32_t(ix.rows.size());
    // Depth levels actually used (do not trust maxDepth blindly).
    uint16_t maxDepth = 0;
    bool has = false;
    for (EventIdx e : lane.events) {
      if (!isDrawable(trace, e)) continue;
      has = true;
      maxDepth = std::max<uint16_t>(maxDepth, trace.depth.empty() ? 0 : trace.depth[e]);
    }
    if (!has) continue;
    li.rowCount = uint32_t(maxDepth) + 1;
    ix.rows.resize(ix.rows.size() + li.rowCount);
    for (uint32_t d = 0; d < li.rowCount; ++d) {
      ix.rows[li.firstRow + d].lane = l;
      ix.rows[li.firstRow + d].depth = uint16_t(d);
    }
    for (EventIdx e : lane.events) {  // lane.events is sorted by ts already
      if (!isDrawable(trace, e)) continue;
      const uint16_t d = trace.depth.empty() ? 0 : trace.depth[e];
      SliceRow& row = ix.rows[li.firstRow + d];
      const int64_t end = trace.tsNs[e] + std::max<int64_t>(0, trace.durNs[e]);
      row.maxEnd.push_back(row.maxEnd.empty() ? end : std::max(row.maxEnd.back(), end));
      row.events.push_back(e);
      row.start.push_back(trace.tsNs[e]);
      row.end.push_back(end);
      ++li.sliceCount;
      if (!any || trace.tsNs[e] < first) first = trace.tsNs[e];
      if (!any || end > last) last = end;
      any = true;
    }
    ix.sliceCount += li.sliceCount;
    // Lane coverage: union over every depth (children nest, but be safe).
    std::vector<Interval> ivs;
    ivs.reserve(li.sliceCount);
    for (uint32_t d = 0; d < li.rowCount; ++d)
      for (EventIdx e : ix.rows[li.firstRow + d].events)
        ivs.push_back({trace.tsNs[e], trace.tsNs[e] + std::max<int64_t>(0, trace.durNs[e])});
    if (li.rowCount > 1)
      std::sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    li.coverage = Coverage(std::move(ivs));
  }
  ix.firstNs = any ? first : trace.stats.firstTsNs;
  ix.lastNs = any ? last : trace.stats.lastEndNs;

  ix.devices.resize(trace.gpuBusy.size());
  for (size_t d = 0; d < trace.gpuBusy.size(); ++d) {
    ix.devices[d].pid = trace.gpuBusy[d].pid;
    const auto& busy = trace.gpuBusy[d].intervals;
    ix.devices[d].busy = Coverage({busy.begin(), busy.end()});
    for (uint32_t l = 0; l < trace.lanes.size(); ++l)
      if (trace.lanes[l].pid == trace.gpuBusy[d].pid && trace.lanes[l].gpu) ix.devices[d].lanes.push_back(l);
  }

  if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
  for (EventIdx i = 0; i < trace.size(); ++i) {
    if (trace.has(i, ev::HasCorr) && !trace.has(i, ev::CorrIsStr) && isDrawable(trace, i))
      ix.byCorrelation.emplace_back(trace.corr[i], i);
  }
  std::sort(ix.byCorrelation.begin(), ix.byCorrelation.end());
  return out;
}

}  // namespace steadyscope::timeline
