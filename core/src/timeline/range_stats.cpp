#include <steadyscope/core/timeline/range_stats.hpp>

#include <algorithm>
#include <unordered_map>

namespace steadyscope::timeline {

bool sliceInRange(const Trace& t, EventIdx e, int64_t begin, int64_t end) {
  const int64_t ts = t.tsNs[e];
  const int64_t d = std::max<int64_t>(0, t.durNs[e]);
  if (d == 0) return ts >= begin && ts < end;
  return ts < end && ts + d > begin;
}

int64_t clippedDuration(const Trace& t, EventIdx e, int64_t begin, int64_t end) {
  const int64_t ts = t.tsNs[e];
  const int64_t te = ts + std::max<int64_t>(0, t.durNs[e]);
  return std::max<int64_t>(0, std::min(te, end) - std::max(ts, begin));
}

namespace {
void addTo(std::unordered_map<StrId, NameStats>& acc, StrId name, int64_t d) {
  NameStats& s = acc[name];
  if (s.count == 0) {
    s.name = name;
    s.minNs = s.maxNs = d;
  } else {
    s.minNs = std::min(s.minNs, d);
    s.maxNs = std::max(s.maxNs, d);
  }
  ++s.count;
  s.totalNs += d;
}

std::vector<NameStats> sortedByTotal(std::unordered_map<StrId, NameStats>& acc) {
  std::vector<NameStats> out;
  out.reserve(acc.size());
  for (auto& [k, v] : acc) out.push_back(v);
  std::sort(out.begin(), out.end(), [](const NameStats& a, const NameStats& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
  });
  return out;
}
}  // namespace

std::vector<EventIdx> gpuEventsInSpans(const Trace& trace, const TimelineIndex& index,
                                       const std::vector<GpuSpan>& spans) {
  std::vector<EventIdx> seen;
  for (const GpuSpan& sp : spans) {
    if (sp.device < 0 || size_t(sp.device) >= index.devices.size()) continue;
    for (uint32_t lane : index.devices[size_t(sp.device)].lanes) {
      const LaneIndex& li = index.lanes[lane];
      for (uint32_t r = li.firstRow; r < li.firstRow + li.rowCount; ++r) {
        const SliceRow& row = index.rows[r];
        for (size_t i = row.firstOverlapping(sp.beginNs); i < row.events.size() && row.start[i] < sp.endNs; ++i)
          if (row.start[i] >= sp.beginNs && row.end[i] <= sp.endNs && isGpuWork(trace.classOf(row.events[i])))
            seen.push_back(row.events[i]);
      }
    }
  }
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  return seen;
}

std::vector<NameStats> gpuNameStatsInSpans(const Trace& trace, const TimelineIndex& index,
                                           const std::vector<GpuSpan>& spans) {
  std::unordered_map<StrId, NameStats> acc;
  for (EventIdx e : gpuEventsInSpans(trace, index, spans))
    addTo(acc, trace.name[e], std::max<int64_t>(0, trace.durNs[e]));
  return sortedByTotal(acc);
}

RangeStats computeRangeStats(const Trace& trace, const TimelineIndex& index, int64_t begin, int64_t end) {
  RangeStats rs;
  rs.beginNs = begin;
  rs.endNs = end;
  if (end <= begin) return rs;
  std::unordered_map<StrId, NameStats> acc;
  for (const SliceRow& row : index.rows) {
    // Positions before firstOverlapping(begin) end at or before begin.
    for (size_t i = row.firstOverlapping(begin); i < row.events.size(); ++i) {
      if (row.start[i] >= end) break;
      const EventIdx e = row.events[i];
      if (!sliceInRange(trace, e, begin, end)) continue;
      addTo(acc, trace.name[e], clippedDuration(trace, e, begin, end));
      ++rs.sliceCount;
    }
  }
  rs.perName = sortedByTotal(acc);
  const double len = double(end - begin);
  double sum = 0.0;
  for (const DeviceIndex& d : index.devices) {
    DeviceRangeBusy b;
    b.pid = d.pid;
    b.busyNs = d.busy.busyIn(begin, end);
    b.ratio = double(b.busyNs) / len;
    sum += b.ratio;
    rs.devices.push_back(b);
  }
  rs.gpuBusyRatio = rs.devices.empty() ? 0.0 : sum / double(rs.devices.size());
  return rs;
}

}  // namespace steadyscope::timeline
