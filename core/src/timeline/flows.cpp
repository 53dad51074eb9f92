#include <steadyscope/core/timeline/flows.hpp>

#include <algorithm>

namespace steadyscope::timeline {

namespace {
// A flow end binds to the slice enclosing it, or to one starting just after
// (Chrome's "next slice" binding); 1 µs of slack covers rounding in the text.
constexpr int64_t kBindSlackNs = 1000;

std::string kindOf(const Trace& t, EventIdx flow) {
  const CatClass c = t.classOf(flow);
  if (c == CatClass::FlowAc2g) return "launch → kernel";
  const std::string_view cat = t.catOf(flow);
  if (cat == "fwdbwd") return "forward → backward";
  return std::string(cat.empty() || cat == "None" ? std::string_view("flow") : cat);
}

// The flow events on `lane` with ts in [a, b].
std::pair<size_t, size_t> flowsOnLane(const Trace& t, const TimelineIndex& ix, uint32_t lane, int64_t a, int64_t b) {
  auto key = [&](EventIdx f) { return std::pair<uint32_t, int64_t>(t.lane[f], t.tsNs[f]); };
  const auto& v = ix.flowsByLane;
  const auto lo = std::lower_bound(v.begin(), v.end(), std::pair<uint32_t, int64_t>(lane, a),
                                   [&](EventIdx f, const auto& k) { return key(f) < k; });
  const auto hi = std::upper_bound(lo, v.end(), std::pair<uint32_t, int64_t>(lane, b),
                                   [&](const auto& k, EventIdx f) { return k < key(f); });
  return {size_t(lo - v.begin()), size_t(hi - v.begin())};
}

void addLink(std::vector<FlowLink>& out, EventIdx self, EventIdx other, bool outgoing, std::string kind) {
  if (other == self) return;
  for (const FlowLink& l : out)
    if (l.other == other) return;  // ac2g flows repeat the correlation link
  out.push_back({other, outgoing, std::move(kind)});
}

void flowEventLinks(const Trace& t, const TimelineIndex& ix, EventIdx e, std::vector<FlowLink>& out) {
  const int64_t ts = t.tsNs[e], end = ts + std::max<int64_t>(0, t.durNs[e]);
  const auto [lo, hi] = flowsOnLane(t, ix, t.lane[e], ts - kBindSlackNs, end);
  for (size_t k = lo; k < hi; ++k) {
    const EventIdx f = ix.flowsByLane[k];
    if (!t.has(f, ev::HasId) || t.has(f, ev::CorrIsStr)) continue;
    if (ix.sliceAt(t, t.lane[f], t.tsNs[f], kBindSlackNs) != std::optional<EventIdx>(e)) continue;
    const auto peers =
        std::equal_range(ix.flowsById.begin(), ix.flowsById.end(), std::pair<int64_t, EventIdx>(t.corr[f], 0),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = peers.first; it != peers.second; ++it) {
      const EventIdx p = it->second;
      if (p == f || t.cat[p] != t.cat[f]) continue;  // flow ids are per category
      const std::optional<EventIdx> other = ix.sliceAt(t, t.lane[p], t.tsNs[p], kBindSlackNs);
      if (!other) continue;
      const bool outgoing = t.ph[f] == Ph::FlowStart || (t.ph[f] == Ph::FlowStep && t.tsNs[p] > t.tsNs[f]);
      addLink(out, e, *other, outgoing, kindOf(t, f));
    }
  }
}
}  // namespace

std::vector<FlowLink> flowLinks(const Trace& trace, const TimelineIndex& index, EventIdx e) {
  std::vector<FlowLink> out;
  if (e >= trace.size()) return out;
  if (const std::optional<EventIdx> o = index.linkedEvent(trace, e)) {
    const bool fromGpu = isGpuWork(trace.classOf(e));
    addLink(out, e, *o, !fromGpu, fromGpu || isGpuWork(trace.classOf(*o)) ? "launch → kernel" : "correlation");
  }
  flowEventLinks(trace, index, e, out);
  std::stable_sort(out.begin(), out.end(),
                   [&](const FlowLink& a, const FlowLink& b) { return trace.tsNs[a.other] < trace.tsNs[b.other]; });
  return out;
}

}  // namespace steadyscope::timeline
