#pragma once
// Stage 1 (spec §2): the root cascade. Tiers 1–2 on the annotations
// (annotation_tiers.hpp), tiers 3–5 on the call tree (tree_tiers.hpp), the
// fallback, then the startup-transient trim (steady_state/startup_transient.hpp).
// What it decides is public (detection_types.hpp).
#include <steadyscope/core/analysis/detection_types.hpp>
#include "analysis/event_index.hpp"

namespace steadyscope::analysis {

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

/// Tiers 1 and 2 and the fallback; then the trim.
Detection detectRoots(const EventIndex& index, const DetectionOptions& options = {});

}  // namespace steadyscope::analysis
