#pragma once
// A stage timer for diagnostics: when the environment variable named at
// construction is set, mark() prints the time since the previous mark to
// stderr as "[tag] what  12.3 ms". Costs one getenv per timer otherwise.
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace steadyscope {

class PhaseTimer {
public:
  PhaseTimer(const char* envVar, const char* tag) : on(std::getenv(envVar) != nullptr), tag_(tag) {}
  void mark(const char* what) {
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "[%s] %-18s %8.1f ms\n", tag_, what,
                 std::chrono::duration<double, std::milli>(now - t_).count());
    t_ = now;
  }
  const bool on;

private:
  const char* tag_;
  std::chrono::steady_clock::time_point t_ = std::chrono::steady_clock::now();
};

} // namespace steadyscope
