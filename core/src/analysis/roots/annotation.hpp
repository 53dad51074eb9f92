#pragma once
// Iteration-root annotation names (spec §2.3–§2.5): the known serving
// patterns (vLLM, SGLang, ATOM, diffusion), the per-step details parsed from a
// name, name skeletons and the sanitised form used in file names.
// Hand-written matchers that behave like the reference's prefix regexes.
// The records they make are public (annotation_types.hpp).
#include <steadyscope/core/analysis/annotation_types.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace steadyscope::analysis {

/// Parses a root name (§2.4): the first format whose pattern prefix-matches and
/// whose field parser succeeds; otherwise the fixed record (bs 1, one decode request).
StepDetails parseAnnotation(std::string_view name);

/// Tier membership of a name (§2.3), prefix matching.
bool matchesDetailedPattern(std::string_view name);  // vLLM / ATOM / SGLang detailed
bool matchesNativePattern(std::string_view name);    // vLLM / SGLang / ATOM native, diffusion
inline bool matchesKnownPattern(std::string_view name) {
  return matchesDetailedPattern(name) || matchesNativePattern(name);
}

/// Name skeleton (§2.5): every maximal run of ASCII digits replaced by '#'.
std::string nameSkeleton(std::string_view name);

/// The warm-up and wrap-up roots ("warmup", "wrapup"): kept as their own
/// chunks, never part of the working roots nor the startup-transient trim.
inline bool isBookendRootName(std::string_view name) { return name == "warmup" || name == "wrapup"; }

/// Name part of single-root file names (§4.6): '/'->'_', '('->'_', ')' and ':'
/// removed, ' '->'_'.
std::string sanitizeRootName(std::string_view name);

/// The phase summary (§2.4) of a window's StepDetails.
template <typename It>
PhaseSummary summarizePhase(It first, It last);

}  // namespace steadyscope::analysis

#include "analysis/roots/annotation_impl.hpp"
