// Many rank traces at once, for `split RANK… -o DIR`, `job RANK…` and the window's
// Job view: how many run together within the CPUs and the memory (D-031).
#include <steadyscope/job.hpp>
#include "util/thread_group.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include <sched.h>

namespace steadyscope::job {

namespace {

// The memory budget's figures, measured on generated and real traces (docs/BENCHMARKS.md,
// "Many traces in one command"), each at the end of its range that over-estimates the memory:
// a split's peak anonymous memory per event plus what it needs whatever the size (the gzip
// path's buffers), the JSON text per event, and how much gzip shrinks that text at the most.
constexpr double kSplitPeakBytesPerEvent = 100.0;
constexpr double kSplitFixedBytes = 64.0 * 1024 * 1024;
constexpr double kJsonBytesPerEvent = 200.0;
constexpr double kCompressedToJson = 20.0;

// The peak memory one split of `path` is expected to need (0 when the size is unknown).
uint64_t estimatedPeakBytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool compressed = !path.ends_with("json");
  const double json = static_cast<double>(size) * (compressed ? kCompressedToJson : 1.0);
  return static_cast<uint64_t>(kSplitFixedBytes + json / kJsonBytesPerEvent * kSplitPeakBytesPerEvent);
}

// The CPUs this process may run on (a batch scheduler's share of the node), else the hardware's count.
unsigned usableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

JobBudget budgetForRanks(const std::vector<std::string>& traces, unsigned threadsPerTrace, unsigned requestedJobs,
                         uint64_t memoryBudget) {
  JobBudgetInput in;
  in.hardwareThreads = usableCpus();
  in.threadsPerSplit = threadsPerTrace;
  in.requestedJobs = requestedJobs;
  in.traces = traces.size();
  in.memoryBudget = memoryBudget;
  in.availableBytes = availableMemoryBytes();
  for (const auto& t : traces) in.bytesPerJob = std::max(in.bytesPerJob, estimatedPeakBytes(t));
  return planJobs(in);
}

void runEach(size_t count, const JobBudget& budget, const std::function<void(size_t)>& run) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) run(i);
  };
  ThreadGroup pool;
  for (unsigned j = 1; j < budget.jobs; ++j) pool.run(worker);
  worker();
  pool.join();
}

}  // namespace steadyscope::job
