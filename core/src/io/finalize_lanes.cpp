// Lanes: the events of each (pid, tid) in time order, B/E pairs, nesting depth.
#include "io/finalize.hpp"

#include "util/nearly_sorted.hpp"
#include "model/column_fill.hpp"

#include <algorithm>

namespace steadyscope::io {

namespace {

/// (ts, longer first, file order). With file order as the last key the order
/// is total, so any sort gives the stable sort's result.
struct LaneOrder {
  const int64_t* ts;
  const DurReader& durOf;
  bool operator()(EventIdx a, EventIdx b) const {
    if (ts[a] != ts[b]) return ts[a] < ts[b];
    const int64_t da = durOf(a), db = durOf(b);
    if (da != db) return da > db;
    return a < b;
  }
};

/// Pairs one lane's B and E events; true when it has any (its B durations may
/// have changed).
bool pairLane(Trace& tr, const Lane& lane, PairResult& pairs, std::vector<EventIdx>& stack) {
  stack.clear();
  bool any = false;
  for (EventIdx i : lane.events) {
    if (tr.ph[i] == Ph::Begin) {
      stack.push_back(i);
      any = true;
    } else if (tr.ph[i] == Ph::End) {
      any = true;
      if (stack.empty()) {
        addAnomaly(pairs.anomalies, A_UnmatchedE, i);
        continue;
      }
      EventIdx b = stack.back();
      stack.pop_back();
      // A dur written on the B event wins over the pair's (the reference
      // reads the field; D-015); the other thread reads only such durs.
      if (!(tr.flags[b] & ev::HasDur)) {
        const int64_t d = tr.tsNs[i] - tr.tsNs[b];
        if (DurColumn::fitsNarrow(d)) {
          ColumnFill::narrow(tr.durNs)[b] = static_cast<int32_t>(d);
        } else {
          ColumnFill::narrow(tr.durNs)[b] = DurColumn::kWide;
          pairs.pairedWide[b] = d;
        }
        pairs.pairedB.push_back(b);
      }
      if (pairs.paired.empty()) pairs.paired.assign(tr.size(), 0);
      pairs.paired[b] = 1;
    }
  }
  for (EventIdx b : stack) addAnomaly(pairs.anomalies, A_UnmatchedB, b);
  return any;
}

}  // namespace

int64_t DurReader::wide(EventIdx i) const {
  if (auto it = pairs_.pairedWide.find(i); it != pairs_.pairedWide.end()) return it->second;
  return col_[i];
}

void buildLanes(Trace& tr, const DurReader& durOf) {
  const size_t n = tr.size();
  std::vector<uint32_t> laneCount(tr.lanes.size(), 0);
  for (EventIdx i = 0; i < n; ++i)
    if (inLane(tr.flags[i], tr.ph[i])) ++laneCount[tr.lane[i]];
  for (size_t l = 0; l < tr.lanes.size(); ++l) tr.lanes[l].events.reserve(laneCount[l]);
  for (EventIdx i = 0; i < n; ++i)
    if (inLane(tr.flags[i], tr.ph[i])) tr.lanes[tr.lane[i]].events.push_back(i);
  const LaneOrder order{tr.tsNs.data(), durOf};
  Column<EventIdx> aside;
  for (auto& lane : tr.lanes) sortNearlySorted(lane.events, order, aside);
}

void pairBeginEnd(Trace& tr, PairResult& pairs, const DurReader& durOf) {
  const LaneOrder order{tr.tsNs.data(), durOf};
  Column<EventIdx> aside;
  std::vector<EventIdx> stack;
  for (auto& lane : tr.lanes)
    if (pairLane(tr, lane, pairs, stack))
      sortNearlySorted(lane.events, order, aside);  // B durations changed: restore the (ts, longer first) order
}

void applyPairs(Trace& tr, PairResult& pairs) {
  for (EventIdx b : pairs.pairedB) tr.flags[b] |= ev::DurFromPair;
  ColumnFill::mergeWide(tr.durNs, {pairs.pairedWide.begin(), pairs.pairedWide.end()});
}

void DepthQueue::publish(const Trace& tr) {
  order_.resize(tr.lanes.size());
  for (size_t l = 0; l < order_.size(); ++l) order_[l] = static_cast<uint32_t>(l);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](uint32_t a, uint32_t b) { return tr.lanes[a].events.size() > tr.lanes[b].events.size(); });
  ready_.store(true, std::memory_order_release);
  ready_.notify_all();
}

void DepthQueue::work(Trace& tr, const PairResult& pairs, const DurReader& durOf) {
  std::vector<int64_t> ends;
  for (size_t k; (k = next_.fetch_add(1, std::memory_order_relaxed)) < order_.size();) {
    Lane& lane = tr.lanes[order_[k]];
    ends.clear();
    uint16_t maxDepth = 0;
    for (EventIdx i : lane.events) {
      bool slice = (tr.ph[i] == Ph::Complete && (tr.flags[i] & ev::HasDur)) ||
                   (tr.ph[i] == Ph::Begin && !pairs.paired.empty() && pairs.paired[i]);
      if (!slice) {
        tr.depth[i] = 0;
        continue;
      }
      int64_t ts = tr.tsNs[i];
      while (!ends.empty() && ends.back() <= ts) ends.pop_back();
      uint16_t d = static_cast<uint16_t>(std::min<size_t>(ends.size(), UINT16_MAX));
      tr.depth[i] = d;
      maxDepth = std::max(maxDepth, d);
      int64_t e = ts + std::max<int64_t>(durOf(i), 0);
      // A child ending after its parent is clipped for nesting purposes.
      if (!ends.empty()) e = std::min(e, ends.back());
      ends.push_back(e);
    }
    lane.maxDepth = maxDepth;
  }
}

}  // namespace steadyscope::io
