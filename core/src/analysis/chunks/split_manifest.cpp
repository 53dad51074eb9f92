// split_manifest.json: its detection fields before the windows are chosen,
// the rest once the chunks are made (spec §4.8).
#include "analysis/pyfmt.hpp"
#include "analysis/split_stages.hpp"

namespace steadyscope::analysis {

JsonValue manifestHead(const DetectionCandidate& det, const SplitFixes& fixes) {
  JsonValue m = JsonValue::object();
  m.set("status", JsonValue::integer(static_cast<int64_t>(det.status)));
  m.set("method", JsonValue::string(det.method));
  m.set("phase_confidence", JsonValue::string(det.phaseConfidence));
  m.set("n_roots", JsonValue::integer(static_cast<int64_t>(det.roots.size())));
  if (det.coverage) {
    m.set("attribution_strategy", JsonValue::string(det.coverage->strategy));
    m.set("coverage_selected_roots", JsonValue::real(pyRound(det.coverage->coveredSelected, 4)));
    m.set("coverage_root_spans_only", JsonValue::real(pyRound(det.coverage->coveredSpans, 4)));
    m.set("root_span_share", JsonValue::real(pyRound(det.coverage->spanShare, 4)));
  } else {
    for (const char* k :
         {"attribution_strategy", "coverage_selected_roots", "coverage_root_spans_only", "root_span_share"})
      m.set(k, JsonValue::null());
  }
  // The diagnostics' n_roots is the count before the trim (§8 B3); keys
  // starting with '_' are internal.
  for (const auto& [k, v] : det.diagnostics.members())
    if (k.empty() || k[0] != '_') m.set(k, v);
  if (fixes.freshNRoots) m.set("n_roots", JsonValue::integer(static_cast<int64_t>(det.roots.size())));
  return m;
}

void manifestTail(JsonValue& m, const SplitResult& r, const EventIndex& index, const SplitOptions& o) {
  m.set("gap_fill", JsonValue::boolean(r.gapFill));
  if (r.gapFill && !r.roots.empty()) m.set("n_overlapping_roots", JsonValue::integer(r.nOverlappingRoots));
  m.set("n_gpu_events_in_trace", JsonValue::integer(static_cast<int64_t>(index.nGpuEventsInTrace)));
  if (!(o.storeSingleIteration && o.iterations == "all" && r.gapFill && index.nGpuEventsInTrace > 0)) return;
  int64_t extracted = 0;
  for (const auto& c : r.chunks)
    if (c.kind == ChunkKind::Iteration) extracted += c.stats.numGpuEvents;
  const auto inTrace = static_cast<int64_t>(index.nGpuEventsInTrace);
  m.set("n_gpu_events_extracted", JsonValue::integer(extracted));
  m.set("n_gpu_events_outside_iterations", JsonValue::integer(inTrace - extracted));
  m.set("gpu_events_duplicated", JsonValue::boolean(extracted > inTrace));
  m.set("gpu_event_retention",
        JsonValue::real(pyRound(static_cast<double>(extracted) / static_cast<double>(inTrace), 4)));
}

}  // namespace steadyscope::analysis
