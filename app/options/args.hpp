#pragma once
// A command's arguments: the words after its name.
#include <string>
#include <vector>

namespace steadyscope::cli {

using Args = std::vector<std::string>;

}  // namespace steadyscope::cli
