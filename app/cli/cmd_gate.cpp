// Placeholder until the gate command lands.
#include "commands.hpp"

#include <cstdio>

namespace steadyscope::cli {
int cmdGate(const Args&) {
  std::fputs("steadyscope-cli gate: not implemented yet\n", stderr);
  return 2;
}
} // namespace steadyscope::cli
