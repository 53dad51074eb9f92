#pragma once
// Vertical layout of the timeline: groups per process (GPU devices first),
// each with a header, a GPU-busy coverage strip for devices, and one track per
// (lane, depth) row. Collapsing a group keeps its header and busy strip.
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace steadyscope::timeline {

enum class TrackKind : uint8_t { GroupHeader, DeviceBusy, Slices };

struct Track {
  TrackKind kind = TrackKind::Slices;
  uint32_t group = 0;
  uint32_t lane = 0;       // Slices: Trace::lanes index
  uint32_t row = 0;        // Slices: TimelineIndex::rows index
  int32_t device = -1;     // DeviceBusy: TimelineIndex::devices index
  int y = 0, height = 0;   // in layout coordinates (0 = top of the lanes area)
  bool laneStart = false;  // first depth row of its lane (carries the lane label)
};

struct TrackGroup {
  JsonKey pid;
  std::string label;
  bool gpu = false;
  bool collapsed = false;
  int32_t device = -1;          // TimelineIndex::devices index, -1 if none
  std::vector<uint32_t> lanes;  // Trace::lanes indices, display order
};

struct LayoutParams {
  int headerHeight = 18;
  int busyHeight = 22;
  int rowHeight = 16;
  int laneGap = 3;
};

/// The groups in display order (GPU processes first, then by pid). Lanes
/// without drawable slices are left out.
std::vector<TrackGroup> buildTrackGroups(const Trace& trace, const TimelineIndex& index);

struct TrackLayout {
  std::vector<Track> tracks;  // sorted by y
  int totalHeight = 0;
  /// Index of the track at layout y, or -1.
  int trackAt(int y) const;
  /// Index of the first slice track of a (lane, depth) row, or -1.
  int trackOfRow(uint32_t row) const;
};

TrackLayout layoutTracks(const TimelineIndex& index, const std::vector<TrackGroup>& groups,
                         const LayoutParams& params = {});

/// "stream 7", "thread 851 (python)" ...
std::string laneLabel(const Trace& trace, uint32_t lane);

}  // namespace steadyscope::timeline
