#pragma once
// The chunk table's numbers for one chunk, per GPU device. Three ratios that
// divide by different intervals, so a reader can see why they disagree:
//   busy (ref)    = plain sum of the chunk's GPU durations / sum of its steps' GPU spans
//                   (the reference's gpu_busy_duration / gpu_duration; overlaps count twice)
//   busy (union)  = union of the chunk's own GPU events      / sum of its steps' GPU spans
//   busy (window) = the device's busy time inside the chunk's CPU window / the window's length
// plus the longest GPU-idle gap inside the CPU window. A step's GPU span is
// its first GPU start to its last GPU end on that device, so idle time
// between steps is left out of the first two and counted in the third.
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace steadyscope::timeline {

/// One step of a chunk: the GPU work events (kernel / memcpy / memset) its window reaches.
struct StepGpuWork {
  int32_t step = -1;  // global step index (the ruler's)
  std::vector<EventIdx> events;
};

struct DeviceChunkFigures {
  size_t device = 0;  // index into TimelineIndex::devices
  JsonKey pid;
  int64_t gpuEvents = 0;     // the chunk's own GPU events on this device (each once)
  int64_t spanSumNs = 0;     // sum over steps of each step's GPU span on this device
  int64_t busySumNs = 0;     // plain sum of those events' durations (each once)
  int64_t unionNs = 0;       // union of those events' intervals
  int64_t windowBusyNs = 0;  // every GPU event of the device inside the CPU window
  int64_t windowNs = 0;      // the CPU window's length
  int64_t longestGapNs = 0;  // longest idle gap lying inside the CPU window
  double refRatio() const { return spanSumNs > 0 ? double(busySumNs) / double(spanSumNs) : 0.0; }
  double unionRatio() const { return spanSumNs > 0 ? double(unionNs) / double(spanSumNs) : 0.0; }
  double windowRatio() const { return windowNs > 0 ? double(windowBusyNs) / double(windowNs) : 0.0; }
};

/// One step's GPU span on one device, for drawing.
struct StepGpuSpan {
  int32_t step = -1;
  size_t device = 0;
  int64_t beginNs = 0, endNs = 0;
};

struct ChunkFigures {
  int64_t beginNs = 0, endNs = 0;  // the CPU window
  std::vector<DeviceChunkFigures> devices;  // every device of the index, index order
  std::vector<StepGpuSpan> spans;           // by step, then device
  /// The device a column shows when there are several: the lowest ratio, or the longest gap.
  const DeviceChunkFigures* worstUnion() const;
  const DeviceChunkFigures* worstWindow() const;
  const DeviceChunkFigures* worstGap() const;
};

/// The figures of the chunk whose CPU window is [beginNs, endNs) and whose
/// steps reach `steps`' GPU events. Events that are not on a GPU device lane
/// of `index` are ignored.
ChunkFigures computeChunkFigures(const Trace& trace, const TimelineIndex& index, int64_t beginNs, int64_t endNs,
                                 const std::vector<StepGpuWork>& steps);

/// Why a device's busy (ref), busy (union) and busy (window) differ by more
/// than 2× (the largest over the smallest), in one sentence from the figures,
/// e.g. "The steps' GPU work runs 464.0 ms past their CPU window: …"; "" when
/// they agree within 2× or the device has no GPU work in the chunk.
std::string busyRatiosDisagreement(const ChunkFigures& f, const DeviceChunkFigures& d);

/// The same for the device the chunk table shows (ChunkFigures::worstWindow).
std::string busyRatiosNote(const ChunkFigures& f);

}  // namespace steadyscope::timeline
