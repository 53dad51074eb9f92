#pragma once
// The splitter's single-pass event index (spec §1.4), built from an already
// loaded, immutable Trace. One linear pass over the columns; the events of
// correlation / flow ids are grouped on demand (a plan groups its chunks' ids
// only), with a counting sort when the ids are dense integers (the usual
// case), else with a sort. Range queries by time use the model's lanes, which
// are already sorted by ts, and then filter with the reference's exact
// (Python float) comparisons. Private to the core: the public types name it
// only by reference (Splitter::eventIndex, EvidenceContext).
#include <steadyscope/core/analysis/gpu_categories.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/pynum.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::analysis {

/// Category roles by exact category text (the reference compares strings).
enum class CatRole : uint8_t {
  Cpu,                // anything else
  UserAnnotation,     // "user_annotation"
  GpuUserAnnotation,  // "gpu_user_annotation"
  Kernel,             // "kernel"
  Memcpy,             // "gpu_memcpy"
  Memset,             // "gpu_memset"
};
inline bool isGpuKernelRole(CatRole r) { return r == CatRole::Kernel || r == CatRole::Memcpy || r == CatRole::Memset; }


/// A correlation id / flow id with Python equality (1 == 1.0, 1 != "1").
struct CorrKey {
  int64_t v = 0;
  uint8_t tag = 0;  // 0 int, 1 string (v = StrId), 2 non-integral real (v = loader's value)
  friend bool operator==(const CorrKey&, const CorrKey&) = default;
  friend bool operator<(const CorrKey& a, const CorrKey& b) { return a.tag != b.tag ? a.tag < b.tag : a.v < b.v; }
};

/// What a scan learnt about a group's keys before grouping them.
struct KeyRange {
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  size_t count = 0;
  bool allInt = true;
  void add(const CorrKey& k) {
    ++count;
    if (k.tag != 0) {
      allInt = false;
      return;
    }
    mn = k.v < mn ? k.v : mn;
    mx = k.v > mx ? k.v : mx;
  }
  /// Integers whose range [mn, mx] has at most perKey * count + slack ids.
  bool rangeWithin(double perKey, double slack) const {
    return count > 0 && allInt &&
           static_cast<double>(mx) - static_cast<double>(mn) + 1.0 <= static_cast<double>(count) * perKey + slack;
  }
  /// The range of both ranges' keys.
  KeyRange merged(const KeyRange& o) const {
    KeyRange r;
    r.mn = std::min(mn, o.mn);
    r.mx = std::max(mx, o.mx);
    r.count = count + o.count;
    r.allInt = allInt && o.allInt;
    return r;
  }
  /// Integers close enough together for arrays indexed by id - mn (a
  /// counting sort, per-id slots).
  bool dense() const { return rangeWithin(4.0, static_cast<double>(1 << 20)); }
};

/// corr key -> events (file order). Slots are dense small integers usable as
/// indices into per-key bitmaps.
class CorrGroups {
 public:
  /// Groups the events that forEach(fn) hands to fn (file order, the same
  /// events each call; `range` describes their keys) by key(e). forEach is
  /// called at most twice and key once per event per call; no list of the
  /// members is needed.
  template <typename ForEach, typename KeyFn>
  void build(const KeyRange& range, ForEach&& forEach, KeyFn&& key);
  std::optional<uint32_t> slotOf(const CorrKey& k) const {
    if (dense_) {  // the usual case, inline
      if (k.tag != 0 || k.v < min_) return std::nullopt;
      const auto s = static_cast<uint64_t>(k.v - min_);
      if (s + 1 >= offsets_.size() || offsets_[s] == offsets_[s + 1]) return std::nullopt;
      return static_cast<uint32_t>(s);
    }
    return slotOfSparse(k);
  }
  std::span<const EventIdx> eventsOfSlot(uint32_t slot) const {
    return {items_.data() + offsets_[slot], items_.data() + offsets_[slot + 1]};
  }
  std::span<const EventIdx> eventsOf(const CorrKey& k) const {
    auto s = slotOf(k);
    if (!s) return {};
    return eventsOfSlot(*s);
  }
  size_t slotCount() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  bool dense() const { return dense_; }

 private:
  std::optional<uint32_t> slotOfSparse(const CorrKey& k) const;
  void buildSparse(std::vector<std::pair<CorrKey, EventIdx>> pairs);
  bool dense_ = false;
  int64_t min_ = 0;            // dense: slot = v - min_
  std::vector<CorrKey> keys_;  // sparse: sorted distinct keys (slot = position)
  Column<uint32_t> offsets_;   // slot -> [offsets_[s], offsets_[s+1]) in items_
  EventList items_;
};

/// A set of correlation / flow ids (Python equality, as CorrKey). A bitmap
/// over the range when the ids are integers close together (the usual case),
/// else a sorted list.
class CorrKeySet {
 public:
  void add(const CorrKey& k) {
    keys_.push_back(k);
    range_.add(k);
  }
  /// Call once after the last add(), before contains().
  void finish();
  bool contains(const CorrKey& k) const {
    if (dense_) {
      if (k.tag != 0 || k.v < min_ || k.v > max_) return false;
      const auto s = static_cast<uint64_t>(k.v - min_);
      return (bits_[s >> 6] >> (s & 63)) & 1;
    }
    return containsSparse(k);
  }
  bool empty() const { return range_.count == 0; }
  /// Distinct keys after finish().
  size_t size() const { return size_; }

 private:
  bool containsSparse(const CorrKey& k) const;
  std::vector<CorrKey> keys_;  // as added; sorted and unique after finish() when sparse
  KeyRange range_;
  bool dense_ = false;
  int64_t min_ = 0, max_ = -1;
  std::vector<uint64_t> bits_;
  size_t size_ = 0;
};

/// The events of each correlation id: kernels and correlated GPU annotations
/// (gpu), flow events by their id (flows). Each list in file order.
struct CorrGroupings {
  CorrGroups gpu;
  CorrGroups flows;
};

struct EventIndexOptions {
  /// Fix for spec §8 B4: every ph "M" event is metadata (the reference keeps
  /// only events without ts).
  bool metadataAllM = false;
  /// Reads the 2021 Kineto category names as the newer ones
  /// (modernCategoryName): their kernels, copies and sets become GPU work.
  /// Off, as in the reference, they are ordinary CPU-side events.
  bool legacyCategories = false;
  /// Threads the index's passes may use (0: jobThreads()); 1 = all on the caller's thread.
  unsigned threads = 0;
};

class EventIndex {
 public:
  EventIndex(const Trace& trace, const EventIndexOptions& options = {});

  const Trace& trace() const { return *trace_; }

  // ---- lists (file order unless stated) ----
  EventList metadata;         // copied into every chunk
  EventList annotations;      // user_annotation with dur, no Input Dims; sorted by ts (stable)
  EventList gpuAnnotations;   // gpu_user_annotation with dur
  EventList kernels;          // kernel / gpu_memcpy / gpu_memset with ts and dur
  double kernelDurSum = 0.0;  // 0.0 + durUs(k0) + durUs(k1) + ... in list order (float sum)
  /// Every id's events, built on first use (thread-safe) and then kept:
  /// ~10 MB of fresh memory on a 2.4 M-event trace, which a plan does not
  /// need (it uses groupingsFor); for callers that look ids up freely.
  const CorrGroupings& groupings() const;
  /// The groupings restricted to `keys` (every event whose id is in the set,
  /// none other): one pass over the GPU events and one over the flow events,
  /// side by side on big traces.
  CorrGroupings groupingsFor(const CorrKeySet& keys) const;
  /// Threads the later passes (the groupings) may use, as EventIndexOptions::threads.
  void setThreads(unsigned threads) { threads_ = threads; }
  /// Dense per-id slots for marks over the GPU events' correlation ids
  /// (gpuSlotCount() of them): an id that no GPU event has may have a slot
  /// too, or none; an id that some GPU event has always has one.
  std::optional<uint32_t> gpuSlotOf(const CorrKey& k) const {
    if (gpuSlotsDense_) {
      if (k.tag != 0 || k.v < gpuKeys_.mn || k.v > gpuKeys_.mx) return std::nullopt;
      return static_cast<uint32_t>(k.v - gpuKeys_.mn);
    }
    return groupings().gpu.slotOf(k);
  }
  size_t gpuSlotCount() const {
    return gpuSlotsDense_ ? static_cast<size_t>(gpuKeys_.mx - gpuKeys_.mn + 1) : groupings().gpu.slotCount();
  }
  std::vector<bool> collectiveName;  // by StrId: kernel name has nccl / rccl / cross_device_reduce
  bool hasCollectives = false;
  uint64_t nGpuEventsInTrace = 0;  // every event with a kernel/memcpy/memset category
  bool noGpuWork = false;          // sum of kernel durations == 0
  /// Events whose category is a legacy GPU name (isLegacyGpuCategory):
  /// counted in nGpuEventsInTrace only with legacyCategories.
  uint64_t nLegacyGpuEvents = 0;
  /// Those legacy names as they occur in the trace ("Kernel, Memcpy, Memset").
  std::string legacyGpuNames;
  bool legacyCategories() const { return legacyCategories_; }

  // ---- per-event helpers ----
  CatRole role(EventIdx i) const { return roles_[trace_->cat[i]]; }
  /// The category as the splitter compares it: the text as written, or its
  /// newer name under legacyCategories (for checks by name such as "cpu_op").
  std::string_view category(EventIdx i) const {
    const std::string_view c = trace_->catOf(i);
    return legacyCategories_ ? modernCategoryName(c) : c;
  }
  bool hasTs(EventIdx i) const {
    const uint16_t f = trace_->flags[i];
    return (f & ev::HasTs) && !(f & ev::TsPresentNull);
  }
  bool hasDur(EventIdx i) const { return trace_->has(i, ev::HasDur); }
  bool hasCorr(EventIdx i) const { return trace_->has(i, ev::HasCorr); }
  CorrKey corrKey(EventIdx i) const {
    const uint16_t f = trace_->flags[i];
    CorrKey k;
    k.v = trace_->corr[i];
    k.tag = (f & ev::CorrIsStr) ? 1 : (f & ev::CorrIsReal) ? 2 : 0;
    return k;
  }
  bool hasExtId(EventIdx i) const { return trace_->has(i, ev::HasExtId); }
  /// args["External id"] with the same key semantics as corrKey.
  CorrKey extKey(EventIdx i) const {
    CorrKey k;
    k.v = trace_->extId[i];
    k.tag = trace_->has(i, ev::ExtIsStr) ? 1 : 0;
    return k;
  }
  double tsUs(EventIdx i) const { return trace_->tsUs(i); }
  double durUs(EventIdx i) const { return trace_->durUs(i); }
  PyNum tsPy(EventIdx i) const { return trace_->tsPy(i); }
  PyNum durPy(EventIdx i) const { return trace_->durPy(i); }
  PyNum endPy(EventIdx i) const { return tsPy(i) + durPy(i); }
  /// A CPU event for extraction (§4.1): ts and dur, category not GPU.
  bool isExtractionCpu(EventIdx i) const {
    const uint16_t f = trace_->flags[i];
    if (!(f & ev::HasTs) || (f & ev::TsPresentNull) || !(f & ev::HasDur)) return false;
    const CatRole r = role(i);
    return r == CatRole::Cpu || r == CatRole::UserAnnotation;
  }
  /// A "correlated CPU event" (§1.4 step 5).
  bool isCorrelatedCpu(EventIdx i) const {
    const uint16_t f = trace_->flags[i];
    if (!(f & ev::HasTs) || (f & ev::TsPresentNull) || !(f & ev::HasDur) || !(f & ev::HasCorr)) return false;
    const Ph ph = trace_->ph[i];
    if (ph == Ph::FlowStart || ph == Ph::FlowEnd) return false;
    return role(i) == CatRole::Cpu;
  }

  /// Calls fn(idx) for every event of lane `lane` whose ts may lie in
  /// [aUs, bUs] (a superset; the caller applies the exact test).
  template <typename Fn>
  void forEachInLane(uint32_t lane, double aUs, double bUs, Fn&& fn) const;
  /// `events` in (ts, index) order; each ts is converted once, not at every comparison.
  void sortByTime(EventList& events) const;

  /// Total GPU time G (§2.2), Python float / int semantics.
  PyNum totalGpuTime() const { return totalGpu_; }

 private:
  void assignRoles(bool legacy);
  void scan(const EventIndexOptions& options);
  struct ScanPart;
  /// Events [from, to) into `out`; sets their bits in flowBits.
  void scanRange(size_t from, size_t to, const EventIndexOptions& options, uint64_t* flowBits, ScanPart& out) const;
  void sumKernels();
  void sortAnnotations();
  std::pair<size_t, size_t> laneBounds(uint32_t lane, double aUs, double bUs) const;
  template <typename Fn>
  void forEachCorrelatedGpu(Fn&& fn) const;
  template <typename Fn>
  void forEachFlow(Fn&& fn) const;
  const Trace* trace_;
  unsigned threads_ = 0;
  bool legacyCategories_ = false;
  std::vector<CatRole> roles_;
  PyNum totalGpu_;
  KeyRange gpuKeys_, flowKeys_;  // what the scan saw of the ids
  bool gpuSlotsDense_ = false;
  Column<uint64_t> flowBits_;  // the flow events with an id, as a bitmap over the events
  mutable std::once_flag groupingsOnce_;
  mutable CorrGroupings groupings_;
};

/// What the split log says when the trace has legacy-named GPU events: that
/// the reference does not count them and which fix does, or (with the fix)
/// that they are counted. "" when there are none.
std::string legacyCategoryNote(const EventIndex& index);

template <typename ForEach, typename KeyFn>
void CorrGroups::build(const KeyRange& range, ForEach&& forEach, KeyFn&& key) {
  dense_ = false;
  keys_.clear();
  offsets_.clear();
  items_.clear();
  if (range.count == 0) return;
  const int64_t mn = range.mn, mx = range.mx;
  if (range.dense()) {
    // Counting sort, no temporary arrays (fresh memory is what costs here):
    // offsets_[s] serves as slot s's cursor and is shifted back afterwards.
    dense_ = true;
    min_ = mn;
    const auto nSlots = static_cast<size_t>(mx - mn + 1);
    offsets_.assign(nSlots + 1, 0);
    uint32_t* off = offsets_.data();
    forEach([&](EventIdx e) { ++off[static_cast<size_t>(key(e).v - mn) + 1]; });
    for (size_t s = 0; s < nSlots; ++s) off[s + 1] += off[s];
    items_.resize(off[nSlots]);
    EventIdx* items = items_.data();
    forEach([&](EventIdx e) { items[off[static_cast<size_t>(key(e).v - mn)]++] = e; });
    for (size_t s = nSlots; s > 0; --s) off[s] = off[s - 1];
    off[0] = 0;
    return;
  }
  std::vector<std::pair<CorrKey, EventIdx>> pairs;
  pairs.reserve(range.count);
  forEach([&](EventIdx e) { pairs.emplace_back(key(e), e); });
  buildSparse(std::move(pairs));
}

template <typename Fn>
void EventIndex::forEachInLane(uint32_t lane, double aUs, double bUs, Fn&& fn) const {
  auto [lo, hi] = laneBounds(lane, aUs, bUs);
  const auto& evs = trace_->lanes[lane].events;
  for (size_t k = lo; k < hi; ++k) fn(evs[k]);
}

}  // namespace steadyscope::analysis
