#include <steadyscope/core/timeline/chunk_figures.hpp>
#include <steadyscope/core/timeline/format.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace steadyscope::timeline {

namespace {

constexpr size_t kNoDevice = std::numeric_limits<size_t>::max();

std::vector<size_t> deviceOfLane(const Trace& trace, const TimelineIndex& index) {
  std::vector<size_t> out(trace.lanes.size(), kNoDevice);
  for (size_t d = 0; d < index.devices.size(); ++d)
    for (uint32_t lane : index.devices[d].lanes)
      if (lane < out.size()) out[lane] = d;
  return out;
}

/// Per device: each step's span, and the chunk's distinct events (a step window may reach an event twice).
void addSteps(const Trace& trace, const std::vector<size_t>& laneDevice, const std::vector<StepGpuWork>& steps,
              ChunkFigures& f, std::vector<std::vector<EventIdx>>& perDevice) {
  const size_t nd = f.devices.size();
  std::vector<int64_t> lo(nd), hi(nd);
  for (const StepGpuWork& s : steps) {
    std::fill(lo.begin(), lo.end(), std::numeric_limits<int64_t>::max());
    std::fill(hi.begin(), hi.end(), std::numeric_limits<int64_t>::min());
    for (EventIdx e : s.events) {
      const size_t d = trace.lane[e] < laneDevice.size() ? laneDevice[trace.lane[e]] : kNoDevice;
      if (d == kNoDevice) continue;
      perDevice[d].push_back(e);
      lo[d] = std::min(lo[d], trace.tsNs[e]);
      hi[d] = std::max(hi[d], trace.tsNs[e] + std::max<int64_t>(0, trace.durNs[e]));
    }
    for (size_t d = 0; d < nd; ++d)
      if (hi[d] >= lo[d]) {
        f.devices[d].spanSumNs += hi[d] - lo[d];
        f.spans.push_back({s.step, d, lo[d], hi[d]});
      }
  }
}

void measureEvents(const Trace& trace, std::vector<EventIdx>& events, DeviceChunkFigures& d) {
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  std::vector<Interval> iv;
  iv.reserve(events.size());
  for (EventIdx e : events) {
    const int64_t dur = std::max<int64_t>(0, trace.durNs[e]);
    d.busySumNs += dur;
    if (dur > 0) iv.push_back({trace.tsNs[e], trace.tsNs[e] + dur});
  }
  d.gpuEvents = int64_t(events.size());
  iv.resize(sortAndMerge(iv));
  d.unionNs = totalLength(iv);
}

template <class Less>
const DeviceChunkFigures* pick(const std::vector<DeviceChunkFigures>& v, Less less) {
  const DeviceChunkFigures* best = nullptr;
  for (const DeviceChunkFigures& d : v)
    if (!best || less(d, *best)) best = &d;
  return best;
}

}  // namespace

ChunkFigures computeChunkFigures(const Trace& trace, const TimelineIndex& index, int64_t beginNs, int64_t endNs,
                                 const std::vector<StepGpuWork>& steps) {
  ChunkFigures f;
  f.beginNs = beginNs;
  f.endNs = endNs;
  f.devices.resize(index.devices.size());
  std::vector<std::vector<EventIdx>> perDevice(index.devices.size());
  addSteps(trace, deviceOfLane(trace, index), steps, f, perDevice);
  for (size_t d = 0; d < f.devices.size(); ++d) {
    DeviceChunkFigures& x = f.devices[d];
    x.device = d;
    x.pid = index.devices[d].pid;
    measureEvents(trace, perDevice[d], x);
    x.windowNs = std::max<int64_t>(0, endNs - beginNs);
    if (x.windowNs > 0) {
      x.windowBusyNs = index.devices[d].busy.busyIn(beginNs, endNs);
      x.longestGapNs = index.devices[d].busy.maxGapIn(beginNs, endNs);
    }
  }
  return f;
}

// A device without work in the chunk says nothing about it; the others compete.
const DeviceChunkFigures* ChunkFigures::worstUnion() const {
  return pick(devices, [](const DeviceChunkFigures& a, const DeviceChunkFigures& b) {
    if ((a.spanSumNs > 0) != (b.spanSumNs > 0)) return a.spanSumNs > 0;
    return a.unionRatio() < b.unionRatio();
  });
}

const DeviceChunkFigures* ChunkFigures::worstWindow() const {
  return pick(devices, [](const DeviceChunkFigures& a, const DeviceChunkFigures& b) {
    if ((a.gpuEvents > 0) != (b.gpuEvents > 0)) return a.gpuEvents > 0;
    return a.windowRatio() < b.windowRatio();
  });
}

const DeviceChunkFigures* ChunkFigures::worstGap() const {
  return pick(devices, [](const DeviceChunkFigures& a, const DeviceChunkFigures& b) {
    if ((a.gpuEvents > 0) != (b.gpuEvents > 0)) return a.gpuEvents > 0;
    return a.longestGapNs > b.longestGapNs;
  });
}

}  // namespace steadyscope::timeline

namespace steadyscope::timeline {

namespace {

std::string dur(int64_t ns) { return formatDuration(double(ns)); }

/// How far the device's step spans end after the CPU window (0 if they do not).
int64_t overrunNs(const ChunkFigures& f, const DeviceChunkFigures& d) {
  int64_t last = f.endNs;
  for (const StepGpuSpan& s : f.spans)
    if (s.device == d.device) last = std::max(last, s.endNs);
  return last - f.endNs;
}

// The spans and the CPU window measure different time: the GPU ran behind the
// CPU (work launched in the window finishes after it), or idled between steps.
std::string windowSentence(const ChunkFigures& f, const DeviceChunkFigures& d) {
  if (const int64_t past = overrunNs(f, d); past > d.windowNs / 10)
    return fmt::format(
        "The steps' GPU work runs {} past their CPU window: their GPU spans add up to {} against a {} window, "
        "and busy (window) counts only the {} of GPU work inside it.",
        dur(past), dur(d.spanSumNs), dur(d.windowNs), dur(d.windowBusyNs));
  if (d.spanSumNs < d.windowNs / 2)
    return fmt::format(
        "The GPU idles between the steps: their GPU spans add up to {} of the {} CPU window, and busy (window) "
        "counts the idle time too.",
        dur(d.spanSumNs), dur(d.windowNs));
  return fmt::format("Only {} of the steps' {} of GPU work lies inside their {} CPU window.", dur(d.windowBusyNs),
                     dur(d.unionNs), dur(d.windowNs));
}

double factor(double hi, double lo) { return lo > 0 ? hi / lo : (hi > 0 ? 1e300 : 1.0); }

}  // namespace

std::string busyRatiosDisagreement(const ChunkFigures& f, const DeviceChunkFigures& d) {
  if (d.gpuEvents <= 0 || d.spanSumNs <= 0 || d.windowNs <= 0) return {};
  const double ref = d.refRatio(), uni = d.unionRatio(), win = d.windowRatio();
  const double hi = std::max({ref, uni, win}), lo = std::min({ref, uni, win});
  if (factor(hi, lo) <= 2.0) return {};
  if (lo == win) return windowSentence(f, d);
  if (lo == uni && hi == ref)
    return fmt::format(
        "The steps' GPU events overlap (on several streams at once) and busy (ref) counts each of them: their "
        "plain sum, {}, is {:.1f}× their union, {}.",
        dur(d.busySumNs), factor(double(d.busySumNs), double(d.unionNs)), dur(d.unionNs));
  return fmt::format(
      "Inside the CPU window the device also runs work these steps did not launch: {} busy in the {} window, "
      "while the steps' own GPU work is {} over their {} of GPU spans.",
      dur(d.windowBusyNs), dur(d.windowNs), dur(d.unionNs), dur(d.spanSumNs));
}

std::string busyRatiosNote(const ChunkFigures& f) {
  const DeviceChunkFigures* d = f.worstWindow();
  return d ? busyRatiosDisagreement(f, *d) : std::string();
}

}  // namespace steadyscope::timeline
