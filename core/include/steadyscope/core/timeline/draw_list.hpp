#pragma once
// Level of detail: turns the visible part of a SliceRow into a short draw list.
// Slices at least `minSlicePx` wide become Slice items; runs of narrower ones
// become one Folded item (count, covered span) — Tracy's MinVisSize folding.
// The number of items per row is bounded by ~2 * width / minSlicePx, whatever
// the number of events, and finding them costs O(items * log(events/item)).
#include <steadyscope/core/timeline/timeline_index.hpp>
#include <steadyscope/core/timeline/view_math.hpp>

#include <cstdint>
#include <vector>

namespace steadyscope::timeline {

struct DrawItem {
  float x0 = 0, x1 = 0;  // pixels, clamped to [-10, width + 10]
  uint32_t row = 0;      // TimelineIndex::rows index
  uint32_t first = 0;    // position of the first event in the row
  uint32_t count = 0;    // events covered (1 for a slice)
  bool folded = false;
};

struct LodParams {
  double minSlicePx = 2.0;  // narrower slices are folded
};

/// Appends the items of one row for the mapper's window to `out` (no
/// allocation once `out` has grown to its working size).
void appendRowDrawList(const Trace& trace, const TimelineIndex& index, uint32_t rowId, const TimeMapper& map,
                       const LodParams& lod, std::vector<DrawItem>& out);

/// Coverage of [t(x), t(x+1)) for each pixel column x in [0, columns): busy
/// fraction in 0..1 written to `fraction`, and a flag per column set when an
/// idle gap of at least `gapThresholdNs` lies inside the column.
void coverageColumns(const Coverage& cov, const TimeMapper& map, int columns, int64_t gapThresholdNs,
                     std::vector<float>& fraction, std::vector<uint8_t>& longGap);

/// The event under pixel x in a row, or -1. Exact hits win; otherwise the
/// nearest slice within `catchPx` (so thin slices stay clickable).
int64_t hitTestRow(const Trace& trace, const TimelineIndex& index, uint32_t rowId, const TimeMapper& map, double x,
                   double catchPx = 3.0);

}  // namespace steadyscope::timeline
