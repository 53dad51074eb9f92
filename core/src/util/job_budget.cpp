#include <steadyscope/core/util/job_budget.hpp>
#include <steadyscope/core/util/threads.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace steadyscope {

JobBudget planJobs(const JobBudgetInput& in) {
  JobBudget b;
  const unsigned hw = std::max(1u, in.hardwareThreads);
  const unsigned perSplit = in.threadsPerSplit ? in.threadsPerSplit : std::clamp(hw, 1u, kMaxDefaultThreads);
  const uint64_t traces = std::max<uint64_t>(1, in.traces);
  b.byCores = std::max(1u, hw / perSplit);
  if (in.availableBytes && in.bytesPerJob) b.byMemory = std::max<uint64_t>(1, in.availableBytes / in.bytesPerJob);
  if (in.requestedJobs) {
    b.requested = true;
    b.jobs = static_cast<unsigned>(std::min<uint64_t>(in.requestedJobs, traces));
    // The jobs share the hardware: no job takes more than its part of it.
    b.threadsPerJob = std::clamp(hw / b.jobs, 1u, perSplit);
    return b;
  }
  uint64_t jobs = std::min<uint64_t>(b.byCores, traces);
  if (b.byMemory) jobs = std::min(jobs, *b.byMemory);
  b.jobs = static_cast<unsigned>(std::max<uint64_t>(1, jobs));
  b.threadsPerJob = perSplit;
  return b;
}

std::string JobBudget::describe() const {
  std::string why = requested ? "as asked" : fmt::format("the cores allow {}", byCores);
  if (!requested && byMemory) why += fmt::format(", the memory {}", *byMemory);
  return fmt::format("{} at a time, {} thread{} each ({})", jobs, threadsPerJob, threadsPerJob == 1 ? "" : "s", why);
}

uint64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace steadyscope
