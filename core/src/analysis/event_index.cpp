// Single-pass event index (spec §1.4).
#include "analysis/event_index.hpp"
#include "util/bits.hpp"
#include "util/phase_timer.hpp"
#include "util/side_by_side.hpp"
#include "util/big_alloc.hpp"
#include "util/nearly_sorted.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <cctype>
#include <cmath>
#include <limits>
#include <thread>

namespace steadyscope::analysis {

void CorrGroups::buildSparse(std::vector<std::pair<CorrKey, EventIdx>> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  items_.reserve(pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (p == 0 || !(pairs[p].first == pairs[p - 1].first)) {
      keys_.push_back(pairs[p].first);
      offsets_.push_back(static_cast<uint32_t>(items_.size()));
    }
    items_.push_back(pairs[p].second);
  }
  offsets_.push_back(static_cast<uint32_t>(items_.size()));
}

std::optional<uint32_t> CorrGroups::slotOfSparse(const CorrKey& k) const {
  if (offsets_.empty()) return std::nullopt;
  auto it = std::lower_bound(keys_.begin(), keys_.end(), k);
  if (it == keys_.end() || !(*it == k)) return std::nullopt;
  return static_cast<uint32_t>(it - keys_.begin());
}

void CorrKeySet::finish() {
  // A bitmap when it is no bigger than ~16 bytes per key (and a few KiB at least).
  dense_ = range_.rangeWithin(128.0, 65536.0);
  if (dense_) {
    min_ = range_.mn;
    max_ = range_.mx;
    bits_.assign(static_cast<size_t>(max_ - min_) / 64 + 1, 0);
    size_ = 0;
    for (const CorrKey& k : keys_) {
      const auto s = static_cast<uint64_t>(k.v - min_);
      uint64_t& w = bits_[s >> 6];
      const uint64_t b = uint64_t(1) << (s & 63);
      size_ += (w & b) == 0;
      w |= b;
    }
    keys_.clear();
    keys_.shrink_to_fit();
    return;
  }
  std::sort(keys_.begin(), keys_.end());
  keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
  size_ = keys_.size();
}

bool CorrKeySet::containsSparse(const CorrKey& k) const { return std::binary_search(keys_.begin(), keys_.end(), k); }

bool isLegacyGpuCategory(std::string_view cat) { return cat == "Kernel" || cat == "Memcpy" || cat == "Memset"; }

std::string_view modernCategoryName(std::string_view cat) {
  if (cat == "Kernel") return "kernel";
  if (cat == "Memcpy") return "gpu_memcpy";
  if (cat == "Memset") return "gpu_memset";
  if (cat == "Runtime") return "cuda_runtime";
  if (cat == "Operator") return "cpu_op";
  return cat;
}

namespace {

// "9,096" (as timeline::formatCount; the analysis area does not link the timeline).
std::string groupedCount(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out.push_back(',');
    out.push_back(digits[k]);
  }
  return out;
}

bool containsCi(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() &&
           std::tolower(static_cast<unsigned char>(hay[i + j])) == static_cast<unsigned char>(needle[j]))
      ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// Traces from which the scan's helpers pay for a thread.
constexpr size_t kBigScan = size_t(1) << 18;
// Kernel counts from which the groupings' two halves do.
constexpr size_t kBigGrouping = size_t(1) << 16;

}  // namespace

EventIndex::EventIndex(const Trace& trace, const EventIndexOptions& options)
    : trace_(&trace), threads_(options.threads), legacyCategories_(options.legacyCategories) {
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  assignRoles(options.legacyCategories);
  scan(options);
  timer.mark("  index: scan");
  gpuSlotsDense_ = gpuKeys_.dense();
  // Two independent halves, one per core for big traces.
  runSideBySide(
      threads_, trace.size() >= kBigScan,
      [&] {
        PhaseTimer t2("STEADYSCOPE_SPLIT_TIMING", "split");
        sumKernels();
        t2.mark("  index: GPU sum+names");
      },
      [&] { sortAnnotations(); });
}

// Roles by exact category text, as the reference compares them. The legacy
// GPU names are counted here from the loader's per-category counts (the scan
// stays as it is) and, under the fix, read as their newer names. Runtime and
// Operator need no role of their own: like cuda_runtime and cpu_op they are
// CPU events (the call-tree tiers tell them apart by category()).
void EventIndex::assignRoles(bool legacy) {
  const Trace& trace = *trace_;
  roles_.resize(trace.categories.size(), CatRole::Cpu);
  for (const char* name : {"Kernel", "Memcpy", "Memset"}) {
    auto it = trace.stats.perCat.find(name);
    if (it == trace.stats.perCat.end() || it->second == 0) continue;
    nLegacyGpuEvents += it->second;
    legacyGpuNames += (legacyGpuNames.empty() ? "" : ", ") + std::string(name);
  }
  for (size_t c = 0; c < trace.categories.size(); ++c) {
    std::string_view t = trace.strings.view(trace.categories[c]);
    if (legacy) t = modernCategoryName(t);
    if (t == "user_annotation")
      roles_[c] = CatRole::UserAnnotation;
    else if (t == "gpu_user_annotation")
      roles_[c] = CatRole::GpuUserAnnotation;
    else if (t == "kernel")
      roles_[c] = CatRole::Kernel;
    else if (t == "gpu_memcpy")
      roles_[c] = CatRole::Memcpy;
    else if (t == "gpu_memset")
      roles_[c] = CatRole::Memset;
  }
}

/// What a range of the events adds to the index's lists and id ranges.
struct EventIndex::ScanPart {
  EventList metadata, annotations, gpuAnnotations, kernels;
  KeyRange gpuKeys, flowKeys;
  uint64_t nGpuEvents = 0;
};

void EventIndex::scanRange(size_t from, size_t to, const EventIndexOptions& options, uint64_t* flowBits,
                           ScanPart& out) const {
  const Trace& trace = *trace_;
  for (size_t k = from; k < to; ++k) {
    const auto i = static_cast<EventIdx>(k);
    const uint16_t f = trace.flags[i];
    const CatRole r = roles_[trace.cat[i]];
    if (isGpuKernelRole(r)) ++out.nGpuEvents;
    const bool noTs = !(f & ev::HasTs) || (f & ev::TsPresentNull);
    if (noTs || (options.metadataAllM && trace.ph[i] == Ph::Metadata)) {
      out.metadata.push_back(i);
      continue;
    }
    const Ph ph = trace.ph[i];
    if (ph == Ph::FlowStart || ph == Ph::FlowEnd) {
      if (f & ev::HasId) {
        flowBits[k >> 6] |= uint64_t(1) << (k & 63);
        out.flowKeys.add(corrKey(i));
      }
      continue;
    }
    if (!(f & ev::HasDur)) continue;
    if (r == CatRole::UserAnnotation) {
      if (!(f & ev::HasInputDims)) out.annotations.push_back(i);
      continue;
    }
    if (r == CatRole::GpuUserAnnotation) {
      out.gpuAnnotations.push_back(i);
      if (f & ev::HasCorr) out.gpuKeys.add(corrKey(i));
    } else if (isGpuKernelRole(r)) {
      out.kernels.push_back(i);
      if (f & ev::HasCorr) out.gpuKeys.add(corrKey(i));
    }
  }
}

void EventIndex::scan(const EventIndexOptions& options) {
  const Trace& trace = *trace_;
  const size_t n = trace.size();
  // The id groupings are not built here (a plan needs the ids of its chunks
  // only: groupingsFor). The scan records the ids' ranges and the flow
  // events as a bitmap over the events; the groupings then walk the kernel
  // and GPU-annotation lists or the bitmap. Big traces are scanned in two
  // halves side by side, the second half's lists appended to the first's.
  flowBits_ = zeroedFresh<uint64_t>((n + 63) / 64);
  const bool halves = sideBySide(threads_, n >= kBigScan);
  const size_t mid = halves ? (n / 2) & ~size_t(63) : n;
  ScanPart first, second;
  reserveFresh(first.kernels, trace.stats.gpuEvents + 1024);  // room for both halves' kernels
  if (halves) reserveFresh(second.kernels, trace.stats.gpuEvents + 1024);  // touched only as far as it fills
  uint64_t* flowBits = flowBits_.data();  // each half writes its own words: mid is a multiple of 64
  runSideBySide(
      threads_, halves, [&] { scanRange(mid, n, options, flowBits, second); },
      [&] { scanRange(0, mid, options, flowBits, first); });
  auto append = [](EventList& to, const EventList& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(first.metadata, second.metadata);
  append(first.annotations, second.annotations);
  append(first.gpuAnnotations, second.gpuAnnotations);
  append(first.kernels, second.kernels);
  metadata = std::move(first.metadata);
  annotations = std::move(first.annotations);
  gpuAnnotations = std::move(first.gpuAnnotations);
  kernels = std::move(first.kernels);
  gpuKeys_ = first.gpuKeys.merged(second.gpuKeys);
  flowKeys_ = first.flowKeys.merged(second.flowKeys);
  nGpuEventsInTrace = first.nGpuEvents + second.nGpuEvents;
}

// One pass over the kernels: the total GPU time (Python sum) and the
// no-GPU-work check, the plain float sum (the coverage sums when every kernel
// is attributed) and the collective kernel names (by name id; each distinct
// name is tested once).
void EventIndex::sumKernels() {
  const Trace& trace = *trace_;
  PyNum total = PyNum::fromInt(0);
  double floatSum = 0.0;
  collectiveName.assign(trace.strings.size(), false);
  std::vector<uint8_t> tested(trace.strings.size(), 0);
  for (EventIdx i : kernels) {
    total = total + trace.durPy(i);
    floatSum += trace.durUs(i);
    const StrId s = trace.name[i];
    if (tested[s]) continue;
    tested[s] = 1;
    std::string_view nm = trace.strings.view(s);
    if (containsCi(nm, "nccl") || containsCi(nm, "rccl") || containsCi(nm, "cross_device_reduce")) {
      collectiveName[s] = true;
      hasCollectives = true;
    }
  }
  totalGpu_ = total;
  kernelDurSum = floatSum;
  noGpuWork = total.isInt ? total.i == 0 : total.d == 0.0;
}

void EventIndex::sortByTime(EventList& events) const {
  // The lists sorted here are in order already or a few ordered runs (a
  // window's lanes, the threads' roots): merged run by run, where a whole
  // sort degraded to a heap sort.
  Column<std::pair<double, EventIdx>> byTime(events.size()), aside;
  for (size_t i = 0; i < events.size(); ++i) byTime[i] = {tsUs(events[i]), events[i]};
  sortNearlySorted(byTime, std::less<>{}, aside);
  for (size_t i = 0; i < events.size(); ++i) events[i] = byTime[i].second;
}

void EventIndex::sortAnnotations() {
  const Trace& trace = *trace_;
  auto byTs = [&](EventIdx x, EventIdx y) { return trace.tsUs(x) < trace.tsUs(y); };
  if (!std::is_sorted(annotations.begin(), annotations.end(), byTs))  // usually already in ts order
    std::stable_sort(annotations.begin(), annotations.end(), byTs);
}

template <typename Fn>
void EventIndex::forEachCorrelatedGpu(Fn&& fn) const {
  // Kernels and GPU annotations with a correlation, merged back into file order.
  const uint16_t* flags = trace_->flags.data();
  size_t a = 0, b = 0;
  const size_t na = gpuAnnotations.size(), nb = kernels.size();
  while (a < na || b < nb) {
    const EventIdx e = (b == nb || (a < na && gpuAnnotations[a] < kernels[b])) ? gpuAnnotations[a++] : kernels[b++];
    if (flags[e] & ev::HasCorr) fn(e);
  }
}

template <typename Fn>
void EventIndex::forEachFlow(Fn&& fn) const {
  forEachSetBit(flowBits_, fn);
}

const CorrGroupings& EventIndex::groupings() const {
  std::call_once(groupingsOnce_, [this] {
    auto key = [this](EventIdx e) { return corrKey(e); };
    runSideBySide(
        threads_, kernels.size() >= kBigGrouping,
        [&] {
          groupings_.flows.build(
              flowKeys_, [&](auto&& fn) { forEachFlow(fn); }, key);
        },
        [&] {
          groupings_.gpu.build(
              gpuKeys_, [&](auto&& fn) { forEachCorrelatedGpu(fn); }, key);
        });
  });
  return groupings_;
}

CorrGroupings EventIndex::groupingsFor(const CorrKeySet& keys) const {
  CorrGroupings g;
  if (keys.empty()) return g;
  auto key = [this](EventIdx e) { return corrKey(e); };
  // The members first (few, usually: a plan's chunks are a small part of
  // the trace), then a grouping of those alone.
  auto restricted = [&](CorrGroups& out, auto&& forEachAll) {
    EventList members;
    KeyRange range;
    forEachAll([&](EventIdx e) {
      const CorrKey k = key(e);
      if (!keys.contains(k)) return;
      members.push_back(e);
      range.add(k);
    });
    out.build(
        range,
        [&](auto&& fn) {
          for (EventIdx e : members) fn(e);
        },
        key);
  };
  runSideBySide(
      threads_, kernels.size() >= kBigGrouping, [&] { restricted(g.flows, [&](auto&& fn) { forEachFlow(fn); }); },
      [&] { restricted(g.gpu, [&](auto&& fn) { forEachCorrelatedGpu(fn); }); });
  return g;
}

std::string legacyCategoryNote(const EventIndex& index) {
  const uint64_t n = index.nLegacyGpuEvents;
  if (n == 0) return {};
  const char* events = n == 1 ? "event" : "events";
  if (index.legacyCategories())
    return fmt::format("Counting {} GPU {} with legacy category names ({}) as GPU work (--fix legacy-categories).",
                       groupedCount(n), events, index.legacyGpuNames);
  return fmt::format(
      "{} GPU {} {} legacy category names ({}) that the reference does not count; "
      "--fix legacy-categories counts them.",
      groupedCount(n), events, n == 1 ? "uses" : "use", index.legacyGpuNames);
}

std::string legacyCategoryCount(uint64_t nLegacyGpuEvents) {
  if (nLegacyGpuEvents == 0) return {};
  return fmt::format("{} GPU {} the 2021 category names (Kernel, Memcpy, Memset), which the reference does not count",
                     groupedCount(nLegacyGpuEvents), nLegacyGpuEvents == 1 ? "event uses" : "events use");
}

std::string legacyCategoryHint(uint64_t nLegacyGpuEvents) {
  if (nLegacyGpuEvents == 0) return {};
  return legacyCategoryCount(nLegacyGpuEvents) + "; `steadyscope-cli split --fix legacy-categories` counts them.";
}

std::pair<size_t, size_t> EventIndex::laneBounds(uint32_t lane, double aUs, double bUs) const {
  const auto& evs = trace_->lanes[lane].events;
  auto margin = [](double us) {
    double ulp = std::nextafter(std::fabs(us), INFINITY) - std::fabs(us);
    return static_cast<int64_t>(std::ceil(ulp * 1000.0)) * 2 + 2;
  };
  const auto aNs = static_cast<int64_t>(std::floor(aUs * 1000.0)) - margin(aUs);
  const auto bNs = static_cast<int64_t>(std::ceil(bUs * 1000.0)) + margin(bUs);
  const auto& ts = trace_->tsNs;
  auto lo = std::lower_bound(evs.begin(), evs.end(), aNs, [&](EventIdx e, int64_t v) { return ts[e] < v; });
  auto hi = std::upper_bound(lo, evs.end(), bNs, [&](int64_t v, EventIdx e) { return v < ts[e]; });
  return {static_cast<size_t>(lo - evs.begin()), static_cast<size_t>(hi - evs.begin())};
}

}  // namespace steadyscope::analysis
