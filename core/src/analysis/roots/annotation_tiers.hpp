#pragma once
// Tiers 1–2 of the root cascade (spec §2.3–§2.5): the annotations that match
// a known serving pattern, else the annotation family (by name skeleton) with
// the most GPU time; each candidate audited and graded.
#include <steadyscope/core/analysis/detection_types.hpp>
#include "analysis/event_index.hpp"

#include <cstddef>
#include <optional>

namespace steadyscope::analysis {

inline constexpr size_t kMinRoots = 4;  // fewer: suspiciously few roots (a family needs this many)

/// Tier 1 (§2.3); nullopt when no annotation matches a known pattern.
std::optional<DetectionCandidate> detectKnownAnnotations(const EventIndex& index, unsigned threads = 0);
/// Tier 2 (§2.5); nullopt when no family qualifies.
std::optional<DetectionCandidate> detectUnknownFamilies(const EventIndex& index, unsigned threads = 0);

}  // namespace steadyscope::analysis
