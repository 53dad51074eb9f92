// The structured result's JSON (steadyscope-cli split --json, the GUI) and
// the JSON pieces the outputs share.
#include "analysis/split_stages.hpp"

#include <fmt/format.h>

namespace steadyscope::analysis {

JsonValue stepJson(const StepDetails& s) {
  JsonValue o = JsonValue::object();
  o.set("batch_size", JsonValue::integer(s.batchSize));
  o.set("num_requests", JsonValue::integer(s.numRequests));
  o.set("context_requests", JsonValue::integer(s.contextRequests));
  o.set("context_sum", JsonValue::integer(s.contextSum));
  o.set("generation_requests", JsonValue::integer(s.generationRequests));
  o.set("generation_sum", JsonValue::integer(s.generationSum));
  return o;
}

JsonValue phaseJson(const PhaseSummary& p) {
  JsonValue o = JsonValue::object();
  o.set("num_prefill", JsonValue::integer(p.numPrefill));
  o.set("num_prefilldecode", JsonValue::integer(p.numPrefillDecode));
  o.set("num_decode", JsonValue::integer(p.numDecode));
  o.set("avg_bs", JsonValue::integer(p.avgBs));
  o.set("avg_conc", JsonValue::integer(p.avgConc));
  return o;
}

std::string phaseSuffix(const PhaseSummary& p) {
  return fmt::format("prefill_{}_prefilldecode_{}_decode_{}_bs{}_conc{}", p.numPrefill, p.numPrefillDecode, p.numDecode,
                     p.avgBs, p.avgConc);
}

JsonValue regionJson(const Region& g) {
  JsonValue a = JsonValue::array();
  a.push(JsonValue::integer(g.start));
  a.push(JsonValue::integer(g.end));
  return a;
}

namespace {

JsonValue coverageJson(const CoverageReport& c) {
  JsonValue o = JsonValue::object();
  o.set("attribution_strategy", JsonValue::string(c.strategy));
  o.set("covered_selected", JsonValue::real(c.coveredSelected));
  o.set("covered_spans", JsonValue::real(c.coveredSpans));
  o.set("span_share", JsonValue::real(c.spanShare));
  o.set("passes", JsonValue::boolean(c.passes));
  o.set("total_gpu_us", JsonValue::real(c.totalGpuUs));
  return o;
}

JsonValue optionalCoverage(const std::optional<CoverageReport>& c) { return c ? coverageJson(*c) : JsonValue::null(); }

JsonValue strings(const std::vector<std::string>& v) {
  JsonValue a = JsonValue::array();
  for (const auto& s : v) a.push(JsonValue::string(s));
  return a;
}

JsonValue trimJson(const TrimInfo& tr) {
  JsonValue trim = JsonValue::object();
  trim.set("ran", JsonValue::boolean(tr.ran));
  trim.set("trimmed", JsonValue::boolean(tr.trimmed));
  trim.set("kernel", tr.kernel.empty() ? JsonValue::null() : JsonValue::string(tr.kernel));
  trim.set("collective_ratio", tr.collectiveRatio ? JsonValue::real(*tr.collectiveRatio) : JsonValue::null());
  trim.set("noise_ratio", JsonValue::real(tr.noiseRatio));
  trim.set("coverage_before", optionalCoverage(tr.before));
  return trim;
}

JsonValue detectionJson(const Detection& d) {
  JsonValue det = JsonValue::object();
  const DetectionCandidate& c = d.chosen;
  det.set("method", JsonValue::string(c.method));
  det.set("tier", JsonValue::string(c.tier));
  det.set("status", JsonValue::string(splitStatusName(c.status)));
  det.set("phase_confidence", JsonValue::string(c.phaseConfidence));
  det.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  det.set("coverage", optionalCoverage(c.coverage));
  det.set("diagnostics", c.diagnostics);
  det.set("used_call_tree", JsonValue::boolean(d.usedCallTree));
  if (!d.treeFailure.empty()) det.set("call_tree_failure", JsonValue::string(d.treeFailure));
  if (!d.fallback.empty()) det.set("fallback", JsonValue::string(d.fallback));
  JsonValue tried = JsonValue::array();
  for (const auto& t : d.tried) {
    JsonValue x = JsonValue::object();
    x.set("method", JsonValue::string(t.method));
    x.set("tier", JsonValue::string(t.tier));
    x.set("status", JsonValue::string(splitStatusName(t.status)));
    x.set("n_roots", JsonValue::integer(static_cast<int64_t>(t.roots.size())));
    x.set("coverage", optionalCoverage(t.coverage));
    if (t.tree) x.set("branch_coverage", JsonValue::real(t.tree->coverage));
    tried.push(std::move(x));
  }
  det.set("candidates", std::move(tried));
  JsonValue steps = JsonValue::array();
  for (const CascadeStep& st : d.steps) {
    JsonValue x = JsonValue::object();
    x.set("step", JsonValue::string(st.name));
    x.set("candidate", st.candidate ? JsonValue::integer(static_cast<int64_t>(*st.candidate)) : JsonValue::null());
    steps.push(std::move(x));
  }
  det.set("steps", std::move(steps));
  det.set("trim", trimJson(d.trim));
  return det;
}

JsonValue storyJson(const DetectionStory& s) {
  JsonValue x = JsonValue::object();
  x.set("splits", JsonValue::boolean(s.splits));
  x.set("verdict", JsonValue::string(s.verdict));
  JsonValue a = JsonValue::array();
  for (const auto& line : s.attempts) a.push(JsonValue::string(line));
  x.set("attempts", std::move(a));
  return x;
}

JsonValue rootJson(const RootInfo& ri) {
  JsonValue x = JsonValue::object();
  x.set("event", JsonValue::integer(ri.event));
  x.set("name", JsonValue::string(std::string(ri.name)));
  x.set("ts_us", JsonValue::real(ri.tsUs));
  x.set("dur_us", JsonValue::real(ri.durUs));
  x.set("kind", JsonValue::string(annotationKindName(ri.step.kind)));
  x.set("step", stepJson(ri.step));
  if (ri.tile) {
    JsonValue tl = JsonValue::array();
    tl.push(JsonValue::number(ri.tile->a));
    tl.push(JsonValue::number(ri.tile->b));
    x.set("tile", std::move(tl));
  } else {
    x.set("tile", JsonValue::null());
  }
  return x;
}

JsonValue candidateJson(const Candidate& cd) {
  JsonValue y = JsonValue::object();
  y.set("window", regionJson(cd.window));
  y.set("pd_count", JsonValue::integer(cd.pdCount));
  y.set("pd_ratio", JsonValue::real(cd.pdRatio));
  y.set("avg_requests", JsonValue::real(cd.avgRequests));
  y.set("distance", JsonValue::real(cd.distance));
  y.set("eligible", JsonValue::boolean(cd.eligible));
  return y;
}

JsonValue durationJson(const DurationSelection& d) {
  JsonValue o = JsonValue::object();
  o.set("scan", JsonValue::integer(d.scan));
  o.set("best", regionJson(d.best));
  o.set("mean", JsonValue::real(d.mean));
  o.set("cv", JsonValue::real(d.cv));
  o.set("passed", JsonValue::boolean(d.passed));
  return o;
}

JsonValue windowJson(const WindowChoice& w) {
  JsonValue x = JsonValue::object();
  x.set("label", JsonValue::string(w.label));
  x.set("mode", JsonValue::string(steadyModeName(w.mode)));
  x.set("finder", JsonValue::string(w.finder));
  const ModeSelection& s = w.selection;
  JsonValue regions = JsonValue::array();
  for (const Region& g : s.scan.regions) regions.push(regionJson(g));
  x.set("regions", std::move(regions));
  x.set("regions_fallback", JsonValue::boolean(s.scan.fellBack));
  x.set("peak", JsonValue::integer(s.scan.peak));
  x.set("largest_region", regionJson(s.largest));
  x.set("reference_ratio_largest", JsonValue::real(s.ratio.largest));
  x.set("reference_ratio_average", JsonValue::real(s.ratio.average));
  x.set("target", JsonValue::real(s.target));
  x.set("ideal_ratio_used", JsonValue::boolean(s.idealUsed));
  x.set("num_steps", JsonValue::integer(s.numStepsUsed));
  x.set("stride", JsonValue::integer(s.stride));
  x.set("pool_fallback", JsonValue::boolean(s.poolFallback));
  JsonValue cands = JsonValue::array();
  for (const Candidate& cd : s.candidates) cands.push(candidateJson(cd));
  x.set("candidates", std::move(cands));
  x.set("run", s.run ? regionJson(*s.run) : JsonValue::null());
  if (w.duration) x.set("duration", durationJson(*w.duration));
  x.set("window", regionJson(w.window));
  x.set("root_range", regionJson(w.rootRange));
  x.set("start_us", JsonValue::real(w.startUs));
  x.set("end_us", JsonValue::real(w.endUs));
  x.set("chunk", JsonValue::integer(w.chunk));
  x.set("warnings", strings(s.warnings));
  return x;
}

JsonValue chunkJson(const ChunkPlan& ch) {
  JsonValue x = JsonValue::object();
  x.set("kind", JsonValue::string(chunkKindName(ch.kind)));
  x.set("idx", ch.idx);
  x.set("output_path", JsonValue::string(ch.outputPath));
  JsonValue ri = JsonValue::array();
  for (size_t k : ch.roots) ri.push(JsonValue::integer(static_cast<int64_t>(k)));
  x.set("roots", std::move(ri));
  x.set("whole_trace", JsonValue::boolean(ch.wholeTrace));
  x.set("event_count", JsonValue::integer(ch.stats.eventCount));
  x.set("num_gpu_events", JsonValue::integer(ch.stats.numGpuEvents));
  x.set("gpu_duration", JsonValue::number(ch.stats.gpuDuration));
  x.set("gpu_busy_duration", JsonValue::number(ch.stats.gpuBusyDuration));
  x.set("busy_ratio", JsonValue::real(ch.busyRatio));
  if (ch.hasSteps) x.set("phase", phaseJson(ch.phase));
  return x;
}

template <typename T, typename F>
JsonValue arrayOf(const T& items, F&& f) {
  JsonValue a = JsonValue::array();
  for (const auto& x : items) a.push(f(x));
  return a;
}

}  // namespace

JsonValue splitResultToJson(const SplitResult& r) {
  JsonValue o = JsonValue::object();
  o.set("outcome", JsonValue::string(splitOutcomeName(r.outcome)));
  o.set("exit_status", JsonValue::integer(r.exitStatus));
  if (!r.error.empty()) o.set("error", JsonValue::string(r.error));
  o.set("base_name", JsonValue::string(r.baseName));
  o.set("output_dir", JsonValue::string(r.outputDir));
  o.set("n_legacy_gpu_events", JsonValue::integer(static_cast<int64_t>(r.nLegacyGpuEvents)));
  o.set("detection", detectionJson(*r.detection));
  o.set("explanation", storyJson(r.story));
  o.set("roots", arrayOf(r.roots, rootJson));
  o.set("gap_fill", JsonValue::boolean(r.gapFill));
  o.set("n_overlapping_roots", JsonValue::integer(r.nOverlappingRoots));
  o.set("iteration_range", regionJson(r.iterationRange));
  o.set("n_working_roots", JsonValue::integer(static_cast<int64_t>(r.workingRoots.size())));
  o.set("serving_annotations", JsonValue::boolean(r.servingAnnotations));
  if (!r.shapeBatchSizes.empty())
    o.set("shape_batch_sizes", arrayOf(r.shapeBatchSizes, [](const std::optional<int64_t>& v) {
            return v ? JsonValue::integer(*v) : JsonValue::null();
          }));
  o.set("windows", arrayOf(r.windows, windowJson));
  o.set("chunks", arrayOf(r.chunks, chunkJson));
  o.set("manifest", r.manifest);
  o.set("warnings", strings(r.warnings));
  o.set("log", strings(r.log));
  return o;
}

}  // namespace steadyscope::analysis
