#include <steadyscope/core/timeline/track_layout.hpp>

#include <algorithm>
#include <map>

namespace steadyscope::timeline {

std::string laneLabel(const Trace& trace, uint32_t l) {
  const Lane& lane = trace.lanes[l];
  auto it = trace.threadNames.find({lane.pid, lane.tid});
  const std::string tid = trace.keyText(lane.tid);
  if (lane.gpu) {
    const bool numeric = lane.tid.type == JsonKey::Type::Int;
    std::string s = numeric ? "stream " + tid : tid;
    if (it != trace.threadNames.end() && it->second != s) s += " (" + it->second + ")";
    return s;
  }
  std::string s = "thread " + tid;
  if (it != trace.threadNames.end()) {
    // Kineto often names threads "thread 851 (VLLM::EngineCore)" already.
    if (it->second.find(tid) != std::string::npos) return it->second;
    s += " (" + it->second + ")";
  }
  return s;
}

std::vector<TrackGroup> buildTrackGroups(const Trace& trace, const TimelineIndex& index) {
  std::map<JsonKey, TrackGroup> byPid;
  for (uint32_t l = 0; l < trace.lanes.size(); ++l) {
    if (l >= index.lanes.size() || index.lanes[l].rowCount == 0) continue;
    const Lane& lane = trace.lanes[l];
    TrackGroup& g = byPid[lane.pid];
    g.pid = lane.pid;
    g.gpu = g.gpu || lane.gpu;
    g.lanes.push_back(l);
  }
  for (size_t d = 0; d < index.devices.size(); ++d) {
    TrackGroup& g = byPid[index.devices[d].pid];
    g.pid = index.devices[d].pid;
    g.gpu = true;
    g.device = int32_t(d);
  }
  std::vector<TrackGroup> out;
  for (auto& [pid, g] : byPid) {
    auto it = trace.processNames.find(pid);
    std::string key = trace.keyText(pid);
    if (key.empty()) key = "(no pid)";
    if (it != trace.processNames.end())
      g.label = it->second + " (" + key + ")";
    else
      g.label = (g.gpu ? "GPU " : "process ") + key;
    // GPU streams sorted by tid; CPU threads keep trace order (main thread first).
    std::stable_sort(g.lanes.begin(), g.lanes.end(), [&](uint32_t a, uint32_t b) {
      if (trace.lanes[a].gpu != trace.lanes[b].gpu) return trace.lanes[a].gpu;
      if (trace.lanes[a].gpu) return trace.lanes[a].tid < trace.lanes[b].tid;
      return false;
    });
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(), [](const TrackGroup& a, const TrackGroup& b) { return a.gpu && !b.gpu; });
  return out;
}

TrackLayout layoutTracks(const TimelineIndex& index, const std::vector<TrackGroup>& groups, const LayoutParams& p) {
  TrackLayout out;
  int y = 0;
  for (uint32_t g = 0; g < groups.size(); ++g) {
    const TrackGroup& grp = groups[g];
    out.tracks.push_back({TrackKind::GroupHeader, g, 0, 0, -1, y, p.headerHeight, false});
    y += p.headerHeight;
    if (grp.device >= 0) {
      out.tracks.push_back({TrackKind::DeviceBusy, g, 0, 0, grp.device, y, p.busyHeight, false});
      y += p.busyHeight;
    }
    if (grp.collapsed) continue;
    for (uint32_t l : grp.lanes) {
      const LaneIndex& li = index.lanes[l];
      for (uint32_t d = 0; d < li.rowCount; ++d) {
        out.tracks.push_back({TrackKind::Slices, g, l, li.firstRow + d, -1, y, p.rowHeight, d == 0});
        y += p.rowHeight;
      }
      y += p.laneGap;
    }
  }
  out.totalHeight = y;
  return out;
}

int TrackLayout::trackAt(int y) const {
  auto it = std::upper_bound(tracks.begin(), tracks.end(), y, [](int v, const Track& t) { return v < t.y; });
  if (it == tracks.begin()) return -1;
  --it;
  if (y >= it->y + it->height) return -1;
  return int(it - tracks.begin());
}

int TrackLayout::trackOfRow(uint32_t row) const {
  for (size_t i = 0; i < tracks.size(); ++i)
    if (tracks[i].kind == TrackKind::Slices && tracks[i].row == row) return int(i);
  return -1;
}

}  // namespace steadyscope::timeline
