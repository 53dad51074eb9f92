// Placeholder until the info command lands.
#include "commands.hpp"

#include <cstdio>

namespace steadyscope::cli {
int cmdInfo(const Args&) {
  std::fputs("steadyscope-cli info: not implemented yet\n", stderr);
  return 2;
}
} // namespace steadyscope::cli
