// Placeholder until the bench command lands.
#include "commands.hpp"

#include <cstdio>

namespace steadyscope::cli {
int cmdBench(const Args&) {
  std::fputs("steadyscope-cli bench: not implemented yet\n", stderr);
  return 2;
}
} // namespace steadyscope::cli
