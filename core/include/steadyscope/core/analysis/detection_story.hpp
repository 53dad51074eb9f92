#pragma once
// The root detection in plain words: what each tier of the cascade found and
// why the chosen roots split or are refused. One wording for the CLI, the
// gate and the window; no spec sections or manifest keys in it.
#include <steadyscope/core/analysis/detection.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <string>
#include <vector>

namespace steadyscope::analysis {

struct DetectionStory {
  bool splits = false;                // the roots pass the gate (with allowDegraded as given)
  std::string verdict;                // one or two sentences
  std::vector<std::string> attempts;  // one line per cascade step, in order
};

DetectionStory explainDetection(const Trace& trace, const Detection& d, bool allowDegraded);

}  // namespace steadyscope::analysis
