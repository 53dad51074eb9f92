// Evidence about a chunk from its source trace (see chunk_evidence.hpp).
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include "analysis/chunks/extraction.hpp"
#include "analysis/roots/annotation.hpp"

#include <steadyscope/core/util/intervals.hpp>

#include <algorithm>

namespace steadyscope::analysis {

namespace {

bool isFlow(Ph ph) { return ph == Ph::FlowStart || ph == Ph::FlowEnd || ph == Ph::FlowStep; }

// The GPU work events (kernel / memcpy / memset) of a selection, without the
// trailing metadata block.
void gpuWorkOf(const EventIndex& index, const ChunkSelection& sel, EventList& out) {
  const Trace& t = index.trace();
  const size_t n = sel.events.size() >= index.metadata.size() ? sel.events.size() - index.metadata.size() : 0;
  for (size_t k = 0; k < n; ++k) {
    const EventIdx e = sel.events[k];
    if (isGpuKernelRole(index.role(e)) && !isFlow(t.ph[e])) out.push_back(e);
  }
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/// Per step: the same windows as the chunk's, one root at a time. Without
/// global tiles the splitter tiles the chunk's own roots; passing those tiles
/// keeps each root's window and the "last window" rule unchanged. Returns the
/// chunk's distinct GPU work events.
EventList measureSteps(const EventIndex& index, const RootList& roots, const std::vector<size_t>& rootNumbers,
                       const TileSet* tiles, const ExtractionOptions& extraction, const CorrGroupings& groups,
                       ChunkEvidence& ev) {
  const Trace& t = index.trace();
  TileSet own;
  const TileSet* perRootTiles = &chunkTiles(index, roots, tiles, own);
  EventList all, one;
  for (size_t k = 0; k < roots.size(); ++k) {
    one.clear();
    gpuWorkOf(index, selectChunk(index, roots.subset({k}), perRootTiles, extraction, &groups), one);
    StepWork w;
    w.root = k < rootNumbers.size() ? rootNumbers[k] : k;
    w.event = roots[k];
    w.gpuEvents = static_cast<int64_t>(one.size());
    for (EventIdx e : one) w.busyUs += t.durNs[e] > 0 ? index.durUs(e) : 0.0;
    w.gpuWork = one;
    if (!(w.busyUs > 0.0)) ev.emptyStepIndices.push_back(static_cast<int>(w.root));
    ev.steps.push_back(w);
    all.insert(all.end(), one.begin(), one.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

/// The union of the GPU work intervals (each event once) and the largest event.
void measureGpuWork(const EventIndex& index, const EventList& gpuWork, ChunkEvidence& ev) {
  const Trace& t = index.trace();
  std::vector<Interval> iv;
  iv.reserve(gpuWork.size());
  int64_t largestNs = -1;
  for (EventIdx e : gpuWork) {
    const int64_t d = t.durNs[e];
    if (d <= 0) continue;
    iv.push_back({t.tsNs[e], t.tsNs[e] + d});
    ev.kernelBusyUs += index.durUs(e);
    if (d > largestNs) {
      largestNs = d;
      ev.largestEvent = e;
    }
  }
  iv.resize(sortAndMerge(iv));
  ev.unionUs = static_cast<double>(totalLength(iv)) / 1000.0;
  if (ev.gpuDuration > 0) ev.unionBusyRatio = ev.unionUs / ev.gpuDuration;
  if (ev.largestEvent && ev.kernelBusyUs > 0) {
    ev.largestEventShare = index.durUs(*ev.largestEvent) / ev.kernelBusyUs;
    ev.largestEventName = std::string(t.nameOf(*ev.largestEvent));
  }
}

/// §3.9's transient inside the chunk: the chunk holds the trace's first root,
/// the trim kept it, and either its collective kernel was inflated or its
/// GPU busy time stands out against the chunk's other steps.
StartupTransient findTransient(const ChunkEvidence& ev, const std::vector<size_t>& rootNumbers,
                               const TransientContext& transient, double inflatedFactor) {
  StartupTransient out;
  const TrimInfo& tr = transient.trim;
  const auto it = std::find(rootNumbers.rbegin(), rootNumbers.rend(), *transient.firstRoot);
  const size_t pos = it == rootNumbers.rend() ? rootNumbers.size() : static_cast<size_t>(rootNumbers.rend() - it - 1);
  if (pos >= ev.steps.size() || tr.trimmed) return out;
  out.firstRoot = *transient.firstRoot;
  if (tr.ran && tr.collectiveRatio && *tr.collectiveRatio >= 5.0) {
    out.kind = StartupTransient::Kind::CollectiveKept;
    out.kernel = tr.kernel;
    out.collectiveRatio = *tr.collectiveRatio;
    out.noiseRatio = tr.noiseRatio;
    return out;
  }
  if (ev.steps.size() < 3) return out;
  std::vector<double> others;
  for (size_t k = 0; k < ev.steps.size(); ++k)
    if (k != pos) others.push_back(ev.steps[k].busyUs);
  out.medianBusyUs = medianOf(others);
  out.firstBusyUs = ev.steps[pos].busyUs;
  if (out.medianBusyUs > 0 && out.firstBusyUs >= inflatedFactor * out.medianBusyUs)
    out.kind = StartupTransient::Kind::InflatedFirstStep;
  return out;
}

}  // namespace

ChunkEvidence computeChunkEvidence(const EventIndex& index, const RootList& roots,
                                   const std::vector<size_t>& rootNumbers, const TileSet* tiles,
                                   const EvidenceOptions& options, const TransientContext& transient) {
  ChunkEvidence ev;
  // Only the ids this chunk can look up are grouped, as the split's plan does
  // (the index's full groupings cost a pass that builds every group).
  CorrKeySet keys;
  addChunkKeys(index, roots, tiles, keys);
  keys.finish();
  const CorrGroupings groups = index.groupingsFor(keys);
  // The chunk's statistics exactly as the splitter computes them (§4.4).
  const ChunkSelection whole = selectChunk(index, roots, tiles, options.extraction, &groups);
  ev.numGpuEvents = whole.stats.numGpuEvents;
  ev.gpuDuration = whole.stats.gpuDuration.asDouble();
  ev.gpuBusyDuration = whole.stats.gpuBusyDuration.asDouble();
  ev.hasSteps = true;
  measureGpuWork(index, measureSteps(index, roots, rootNumbers, tiles, options.extraction, groups, ev), ev);
  if (transient.firstRoot) {
    ev.transient = findTransient(ev, rootNumbers, transient, options.inflatedFirstStepFactor);
    ev.startupTransientInside = ev.transient.kind != StartupTransient::Kind::None;
  }
  return ev;
}

ExtractionOptions extractionOptionsOf(const SplitOptions& o) {
  ExtractionOptions x;
  x.dedupeGpuEvents = o.fixes.dedupeGpuEvents;
  x.gpuAnnotationsNotWork = o.fixes.gpuAnnotationsNotWork;
  x.flowsAc2gOnly = o.fixes.flowsAc2gOnly;
  return x;
}

EvidenceContext::EvidenceContext(const EventIndex& index, const SplitOptions& o)
    : index_(index), gapFill_(!o.noGapFill) {
  options_.extraction = extractionOptionsOf(o);
}

const Trace& EvidenceContext::trace() const { return index_.trace(); }

const ChunkEvidence& EvidenceContext::evidenceFor(const SplitResult& r, const ChunkPlan& c) {
  if (cachedFor_ != &r) {
    cache_.clear();
    cachedFor_ = &r;
  }
  for (const Cached& k : cache_)
    if (k.plan == &c && k.roots == c.roots) return k.evidence;
  cache_.push_back({&c, c.roots, compute(r, c)});
  return cache_.back().evidence;
}

ChunkEvidence EvidenceContext::compute(const SplitResult& r, const ChunkPlan& c) {
  if (c.wholeTrace || c.roots.empty()) {
    ChunkEvidence ev;
    ev.numGpuEvents = c.stats.numGpuEvents;
    ev.gpuDuration = c.stats.gpuDuration.asDouble();
    ev.gpuBusyDuration = c.stats.gpuBusyDuration.asDouble();
    return ev;
  }
  const RootList allRoots = rootListOf(r.roots);
  const bool gapFill = r.gapFill && gapFill_;
  if (gapFill && (tilesFor_ != &r || allRoots.events() != tileRoots_)) {
    tiles_ = buildTiles(index_, allRoots);
    tileRoots_ = allRoots.events();
    tilesFor_ = &r;
  }
  const RootList roots = rootListOf(r.roots, &c.roots);
  TransientContext tc;
  tc.trim = r.detection->trim;
  for (size_t k = 0; k < r.roots.size(); ++k)
    if (!isBookendRootName(r.roots[k].name)) {
      tc.firstRoot = k;
      break;
    }
  return computeChunkEvidence(index_, roots, c.roots, gapFill ? &tiles_ : nullptr, options_, tc);
}

}  // namespace steadyscope::analysis
