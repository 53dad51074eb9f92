#pragma once
// A/B of two chunks, steps or ranges, of one trace or two: each side's
// figures (duration, GPU time and busy, events, time per category, kernels by
// GPU time) and the kernels side by side with their deltas. Kernels are
// matched by the splitter's comparison rule for names
// (names::normalizeNameForComparison), so addresses and Python line
// numbers do not break a match across traces.
#include <steadyscope/core/timeline/overlays.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace steadyscope::timeline {

/// One side: a CPU window of a trace and, for a chunk, its steps' GPU spans
/// (empty: the window itself on every GPU device, as for a range or a step).
struct AbSideInput {
  const Trace* trace = nullptr;
  const TimelineIndex* index = nullptr;
  int64_t beginNs = 0, endNs = 0;
  std::vector<GpuSpan> gpuSpans;
  std::string label;  // "A: mixed 3–34 (run.json)"
};

struct AbKernel {
  std::string key;   // the normalised name the match uses
  std::string name;  // as written (the first seen)
  uint64_t count = 0;
  int64_t totalNs = 0;
};

struct AbCategory {
  std::string category;  // the event category as written ("kernel", "cpu_op", ...)
  uint64_t count = 0;
  int64_t totalNs = 0;  // host events clipped to the window; GPU events whole, inside the GPU spans
};

struct AbSideFigures {
  std::string label;
  int64_t durationNs = 0;  // the CPU window
  int64_t gpuTimeNs = 0;   // sum of the GPU spans (each device's)
  int64_t gpuUnionNs = 0;  // busy time of the union inside them
  uint64_t events = 0;     // host slices overlapping the window + GPU events inside the spans
  uint64_t gpuEvents = 0;
  std::vector<AbCategory> categories;  // by time, descending
  std::vector<AbKernel> kernels;       // by GPU time, descending
  double unionRatio() const { return gpuTimeNs > 0 ? double(gpuUnionNs) / double(gpuTimeNs) : 0.0; }
};

AbSideFigures abSideFigures(const AbSideInput& in);

struct KernelDelta {
  std::string key, name;
  uint64_t countA = 0, countB = 0;
  int64_t nsA = 0, nsB = 0;
  bool onlyA() const { return countA > 0 && countB == 0; }
  bool onlyB() const { return countB > 0 && countA == 0; }
  int64_t deltaNs() const { return nsB - nsA; }
  /// (B − A) / A; +inf for a kernel only in B.
  double relative() const;
};

/// Every kernel of either side, by the size of its change (|B − A|) descending, then by key.
std::vector<KernelDelta> compareKernels(const AbSideFigures& a, const AbSideFigures& b);

}  // namespace steadyscope::timeline
