#pragma once
// Stage 1 (spec §2): iteration roots from annotations, the GPU coverage audit
// and grading, and the startup-transient trim (§3.9). What it decides is
// public (detection_types.hpp).
#include <steadyscope/core/analysis/detection_types.hpp>
#include <steadyscope/core/analysis/event_index.hpp>
#include <steadyscope/core/analysis/roots.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

inline constexpr double kCoverageGate = 0.95;
inline constexpr double kCoverageFloor = 0.75;
inline constexpr double kMinSpanShare = 0.5;
inline constexpr size_t kMinRoots = 4;

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

/// The coverage the cascade ranks a candidate by: its audit's when it has
/// one, else its call-tree coverage.
double rankingCoverage(const DetectionCandidate& c);

struct DetectionOptions {
  /// Fix for spec §8 B2/B20: after a trim keep the pre-trim status instead of
  /// re-grading from the new coverage alone.
  bool trimKeepsStatus = false;
  /// Threads the audits may use (0: jobThreads()); 1 = all on the caller's thread.
  unsigned threads = 0;
};

/// Tier 1 (§2.3); nullopt when no annotation matches a known pattern.
std::optional<DetectionCandidate> detectKnownAnnotations(const EventIndex& index, unsigned threads = 0);
/// Tier 2 (§2.5); nullopt when no family qualifies.
std::optional<DetectionCandidate> detectUnknownFamilies(const EventIndex& index, unsigned threads = 0);

/// Tiers 1 and 2 and the fallback; then the trim.
Detection detectRoots(const EventIndex& index, const DetectionOptions& options = {});

/// §3.9 on a candidate (modifies it in place); returns what it decided.
TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const DetectionOptions& options = {});

}  // namespace steadyscope::analysis
