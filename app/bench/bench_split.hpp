#pragma once
// `steadyscope-cli bench split TRACE [-o OUTDIR] [split flags]`: load, split
// (plan), write (chunks + details) and total wall time, and peak anonymous memory.
#include "args.hpp"

namespace steadyscope::cli {
int benchSplit(const Args& args);
}  // namespace steadyscope::cli
