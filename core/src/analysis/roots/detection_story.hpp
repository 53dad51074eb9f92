#pragma once
// The root detection in plain words: what each tier of the cascade found and
// why the chosen roots split or are refused. One wording for the CLI, the
// gate and the window; no spec sections or manifest keys in it. The story
// itself is public (DetectionStory, detection_types.hpp).
#include <steadyscope/core/analysis/detection_types.hpp>
#include <steadyscope/core/model/trace.hpp>

namespace steadyscope::analysis {

DetectionStory explainDetection(const Trace& trace, const Detection& d, bool allowDegraded);

}  // namespace steadyscope::analysis
