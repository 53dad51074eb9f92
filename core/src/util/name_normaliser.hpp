#pragma once
// The one rule by which names are compared across repetitions: call-tree
// siblings when the fallback tiers look for a repeating pattern, and kernels
// when two chunks are compared. The reference's rule for the tiers is not
// public; this is the stand-in its runs used (docs/splitter-decisions.md):
// hex addresses become 0xXXXX, a Python frame's line number `.py(N):`
// becomes `.py:`, and the driver's kernel-launch names become one name.
#include <string>
#include <string_view>

namespace steadyscope::names {

std::string normalizeNameForComparison(std::string_view name);

}  // namespace steadyscope::names
