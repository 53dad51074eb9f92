#pragma once
// What the root cascade decided (spec §2): every candidate it tried with its
// coverage audit and call-tree evidence, the chosen roots, the startup-transient
// trim, and the same in plain words. A SplitResult holds one (read-only,
// shared); the cascade that makes it is the splitter's own (analysis/roots/detection.hpp).
#include <steadyscope/core/analysis/roots.hpp>
#include <steadyscope/core/util/json_value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

enum class SplitStatus : uint8_t { Splittable = 0, Degraded = 1, NotSplittable = 2 };
const char* splitStatusName(SplitStatus s);  // "SPLITTABLE", ...

/// §2.2 audit report.
struct CoverageReport {
  std::string strategy;          // "gpu_span" or "correlation"
  double coveredSelected = 0.0;  // coverage of the roots incl. gaps between them
  double coveredSpans = 0.0;     // coverage inside the root spans only
  double spanShare = 0.0;
  bool passes = false;
  double totalGpuUs = 0.0;
};

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

/// The startup-transient trim's decision (§3.9).
struct TrimInfo {
  bool ran = false;  // preconditions held (startup_transient_* keys written)
  bool trimmed = false;
  std::string kernel;
  std::optional<double> collectiveRatio;
  double noiseRatio = 0.0;
  std::optional<CoverageReport> before;  // coverage before trimming
};

/// One step of the cascade as it was tried, for the record and the window.
struct CascadeStep {
  std::string name;                 // "known annotations", "unknown families", "branch descent", ...
  std::optional<size_t> candidate;  // index into Detection::tried; none: the step found nothing
};

/// Result of Stage 1 + trim.
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

/// The detection in plain words (SplitResult::story): what each tier of the
/// cascade found and why the chosen roots split or are refused; one wording
/// for the CLI, the gate and the window.
struct DetectionStory {
  bool splits = false;                // the roots pass the gate (with allowDegraded as given)
  std::string verdict;                // one or two sentences
  std::vector<std::string> attempts;  // one line per cascade step, in order
};

}  // namespace steadyscope::analysis
