#pragma once
// The GPU coverage audit (spec §2.2) and its grades: how much of the GPU time
// a root list explains, by GPU-annotation spans or correlation ids, and the
// SPLITTABLE / DEGRADED / NOT_SPLITTABLE bounds every tier grades by.
#include <steadyscope/core/analysis/detection_types.hpp>
#include "analysis/event_index.hpp"
#include <steadyscope/core/analysis/roots.hpp>

#include <string>

namespace steadyscope::analysis {

inline constexpr double kCoverageGate = 0.95;
inline constexpr double kCoverageFloor = 0.75;
inline constexpr double kMinSpanShare = 0.5;

SplitStatus gradeCoverage(double coveredSelected);

/// Attribution of kernels to a set of instances (§2.2); returns the GPU time
/// attributed and the strategy used.
struct Attribution {
  std::string strategy;
  double gpuTime = 0.0;
};
Attribution attributeGpuTime(const EventIndex& index, const RootList& instances);

/// The coverage audit (§2.2) of a root list; its two attributions run side
/// by side on big traces when `threads` (as for jobThreads) allows.
CoverageReport auditRoots(const EventIndex& index, const RootList& roots, unsigned threads = 0);

}  // namespace steadyscope::analysis
