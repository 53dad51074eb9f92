#pragma once
// Vertical layout of the timeline: groups per process (GPU devices first),
// each with a header, a GPU-busy coverage strip for devices, and one lane per
// real thread or stream. A lane is one or more of the trace's (pid, tid)
// lanes (a trace may name the same thread twice: tid 25738 and "25738") with
// one track per row. Lanes can be collapsed (one thin strip), pinned to the
// top and filtered by name; collapsing a group keeps its header and busy strip.
// Processes with no event of the run (only names, or only the profiler's own
// span) are kept apart and shown on request.
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
  bool laneStart = false;  // first track of its lane view (carries the lane label)
  uint32_t view = 0;       // Slices: index into the group's lanes
  bool collapsed = false;  // Slices: the thin strip of a collapsed lane
};

/// One lane as shown: the trace lanes of one thread or stream, named once.
struct LaneView {
  std::vector<uint32_t> lanes;  // Trace::lanes indices, the busiest first
  std::string label;            // "stream 7", "thread 25738 (python)"
  bool collapsed = false;       // one thin strip instead of its rows
  bool pinned = false;          // shown above every group
  bool longSpan = false;        // a few slices over most of the trace, or a few instants: the profiler's own marks
};

struct TrackGroup {
  JsonKey pid;
  std::string label;  // "GPU 0 · python3", "CPU · python3 (19392)", "process 7"
  bool gpu = false;
  bool collapsed = false;
  /// Holds no event of the run: only metadata (a name, labels) or only the profiler's
  /// own span under a string pid ("Spans", "Traces"). Laid out only when asked.
  bool bookkeeping = false;
  int32_t device = -1;          // TimelineIndex::devices index, -1 if none
  std::vector<LaneView> lanes;  // display order
};

struct LayoutParams {
  int headerHeight = 18;
  int busyHeight = 22;
  int rowHeight = 16;
  int laneGap = 3;
  int collapsedHeight = 8;
  std::string filter;            // lanes whose name (or process name) contains it, any case; empty: all
  bool showBookkeeping = false;  // lay out the bookkeeping groups too (last)
};

/// The groups in display order (GPU processes first, then by pid, groups that
/// hold only long-span or marker lanes last, bookkeeping groups after them).
/// Lanes without drawable slices, and lanes with neither pid nor tid, are left
/// out; the same thread named twice is one lane; long-span lanes start
/// collapsed; a named process without a drawable lane is an empty bookkeeping group.
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

/// "stream 7", "thread 851 (python)", "PyTorch Profiler": the lane's name,
/// without repeating its id.
std::string laneLabel(const Trace& trace, uint32_t lane);

/// A pid or tid as shown: its text, but a negative integer from -2^31 to -2 as
/// the unsigned 32-bit id it stands for (Kineto writes pthread ids through a
/// signed 32-bit int: -1107294656 is thread 3187672640). -1 stays: a sentinel.
std::string idText(const Trace& trace, const JsonKey& key);

/// The text a lane's identity is compared by when merging: the tid without
/// surrounding spaces, a "stream " prefix or the difference between 7 and "7".
std::string laneKey(const Trace& trace, uint32_t lane);

/// Does `text` contain `filter`, ignoring ASCII case? (Empty filter: yes.)
bool containsNoCase(std::string_view text, std::string_view filter);

}  // namespace steadyscope::timeline
