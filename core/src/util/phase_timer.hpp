#pragma once
// A stage timer for diagnostics: when the environment variable named at
// construction is set, mark() prints the time since the previous mark to
// stderr as "[tag] what  12.3 ms  (N faults, anon M MiB, kept K MiB)", N
// being the process's minor page faults since the previous mark, M its RssAnon
// now and K the freed big blocks kept for reuse (bigmem; fresh memory is a
// large cost on the VMs we run on). Costs one getenv per timer otherwise.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>

#include "util/big_alloc.hpp"

namespace steadyscope {

class PhaseTimer {
 public:
  PhaseTimer(const char* envVar, const char* tag) : on(std::getenv(envVar) != nullptr), tag_(tag) {
    if (on) faults_ = minorFaults();
  }
  void mark(const char* what) {
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    const long f = minorFaults();
    std::fprintf(stderr, "[%s] %-18s %8.1f ms  (%ld faults, anon %.0f MiB, kept %.0f MiB)\n", tag_, what,
                 std::chrono::duration<double, std::milli>(now - t_).count(), f - faults_, rssAnonMiB(),
                 static_cast<double>(bigmem::retainedBytes()) / (1024.0 * 1024.0));
    t_ = now;
    faults_ = f;
  }
  const bool on;

 private:
  static double rssAnonMiB() {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "RssAnon: %lf", &kb) == 1) break;
    std::fclose(f);
    return kb / 1024.0;
  }
  static long minorFaults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  }
  const char* tag_;
  long faults_ = 0;
  std::chrono::steady_clock::time_point t_ = std::chrono::steady_clock::now();
};

}  // namespace steadyscope
