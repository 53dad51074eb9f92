// The GPU coverage audit of a root list (spec §2.2): the gpu_span and correlation attributions, side by side.
#include "analysis/roots/coverage.hpp"

#include "util/phase_timer.hpp"
#include "util/side_by_side.hpp"
#include "util/big_alloc.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

}  // namespace steadyscope::analysis
