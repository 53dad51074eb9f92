#pragma once
// Statistics of a selected time range: per event name count / total / avg /
// min / max of the slices overlapping [begin, end), each slice's time clipped
// to the range (a 271 ms span around a 7.9 ms range counts 7.9 ms), and the
// GPU busy ratio of each device inside the range (union busy / range length).
#include <steadyscope/core/timeline/overlays.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <cstdint>
#include <vector>

namespace steadyscope::timeline {

struct NameStats {
  StrId name = kNoStr;
  uint64_t count = 0;
  int64_t totalNs = 0;  // in computeRangeStats: clipped to the range, as min and max
  int64_t minNs = 0;
  int64_t maxNs = 0;
  double avgNs() const { return count ? double(totalNs) / double(count) : 0.0; }
};

struct DeviceRangeBusy {
  JsonKey pid;
  int64_t busyNs = 0;
  double ratio = 0.0;  // busyNs / (end - begin)
};

struct RangeStats {
  int64_t beginNs = 0, endNs = 0;
  uint64_t sliceCount = 0;
  std::vector<NameStats> perName;        // sorted by totalNs desc, then name id
  std::vector<DeviceRangeBusy> devices;  // parallel to TimelineIndex::devices
  double gpuBusyRatio = 0.0;             // over all devices: mean of device ratios
};

/// A slice "is in" the range when its [ts, ts + dur) overlaps [begin, end)
/// (instants: begin <= ts < end).
bool sliceInRange(const Trace& t, EventIdx e, int64_t begin, int64_t end);
/// The part of a slice's [ts, ts + dur) inside [begin, end), in ns (0 for instants).
int64_t clippedDuration(const Trace& t, EventIdx e, int64_t begin, int64_t end);

RangeStats computeRangeStats(const Trace& trace, const TimelineIndex& index, int64_t begin, int64_t end);

/// The GPU events lying wholly inside a span of their device (each span on its
/// own device), each once, in event order.
std::vector<EventIdx> gpuEventsInSpans(const Trace& trace, const TimelineIndex& index,
                                       const std::vector<GpuSpan>& spans);

/// Per-name statistics of the GPU events lying inside the given spans, each
/// span on its own device (a chunk's steps' GPU spans); an event inside two
/// spans counts once. Sorted like RangeStats::perName.
std::vector<NameStats> gpuNameStatsInSpans(const Trace& trace, const TimelineIndex& index,
                                           const std::vector<GpuSpan>& spans);

}  // namespace steadyscope::timeline
