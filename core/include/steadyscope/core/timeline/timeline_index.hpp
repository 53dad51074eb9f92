#pragma once
// The timeline's precomputed index over an immutable Trace: one SliceRow per
// (lane, depth) with its events sorted by start and a prefix maximum of end
// times (so the first visible event is one binary search), per-lane and
// per-device coverage (merged busy intervals with prefix sums, plus a max-gap
// pyramid so long idle gaps are found in O(log n) at any zoom), and the
// correlation index used for launch <-> kernel links.
//
// Built once per trace, off the GUI thread (buildTimelineIndex polls an
// optional cancel flag), then shared read-only as
// std::shared_ptr<const TimelineIndex>.
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/intervals.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace steadyscope::timeline {

/// What a slice is, for colouring. Decided once per category.
enum class SliceKind : uint8_t {
  Kernel,
  Memcpy,
  Memset,
  GpuAnnotation,
  Annotation,
  CpuOp,
  Runtime,
  Python,
  Other,
};
SliceKind sliceKindOf(CatClass c);
const char* sliceKindName(SliceKind k);

/// Merged busy intervals with prefix sums: busy time inside any [a, b) in
/// O(log n), exact. `gapPyramid` level 0 holds the idle gap after interval k
/// (begin[k+1] - end[k]); level l+1 holds the max of pairs of level l. The
/// widget uses it to find idle gaps longer than a threshold inside one pixel
/// column, so gaps survive zooming out.
class Coverage {
 public:
  Coverage() = default;
  /// `intervals` must be sorted by begin; their union is taken here
  /// (util/intervals.hpp: overlapping and touching join, empty ones drop).
  explicit Coverage(std::vector<Interval> intervals);

  bool empty() const { return begin_.empty(); }
  size_t size() const { return begin_.size(); }
  int64_t totalBusy() const { return cum_.empty() ? 0 : cum_.back(); }
  int64_t firstNs() const { return begin_.empty() ? 0 : begin_.front(); }
  int64_t lastNs() const { return end_.empty() ? 0 : end_.back(); }
  /// Busy time in [a, b).
  int64_t busyIn(int64_t a, int64_t b) const;
  /// Longest idle gap lying entirely inside [a, b) (between two busy
  /// intervals); 0 if none.
  int64_t maxGapIn(int64_t a, int64_t b) const;
  std::span<const int64_t> begins() const { return begin_; }
  std::span<const int64_t> ends() const { return end_; }
  /// Busy time in (-inf, t), given k = number of intervals with begin < t.
  int64_t busyBeforeWithCount(int64_t t, size_t k) const;
  /// Max of the gaps with index in [lo, hi) (gap k follows interval k).
  int64_t maxGapRange(size_t lo, size_t hi) const;

 private:
  int64_t busyBefore(int64_t t) const;      // busy time in (-inf, t)
  std::vector<int64_t> begin_, end_, cum_;  // cum_[k] = busy of intervals 0..k
  std::vector<std::vector<int64_t>> gapPyramid_;
};

/// One (lane, depth) row of slices.
struct SliceRow {
  uint32_t lane = 0;
  uint16_t depth = 0;            // nesting level within its part of the lane
  bool gpuAnnotations = false;   // a row of GPU annotations, drawn above the kernels
  std::vector<EventIdx> events;  // sorted by (ts, file order)
  std::vector<int64_t> start;    // start[k] = ts of events[k] (contiguous: searches stay in cache)
  std::vector<int64_t> end;      // end[k] = ts + max(dur, 0) of events[k]
  std::vector<int64_t> maxEnd;   // maxEnd[k] = max end of events[0..k]

  /// First position whose event may overlap [t, ...): maxEnd > t (or ts >= t for instants).
  size_t firstOverlapping(int64_t t) const;
  /// First position whose start is >= t, searching from `from`.
  size_t firstStartingAtOrAfter(int64_t t, size_t from = 0) const;
};

struct LaneIndex {
  uint32_t lane = 0;
  uint32_t firstRow = 0;        // into TimelineIndex::rows
  uint32_t rowCount = 0;        // depth levels (maxDepth + 1, or 0 when empty)
  uint32_t annotationRows = 0;  // the first rows hold a GPU lane's annotations, apart from its kernels
  uint64_t sliceCount = 0;
  Coverage coverage;  // union of the lane's slices (depth 0 is enough: children nest)
};

struct DeviceIndex {
  JsonKey pid;
  Coverage busy;                // from Trace::gpuBusy
  std::vector<uint32_t> lanes;  // GPU lanes of this pid
};

struct TimelineIndex {
  std::vector<SliceRow> rows;
  std::vector<LaneIndex> lanes;      // parallel to Trace::lanes
  std::vector<DeviceIndex> devices;  // parallel to Trace::gpuBusy
  int64_t firstNs = 0, lastNs = 0;   // span of drawable slices
  uint64_t sliceCount = 0;
  /// (correlation, event) pairs of events with a numeric correlation, sorted.
  std::vector<std::pair<int64_t, EventIdx>> byCorrelation;
  std::vector<SliceKind> kindOfCat;  // per Trace::categories index

  SliceKind kindOf(const Trace& t, EventIdx i) const { return kindOfCat[t.cat[i]]; }
  /// Flow events (s, t, f) sorted by (lane, ts): what ties a slice to its flows.
  /// Launch -> kernel flows (ac2g) are left out: the correlation index has them.
  std::vector<EventIdx> flowsByLane;
  /// Flow events with a numeric id, as (id, event) sorted.
  std::vector<std::pair<int64_t, EventIdx>> flowsById;

  /// The other end of a launch <-> GPU activity link (same correlation; the
  /// GPU event for a CPU event and the CPU runtime call for a GPU event).
  std::optional<EventIdx> linkedEvent(const Trace& t, EventIdx i) const;
  /// The row an event is drawn in (a GPU lane's annotations and kernels have
  /// rows of their own, so the trace's depth is not enough), or nullopt.
  std::optional<uint32_t> rowOf(const Trace& t, EventIdx i) const;
  /// The deepest slice of `lane` enclosing time `ts` (or, failing that, the
  /// first one starting at or after it within `slackNs`), or nullopt.
  std::optional<EventIdx> sliceAt(const Trace& t, uint32_t lane, int64_t ts, int64_t slackNs = 0) const;
};

using TimelineIndexPtr = std::shared_ptr<const TimelineIndex>;

/// Is this event drawn as a slice (X, B, i)?
bool isDrawable(const Trace& t, EventIdx i);

/// Builds the index. Returns nullptr if `cancel` became true meanwhile.
TimelineIndexPtr buildTimelineIndex(const Trace& trace, const std::atomic<bool>* cancel = nullptr);

}  // namespace steadyscope::timeline
