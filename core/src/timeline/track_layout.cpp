#include <steadyscope/core/timeline/track_layout.hpp>

#include <algorithm>
#include <cctype>
#include <map>

namespace steadyscope::timeline {

namespace {
std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool isNumber(std::string_view s) { return allDigits(!s.empty() && s.front() == '-' ? s.substr(1) : s); }

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` in `text` with no letter, digit or '_' either side: "GPU 0" holds 0, "python3" does not hold 3.
bool containsWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !isWordChar(text[at - 1])) && (end == text.size() || !isWordChar(text[end]))) return true;
  }
  return false;
}

// The tid's number when it is one (7, "7", "stream 7"), else its text.
std::string tidCore(std::string_view tid) {
  tid = trimmed(tid);
  if (tid.substr(0, 7) == "stream ") tid = trimmed(tid.substr(7));
  return std::string(tid);
}

bool isMarkerLane(const LaneView& v) { return v.longSpan; }
}  // namespace

bool containsNoCase(std::string_view text, std::string_view filter) {
  if (filter.empty()) return true;
  auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  return std::search(text.begin(), text.end(), filter.begin(), filter.end(), eq) != text.end();
}

std::string idText(const Trace& trace, const JsonKey& key) {
  if (key.type == JsonKey::Type::Int && key.i <= -2 && key.i >= INT32_MIN)
    return std::to_string(uint64_t(key.i) + (uint64_t(1) << 32));
  return trace.keyText(key);
}

std::string laneKey(const Trace& trace, uint32_t l) { return tidCore(idText(trace, trace.lanes[l].tid)); }

std::string laneLabel(const Trace& trace, uint32_t l) {
  const Lane& lane = trace.lanes[l];
  auto it = trace.threadNames.find({lane.pid, lane.tid});
  const std::string_view name = it == trace.threadNames.end() ? std::string_view{} : trimmed(it->second);
  const std::string core = laneKey(trace, l);
  // Numbers get a word ("stream 7", "thread 851"); a tid that is a name already stays as it is.
  std::string base = isNumber(core) ? (lane.gpu ? "stream " : "thread ") + core : core;
  if (name.empty() || name == base || name == core) return base;
  // Kineto often names threads "thread 851 (VLLM::EngineCore)" and streams "stream 7 " already.
  if (isNumber(core) && containsWord(name, core)) return std::string(name);
  return base + " (" + std::string(name) + ")";
}

namespace {
std::string_view nameIn(const std::map<JsonKey, std::string>& names, const JsonKey& pid) {
  auto it = names.find(pid);
  return it == names.end() ? std::string_view{} : trimmed(it->second);
}

// "GPU 0 · python3", "CPU · python3 (19392)", "process 7", "Spans": the trace's
// words for the process (labels, then name), its id added unless they say it.
std::string groupLabel(const Trace& trace, const TrackGroup& g) {
  std::string key = idText(trace, g.pid);
  if (key.empty()) key = "(no pid)";
  const std::string_view name = nameIn(trace.processNames, g.pid), labels = nameIn(trace.processLabels, g.pid);
  std::string words(labels != name ? labels : std::string_view{});
  if (!name.empty()) words += (words.empty() ? "" : " · ") + std::string(name);
  if (words.empty()) return isNumber(key) ? (g.gpu ? "GPU " : "process ") + key : key;
  if (containsWord(words, key)) return words;  // "GPU 0" says its id already
  return words + " (" + key + ")";
}

// Names a group and its lane views, marks the profiler's own lanes and orders the streams.
void finishGroup(const Trace& trace, const TimelineIndex& index, int64_t span, TrackGroup& g) {
  for (LaneView& v : g.lanes) {
    // The lane with a thread name (usually the busiest) names the view.
    std::stable_sort(v.lanes.begin(), v.lanes.end(),
                     [&](uint32_t a, uint32_t b) { return index.lanes[a].sliceCount > index.lanes[b].sliceCount; });
    v.label = laneLabel(trace, v.lanes.front());
    for (uint32_t l : v.lanes)
      if (trace.threadNames.count({trace.lanes[l].pid, trace.lanes[l].tid})) v.label = laneLabel(trace, l);
    // A few slices over most of the trace (the profiler's own span) or a few instants (its markers).
    uint64_t n = 0;
    int64_t busy = 0;
    for (uint32_t l : v.lanes) {
      n += index.lanes[l].sliceCount;
      busy = std::max(busy, index.lanes[l].coverage.totalBusy());
    }
    v.longSpan = n <= 4 && (busy * 2 >= span || busy == 0);
    v.collapsed = v.longSpan;
  }
  g.label = groupLabel(trace, g);
  // Kineto's own processes have string pids ("Spans", "Traces"); a real process has a number.
  const bool onlyMarks = std::all_of(g.lanes.begin(), g.lanes.end(), [](const LaneView& v) { return v.longSpan; });
  g.bookkeeping = g.device < 0 && (g.lanes.empty() || (g.pid.type == JsonKey::Type::Str && onlyMarks));
  // GPU streams sorted by number; CPU threads keep trace order (main thread first).
  std::stable_sort(g.lanes.begin(), g.lanes.end(), [&](const LaneView& a, const LaneView& b) {
    const Lane &la = trace.lanes[a.lanes.front()], &lb = trace.lanes[b.lanes.front()];
    if (la.gpu != lb.gpu) return la.gpu;
    if (la.gpu) return la.tid < lb.tid;
    return false;
  });
}

// Every process the trace mentions (by an event or a name) gets a group, empty if need be.
void addNamedProcesses(const Trace& trace, std::map<JsonKey, TrackGroup>& byPid) {
  auto add = [&](const JsonKey& pid) {
    if (trace.keyText(pid).empty()) return;  // the profiler's ("", "") lane: no process at all
    byPid.try_emplace(pid).first->second.pid = pid;
  };
  for (const Lane& lane : trace.lanes) add(lane.pid);
  for (const auto& [pid, name] : trace.processNames) add(pid);
  for (const auto& [pid, labels] : trace.processLabels) add(pid);
}
}  // namespace

std::vector<TrackGroup> buildTrackGroups(const Trace& trace, const TimelineIndex& index) {
  std::map<JsonKey, TrackGroup> byPid;
  std::map<std::pair<JsonKey, std::string>, size_t> viewOf;  // (pid, tid key) -> index in the group's lanes
  const int64_t span = std::max<int64_t>(1, index.lastNs - index.firstNs);
  for (uint32_t l = 0; l < trace.lanes.size(); ++l) {
    if (l >= index.lanes.size() || index.lanes[l].rowCount == 0) continue;
    const Lane& lane = trace.lanes[l];
    const std::string key = laneKey(trace, l);
    if (key.empty() && trace.keyText(lane.pid).empty()) continue;  // no pid, no tid: global markers only
    TrackGroup& g = byPid[lane.pid];
    g.pid = lane.pid;
    g.gpu = g.gpu || lane.gpu;
    auto [it, fresh] = viewOf.try_emplace({lane.pid, key}, g.lanes.size());
    if (fresh) g.lanes.push_back({});
    LaneView& v = g.lanes[it->second];
    v.lanes.push_back(l);
  }
  for (size_t d = 0; d < index.devices.size(); ++d) {
    TrackGroup& g = byPid[index.devices[d].pid];
    g.pid = index.devices[d].pid;
    g.gpu = true;
    g.device = int32_t(d);
  }
  addNamedProcesses(trace, byPid);
  std::vector<TrackGroup> out;
  for (auto& [pid, g] : byPid) {
    finishGroup(trace, index, span, g);
    out.push_back(std::move(g));
  }
  auto rank = [&](const TrackGroup& g) {
    const bool markers =
        g.device < 0 && std::all_of(g.lanes.begin(), g.lanes.end(), [](const LaneView& v) { return isMarkerLane(v); });
    return g.bookkeeping ? 3 : markers ? 2 : g.gpu ? 0 : 1;
  };
  std::stable_sort(out.begin(), out.end(), [&](const TrackGroup& a, const TrackGroup& b) { return rank(a) < rank(b); });
  return out;
}

namespace {
void layoutLane(const TimelineIndex& index, const LaneView& v, uint32_t g, uint32_t vi, const LayoutParams& p, int& y,
                std::vector<Track>& out) {
  bool first = true;
  if (v.collapsed) {  // one thin strip of the lane's first row
    const LaneIndex& li = index.lanes[v.lanes.front()];
    out.push_back({TrackKind::Slices, g, li.lane, li.firstRow, -1, y, p.collapsedHeight, true, vi, true});
    y += p.collapsedHeight + p.laneGap;
    return;
  }
  for (uint32_t l : v.lanes) {
    const LaneIndex& li = index.lanes[l];
    for (uint32_t d = 0; d < li.rowCount; ++d) {
      out.push_back({TrackKind::Slices, g, l, li.firstRow + d, -1, y, p.rowHeight, first, vi, false});
      first = false;
      y += p.rowHeight;
    }
  }
  y += p.laneGap;
}

bool shown(const TrackGroup& g, const LaneView& v, const LayoutParams& p) {
  return p.filter.empty() || containsNoCase(v.label, p.filter) || containsNoCase(g.label, p.filter);
}
}  // namespace

TrackLayout layoutTracks(const TimelineIndex& index, const std::vector<TrackGroup>& groups, const LayoutParams& p) {
  TrackLayout out;
  int y = 0;
  for (uint32_t g = 0; g < groups.size(); ++g)  // pinned lanes first, above every group
    for (uint32_t v = 0; v < groups[g].lanes.size() && (p.showBookkeeping || !groups[g].bookkeeping); ++v)
      if (groups[g].lanes[v].pinned && shown(groups[g], groups[g].lanes[v], p))
        layoutLane(index, groups[g].lanes[v], g, v, p, y, out.tracks);
  for (uint32_t g = 0; g < groups.size(); ++g) {
    const TrackGroup& grp = groups[g];
    if (grp.bookkeeping && !p.showBookkeeping) continue;
    if (grp.lanes.empty() && grp.device < 0) {  // a name only: its header says the process is there
      if (!p.filter.empty() && !containsNoCase(grp.label, p.filter)) continue;
      out.tracks.push_back({TrackKind::GroupHeader, g, 0, 0, -1, y, p.headerHeight, false});
      y += p.headerHeight;
      continue;
    }
    const bool any = std::any_of(grp.lanes.begin(), grp.lanes.end(),
                                 [&](const LaneView& v) { return !v.pinned && shown(grp, v, p); });
    if (!any && !(grp.device >= 0 && (p.filter.empty() || containsNoCase(grp.label, p.filter)))) continue;
    out.tracks.push_back({TrackKind::GroupHeader, g, 0, 0, -1, y, p.headerHeight, false});
    y += p.headerHeight;
    if (grp.device >= 0) {
      out.tracks.push_back({TrackKind::DeviceBusy, g, 0, 0, grp.device, y, p.busyHeight, false});
      y += p.busyHeight;
    }
    if (grp.collapsed) continue;
    for (uint32_t v = 0; v < grp.lanes.size(); ++v)
      if (!grp.lanes[v].pinned && shown(grp, grp.lanes[v], p)) layoutLane(index, grp.lanes[v], g, v, p, y, out.tracks);
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
