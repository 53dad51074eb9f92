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
      const int64_t d = std::max<int64_t>(0, trace.durNs[e]);
      NameStats& s = acc[trace.name[e]];
      if (s.count == 0) {
        s.name = trace.name[e];
        s.minNs = s.maxNs = d;
      } else {
        s.minNs = std::min(s.minNs, d);
        s.maxNs = std::max(s.maxNs, d);
      }
      ++s.count;
      s.totalNs += d;
      ++rs.sliceCount;
    }
  }
  rs.perName.reserve(acc.size());
  for (auto& [k, v] : acc) rs.perName.push_back(v);
  std::sort(rs.perName.begin(), rs.perName.end(), [](const NameStats& a, const NameStats& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
  });
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
