#include <steadyscope/core/timeline/step_series.hpp>

#include <algorithm>
#include <cmath>

namespace steadyscope::timeline {

double stepBusyRatio(const TimelineIndex& index, const StepBand& step) {
  const double len = double(step.endNs - step.beginNs);
  if (len <= 0) return 0.0;
  double r = 0.0;
  for (const DeviceIndex& d : index.devices) r = std::max(r, double(d.busy.busyIn(step.beginNs, step.endNs)) / len);
  return r;
}

std::vector<StepPoint> stepSeries(const TimelineIndex& index, const TimelineOverlays& ov) {
  std::vector<StepPoint> out;
  out.reserve(ov.steps.size());
  for (size_t i = 0; i < ov.steps.size(); ++i) {
    const StepBand& s = ov.steps[i];
    StepPoint p;
    p.step = s.index;
    p.position = i;
    p.durationNs = double(std::max<int64_t>(0, s.endNs - s.beginNs));
    for (const DeviceIndex& d : index.devices)
      if (p.durationNs > 0)
        p.busyRatio = std::max(p.busyRatio, double(d.busy.busyIn(s.beginNs, s.endNs)) / p.durationNs);
    out.push_back(p);
  }
  return out;
}

std::vector<MinMaxBucket> decimateMinMax(std::span<const double> values, size_t columns) {
  std::vector<MinMaxBucket> out;
  if (values.empty() || columns == 0) return out;
  const size_t buckets = std::min(columns, values.size());
  out.reserve(buckets);
  for (size_t b = 0; b < buckets; ++b) {
    MinMaxBucket m;
    m.first = b * values.size() / buckets;
    m.last = (b + 1) * values.size() / buckets - 1;
    const auto [lo, hi] = std::minmax_element(values.begin() + long(m.first), values.begin() + long(m.last) + 1);
    m.min = *lo;
    m.max = *hi;
    out.push_back(m);
  }
  return out;
}

size_t Histogram::binOf(double v) const {
  if (counts.empty()) return 0;
  if (binWidth <= 0 || !(v > lo)) return 0;
  return std::min(counts.size() - 1, size_t((v - lo) / binWidth));
}

Histogram histogramOf(std::span<const double> values, size_t bins, bool clipOutliers) {
  Histogram h;
  if (values.empty() || bins == 0) return h;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double lo = sorted.front();
  double hi = sorted.back();
  if (clipOutliers) {
    const double q1 = sorted[(sorted.size() - 1) / 4], q3 = sorted[3 * (sorted.size() - 1) / 4];
    hi = std::min(hi, q3 + 3 * (q3 - q1));
  }
  h.lo = lo;
  h.counts.assign(hi > lo ? bins : 1, 0);
  h.binWidth = hi > lo ? (hi - lo) / double(bins) : 1.0;
  for (double v : values) {
    ++h.counts[h.binOf(v)];
    if (v > hi) ++h.clipped;
  }
  return h;
}

}  // namespace steadyscope::timeline
