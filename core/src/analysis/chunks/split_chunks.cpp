// The chunk groups and chunks stages of Splitter::plan: every pending chunk
// made (events, statistics, steps), named and filed in order (spec §4.2–§4.7).
#include <steadyscope/core/util/paths.hpp>
#include "analysis/chunks/extraction.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/split_stages.hpp"

#include <fmt/format.h>

#include <unordered_set>

namespace steadyscope::analysis {

const char* chunkKindName(ChunkKind k) {
  switch (k) {
    case ChunkKind::Iteration: return "iteration";
    case ChunkKind::Range: return "range";
    case ChunkKind::Phase: return "phase";
    case ChunkKind::SteadyState: return "steady_state";
  }
  return "?";
}

namespace {

double busyRatioOf(const ChunkStats& s) {
  const double gd = s.gpuDuration.asDouble();
  return gd != 0.0 ? s.gpuBusyDuration.asDouble() / gd : 0.0;
}

Tile tileOf(const EventIndex& index, const RootInfo& ri) {
  return ri.tile ? *ri.tile : Tile{index.tsPy(ri.event), index.tsPy(ri.event) + ri.dur};
}

std::string iterationFileName(const SplitResult& r, const PendingChunk& p) {
  const std::string_view nm = r.roots[p.roots.front()].name;
  if (isBookendRootName(nm)) return names::bookendChunkFileName(r.baseName, nm);
  if (matchesKnownPattern(nm)) return names::iterationChunkFileName(r.baseName, p.first, sanitizeRootName(nm));
  return names::iterationChunkFileName(r.baseName, p.first);
}

std::string phaseFileName(const SplitResult& r, const PendingChunk& p, const ChunkPlan& c) {
  // The name's bs / conc are those of the roots' own steps, before the batch-size override.
  std::vector<StepDetails> raw;
  for (size_t k : c.roots) raw.push_back(r.roots[k].step);
  const PhaseSummary ps = summarizePhase(raw.begin(), raw.end());
  return names::phaseChunkFileName(p.folder, p.number, c.roots.size(), ps.avgBs, ps.avgConc, phaseSuffix(c.phase),
                                   r.baseName);
}

// An explicit range's chunk also carries its roots' enclosing call-tree
// frames, each once. The reference appends its tree's copies of them even
// when the event itself is already selected, so they are appended here too.
void appendAncestors(const RootList& detected, const std::vector<size_t>& roots, EventList& events) {
  std::unordered_set<EventIdx> seen;
  for (size_t k : roots)
    for (EventIdx a : detected.ancestors(k)) {
      if (!seen.insert(a).second) break;  // the rest of this chain is in already
      events.push_back(a);
    }
}

}  // namespace

CorrGroupings chunkGroupings(const EventIndex& index, const Column<RootInfo>& roots, const TileSet* tiles,
                             const std::vector<PendingChunk>& pending) {
  CorrKeySet keys;
  for (const PendingChunk& p : pending)
    if (!p.wholeTrace) addChunkKeys(index, rootListOf(roots, &p.roots), tiles, keys);
  keys.finish();
  return index.groupingsFor(keys);
}

ChunkInputs chunkInputs(const EventIndex& index, const SplitResult& r, const TileSet* tiles, const SplitFixes& fixes) {
  ChunkInputs in{index, r.roots, r.detection->chosen.roots, tiles, {}, !fixes.noBatchOverride};
  in.extraction.dedupeGpuEvents = fixes.dedupeGpuEvents;
  in.extraction.gpuAnnotationsNotWork = fixes.gpuAnnotationsNotWork;
  in.extraction.flowsAc2gOnly = fixes.flowsAc2gOnly;
  return in;
}

ChunkPlan makeChunk(const ChunkInputs& in, const PendingChunk& p, const CorrGroupings* groups,
                    std::vector<std::string>& warnings) {
  ChunkPlan c;
  c.roots = p.roots;
  if (p.wholeTrace) {
    c.wholeTrace = true;
    c.stats.eventCount = static_cast<int64_t>(in.index.trace().size());
    return c;
  }
  ChunkSelection sel = selectChunk(in.index, rootListOf(in.roots, &p.roots), in.tiles, in.extraction, groups);
  c.events = std::move(sel.events);
  if (p.kind == ChunkKind::Range) appendAncestors(in.detected, p.roots, c.events);
  c.stats = sel.stats;
  c.stats.eventCount = static_cast<int64_t>(c.events.size());
  c.steps.reserve(p.roots.size());
  for (size_t k : p.roots) c.steps.push_back(in.roots[k].step);
  if (p.structured && in.batchOverride) {
    EventText text(in.index.trace());
    std::vector<int64_t> vals = batchOverrideValues(in.index, c.events, text);
    if (!text.error().empty()) warnings.push_back("batch sizes from Input Dims not read: " + text.error());
    if (!vals.empty() && vals.size() == c.steps.size())
      for (size_t k = 0; k < vals.size(); ++k) c.steps[k].batchSize = vals[k];
  }
  c.phase = summarizePhase(c.steps.begin(), c.steps.end());
  c.busyRatio = busyRatioOf(c.stats);
  return c;
}

void nameChunk(const PendingChunk& p, const SplitResult& r, ChunkPlan& c) {
  c.kind = p.kind;
  c.idx = JsonValue::integer(0);
  switch (p.kind) {
    case ChunkKind::Iteration:
      c.idx = JsonValue::integer(p.first);
      c.fileName = iterationFileName(r, p);
      break;
    case ChunkKind::Range:  // no steps in its details (§4.9)
      c.hasSteps = false;
      c.steps.clear();
      c.idx = JsonValue::string(fmt::format("{}:{}", p.first, p.last));
      c.fileName = names::rangeChunkFileName(r.baseName, p.first, p.last);
      break;
    case ChunkKind::Phase: c.fileName = phaseFileName(r, p, c); break;
    case ChunkKind::SteadyState: c.fileName = names::steadyChunkFileName(p.mode, phaseSuffix(c.phase), r.baseName);
  }
}

void fileChunks(SplitResult& r, const ChunkInputs& in, const std::vector<PendingChunk>& pending,
                const CorrGroupings* groups) {
  for (const PendingChunk& p : pending) {
    ChunkPlan c = makeChunk(in, p, groups, r.warnings);
    nameChunk(p, r, c);
    if (p.kind == ChunkKind::SteadyState) {
      WindowChoice& w = r.windows[p.window];
      if (!c.events.empty()) {
        w.startUs = tileOf(in.index, r.roots[c.roots.front()]).a.asDouble();
        w.endUs = tileOf(in.index, r.roots[c.roots.back()]).b.asDouble();
      }
      w.chunk = static_cast<int>(r.chunks.size());
    }
    c.outputPath = paths::join(r.outputDir, c.fileName);
    r.log.push_back(fmt::format("  iteration {}: {} events -> {}",
                                c.idx.type() == JsonValue::Type::Int ? std::to_string(c.idx.asInt()) : c.idx.asString(),
                                c.stats.eventCount, c.outputPath));
    r.chunks.push_back(std::move(c));
  }
}

RootList rootListOf(const Column<RootInfo>& roots, const std::vector<size_t>* ks) {
  RootList out;
  out.reserve(ks ? ks->size() : roots.size());
  auto add = [&](const RootInfo& ri) { out.pushSpan(ri.event, {ri.name, ri.dur}); };
  if (ks)
    for (size_t k : *ks) add(roots[k]);
  else
    for (const RootInfo& ri : roots) add(ri);
  return out;
}

}  // namespace steadyscope::analysis
