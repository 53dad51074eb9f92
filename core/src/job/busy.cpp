// A rank's GPU busy time over the whole trace: the unions of its GPU events,
// its communication kernels and its other kernels, and how much of the
// communication runs under compute. Sorting is the only super-linear step.
#include <steadyscope/job.hpp>

#include <steadyscope/core/util/intervals.hpp>

#include <cctype>
#include <vector>

namespace steadyscope::job {

namespace {

// Length of the intersection of two sorted, disjoint interval lists, in one pass.
int64_t intersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t sum = 0;
  size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[k].begin);
    const int64_t hi = std::min(a[i].end, b[k].end);
    if (hi > lo) sum += hi - lo;
    if (a[i].end < b[k].end)
      ++i;
    else
      ++k;
  }
  return sum;
}

int64_t unionLength(std::vector<Interval>& iv) {
  iv.resize(sortAndMerge(iv));
  return totalLength(iv);
}

}  // namespace

bool isCommunicationKernel(std::string_view name) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t k = 0; k + 4 <= name.size(); ++k) {
    if (lower(name[k + 1]) != 'c' || lower(name[k + 2]) != 'c' || lower(name[k + 3]) != 'l') continue;
    const char c = lower(name[k]);
    if (c == 'n' || c == 'r') return true;
  }
  return false;
}

BusyFigures busyFigures(const Trace& trace) {
  // A trace has a few thousand distinct names: classify each once, not per event.
  enum : int8_t { kUnknown = -1, kCompute = 0, kComm = 1 };
  std::vector<int8_t> nameKind(trace.strings.size(), kUnknown);
  std::vector<Interval> all, comm, compute;
  all.reserve(trace.stats.gpuEvents);
  for (EventIdx i = 0; i < trace.size(); ++i) {
    const CatClass c = trace.classOf(i);
    if (!isGpuWork(c) || !trace.has(i, ev::HasTs) || !trace.has(i, ev::HasDur) || trace.durNs[i] <= 0) continue;
    const Interval iv{trace.tsNs[i], trace.endNs(i)};
    all.push_back(iv);
    if (c != CatClass::Kernel) continue;
    int8_t& kind = nameKind[trace.name[i]];
    if (kind == kUnknown) kind = isCommunicationKernel(trace.nameOf(i)) ? kComm : kCompute;
    (kind == kComm ? comm : compute).push_back(iv);
  }
  BusyFigures f;
  f.gpuNs = unionLength(all);
  f.commNs = unionLength(comm);
  f.computeNs = unionLength(compute);
  f.overlapNs = intersectionLength(comm, compute);
  return f;
}

}  // namespace steadyscope::job
