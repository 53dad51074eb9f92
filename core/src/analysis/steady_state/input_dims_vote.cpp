// The --llm-inference batch-size vote (spec §3.7.1, decision D3).
#include "analysis/steady_state/input_dims_vote.hpp"
#include "analysis/chunks/extraction.hpp"

#include <algorithm>

namespace steadyscope::analysis {

bool excludedFromInputDimsVote(std::string_view opName) {
  return std::find(kInputDimsVoteExcluded.begin(), kInputDimsVoteExcluded.end(), opName) !=
         kInputDimsVoteExcluded.end();
}

namespace {

// The cpu_op events (also Operator under the legacy-categories fix) with
// Input Dims starting in the window and no longer than it, in (ts, index) order.
EventList votingOps(const EventIndex& index, double a, double b, double len) {
  const Trace& t = index.trace();
  EventList evs;
  for (uint32_t l = 0; l < t.lanes.size(); ++l)
    index.forEachInLane(l, a, b, [&](EventIdx e) {
      if (!index.isExtractionCpu(e) || index.category(e) != "cpu_op" || !t.has(e, ev::HasInputDims)) return;
      const double ts = index.tsUs(e);
      if (a <= ts && ts < b && index.durUs(e) <= len) evs.push_back(e);
    });
  index.sortByTime(evs);
  return evs;
}

}  // namespace

std::optional<int64_t> voteInputDims(const EventIndex& index, const Tile& window, EventText& text) {
  const Trace& t = index.trace();
  const double a = window.a.asDouble(), b = window.b.asDouble(), len = (window.b - window.a).asDouble();
  std::vector<std::pair<int64_t, int64_t>> counts;  // value, count (first-seen order)
  for (EventIdx e : votingOps(index, a, b, len)) {
    if (excludedFromInputDimsVote(t.nameOf(e))) continue;
    auto v = firstInputDim(text, t, e);
    if (!v) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == *v; });
    if (it == counts.end())
      counts.emplace_back(*v, 1);
    else
      ++it->second;
  }
  std::optional<int64_t> best;
  int64_t bestCount = 0;
  for (const auto& [v, cnt] : counts)
    if (cnt > bestCount) {
      best = v;
      bestCount = cnt;
    }
  return best;
}

std::vector<std::optional<int64_t>> voteShapeBatchSizes(const EventIndex& index, SplitResult& r) {
  std::vector<std::optional<int64_t>> out;
  bool any = false;
  for (size_t k : r.workingRoots) {
    const RootInfo& ri = r.roots[k];
    const Tile w = ri.tile ? *ri.tile : Tile{index.tsPy(ri.event), index.tsPy(ri.event) + ri.dur};
    EventText text(index.trace());
    out.push_back(voteInputDims(index, w, text));
    if (!text.error().empty()) r.warnings.push_back("batch sizes from Input Dims not read: " + text.error());
    any = any || out.back().has_value();
  }
  if (!any) {
    r.log.push_back("[llm-inference] No cpu_op shapes found — falling back to generic duration-based steady state.");
    out.clear();
  }
  return out;
}

}  // namespace steadyscope::analysis
