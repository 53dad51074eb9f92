// The workload kind of a split: its command-line words and the "auto" decision (see workload_kind.hpp).
#include <steadyscope/core/analysis/workload_kind.hpp>
#include "analysis/roots/annotation.hpp"

#include <vector>

namespace steadyscope::analysis {

std::string_view workloadKindName(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::Auto: return "auto";
    case WorkloadKind::LlmInference: return "llm";
    case WorkloadKind::Generic: return "generic";
  }
  return "auto";
}

std::optional<WorkloadKind> parseWorkloadKind(std::string_view word) {
  for (WorkloadKind k : {WorkloadKind::Auto, WorkloadKind::LlmInference, WorkloadKind::Generic})
    if (word == workloadKindName(k)) return k;
  return std::nullopt;
}

bool hasServingAnnotations(const Trace& trace) {
  // Each distinct event name is parsed once: names repeat across millions of events.
  std::vector<uint8_t> seen(trace.strings.size(), 0);
  for (EventIdx i = 0; i < trace.size(); ++i) {
    const StrId id = trace.name[i];
    if (seen[id]) continue;
    seen[id] = 1;
    const std::string_view name = trace.strings.view(id);
    if (matchesKnownPattern(name) && isServingKind(parseAnnotation(name).kind)) return true;
  }
  return false;
}

bool llmInferenceFor(WorkloadKind kind, const Trace& trace) {
  if (kind == WorkloadKind::Auto) return hasServingAnnotations(trace);
  return kind == WorkloadKind::LlmInference;
}

}  // namespace steadyscope::analysis
