#include <steadyscope/core/util/job_budget.hpp>
#include <steadyscope/core/util/threads.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

namespace steadyscope {

namespace {
std::string readableSize(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GB", double(bytes) / double(1ull << 30));
  return fmt::format("{:.0f} MB", double(bytes) / double(1ull << 20));
}
}  // namespace

JobBudget planJobs(const JobBudgetInput& in) {
  JobBudget b;
  const unsigned hw = std::max(1u, in.hardwareThreads);
  const unsigned perSplit = in.threadsPerSplit ? in.threadsPerSplit : std::clamp(hw, 1u, kMaxDefaultThreads);
  const uint64_t traces = std::max<uint64_t>(1, in.traces);
  b.byCores = std::max(1u, hw / perSplit);
  const uint64_t memory = in.memoryBudget ? in.memoryBudget : in.availableBytes;
  if (memory && in.bytesPerJob) b.byMemory = std::max<uint64_t>(1, memory / in.bytesPerJob);
  b.memoryBudget = in.memoryBudget;
  if (in.requestedJobs) {
    b.requested = true;
    uint64_t jobs = std::min<uint64_t>(in.requestedJobs, traces);
    if (in.memoryBudget && b.byMemory) jobs = std::min(jobs, *b.byMemory);
    b.jobs = static_cast<unsigned>(jobs);
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
  if (byMemory && memoryBudget)
    why += fmt::format(", the memory budget of {} allows {}", readableSize(memoryBudget), *byMemory);
  else if (!requested && byMemory)
    why += fmt::format(", the free memory allows {}", *byMemory);
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

std::optional<uint64_t> parseByteSize(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit;
  for (char c : text.substr(used))
    if (c != ' ') unit += c;
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) unit.erase(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("B")) unit.pop_back();
  static const std::string kUnits = "KMGT";
  int shift = 30;  // no unit: GB
  if (!unit.empty()) {
    const auto at = kUnits.find(unit);
    if (unit.size() != 1 || at == std::string::npos) return std::nullopt;
    shift = 10 * int(at + 1);
  }
  const double bytes = value * double(1ull << shift);
  if (!(bytes >= 1) || bytes > 1e18) return std::nullopt;  // also refuses NaN
  return static_cast<uint64_t>(bytes);
}

}  // namespace steadyscope
