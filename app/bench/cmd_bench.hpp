#pragma once
// `steadyscope-cli bench load | bench split`: whole-run figures beside the machine's raw baselines.
#include "args.hpp"

namespace steadyscope::cli {

int cmdBench(const Args& args);

}  // namespace steadyscope::cli
