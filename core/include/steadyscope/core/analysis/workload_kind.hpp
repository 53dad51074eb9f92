#pragma once
// The workload kind a split is run for, as the seed pipeline chooses it: a
// trace with serving annotations (vLLM, SGLang, ATOM step names) is split as
// LLM inference (`--llm-inference`), any other as a generic workload. "auto"
// is decided here, once, for the window and the command line alike.
#include <steadyscope/core/model/trace.hpp>

#include <optional>
#include <string_view>

namespace steadyscope::analysis {

enum class WorkloadKind : uint8_t { Auto, LlmInference, Generic };

/// "auto", "llm", "generic" (the command-line words).
std::string_view workloadKindName(WorkloadKind k);
std::optional<WorkloadKind> parseWorkloadKind(std::string_view word);

/// An event of the trace is named like a serving framework's step annotation.
bool hasServingAnnotations(const Trace& trace);

/// Whether the split gets `--llm-inference`: Auto asks hasServingAnnotations.
bool llmInferenceFor(WorkloadKind kind, const Trace& trace);

}  // namespace steadyscope::analysis
