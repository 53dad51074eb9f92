// The gate's result as JSON: the pipeline's view, the decision record, the
// findings and everything together (`steadyscope-cli gate --json`).
#include <steadyscope/core/gate/gate.hpp>

namespace steadyscope::gate {

std::string_view ruleOutcomeName(RuleOutcome o) {
  switch (o) {
    case RuleOutcome::Passed: return "passed";
    case RuleOutcome::Failed: return "failed";
    case RuleOutcome::Skipped: return "skipped";
    case RuleOutcome::Info: return "info";
  }
  return "info";
}

JsonValue GateResult::pipelineResult() const {
  JsonValue o = JsonValue::object();
  o.set("status", accepted ? "ok" : "error");
  if (!accepted) o.set("error", errorMessage);
  o.set("trace_health_warnings", JsonValue::array(warnings));
  return o;
}

JsonValue GateResult::recordJson() const {
  JsonValue a = JsonValue::array();
  for (const auto& r : record)
    a.push(JsonValue::object({{"rule", r.rule},
                              {"subject", r.subject},
                              {"inputs", r.inputs},
                              {"outcome", std::string(ruleOutcomeName(r.outcome))},
                              {"sentence", r.sentence}}));
  return a;
}

JsonValue GateResult::findingsJson() const {
  JsonValue a = JsonValue::array();
  for (const auto& f : findings)
    a.push(JsonValue::object({{"code", f.code},
                              {"subject", f.subject},
                              {"chunk", f.chunk},
                              {"affects_verdict", f.affectsVerdict},
                              {"sentence", f.sentence},
                              {"details", f.details}}));
  return a;
}

namespace {

JsonValue chunkJson(const ChunkSummary& c) {
  JsonValue j = JsonValue::object();
  j.set("mode", std::string(modeName(c.mode)));
  j.set("chunk", c.chunk.empty() ? JsonValue() : JsonValue(c.chunk));
  j.set("listed", static_cast<int64_t>(c.listed));
  j.set("row_match", std::string(rowMatchName(c.match)));
  j.set("row", c.row ? JsonValue(c.row->where()) : JsonValue());
  if (c.reading) {
    j.set("num_gpu_events", c.reading->numGpuEvents);
    j.set("gpu_duration", c.reading->gpuDuration);
    j.set("gpu_busy_duration", c.reading->gpuBusyDuration);
    j.set("busy_ratio", c.reading->busyRatio ? JsonValue(*c.reading->busyRatio) : JsonValue());
    j.set("ratio_source", std::string(ratioSourceName(c.reading->source)));
  }
  j.set("selected", c.selected);
  j.set("offered", c.offered);
  return j;
}

std::string_view refusalName(Refusal r) {
  switch (r) {
    case Refusal::None: return "none";
    case Refusal::NoSteadyState: return "trace_split_no_steady_state";
    case Refusal::ChunkMissing: return "steady_state_chunk_missing";
    case Refusal::LowQuality: return "steady_state_chunk_low_quality";
  }
  return "none";
}
}  // namespace

JsonValue GateResult::toJson() const {
  JsonValue o = JsonValue::object();
  o.set("verdict", finalAccepted() ? "accepted" : "refused");
  o.set("pipeline_verdict", accepted ? "accepted" : "refused");
  o.set("refusal", std::string(refusalName(refusal)));
  o.set("low_quality", lowQuality);
  o.set("strict", options.strict);
  o.set("strict_refused", strictRefused);
  o.set("exit_status", exitStatus());
  o.set("requested_mode", std::string(modeName(options.mode)));
  o.set("threshold", options.threshold);
  o.set("margin", options.margin);
  o.set("refuse_without_alternate", options.refuseWithoutAlternate);
  o.set("selected_chunk", selectedChunk.empty() ? JsonValue() : JsonValue(selectedChunk));
  o.set("summary", summary);
  o.set("result", pipelineResult());
  o.set("retry_mode", retry ? JsonValue(retry->toMode) : JsonValue());
  o.set("retry", retry ? JsonValue::object({{"from_mode", retry->fromMode},
                                            {"to_mode", retry->toMode},
                                            {"source_warning_code", retry->sourceWarningCode}})
                       : JsonValue());
  o.set("decision_record", recordJson());
  o.set("findings", findingsJson());
  JsonValue cs = JsonValue::array();
  for (const auto& c : chunks) cs.push(chunkJson(c));
  o.set("chunks", cs);
  return o;
}

}  // namespace steadyscope::gate
