#pragma once
// What the per-step charts plot: each step's duration and GPU busy ratio in
// time order, min/max decimation for drawing many steps in few pixel columns
// (every step lands in a bucket: peaks and dips survive), and a histogram of
// step durations.
#include <steadyscope/core/timeline/overlays.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace steadyscope::timeline {

struct StepPoint {
  int32_t step = 0;       // StepBand::index (the ruler's number)
  size_t position = 0;    // in TimelineOverlays::steps
  double durationNs = 0;  // the step's span
  double busyRatio = 0;   // GPU busy over the span, of the busiest device
};

/// A step's GPU busy ratio: the busiest device's busy time inside the step over its duration (0 when empty).
double stepBusyRatio(const TimelineIndex& index, const StepBand& step);

/// One point per step of `ov`, in time order.
std::vector<StepPoint> stepSeries(const TimelineIndex& index, const TimelineOverlays& ov);

struct MinMaxBucket {
  size_t first = 0, last = 0;  // positions of the values it holds, inclusive
  double min = 0, max = 0;
};
/// Consecutive values in at most `columns` buckets of (nearly) equal size.
std::vector<MinMaxBucket> decimateMinMax(std::span<const double> values, size_t columns);

struct Histogram {
  double lo = 0, binWidth = 0;
  std::vector<uint32_t> counts;
  uint32_t clipped = 0;  // values above the bins' range, counted in the last bin
  /// The bin of `v` (values beyond the range go to the first or last bin).
  size_t binOf(double v) const;
};
/// `bins` equal bins from the smallest value to the largest (one bin when they
/// are all equal). With `clipOutliers` the bins end at Tukey's outer fence
/// (third quartile + 3 × the interquartile range) and values above it fall in
/// the last bin, so a few very slow steps do not squeeze the rest into one bar.
Histogram histogramOf(std::span<const double> values, size_t bins, bool clipOutliers = false);

}  // namespace steadyscope::timeline
