#pragma once
// How many traces to split at once and with how many threads each: every
// job's threads come out of one budget (the hardware's threads), and no more
// jobs run than the available memory holds at the model's measured bytes per
// event (docs/DECISIONS.md D-031).
#include <cstdint>
#include <optional>
#include <string>

namespace steadyscope {

struct JobBudgetInput {
  unsigned hardwareThreads = 1;  // the machine's thread count
  unsigned threadsPerSplit = 0;  // --threads N; 0: not given (jobThreads() of the hardware)
  unsigned requestedJobs = 0;    // -j N; 0: not given (what fits)
  uint64_t traces = 1;
  uint64_t availableBytes = 0;  // 0: unknown (memory does not limit)
  uint64_t bytesPerJob = 0;     // the largest input's estimated peak; 0: unknown
  uint64_t memoryBudget = 0;    // the user's cap (--memory-budget, the window's setting); 0: none
};

struct JobBudget {
  unsigned jobs = 1;
  unsigned threadsPerJob = 1;
  unsigned byCores = 1;              // jobs the thread budget allows
  std::optional<uint64_t> byMemory;  // jobs the memory holds (nullopt: not known)
  bool requested = false;            // jobs came from -j
  uint64_t memoryBudget = 0;         // the user's cap that byMemory came from (0: the free memory)
  /// One sentence for the log: "2 at a time, 1 thread each (…)".
  std::string describe() const;
};

/// Default jobs: hardware threads / threads per split, at most what memory
/// holds and the trace count, at least 1. With -j N the jobs are N (at most
/// the trace count) and each gets its share of the hardware (at least 1 thread).
JobBudget planJobs(const JobBudgetInput& in);

/// MemAvailable of /proc/meminfo in bytes (0 when it cannot be read).
uint64_t availableMemoryBytes();

/// A size as users write it, in powers of 1024: "8G", "512M", "1.5GB", "8" (GB when
/// no unit); nullopt when it is not a positive size.
std::optional<uint64_t> parseByteSize(const std::string& text);

}  // namespace steadyscope
