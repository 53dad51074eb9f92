// The call tree's host stacks: host frames nested by time per thread, as the
// reference's stack over the time-sorted events nests them, and the worker
// threads' roots folded under the host frame that encloses them (spec §2.6.1–§2.6.2).
#include "analysis/roots/call_tree.hpp"
#include "util/big_alloc.hpp"
#include "model/column_fill.hpp"

#include <algorithm>

namespace steadyscope::analysis {

using tree_detail::NsTimes;

namespace {

/// |ns| under 2^53: ns and 1000 are exact doubles, so ns / 1000 is one
/// correctly rounded division (the float the reference reads) and ns order
/// is float order.
bool fitsExactNs(int64_t ns) { return ns > -(int64_t(1) << 53) && ns < (int64_t(1) << 53); }

/// The events of `lane` that `keep` accepts, in (ts, file order): the
/// lane's own list is sorted by ts with longer events first among equal ts,
/// the reference's sort keeps file order among them.
template <typename Keep>
EventList laneInFileOrderTies(const EventIndex& idx, uint32_t lane, Keep&& keep) {
  const Trace& t = idx.trace();
  EventList out;                                   // big: on huge pages, reused blocks
  reserveFresh(out, t.lanes[lane].events.size());  // pages are touched only as far as it fills
  bool exact = true;                               // every ts an exact double of its ns: ns order is float order
  for (EventIdx e : t.lanes[lane].events)
    if (keep(e)) {
      out.push_back(e);
      exact = exact && !t.has(e, ev::TsInexact) && fitsExactNs(t.tsNs[e]);
    }
  size_t i = 0;
  while (i < out.size()) {  // runs of one ts: sort each by file order
    size_t j = i + 1;
    while (j < out.size() && t.tsNs[out[j]] == t.tsNs[out[i]]) ++j;
    if (j - i > 1)
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j));
    i = j;
  }
  if (!exact) idx.sortByTime(out);  // huge or finer-than-1-ns ts may tie or order differently as floats
  return out;
}

/// Calls fn(e) for the events of `lane` that `keep` accepts in (ts, file
/// order) without a list of them: the lane's own order, each run of one ts
/// put in file order. Right where every ts is an exact double of its ns
/// (canStreamLane). fn returns false to stop. ahead(e) is called for the
/// event kAhead places further on the lane, every event, kept or not.
template <size_t kAhead, typename Keep, typename Fn, typename Ahead>
void forEachInFileOrderTies(const Trace& t, uint32_t lane, Keep&& keep, Fn&& fn, Ahead&& ahead) {
  const EventList& evs = t.lanes[lane].events;
  std::vector<EventIdx> run;
  for (size_t k = 0; k < evs.size();) {
    if (k + kAhead < evs.size()) ahead(evs[k + kAhead]);
    size_t j = k + 1;
    while (j < evs.size() && t.tsNs[evs[j]] == t.tsNs[evs[k]]) ++j;
    if (j == k + 1) {  // the usual case: a ts of its own
      if (keep(evs[k]) && !fn(evs[k])) return;
      k = j;
      continue;
    }
    run.clear();
    for (size_t i = k; i < j; ++i)
      if (keep(evs[i])) run.push_back(evs[i]);
    std::sort(run.begin(), run.end());
    for (EventIdx e : run)
      if (!fn(e)) return;
    k = j;
  }
}

/// No event has a ts finer than 1 ns (the loader keeps every such ts in
/// exactTsUs) and the lane's ts (sorted) lie within 2^53 ns: ns order is
/// float order, as laneInFileOrderTies checks per event.
bool canStreamLane(const Trace& t, uint32_t lane) {
  const EventList& evs = t.lanes[lane].events;
  return t.exactTsUs.empty() && (evs.empty() || (fitsExactNs(t.tsNs[evs.front()]) && fitsExactNs(t.tsNs[evs.back()])));
}

}  // namespace

/// The host frames, by the loader's counts per category (the child list's size).
size_t CallTree::hostFrameCount() const {
  const Trace& t = *trace_;
  size_t n = 0;
  for (size_t c = 0; c < t.categories.size(); ++c) {
    if (!roles_.host[c]) continue;
    const auto it = t.stats.perCat.find(std::string(t.strings.view(t.categories[c])));
    if (it != t.stats.perCat.end()) n += it->second;
  }
  return n;
}

// Host frames per thread by a stack over the time-sorted events, as the
// reference does: a frame ends its predecessors when it starts at or after
// their end; one that bleeds past its enclosing frame by under 1 µs replaces
// it (when that frame is nested), a longer bleed drops the frame. Threads are
// independent, so each is walked on its own; the cpu_op roots are then put
// in the reference's global (ts, file) order.
std::string CallTree::buildHostStacks() {
  const Trace& t = *trace_;
  std::vector<Frame> frames;
  size_t lanesWithRoots = 0;
  for (uint32_t lane = 0; lane < t.lanes.size(); ++lane) {
    const size_t before = cpuRootNodes_.size();
    LaneStack stack{frames, roles_.cpuOp};
    if (std::string why = stackLane(lane, stack); !why.empty()) return why;
    lanesWithRoots += cpuRootNodes_.size() > before;
  }
  // Each thread's roots are in (ts, file) order already: only several threads' need a sort.
  if (lanesWithRoots > 1) index_->sortByTime(cpuRootNodes_);
  return {};
}

std::string CallTree::stackLane(uint32_t lane, LaneStack& stack) {
  const Trace& t = *trace_;
  stack.frames.clear();
  auto isHost = [&](EventIdx e) { return roles_.host[t.cat[e]] != 0; };
  // A thread's frames are scattered among the other threads' events: ask
  // for the columns of a frame a few steps ahead while this one is stacked.
  auto prefetch = [&](EventIdx a) {
    __builtin_prefetch(&t.tsNs[a]);
    __builtin_prefetch(&t.flags[a]);
    __builtin_prefetch(&t.cat[a]);
    __builtin_prefetch(ColumnFill::narrow(t.durNs).data() + a);
    __builtin_prefetch(parent_.data() + a);
  };
  constexpr size_t kAhead = 16;
  std::string why;
  if (canStreamLane(t, lane)) {  // no list of the lane's frames: its own order is theirs
    forEachInFileOrderTies<kAhead>(
        t, lane, isHost, [&](EventIdx e) { return pushFrame(e, stack, why); }, prefetch);
    return why;
  }
  const EventList order = laneInFileOrderTies(*index_, lane, isHost);
  for (size_t k = 0; k < order.size(); ++k) {
    if (k + kAhead < order.size()) prefetch(order[k + kAhead]);
    if (!pushFrame(order[k], stack, why)) break;
  }
  return why;
}

namespace {

NsTimes nsTimes(const Trace& t, EventIdx e) {
  NsTimes n;
  const int64_t ts = t.tsNs[e], dur = t.has(e, ev::HasDur) ? t.durNs[e] : 0;
  n.exact = !t.has(e, ev::TsInexact | ev::DurInexact) && fitsExactNs(ts) && fitsExactNs(dur);
  if (!n.exact) return n;
  n.ts = ts;
  n.end = ts + dur;
  n.magnitude = (ts < 0 ? -ts : ts) + (dur < 0 ? -dur : dur);
  return n;
}

/// Exact values a and b (ns) differ by more than the few ulps at `magnitude`
/// that rounding ts, dur and their sum to floats can move them (the margin
/// is 16 ulps): their floats then compare as they do.
bool farApart(int64_t a, int64_t b, int64_t magnitude) {
  const int64_t d = a > b ? a - b : b - a;
  return d > (magnitude >> 48) + 2;
}

}  // namespace

bool CallTree::pushFrame(EventIdx e, LaneStack& s, std::string& why) {
  const Trace& t = *trace_;
  const EventIndex& idx = *index_;
  std::vector<Frame>& st = s.frames;
  auto pop = [&] {  // counts without a branch: which frames are cpu_ops does not follow a pattern
    s.cpuOps -= st.back().cpuOp;
    st.pop_back();
  };
  auto noEnd = [&why](EventIdx x) {
    why = "call-tree event " + std::to_string(x) + " has no dur";
    return false;
  };
  const NsTimes me = nsTimes(t, e);
  // Each comparison as the reference makes it in Python numbers, from the
  // exact ns where rounding cannot decide it.
  auto exactFor = [&](const Frame& top) { return me.exact && top.ns.exact; };
  auto marginOf = [&](const Frame& top) { return me.magnitude + top.ns.magnitude; };
  auto topHasEnded = [&](const Frame& top) {  // ts >= the top's end
    if (exactFor(top) && farApart(me.ts, top.ns.end, marginOf(top))) return me.ts >= top.ns.end;
    return idx.tsPy(e) >= idx.endPy(top.event);
  };
  auto endsAfterTop = [&](const Frame& top) {
    if (exactFor(top) && farApart(me.end, top.ns.end, marginOf(top))) return me.end > top.ns.end;
    return idx.endPy(e) > idx.endPy(top.event);
  };
  auto bleedsUnder1us = [&](const Frame& top) {  // the top's end - ts < 1.0
    const int64_t bleed = top.ns.end - me.ts;
    if (exactFor(top) && farApart(bleed, 1000, marginOf(top))) return bleed < 1000;
    return (idx.endPy(top.event) - idx.tsPy(e)).asDouble() < 1.0;
  };
  while (!st.empty()) {
    if (!st.back().hasEnd) return noEnd(st.back().event);
    if (!topHasEnded(st.back())) break;
    pop();
  }
  const bool hasEnd = idx.hasDur(e);
  if (!st.empty()) {
    if (!hasEnd) return noEnd(e);
    if (endsAfterTop(st.back())) {
      if (bleedsUnder1us(st.back()) && st.size() >= 2)
        pop();
      else
        return true;  // dropped
    }
  }
  if (!st.empty()) {
    parent_.set(e, st.back().event);
    addChild(st.back().event, e);
  }
  const uint8_t cpuOp = s.isCpuOp[t.cat[e]];
  st.push_back({e, hasEnd, cpuOp, me});
  if (s.cpuOps == 0 && cpuOp) cpuRootNodes_.push_back(e);
  s.cpuOps += cpuOp;
  return true;
}

void CallTree::scanHostEvents(EventIdx& withoutTs) {
  const Trace& t = *trace_;
  PythonLanes& p = pythonLanes_;
  p.count.assign(t.lanes.size(), 0);
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles_.host[t.cat[e]]) continue;
    if (withoutTs == kNone && !index_->hasTs(e)) withoutTs = e;
    if (roles_.python[t.cat[e]] && p.count[t.lane[e]]++ == 0) p.byFirstEvent.push_back(t.lane[e]);
  }
}

// An autograd (or other worker) thread's roots run while the host thread
// waits inside one of its frames: make each the child of the innermost host
// event (any category) that encloses it in time, and clear the no-GPU mark
// of that frame and its marked ancestors.
void CallTree::reattachWorkerThreads() {
  const Trace& t = *trace_;
  const EventIndex& idx = *index_;
  const std::vector<uint32_t>& pyCount = pythonLanes_.count;
  const std::vector<uint32_t>& laneOrder = pythonLanes_.byFirstEvent;
  if (laneOrder.empty()) return;
  uint32_t host = laneOrder.front();
  for (uint32_t l : laneOrder)
    if (pyCount[l] > pyCount[host]) host = l;
  const std::vector<EventIdx>& roots = entryRoots_;
  if (std::none_of(roots.begin(), roots.end(), [&](EventIdx r) { return t.lane[r] != host; })) return;
  const EventList hostNodes = laneInFileOrderTies(idx, host, [&](EventIdx e) { return idx.hasDur(e); });
  if (hostNodes.empty()) return;
  bool moved = false;
  for (EventIdx root : roots) {
    if (t.lane[root] == host || !idx.hasTs(root) || !idx.hasDur(root)) continue;
    const PyNum lo = idx.tsPy(root), hi = idx.endPy(root);
    auto it = std::upper_bound(hostNodes.begin(), hostNodes.end(), lo,
                               [&](const PyNum& v, EventIdx h) { return v < idx.tsPy(h); });
    EventIdx container = kNone;
    while (it != hostNodes.begin()) {
      --it;
      if (!(idx.endPy(*it) < hi)) {
        container = *it;
        break;
      }
    }
    if (container == kNone || isAncestor(root, container)) continue;  // never a loop
    parent_.set(root, container);
    addChild(container, root);
    for (EventIdx a = container; a != kNone && nonGpuPath(a); a = parent_[a]) markGpuPath(a);
    moved = true;
  }
  if (moved) entryRoots_ = findEntryRoots();
}

bool CallTree::isAncestor(EventIdx a, EventIdx e) const {
  for (EventIdx p = e; p != kNone; p = parent_[p])
    if (p == a) return true;
  return false;
}

}  // namespace steadyscope::analysis
