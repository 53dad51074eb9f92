#pragma once
// Find by name: the matching events in time order with their count and total
// time per name (like Tracy's find zone), and per row the positions of the
// matches, so the view highlights every match in the window with at most one
// mark per pixel column whatever the number of matches.
#include <steadyscope/core/timeline/range_stats.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>
#include <steadyscope/core/timeline/view_math.hpp>

#include <functional>
#include <string_view>
#include <vector>

namespace steadyscope::timeline {

struct FindResults {
  std::vector<EventIdx> events;                   // drawn matches, by (ts, file order)
  int64_t totalNs = 0;                            // sum of their durations
  std::vector<NameStats> perName;                 // by total time, longest first
  std::vector<std::vector<uint32_t>> rowMatches;  // per TimelineIndex row: positions of its matches
  std::vector<std::vector<int64_t>> rowStarts;    // their start times, side by side: searches stay in cache
  std::vector<uint8_t> nameHit;                   // per StrId: the name matches
  std::vector<uint8_t> eventHit;                  // per EventIdx, for a set of events (findEventSet); else empty
  bool matches(const Trace& t, EventIdx e) const {
    if (!eventHit.empty()) return e < eventHit.size() && eventHit[e];
    return t.name[e] < nameHit.size() && nameHit[t.name[e]];
  }
  bool empty() const { return events.empty(); }
};

/// Per StrId: 1 when `matches(name)` (each distinct name asked once; "" never).
std::vector<uint8_t> matchNames(const StringPool& pool, const std::function<bool(std::string_view)>& matches);

/// The events drawn in some row whose name is marked in `nameHit`.
FindResults findEvents(const Trace& trace, const TimelineIndex& index, const std::vector<uint8_t>& nameHit);
/// The same for a set of events (an op's kernels): marked and counted like name matches.
FindResults findEventSet(const Trace& trace, const TimelineIndex& index, const std::vector<EventIdx>& events);

struct MatchMark {
  float x0 = 0, x1 = 0;  // pixels, clamped to [-10, width + 10]
};

/// Marks of the row's matches in the mapper's window: one per match at least
/// 1 px wide, runs of narrower ones folded into one mark per pixel column.
void appendRowMatchMarks(const TimelineIndex& index, const FindResults& found, uint32_t row, const TimeMapper& map,
                         std::vector<MatchMark>& out);

/// Index in `found.events` of the first match starting at or after `ts`
/// (events.size() when none): where Enter continues from the view.
size_t firstMatchFrom(const Trace& trace, const FindResults& found, int64_t ts);

}  // namespace steadyscope::timeline
