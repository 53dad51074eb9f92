#pragma once
// The model's derived parts, built once every event is in its columns:
// lanes (sorted, B/E pairs, depth: finalize_lanes.cpp), counts and simple
// anomalies (finalize_counts.cpp), links and flows (finalize_links.cpp) and
// the per-device GPU busy unions (finalize_gpu.cpp). finalize() (finalize.cpp)
// runs the lane stages on one thread and the others on the calling thread;
// the depth stage is shared by every thread the load has.
#include "io/event_parser.hpp"

#include <steadyscope/core/model/trace.hpp>
#include "model/column_fill.hpp"
#include "util/phase_timer.hpp"

#include <array>
#include <atomic>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace steadyscope::io {

using Anomalies = std::array<AnomalyCounter, A_Count>;

/// The loader's phase timer (STEADYSCOPE_LOAD_TIMING=1).
struct LoadTimer : PhaseTimer {
  LoadTimer() : PhaseTimer("STEADYSCOPE_LOAD_TIMING", "load") {}
};

inline void addAnomaly(Anomalies& a, AnomalyCode code, int64_t ev) {
  if (a[code].count++ == 0) a[code].first = ev;
}

/// Adds `src` (event indices offset by `base`) into `dst`, keeping the earliest first event.
void mergeAnomalies(Anomalies& dst, const Anomalies& src, int64_t base);

/// Builds the lanes, pairs B/E, computes depth and the derived members; the
/// anomalies are those of the parse, extended here. `threads` >= 1.
void finalize(Trace& tr, Anomalies& anomalies, unsigned threads);

/// An event in its lane's time-sorted list: it has a ts and is not metadata.
/// (The lane stage builds the lanes from this; the counting pass zeroes the
/// depth of the others.)
inline bool inLane(uint16_t flags, Ph ph) { return (flags & ev::HasTs) && ph != Ph::Metadata; }

// ---- lanes (finalize_lanes.cpp) ----

/// What B/E pairing found. The lane thread writes it; the other thread reads
/// only the durations of events with a written dur, which pairing never
/// changes, so the side-table entries and flag bits wait for the join.
struct PairResult {
  std::vector<EventIdx> pairedB;  // B events whose dur is now their pair's
  Column<uint8_t> paired;         // per event: a B with its E (empty when none)
  // Pair durations that do not fit the narrow storage (spans over ~2.1 s).
  std::unordered_map<EventIdx, int64_t> pairedWide;
  Anomalies anomalies{};
};

/// An event's duration during finalize: the narrow column, a pair's wide
/// duration, or the column's side table.
class DurReader {
 public:
  DurReader(const DurColumn& col, const PairResult& pairs)
      : narrow_(ColumnFill::narrow(col).data()), col_(col), pairs_(pairs) {}
  int64_t operator()(EventIdx i) const {
    const int32_t v = narrow_[i];
    return v != DurColumn::kWide ? v : wide(i);
  }

 private:
  int64_t wide(EventIdx i) const;  // rare; kept out of the sort's loop
  const int32_t* narrow_;
  const DurColumn& col_;
  const PairResult& pairs_;
};

/// Lane lists of the events with a ts, sorted by (ts, longer first, file order).
void buildLanes(Trace& tr, const DurReader& durOf);
/// Pairs B and E per lane (the stack discipline of the trace-event format) and
/// re-sorts the lanes whose B durations changed.
void pairBeginEnd(Trace& tr, PairResult& pairs, const DurReader& durOf);
/// Applies pairing's flag bits and wide durations (after the threads join).
void applyPairs(Trace& tr, PairResult& pairs);

/// Nesting depth per lane, shared: once the lanes are sorted and paired
/// (publish), every thread takes lanes, largest first, until none is left.
/// Each event of a lane gets its depth here; the counting pass writes 0 for
/// the events in no lane (no pre-zeroing pass).
class DepthQueue {
 public:
  void publish(const Trace& tr);
  void waitReady() const { ready_.wait(false, std::memory_order_acquire); }
  /// The lane stages failed: waiters go on, and find no lane to take.
  void abandon() {
    next_ = SIZE_MAX / 2;
    ready_.store(true, std::memory_order_release);
    ready_.notify_all();
  }
  void work(Trace& tr, const PairResult& pairs, const DurReader& durOf);

 private:
  std::vector<uint32_t> order_;
  std::atomic<bool> ready_{false};
  std::atomic<size_t> next_{0};
};

// ---- counts (finalize_counts.cpp) ----

/// Per-ph / per-cat counts, the span, the per-event anomalies and depth 0 for
/// the events in no lane.
void countEvents(Trace& tr, Anomalies& anomalies);

// ---- links and GPU intervals (finalize_links.cpp, finalize_gpu.cpp) ----

/// Correlation and flow ids seen. They are dense small integers in practice:
/// a flat array indexed by id, and hash sets only for ids outside [0, 4n + 2^20).
class LinkIds {
 public:
  explicit LinkIds(size_t events);
  void noteCpuCorrelation(int64_t id) {
    if (id >= 0 && id < denseLimit_)
      dense(id) |= kCpuCorr;
    else
      cpuCorrSparse_.insert(id);
  }
  void noteFlow(int64_t id, bool start) {
    const uint8_t bit = start ? kFlowStart : kFlowEnd;
    if (id >= 0 && id < denseLimit_)
      dense(id) |= bit;
    else
      flowSparse_[id] |= bit;
  }
  /// A correlation written as a JSON string (its StrId): compared as a string.
  void noteCpuStringCorrelation(int64_t strId) { cpuCorrStr_.insert(strId); }
  bool hasCpuCorrelation(int64_t id) const;
  bool hasCpuStringCorrelation(int64_t strId) const { return cpuCorrStr_.count(strId) > 0; }
  bool flowHasBothEnds(int64_t id) const;

 private:
  // One byte per id: bits 1/2 a flow start/end with that id, bit 4 a CPU
  // event with that correlation (one array, not two: fewer fresh pages).
  static constexpr uint8_t kFlowStart = 1, kFlowEnd = 2, kCpuCorr = 4;
  uint8_t& dense(int64_t id) {
    const auto k = static_cast<size_t>(id);
    if (k >= dense_.size())  // within the reserve; geometric, not one call per new id
      dense_.resize(std::min(static_cast<size_t>(denseLimit_), std::max(k + 1, dense_.size() * 2 + 4096)), 0);
    return dense_[k];
  }
  int64_t denseLimit_;
  Column<uint8_t> dense_;  // huge pages: up to 4n + 1 Mi bytes
  std::unordered_set<int64_t> cpuCorrSparse_;
  std::unordered_set<int64_t> cpuCorrStr_;
  std::unordered_map<int64_t, uint8_t> flowSparse_;
};

/// Kernel / memcpy / memset intervals per device (GPU pid); a lane's device
/// is looked up once.
class KernelIntervals {
 public:
  explicit KernelIntervals(const Trace& tr) : laneDevice_(tr.lanes.size(), nullptr) {}
  void add(const Trace& tr, uint32_t lane, int64_t ts, int64_t dur) {
    auto*& dev = laneDevice_[lane];
    if (!dev) {
      dev = &perDevice_[tr.lanes[lane].pid];
      dev->reserve(tr.stats.gpuEvents);  // address space only until written
    }
    dev->push_back({ts, ts + dur});
  }
  std::map<JsonKey, Column<Interval>>& perDevice() { return perDevice_; }

 private:
  std::map<JsonKey, Column<Interval>> perDevice_;
  std::vector<Column<Interval>*> laneDevice_;
};

/// One pass over the events: marks the GPU lanes and collects the kernel
/// intervals and the correlation / flow ids.
void collectIdsAndKernels(Trace& tr, LinkIds& ids, KernelIntervals& kernels);
/// Flows without a peer, GPU work without a correlation or a launch.
void flagLinkAnomalies(const Trace& tr, const LinkIds& ids, Anomalies& anomalies);
/// Trace::gpuBusy: the union of each device's intervals.
void buildGpuBusy(Trace& tr, KernelIntervals& kernels, LoadTimer& timer);

}  // namespace steadyscope::io
