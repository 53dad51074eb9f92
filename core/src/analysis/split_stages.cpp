// The roots stage of Splitter::plan: one RootInfo per detected root.
#include "analysis/split_stages.hpp"
#include "analysis/roots/annotation.hpp"
#include "util/big_alloc.hpp"
#include "model/column_fill.hpp"

#include <fmt/format.h>

namespace steadyscope::analysis {

void describeRoots(const EventIndex& index, const RootList& roots, Column<RootInfo>& out) {
  const Trace& t = index.trace();
  // parseAnnotation is a pure function of the name: parse each distinct name
  // once (stepOfName: the first root with that name; no second list).
  std::vector<uint32_t> stepOfName(t.strings.size(), UINT32_MAX);
  const size_t base = out.size();
  // Roots lie ~100 events apart: each one's columns are cache misses. Ask
  // for those of a root a few iterations ahead while this one is described.
  constexpr size_t kAhead = 8;
  auto prefetch = [&](size_t k) {
    if (k >= roots.size()) return;
    const EventIdx a = roots[k];
    __builtin_prefetch(&t.flags[a]);
    __builtin_prefetch(&t.tsNs[a]);
    __builtin_prefetch(ColumnFill::narrow(t.durNs).data() + a);
    __builtin_prefetch(ColumnFill::narrow(t.name).data() + a);
  };
  for (size_t k = 0; k < kAhead; ++k) prefetch(k);
  for (size_t k = 0; k < roots.size(); ++k) {
    prefetch(k + kAhead);
    const EventIdx e = roots[k];
    RootInfo ri;
    ri.event = e;
    ri.name = roots.name(t, k);
    ri.tsUs = index.tsUs(e);
    ri.dur = roots.dur(index, k);
    ri.durUs = roots.durUs(index, k);
    // A call-tree root may carry another name than its event's: parse it.
    uint32_t& s = stepOfName[t.name[e]];
    if (roots.hasSpans()) {
      ri.step = parseAnnotation(ri.name);
    } else if (s == UINT32_MAX) {
      s = static_cast<uint32_t>(k);
      ri.step = parseAnnotation(ri.name);
    } else {
      ri.step = out[base + s].step;
    }
    out.push_back(std::move(ri));
  }
}

void prefaultRootList(size_t maxRoots) { bigmem::prefault(maxRoots * sizeof(RootInfo)); }

void logDetection(SplitResult& r) {
  const DetectionCandidate& det = r.detection->chosen;
  if (det.coverage) {
    const auto& c = *det.coverage;
    r.log.push_back(fmt::format("Detection: {} -> {} roots, status={}, phase_confidence={}", det.method,
                                det.roots.size(), splitStatusName(det.status), det.phaseConfidence));
    r.log.push_back(fmt::format("GPU coverage ({}): {:.1f}% by the selected roots, {:.1f}% of that inside their spans",
                                c.strategy, c.coveredSelected * 100, c.spanShare * 100));
  }
  if (r.detection->trim.trimmed)
    r.log.push_back(fmt::format("Startup transient: iteration 0 trimmed ({} x{:.1f})", r.detection->trim.kernel,
                                *r.detection->trim.collectiveRatio));
}

}  // namespace steadyscope::analysis
