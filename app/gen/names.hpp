// Kernel / operator names and the step-annotation formats of each style
// (splitter spec §2.3 patterns, §2.4 parsing).
#pragma once

#include "options.hpp"
#include "schedule.hpp"

#include <string>
#include <string_view>

namespace steadyscope::gen {

namespace kn {
extern const std::string_view kGemmSmall;
extern const std::string_view kGemmLarge;
extern const std::string_view kRmsNorm;
extern const std::string_view kRotary;
extern const std::string_view kSiluMul;
extern const std::string_view kCacheWrite;
extern const std::string_view kFlashDecode;
extern const std::string_view kFlashPrefill;
extern const std::string_view kIndexSelect;
extern const std::string_view kArgmax;
extern const std::string_view kSoftmax;
extern const std::string_view kLayerNorm;
extern const std::string_view kGelu;
extern const std::string_view kSdpa;
extern const std::string_view kAdam;
extern const std::string_view kFill;
extern const std::string_view kSiluBackward;
extern const std::string_view kGemmBackward;
extern const std::string_view kCrossEntropy;
extern const std::string_view kAllReduce;
}  // namespace kn

// What a splitter's annotation parser derives from a name (§2.4); drives the
// per-kind step counts of the ground truth.
struct ParsedCounts {
  int contextRequests = 0;
  int generationRequests = 0;
};

enum class StepKind { PrefillOnly, PrefillDecode, DecodeOnly, Idle };
StepKind classify(ParsedCounts c);

// Fills `name` with the step annotation and returns its parsed counts.
ParsedCounts servingStepName(const Options& opt, const StepPlan& s, std::string& name);
ParsedCounts diffusionStepName(int batch, int width, int height, std::string& name);
ParsedCounts trainingStepName(int index, std::string& name);

// Label of the annotation format, e.g. "vllm_native" or "profiler_step".
std::string annotationFormat(const Options& opt);

}  // namespace steadyscope::gen
