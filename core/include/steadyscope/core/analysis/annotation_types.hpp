#pragma once
// What a root's name says (spec §2.4): the annotation kind, the parsed step
// details of one root and the phase summary of a window. The parsers and
// pattern matchers that make them are the splitter's own (analysis/roots/annotation.hpp).
#include <cstdint>

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

/// Window phase summary (§2.4).
struct PhaseSummary {
  int64_t numPrefill = 0;
  int64_t numPrefillDecode = 0;
  int64_t numDecode = 0;
  int64_t avgBs = 0;
  int64_t avgConc = 0;
  friend bool operator==(const PhaseSummary&, const PhaseSummary&) = default;
};

}  // namespace steadyscope::analysis
