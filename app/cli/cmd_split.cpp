// Placeholder until the split command lands.
#include "commands.hpp"

#include <cstdio>

namespace steadyscope::cli {
int cmdSplit(const Args&) {
  std::fputs("steadyscope-cli split: not implemented yet\n", stderr);
  return 2;
}
} // namespace steadyscope::cli
