#pragma once
// Stage 1 (spec §2): iteration roots from annotations, the GPU coverage audit
// and grading, and the startup-transient trim (§3.9).
#include <steadyscope/core/analysis/annotation.hpp>
#include <steadyscope/core/analysis/event_index.hpp>
#include <steadyscope/core/analysis/pyfmt.hpp>
#include <steadyscope/core/analysis/roots.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

enum class SplitStatus : uint8_t { Splittable = 0, Degraded = 1, NotSplittable = 2 };
const char* splitStatusName(SplitStatus s);  // "SPLITTABLE", ...

inline constexpr double kCoverageGate = 0.95;
inline constexpr double kCoverageFloor = 0.75;
inline constexpr double kMinSpanShare = 0.5;
inline constexpr size_t kMinRoots = 4;

SplitStatus gradeCoverage(double coveredSelected);

/// §2.2 audit report.
struct CoverageReport {
  std::string strategy;          // "gpu_span" or "correlation"
  double coveredSelected = 0.0;  // coverage of the roots incl. gaps between them
  double coveredSpans = 0.0;     // coverage inside the root spans only
  double spanShare = 0.0;
  bool passes = false;
  double totalGpuUs = 0.0;
};

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

/// What a call-tree candidate found (spec §2.6.4–§2.6.7), behind its diagnostics.
struct TreeEvidence {
  std::string tier;               // "branch_descent" / "sibling_roots"
  std::optional<int64_t> period;  // siblings per iteration (a repeating run), none for a frame family
  int64_t depth = 0;              // of the frame whose children repeat (0: the entry roots)
  std::string source;             // "period" / "frame_family"
  double coverage = 0.0;          // share of GPU time, rounded to 4 places (branch_coverage)
  double iterGpuTime = 0.0;       // GPU time under the roots
  std::vector<double> rootGpuTimes;
  std::vector<EventIdx> before, after;  // siblings before / after the loop (bookend material)
  std::optional<int64_t> droppedLowGpuRoots;
  std::optional<double> warmupGpuPct, wrapupGpuPct;  // with bookends: their share in percent
  bool bookends = false;
};

/// One detector outcome (the cascade remembers all of them).
struct DetectionCandidate {
  std::string method;           // "annotation:tier", "family:unknown_only"
  std::string phaseConfidence;  // "high" / "unknown"
  std::string tier;             // "detailed" / "native" / "" (tier 2)
  SplitStatus status = SplitStatus::NotSplittable;
  RootList roots;  // sorted by ts (stable)
  std::optional<CoverageReport> coverage;
  std::optional<TreeEvidence> tree;             // call-tree candidates
  JsonValue diagnostics = JsonValue::object();  // insertion-ordered, as in the manifest
};

/// The coverage the cascade ranks a candidate by: its audit's when it has
/// one, else its call-tree coverage.
double rankingCoverage(const DetectionCandidate& c);

/// The startup-transient trim's decision (§3.9).
struct TrimInfo {
  bool ran = false;  // preconditions held (startup_transient_* keys written)
  bool trimmed = false;
  std::string kernel;
  std::optional<double> collectiveRatio;
  double noiseRatio = 0.0;
  std::optional<CoverageReport> before;  // coverage before trimming
};

struct DetectionOptions {
  /// Fix for spec §8 B2/B20: after a trim keep the pre-trim status instead of
  /// re-grading from the new coverage alone.
  bool trimKeepsStatus = false;
  /// Threads the audits may use (0: jobThreads()); 1 = all on the caller's thread.
  unsigned threads = 0;
};

/// Result of Stage 1 + trim.
/// One step of the cascade as it was tried, for the record and the window.
struct CascadeStep {
  std::string name;                 // "known annotations", "unknown families", "branch descent", ...
  std::optional<size_t> candidate;  // index into Detection::tried; none: the step found nothing
};

struct Detection {
  DetectionCandidate chosen;
  std::vector<DetectionCandidate> tried;  // every non-null candidate, in cascade order (the chosen one's
                                          // diagnostics only in `chosen`)
  std::vector<CascadeStep> steps;         // every step tried, in order
  bool usedCallTree = false;              // tiers 1–2 were not SPLITTABLE: the tree tiers ran
  std::string treeFailure;                // why the call tree could not be built ("" if it was, or not needed)
  std::string fallback;                   // "" (a tier passed), "best usable", "last resort", "none"
  std::string reason;                     // for an empty result
  TrimInfo trim;
};

/// One empty Detection, shared: what a result holds before its roots are detected.
std::shared_ptr<const Detection> noDetection();

/// Tier 1 (§2.3); nullopt when no annotation matches a known pattern.
std::optional<DetectionCandidate> detectKnownAnnotations(const EventIndex& index, unsigned threads = 0);
/// Tier 2 (§2.5); nullopt when no family qualifies.
std::optional<DetectionCandidate> detectUnknownFamilies(const EventIndex& index, unsigned threads = 0);

/// Tiers 1 and 2 and the fallback; then the trim.
Detection detectRoots(const EventIndex& index, const DetectionOptions& options = {});

/// §3.9 on a candidate (modifies it in place); returns what it decided.
TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const DetectionOptions& options = {});

}  // namespace steadyscope::analysis
