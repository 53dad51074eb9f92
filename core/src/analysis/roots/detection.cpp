// Stage 1: roots from annotations, coverage audit, trim (spec §2.1–§2.5, §3.9).
#include "analysis/roots/detection.hpp"
#include <steadyscope/core/util/phase_timer.hpp>
#include <steadyscope/core/util/side_by_side.hpp>
#include <steadyscope/core/util/threads.hpp>
#include "analysis/pyfmt.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/roots/call_tree.hpp"
#include "analysis/roots/tree_tiers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <thread>
#include <unordered_map>
#include <utility>

namespace steadyscope::analysis {

const char* splitStatusName(SplitStatus s) {
  switch (s) {
    case SplitStatus::Splittable: return "SPLITTABLE";
    case SplitStatus::Degraded: return "DEGRADED";
    case SplitStatus::NotSplittable: return "NOT_SPLITTABLE";
  }
  return "?";
}

SplitStatus gradeCoverage(double c) {
  if (c >= kCoverageGate) return SplitStatus::Splittable;
  if (c >= kCoverageFloor) return SplitStatus::Degraded;
  return SplitStatus::NotSplittable;
}

namespace {

struct Span {
  double a, b;
};

/// Conservative margin (ns) around a span edge `us`: beyond it, comparing the
/// integer ns gives the same answer as the reference's float comparison.
int64_t edgeMarginNs(double us) {
  const double a = std::fabs(us);
  return static_cast<int64_t>(std::ceil((std::nextafter(a, INFINITY) - a) * 1000.0)) * 2 + 2;
}

// Marks (in `marked`, by EventIndex::gpuSlotOf) the correlation ids of correlated CPU
// events on `lane` with a <= ts < b and end <= b. Events clearly inside (in
// integer ns, away from the edges) skip the exact float test.
void markCorrelatedInside(const EventIndex& index, uint32_t lane, double a, double b, Column<uint8_t>& marked) {
  const Trace& t = index.trace();
  const int64_t aIn = static_cast<int64_t>(std::ceil(a * 1000.0)) + edgeMarginNs(a);
  const int64_t bIn = static_cast<int64_t>(std::floor(b * 1000.0)) - edgeMarginNs(b);
  index.forEachInLane(lane, a, b, [&](EventIdx e) {
    if (!index.isCorrelatedCpu(e)) return;
    const int64_t ts = t.tsNs[e], end = ts + t.durNs[e];
    const bool certain = !(t.flags[e] & (ev::TsInexact | ev::DurInexact)) && ts >= aIn && ts <= bIn && end <= bIn;
    if (!certain) {
      const double tsUs = index.tsUs(e);
      if (!(a <= tsUs && tsUs < b)) return;
      if (!(index.endPy(e).asDouble() <= b)) return;
    }
    if (auto s = index.gpuSlotOf(index.corrKey(e))) marked[*s] = 1;
  });
}

// The gpu_span strategy's merged spans, or nullopt when some instance has no
// matching gpu_user_annotation (matched by External id).
std::optional<Column<Span>> gpuSpans(const EventIndex& index, const RootList& instances) {
  const Trace& t = index.trace();
  if (instances.empty()) return std::nullopt;
  Column<std::pair<CorrKey, EventIdx>> byExt;  // sorted by key: one sort instead of a map of lists
  reserveFresh(byExt, index.gpuAnnotations.size());
  for (EventIdx g : index.gpuAnnotations)
    if (t.has(g, ev::HasExtId)) byExt.emplace_back(index.extKey(g), g);
  std::sort(byExt.begin(), byExt.end());
  Column<Span> spans;
  reserveFresh(spans, instances.size());
  for (EventIdx r : instances) {
    if (!t.has(r, ev::HasExtId)) return std::nullopt;
    const CorrKey k = index.extKey(r);
    auto lo =
        std::lower_bound(byExt.begin(), byExt.end(), k, [](const auto& p, const CorrKey& v) { return p.first < v; });
    if (lo == byExt.end() || !(lo->first == k)) return std::nullopt;
    for (; lo != byExt.end() && lo->first == k; ++lo)
      spans.push_back({index.tsUs(lo->second), index.endPy(lo->second).asDouble()});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.a < y.a; });
  Column<Span> merged;
  reserveFresh(merged, spans.size());
  for (const Span& s : spans) {
    if (!merged.empty() && s.a <= merged.back().b)
      merged.back().b = std::max(merged.back().b, s.b);
    else
      merged.push_back(s);
  }
  return merged;
}

bool inSpans(const Column<Span>& spans, double ts) {
  auto it = std::upper_bound(spans.begin(), spans.end(), ts, [](double v, const Span& s) { return v < s.a; });
  if (it == spans.begin()) return false;
  --it;
  return ts >= it->a && ts <= it->b;
}

// Per-instance attribution flags over index.kernels (1 = attributed).
Column<uint8_t> attributedKernels(const EventIndex& index, const RootList& instances, std::string* strategy) {
  const Trace& t = index.trace();
  Column<uint8_t> flags = zeroedFresh<uint8_t>(index.kernels.size());
  if (auto spans = gpuSpans(index, instances)) {
    *strategy = "gpu_span";
    // Decide in integer ns where the answer is certain (far enough from a span
    // edge for double rounding not to matter), else with the exact float test.
    struct NsSpan {
      int64_t lo, hi, innerLo, innerHi;
    };
    Column<NsSpan> ns;
    reserveFresh(ns, spans->size());
    for (const Span& sp : *spans) {
      const int64_t ma = edgeMarginNs(sp.a), mb = edgeMarginNs(sp.b);
      ns.push_back(
          {static_cast<int64_t>(std::floor(sp.a * 1000.0)) - ma, static_cast<int64_t>(std::ceil(sp.b * 1000.0)) + mb,
           static_cast<int64_t>(std::ceil(sp.a * 1000.0)) + ma, static_cast<int64_t>(std::floor(sp.b * 1000.0)) - mb});
    }
    const auto& tsNs = t.tsNs;
    // Kernels come nearly in time order: try the previous kernel's span and
    // its successor before a binary search.
    size_t hint = 0;
    auto lastAtOrBelow = [&](int64_t x) -> size_t {  // index + 1 of the last span with lo <= x, 0 if none
      const size_t m = ns.size();
      if (hint < m && ns[hint].lo <= x) {
        if (hint + 1 == m || x < ns[hint + 1].lo) return hint + 1;
        if (hint + 2 == m || x < ns[hint + 2].lo) return hint + 2;
      }
      return static_cast<size_t>(
          std::upper_bound(ns.begin(), ns.end(), x, [](int64_t v, const NsSpan& s2) { return v < s2.lo; }) -
          ns.begin());
    };
    for (size_t k = 0; k < index.kernels.size(); ++k) {
      const EventIdx e = index.kernels[k];
      const int64_t x = tsNs[e];
      // last span whose conservative lower bound is <= x
      const size_t pos = lastAtOrBelow(x);
      if (pos == 0) continue;
      hint = pos - 1;
      auto it = ns.begin() + static_cast<std::ptrdiff_t>(hint);
      if (x >= it->innerLo && x <= it->innerHi && !t.has(e, ev::TsInexact)) {
        flags[k] = 1;
      } else if (x <= it->hi || (it + 1 != ns.end() && x >= (it + 1)->lo)) {
        flags[k] = inSpans(*spans, index.tsUs(e));
      }
    }
    return flags;
  }
  *strategy = "correlation";
  Column<uint8_t> marked = zeroedFresh<uint8_t>(index.gpuSlotCount());
  for (size_t k = 0; k < instances.size(); ++k) {
    const EventIdx r = instances[k];
    markCorrelatedInside(index, t.lane[r], index.tsUs(r), instances.endPy(index, k).asDouble(), marked);
  }
  for (size_t k = 0; k < index.kernels.size(); ++k) {
    EventIdx e = index.kernels[k];
    if (!index.hasCorr(e)) continue;
    if (auto s = index.gpuSlotOf(index.corrKey(e))) flags[k] = marked[*s];
  }
  return flags;
}

// 0.0 + the durations of the flagged kernels, in kernel order. With every
// kernel flagged that is the same sequence of additions as the index's
// kernelDurSum (the usual case for the chosen roots).
double sumFlagged(const EventIndex& index, const Column<uint8_t>& flags) {
  if (std::all_of(flags.begin(), flags.end(), [](uint8_t f) { return f != 0; })) return index.kernelDurSum;
  double s = 0.0;
  for (size_t k = 0; k < flags.size(); ++k)
    if (flags[k]) s += index.durUs(index.kernels[k]);
  return s;
}

std::string rootFamily(const Trace& t, const RootList& roots) {
  std::vector<std::string> sk;
  std::vector<uint8_t> seen(t.strings.size(), 0);  // each distinct name once
  for (EventIdx r : roots) {
    if (seen[t.name[r]]) continue;
    seen[t.name[r]] = 1;
    sk.push_back(nameSkeleton(t.nameOf(r)));
  }
  std::sort(sk.begin(), sk.end());
  sk.erase(std::unique(sk.begin(), sk.end()), sk.end());
  std::string out;
  for (size_t i = 0; i < sk.size(); ++i) {
    if (i) out += ", ";
    out += sk[i];
  }
  return out;
}

void gradeCandidate(DetectionCandidate& c, bool knownTier) {
  const CoverageReport& cov = *c.coverage;
  if (cov.passes && (knownTier || c.roots.size() >= kMinRoots))
    c.status = SplitStatus::Splittable;
  else if (cov.coveredSelected >= kCoverageFloor)
    c.status = SplitStatus::Degraded;
  else
    c.status = SplitStatus::NotSplittable;
}

}  // namespace

Attribution attributeGpuTime(const EventIndex& index, const RootList& instances) {
  Attribution a;
  auto flags = attributedKernels(index, instances, &a.strategy);
  a.gpuTime = sumFlagged(index, flags);
  return a;
}

CoverageReport auditRoots(const EventIndex& index, const RootList& roots, unsigned threads) {
  const Trace& t = index.trace();
  CoverageReport rep;
  const double g = index.totalGpuTime().asDouble();
  rep.totalGpuUs = g;
  // Synthetic span per (pid, tid): first root's ts to the last root's end on that thread.
  std::map<uint32_t, std::pair<double, double>> perLane;
  for (size_t k = 0; k < roots.size(); ++k) {
    const EventIdx r = roots[k];
    const double end = roots.endPy(index, k).asDouble();
    auto [it, fresh] = perLane.emplace(t.lane[r], std::make_pair(index.tsUs(r), end));
    if (!fresh) it->second.second = end;  // the last root in list order on that thread
  }
  // The two attributions read the index only and write their own flags: run
  // them side by side (one pass over the kernels, one over the CPU lanes).
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  Column<uint8_t> marked = zeroedFresh<uint8_t>(index.gpuSlotCount());
  auto mark = [&] {
    PhaseTimer t2("STEADYSCOPE_SPLIT_TIMING", "split");
    for (const auto& [lane, span] : perLane) markCorrelatedInside(index, lane, span.first, span.second, marked);
    t2.mark("  audit: CPU marks");
  };
  // The span attribution and its sum need no marks: done while they are made.
  Column<uint8_t> flags;
  double spansSum = 0.0;
  auto spans = [&] {
    flags = attributedKernels(index, roots, &rep.strategy);
    spansSum = sumFlagged(index, flags);
    timer.mark("  audit: spans");
  };
  runSideBySide(threads, index.kernels.size() >= (size_t(1) << 16), mark, spans);
  timer.mark("  audit: join");
  // Selected = attributed by span or by a marked correlation id. When the
  // marks add no kernel, the selected sum is the span sum (same additions).
  bool extra = false;
  for (size_t k = 0; k < index.kernels.size(); ++k) {
    if (flags[k]) continue;
    const EventIdx e = index.kernels[k];
    if (index.hasCorr(e))
      if (auto s = index.gpuSlotOf(index.corrKey(e)); s && marked[*s]) {
        flags[k] = 2;  // selected by its correlation id only
        extra = true;
      }
  }
  double selectedSum = spansSum;
  if (extra) {
    selectedSum = 0.0;
    for (size_t k = 0; k < index.kernels.size(); ++k)
      if (flags[k]) selectedSum += index.durUs(index.kernels[k]);
  }
  timer.mark("  audit: sums");
  if (g > 0) {
    rep.coveredSpans = spansSum / g;
    rep.coveredSelected = selectedSum / g;
  }
  rep.spanShare = rep.coveredSelected > 0 ? std::min(1.0, rep.coveredSpans / rep.coveredSelected) : 0.0;
  rep.passes = rep.coveredSelected >= kCoverageGate && rep.spanShare >= kMinSpanShare;
  return rep;
}

std::optional<DetectionCandidate> detectKnownAnnotations(const EventIndex& index, unsigned threads) {
  const Trace& t = index.trace();
  DetectionCandidate c;
  c.method = "annotation:tier";
  c.phaseConfidence = "high";
  // The matchers are pure functions of the name: test each distinct name once.
  std::vector<uint8_t> memo(t.strings.size(), 0);  // by StrId: 0 untested, 1 no, 2 yes
  auto matching = [&](bool (*match)(std::string_view)) {
    std::fill(memo.begin(), memo.end(), uint8_t{0});
    for (EventIdx a : index.annotations) {
      uint8_t& m = memo[t.name[a]];
      if (!m) m = match(t.nameOf(a)) ? 2 : 1;
      if (m == 2) c.roots.push_back(a);
    }
  };
  matching(matchesDetailedPattern);
  c.tier = "detailed";
  if (c.roots.empty()) {
    c.tier = "native";
    matching(matchesNativePattern);
  }
  if (c.roots.empty()) return std::nullopt;
  c.coverage = auditRoots(index, c.roots, threads);
  gradeCandidate(c, true);
  c.diagnostics.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  c.diagnostics.set("root_family", JsonValue::string(rootFamily(t, c.roots)));
  c.diagnostics.set("root_family_known", JsonValue::boolean(true));
  c.diagnostics.set("suspiciously_few_roots", JsonValue::boolean(c.roots.size() < kMinRoots));
  return c;
}

std::optional<DetectionCandidate> detectUnknownFamilies(const EventIndex& index, unsigned threads) {
  const Trace& t = index.trace();
  std::vector<std::string> order;
  std::unordered_map<std::string, RootList> groups;
  for (EventIdx a : index.annotations) {
    std::string sk = nameSkeleton(t.nameOf(a));
    auto [it, fresh] = groups.try_emplace(sk);
    if (fresh) order.push_back(sk);
    it->second.push_back(a);
  }
  const std::string* best = nullptr;
  double bestTime = 0.0;
  for (const std::string& sk : order) {
    const auto& members = groups[sk];
    if (members.size() < kMinRoots) continue;
    double gt = attributeGpuTime(index, members).gpuTime;
    if (!(gt > 0)) continue;
    if (!best || gt > bestTime) {
      best = &sk;
      bestTime = gt;
    }
  }
  if (!best) return std::nullopt;
  DetectionCandidate c;
  c.method = "family:unknown_only";
  c.phaseConfidence = "unknown";
  c.roots = groups[*best];
  c.coverage = auditRoots(index, c.roots, threads);
  gradeCandidate(c, false);
  c.diagnostics.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  c.diagnostics.set("root_family", JsonValue::string(*best));
  c.diagnostics.set("root_family_known", JsonValue::boolean(false));
  c.diagnostics.set("suspiciously_few_roots", JsonValue::boolean(c.roots.size() < kMinRoots));
  return c;
}

namespace {

// The index's kernels (kernel / memcpy / memset) with their ts, in (ts,
// index) order: the kernels starting inside a span are one contiguous range,
// found by two binary searches.
class KernelsByTs {
 public:
  explicit KernelsByTs(const EventIndex& index);
  template <typename Fn>
  void forEachInRoot(const EventIndex& index, const RootList& roots, size_t k, Fn&& fn) const {
    const double a = index.tsUs(roots[k]), b = roots.endPy(index, k).asDouble();
    if (!(a < b)) return;
    auto before = [&](EventIdx x, double v) { return index.tsUs(x) < v; };
    const auto lo = std::lower_bound(kernels_.begin(), kernels_.end(), a, before);
    for (auto it = lo; it != kernels_.end() && index.tsUs(*it) < b; ++it) fn(*it);
  }

 private:
  // Event ids only, their ts read again where compared: a quarter of the fresh
  // memory of (ts, id) pairs, and this list is made beside the tree tiers.
  Column<EventIdx> kernels_;  // big: on huge pages, reused blocks
};

// Grouped by lane first: a stream's kernels are usually in ts order in the
// file already, so each group needs only a check, and the groups a merge.
KernelsByTs::KernelsByTs(const EventIndex& index) {
  const Trace& t = index.trace();
  std::vector<size_t> at(t.lanes.size() + 1, 0);
  for (EventIdx k : index.kernels) ++at[t.lane[k] + 1];
  for (size_t l = 1; l < at.size(); ++l) at[l] += at[l - 1];
  std::vector<size_t> runs;  // where each lane's kernels begin, and the end
  for (size_t l = 0; l + 1 < at.size(); ++l)
    if (at[l + 1] > at[l]) runs.push_back(at[l]);
  runs.push_back(index.kernels.size());
  Column<EventIdx> grouped(index.kernels.size());
  for (EventIdx k : index.kernels) grouped[at[t.lane[k]]++] = k;
  auto it = [](Column<EventIdx>& v, size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  auto less = [&index](EventIdx a, EventIdx b) {  // (ts, id); a NaN ts sorts last: it starts no span's kernel
    const double ta = index.tsUs(a), tb = index.tsUs(b);
    const bool na = std::isnan(ta), nb = std::isnan(tb);
    if (na || nb) return na != nb ? nb : a < b;
    return ta != tb ? ta < tb : a < b;
  };
  for (size_t r = 0; r + 1 < runs.size(); ++r)
    if (!std::is_sorted(it(grouped, runs[r]), it(grouped, runs[r + 1]), less))
      std::sort(it(grouped, runs[r]), it(grouped, runs[r + 1]), less);  // a strict order: no ties to keep
  // Neighbouring groups merged in place until one is left: a second list as
  // big as this one would be fresh memory, the merge's buffer is the smaller half.
  while (runs.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const size_t mid = runs[r + 1], end = r + 2 < runs.size() ? runs[r + 2] : mid;
      std::inplace_merge(it(grouped, runs[r]), it(grouped, mid), it(grouped, end), less);
      merged.push_back(end);
    }
    runs = std::move(merged);
  }
  kernels_ = std::move(grouped);
}

// KernelsByTs made ahead, on a thread of the idle class, while the cascade
// builds and searches the call tree: it fills the moments a core would
// otherwise idle (the build's shorter side, the links after it) instead of
// taking a core from the tree's two-thread passes. The startup-transient
// check, which needs it, runs only after the cascade. Made here instead when
// it was not started, or failed.
class KernelsAhead {
 public:
  explicit KernelsAhead(const EventIndex& index) : index_(index) {}
  KernelsAhead(const KernelsAhead&) = delete;
  KernelsAhead& operator=(const KernelsAhead&) = delete;
  ~KernelsAhead() {
    if (worker_.joinable()) worker_.join();
  }
  /// Starts the list on a helper thread when the check may need it and the trace is big.
  void start(unsigned threads) {
    if (worker_.joinable() || !index_.hasCollectives || !sideBySide(threads, index_.kernels.size() >= kBig)) return;
    worker_ = std::thread([this] {
      runThisThreadOnlyWhenIdle();
      try {
        aside_.emplace(index_);
      } catch (...) {  // e.g. out of memory: get() tries again on the caller's thread, where it may throw
        aside_.reset();
      }
    });
  }
  const KernelsByTs& get() {
    if (worker_.joinable()) worker_.join();
    if (!aside_) aside_.emplace(index_);
    return *aside_;
  }

 private:
  static constexpr size_t kBig = size_t(1) << 16;  // kernels: below, a thread costs more than it saves
  const EventIndex& index_;
  std::optional<KernelsByTs> aside_;
  std::thread worker_;
};

// Each name's total in roots [from, to), one entry per root that ran it, by
// its place in `pos` (names of root 0 only).
std::vector<std::vector<double>> laterTotals(const EventIndex& index, const KernelsByTs& kernels, const RootList& roots,
                                             const std::vector<uint32_t>& pos, size_t nNames, size_t from, size_t to) {
  const Trace& t = index.trace();
  std::vector<std::vector<double>> later(nNames);
  std::vector<double> tot(nNames);
  for (size_t r = from; r < to; ++r) {
    std::fill(tot.begin(), tot.end(), 0.0);
    kernels.forEachInRoot(index, roots, r, [&](EventIdx e) {
      if (const uint32_t p = pos[t.name[e]]; p != UINT32_MAX) tot[p] += index.durUs(e);
    });
    for (size_t k = 0; k < nNames; ++k)
      if (tot[k] > 0) later[k].push_back(tot[k]);
  }
  return later;
}

// The median as Python's statistics.median gives it; reorders `v`, which
// holds no NaN (totals above zero only).
double median(std::vector<double>& v) {
  const size_t m = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(m / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (m % 2) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2.0;
}

constexpr size_t kRootsForTwoHalves = 4096;  // below, a thread costs more than it saves

// Each kernel name's time in root 0 against its median over the later roots:
// the largest ratio of a collective (and its name) and of any other kernel.
void compareFirstRoot(const EventIndex& index, const RootList& roots, TrimInfo& info, KernelsAhead& ahead,
                      unsigned threads) {
  const Trace& t = index.trace();
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  const KernelsByTs& kernels = ahead.get();
  timer.mark("    trim: kernels");
  // first: per-name totals of root 0 in first-occurrence order.
  std::vector<StrId> names;
  std::vector<uint32_t> pos(t.strings.size(), UINT32_MAX);  // by name: index into names
  std::vector<double> first;
  kernels.forEachInRoot(index, roots, 0, [&](EventIdx e) {
    uint32_t& p = pos[t.name[e]];
    if (p == UINT32_MAX) {
      p = static_cast<uint32_t>(names.size());
      names.push_back(t.name[e]);
      first.push_back(0.0);
    }
    first[p] += index.durUs(e);
  });
  // Two halves of the roots side by side: a median does not care in which order its values came.
  const size_t mid = 1 + (roots.size() - 1) / 2;
  std::vector<std::vector<double>> later, second;
  runSideBySide(
      threads, roots.size() >= kRootsForTwoHalves,
      [&] { second = laterTotals(index, kernels, roots, pos, names.size(), mid, roots.size()); },
      [&] { later = laterTotals(index, kernels, roots, pos, names.size(), 1, mid); });
  for (size_t k = 0; k < names.size(); ++k) later[k].insert(later[k].end(), second[k].begin(), second[k].end());
  timer.mark("    trim: totals");
  for (size_t k = 0; k < names.size(); ++k) {
    auto& v = later[k];
    if (v.empty()) continue;
    const double med = median(v);
    const double ratio = first[k] / med;
    if (index.collectiveName[names[k]]) {
      if (!info.collectiveRatio || ratio > *info.collectiveRatio) {
        info.collectiveRatio = ratio;
        info.kernel = std::string(t.strings.view(names[k]));
      }
    } else if (ratio > info.noiseRatio) {
      info.noiseRatio = ratio;
    }
  }
}

TrimInfo trimWith(const EventIndex& index, DetectionCandidate& cand, const DetectionOptions& options,
                  KernelsAhead& kernels) {
  const Trace& t = index.trace();
  TrimInfo info;
  if (cand.roots.size() < 2 || cand.status == SplitStatus::NotSplittable || !index.hasCollectives) return info;
  if (isBookendRootName(cand.roots.name(t, 0))) return info;
  info.ran = true;
  compareFirstRoot(index, cand.roots, info, kernels, options.threads);
  info.trimmed = info.collectiveRatio && *info.collectiveRatio >= 5.0 &&
                 *info.collectiveRatio >= 5.0 * std::max(info.noiseRatio, 1.0);
  if (!info.trimmed) {
    cand.diagnostics.set("startup_transient_trimmed", JsonValue::boolean(false));
    return info;
  }
  info.before = cand.coverage;
  cand.roots.eraseFront();
  cand.coverage = auditRoots(index, cand.roots, options.threads);
  if (!options.trimKeepsStatus) cand.status = gradeCoverage(cand.coverage->coveredSelected);
  cand.diagnostics.set("startup_transient_trimmed", JsonValue::boolean(true));
  cand.diagnostics.set("startup_transient_kernel", JsonValue::string(info.kernel));
  cand.diagnostics.set("startup_transient_collective_ratio", JsonValue::real(pyRound(*info.collectiveRatio, 1)));
  cand.diagnostics.set("startup_transient_noise_ratio", JsonValue::real(pyRound(info.noiseRatio, 1)));
  return info;
}

}  // namespace

TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const DetectionOptions& options) {
  KernelsAhead kernels(index);
  return trimWith(index, cand, options, kernels);
}

double rankingCoverage(const DetectionCandidate& c) {
  if (c.coverage) return c.coverage->coveredSelected;
  return c.tree ? c.tree->coverage : 0.0;
}

namespace {

/// Records a cascade step; true when its candidate is SPLITTABLE (and chosen).
bool tryStep(Detection& d, const char* name, std::optional<DetectionCandidate> c) {
  CascadeStep step{name, std::nullopt};
  bool passed = false;
  if (c) {
    step.candidate = d.tried.size();
    passed = c->status == SplitStatus::Splittable;
    if (passed) {  // the diagnostics (a call-tree candidate's list a value per root) stay with the chosen one
      JsonValue diagnostics = std::exchange(c->diagnostics, JsonValue::object());
      d.chosen = *c;
      d.chosen.diagnostics = std::move(diagnostics);
    }
    d.tried.push_back(std::move(*c));
  }
  d.steps.push_back(std::move(step));
  return passed;
}

/// The first maximum of rankingCoverage among `tried` (optionally only the
/// candidates that are not NOT_SPLITTABLE), or null.
const DetectionCandidate* bestCovered(const std::vector<DetectionCandidate>& tried, bool usableOnly) {
  const DetectionCandidate* best = nullptr;
  for (const auto& c : tried) {
    if (usableOnly && c.status == SplitStatus::NotSplittable) continue;
    if (!best || rankingCoverage(c) > rankingCoverage(*best)) best = &c;
  }
  return best;
}

void chooseNone(Detection& d, const char* reason) {
  d.fallback = "none";
  d.chosen = DetectionCandidate{};
  d.chosen.method = "none";
  d.chosen.phaseConfidence = "unknown";
  d.chosen.status = SplitStatus::NotSplittable;
  d.reason = reason;
  d.chosen.diagnostics.set("reason", JsonValue::string(d.reason));
}

// Tiers 3-5 on the call tree; true when one of them is SPLITTABLE.
bool tryTreeTiers(const EventIndex& index, Detection& d, unsigned threads, KernelsAhead& kernels) {
  d.usedCallTree = true;
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  kernels.start(threads);  // at idle priority: the tree's own threads come first
  auto built = CallTree::build(index, threads);
  timer.mark("  tree: build");
  if (auto* why = std::get_if<std::string>(&built)) {
    d.treeFailure = *why;
    if (const DetectionCandidate* best = bestCovered(d.tried, false)) {
      d.fallback = "best annotation family";
      d.chosen = *best;
    } else {
      chooseNone(d, "tree build failed and no annotations");
    }
    return true;  // the cascade ends here
  }
  CallTree& tree = std::get<CallTree>(built);
  tree.reattachWorkerThreads();
  const std::vector<EventIdx>& entry = tree.entryRoots();
  timer.mark("  tree: reattach");
  const double g = index.totalGpuTime().asDouble();
  TreeNames names(index.trace());
  // Candidates move into the tried list (a call-tree one holds a span per root): the bookends read them there.
  auto branch = detectBranchDescent(tree, names, entry, g);
  timer.mark("  tree: branches");
  const std::optional<size_t> branchAt = branch ? std::optional(d.tried.size()) : std::nullopt;
  if (tryStep(d, "branch descent", std::move(branch))) return true;
  auto sibling = detectSiblingRoots(tree, names, entry, g);
  timer.mark("  tree: siblings");
  const std::optional<size_t> siblingAt = sibling ? std::optional(d.tried.size()) : std::nullopt;
  if (tryStep(d, "sibling roots", std::move(sibling))) return true;
  std::optional<DetectionCandidate> bookends;
  for (const std::optional<size_t>& at : {branchAt, siblingAt}) {
    if (!at || d.tried[*at].tree->coverage < kBookendFloor) continue;
    bookends = enhanceWithBookends(tree, d.tried[*at], g);
    if (bookends) {
      bookends->coverage = auditRoots(index, bookends->roots);
      break;
    }
  }
  return tryStep(d, "bookend enhancement", std::move(bookends));
}

}  // namespace

std::shared_ptr<const Detection> noDetection() {
  static const auto none = std::make_shared<const Detection>();
  return none;
}

Detection detectRoots(const EventIndex& index, const DetectionOptions& options) {
  Detection d;
  KernelsAhead kernels(index);
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  auto timed = [&](const char* what, bool passed) {
    timer.mark(what);
    return passed;
  };
  const bool done =
      timed("  known annotations", tryStep(d, "known annotations", detectKnownAnnotations(index, options.threads))) ||
      timed("  unknown families", tryStep(d, "unknown families", detectUnknownFamilies(index, options.threads))) ||
      tryTreeTiers(index, d, options.threads, kernels);
  if (!done) {
    if (const DetectionCandidate* usable = bestCovered(d.tried, true)) {
      d.fallback = "best usable";
      d.chosen = *usable;
    } else if (const DetectionCandidate* any = bestCovered(d.tried, false)) {
      d.fallback = "last resort";
      d.chosen = *any;
    } else {
      chooseNone(d, "no splittable annotations and no repeating call pattern");
    }
  }
  timer.mark("  tree tiers, fallback");
  d.trim = trimWith(index, d.chosen, options, kernels);
  timer.mark("  trim");
  return d;
}

}  // namespace steadyscope::analysis
