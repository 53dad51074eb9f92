#pragma once
// Iteration-root annotation names (spec §2.3–§2.5): the known serving
// patterns (vLLM, SGLang, ATOM, diffusion), the per-step details parsed from a
// name, name skeletons and the sanitised form used in file names.
// Hand-written matchers that behave like the reference's prefix regexes.
#include <cstdint>
#include <string>
#include <string_view>

namespace steadyscope::analysis {

enum class AnnotationKind : uint8_t {
  None,  // unparsed: fixed one-request decode record
  VllmDetailed,
  VllmNative,
  SglangDetailed,
  SglangNative,
  AtomDetailed,
  AtomNative,
  DiffusionNative,
};
const char* annotationKindName(AnnotationKind k);  // "vllm_detailed", ..., "none"

/// True for the six serving kinds (diffusion and none are not serving, §3.1).
bool isServingKind(AnnotationKind k);

/// The `iter_details` record of §2.4 plus the parse metadata.
struct StepDetails {
  int64_t batchSize = 1;
  int64_t numRequests = 1;
  int64_t contextRequests = 0;
  int64_t contextSum = 0;
  int64_t generationRequests = 1;
  int64_t generationSum = 1;
  AnnotationKind kind = AnnotationKind::None;
  bool hasSqsk = false;

  bool prefillOnly() const { return contextRequests > 0 && generationRequests == 0; }
  bool prefillDecode() const { return contextRequests > 0 && generationRequests > 0; }
  bool decodeOnly() const { return generationRequests > 0 && contextRequests == 0; }
  bool prefillBearing() const { return contextRequests > 0; }
  friend bool operator==(const StepDetails&, const StepDetails&) = default;
};

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

/// Window phase summary (§2.4).
struct PhaseSummary {
  int64_t numPrefill = 0;
  int64_t numPrefillDecode = 0;
  int64_t numDecode = 0;
  int64_t avgBs = 0;
  int64_t avgConc = 0;
  friend bool operator==(const PhaseSummary&, const PhaseSummary&) = default;
};
template <typename It>
PhaseSummary summarizePhase(It first, It last);  // over StepDetails

}  // namespace steadyscope::analysis

#include <steadyscope/core/analysis/annotation_impl.hpp>
