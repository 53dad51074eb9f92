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

namespace {
// Depth of each event among `events` (sorted by start, longer first): the
// number of enclosing slices still open, so kernels on a stream stay in one
// row once the annotations that overlap them have rows of their own.
std::vector<uint16_t> stackDepths(const Trace& trace, const std::vector<EventIdx>& events) {
  std::vector<uint16_t> out(events.size());
  std::vector<int64_t> open;  // ends of the enclosing slices
  for (size_t k = 0; k < events.size(); ++k) {
    const int64_t ts = trace.tsNs[events[k]];
    while (!open.empty() && open.back() <= ts) open.pop_back();
    out[k] = uint16_t(std::min<size_t>(open.size(), 0xFFFF));
    open.push_back(ts + std::max<int64_t>(0, trace.durNs[events[k]]));
  }
  return out;
}

struct LaneRows {
  std::vector<EventIdx> events;  // drawable, in lane order
  std::vector<uint32_t> row;     // row (relative to the lane's first) of each
  uint32_t rowCount = 0, annotationRows = 0;
};

LaneRows laneRows(const Trace& trace, const TimelineIndex& ix, const Lane& lane) {
  LaneRows r;
  bool annotations = false;
  for (EventIdx e : lane.events)
    if (isDrawable(trace, e)) {
      r.events.push_back(e);
      annotations = annotations || (lane.gpu && ix.kindOf(trace, e) == SliceKind::GpuAnnotation);
    }
  r.row.resize(r.events.size());
  if (!annotations) {
    for (size_t k = 0; k < r.events.size(); ++k) {
      r.row[k] = trace.depth.empty() ? 0 : trace.depth[r.events[k]];
      r.rowCount = std::max(r.rowCount, r.row[k] + 1);
    }
    return r;
  }
  // A GPU lane with annotations: annotations in the first rows, kernels below.
  std::vector<EventIdx> part[2];
  std::vector<size_t> pos[2];
  for (size_t k = 0; k < r.events.size(); ++k) {
    const int p = ix.kindOf(trace, r.events[k]) == SliceKind::GpuAnnotation ? 0 : 1;
    part[p].push_back(r.events[k]);
    pos[p].push_back(k);
  }
  uint32_t base = 0;
  for (int p = 0; p < 2; ++p) {
    const std::vector<uint16_t> d = stackDepths(trace, part[p]);
    uint32_t rows = 0;
    for (size_t k = 0; k < d.size(); ++k) {
      r.row[pos[p][k]] = base + d[k];
      rows = std::max<uint32_t>(rows, d[k] + 1u);
    }
    if (p == 0) r.annotationRows = rows;
    base += rows;
  }
  r.rowCount = base;
  return r;
}

void indexLane(const Trace& trace, TimelineIndex& ix, uint32_t l, int64_t& first, int64_t& last, bool& any) {
  LaneIndex& li = ix.lanes[l];
  li.lane = l;
  li.firstRow = uint32_t(ix.rows.size());
  const LaneRows lr = laneRows(trace, ix, trace.lanes[l]);
  if (lr.rowCount == 0) return;
  li.rowCount = lr.rowCount;
  li.annotationRows = lr.annotationRows;
  ix.rows.resize(ix.rows.size() + li.rowCount);
  for (uint32_t d = 0; d < li.rowCount; ++d) {
    SliceRow& row = ix.rows[li.firstRow + d];
    row.lane = l;
    row.gpuAnnotations = d < li.annotationRows;
    row.depth = uint16_t(d < li.annotationRows ? d : d - li.annotationRows);
  }
  std::vector<Interval> ivs;
  ivs.reserve(lr.events.size());
  for (size_t k = 0; k < lr.events.size(); ++k) {  // lane.events is sorted by ts already
    const EventIdx e = lr.events[k];
    SliceRow& row = ix.rows[li.firstRow + lr.row[k]];
    const int64_t end = trace.tsNs[e] + std::max<int64_t>(0, trace.durNs[e]);
    row.maxEnd.push_back(row.maxEnd.empty() ? end : std::max(row.maxEnd.back(), end));
    row.events.push_back(e);
    row.start.push_back(trace.tsNs[e]);
    row.end.push_back(end);
    ivs.push_back({trace.tsNs[e], end});
    if (!any || trace.tsNs[e] < first) first = trace.tsNs[e];
    if (!any || end > last) last = end;
    any = true;
  }
  li.sliceCount = lr.events.size();
  ix.sliceCount += li.sliceCount;
  li.coverage = Coverage(std::move(ivs));  // in start order: the union needs no sort
}

void indexFlows(const Trace& trace, TimelineIndex& ix) {
  for (EventIdx i = 0; i < trace.size(); ++i) {
    const Ph p = trace.ph[i];
    if (p != Ph::FlowStart && p != Ph::FlowStep && p != Ph::FlowEnd) continue;
    // Launch -> kernel flows repeat the correlation link (byCorrelation): not indexed twice.
    if (!trace.has(i, ev::HasTs) || trace.classOf(i) == CatClass::FlowAc2g) continue;
    ix.flowsByLane.push_back(i);
    if (trace.has(i, ev::HasId) && !trace.has(i, ev::CorrIsStr)) ix.flowsById.emplace_back(trace.corr[i], i);
  }
  std::sort(ix.flowsByLane.begin(), ix.flowsByLane.end(), [&](EventIdx a, EventIdx b) {
    if (trace.lane[a] != trace.lane[b]) return trace.lane[a] < trace.lane[b];
    return trace.tsNs[a] != trace.tsNs[b] ? trace.tsNs[a] < trace.tsNs[b] : a < b;
  });
  std::sort(ix.flowsById.begin(), ix.flowsById.end());
}
}  // namespace

std::optional<uint32_t> TimelineIndex::rowOf(const Trace& t, EventIdx e) const {
  if (e >= t.size() || t.lane[e] >= lanes.size()) return std::nullopt;
  const LaneIndex& li = lanes[t.lane[e]];
  const uint32_t guess = li.annotationRows ? 0 : (t.depth.empty() ? 0 : t.depth[e]);
  for (uint32_t k = 0; k < li.rowCount; ++k) {
    const uint32_t r = li.firstRow + (guess + k) % li.rowCount;  // the trace's depth first: right but for GPU lanes
    const SliceRow& row = rows[r];
    auto it = std::lower_bound(row.start.begin(), row.start.end(), t.tsNs[e]);
    for (size_t p = size_t(it - row.start.begin()); p < row.start.size() && row.start[p] == t.tsNs[e]; ++p)
      if (row.events[p] == e) return r;
  }
  return std::nullopt;
}

std::optional<EventIdx> TimelineIndex::sliceAt(const Trace& t, uint32_t lane, int64_t ts, int64_t slackNs) const {
  if (lane >= lanes.size()) return std::nullopt;
  const LaneIndex& li = lanes[lane];
  std::optional<EventIdx> next;
  int64_t nextTs = 0;
  for (uint32_t k = li.rowCount; k-- > 0;) {  // deepest first
    const SliceRow& row = rows[li.firstRow + k];
    const size_t p = size_t(std::upper_bound(row.start.begin(), row.start.end(), ts) - row.start.begin());
    for (size_t q = p, n = 0; q-- > 0 && row.maxEnd[q] >= ts && n++ < 64;)  // bounded: a click, not a scan
      if (row.end[q] > ts || row.start[q] == ts) return row.events[q];
    if (p < row.start.size() && row.start[p] - ts <= slackNs && (!next || row.start[p] < nextTs)) {
      next = row.events[p];
      nextTs = row.start[p];
    }
  }
  (void)t;
  return next;
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
    indexLane(trace, ix, l, first, last, any);
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
  indexFlows(trace, ix);
  return out;
}

}  // namespace steadyscope::timeline
