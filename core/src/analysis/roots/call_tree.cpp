// The fallback tiers' call tree (spec §2.6.1–§2.6.2), built the way the
// reference's Trace2Tree builds it, including the inputs on which its build
// throws (the cascade then keeps the annotation candidates).
#include "analysis/roots/call_tree.hpp"

#include <steadyscope/core/util/bits.hpp>
#include <steadyscope/core/util/phase_timer.hpp>

#include <steadyscope/core/util/side_by_side.hpp>

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <unordered_map>

namespace steadyscope::analysis {

namespace tree_detail {

// Under the legacy-categories fix the 2021 names (Operator, Runtime, Kernel,
// ...) read as the newer ones, as everywhere else in the index.
CatRoles catRoles(const EventIndex& idx) {
  const Trace& t = idx.trace();
  CatRoles r;
  const size_t n = t.categories.size();
  for (auto* v : {&r.host, &r.cpuOp, &r.runtime, &r.python, &r.ac2g, &r.gpu}) v->assign(n, 0);
  for (size_t c = 0; c < n; ++c) {
    const std::string_view text = t.strings.view(t.categories[c]);
    const std::string_view s = idx.legacyCategories() ? modernCategoryName(text) : text;
    r.cpuOp[c] = s == "cpu_op";
    r.runtime[c] = s == "cuda_runtime" || s == "cuda_driver";
    r.python[c] = s == "python_function";
    r.host[c] = r.cpuOp[c] || r.runtime[c] || r.python[c];
    r.ac2g[c] = s == "ac2g";
    r.gpu[c] = s == "kernel" || s == "gpu_memcpy" || s == "gpu_memset";
  }
  return r;
}

}  // namespace tree_detail

using tree_detail::CatRoles;
using tree_detail::catRoles;
using tree_detail::NsTimes;

namespace {

constexpr EventIdx kNone = CallTree::kNone;

/// The args key a metadata event's value is read from, or null for a name
/// the reference's metadata table does not know (its build then fails).
const char* metadataLabel(std::string_view name) {
  if (name == "process_name" || name == "thread_name") return "name";
  if (name == "process_labels") return "labels";
  if (name == "process_sort_index" || name == "thread_sort_index") return "sort_index";
  return nullptr;
}

/// True when event e's text is an object whose args object has `key`.
bool argsHave(EventText& text, simdjson::ondemand::parser& parser, EventIdx e, const char* key) {
  std::string_view raw;
  if (!text.read(e, raw)) return false;
  simdjson::padded_string padded(raw);
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return false;
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return false;
  simdjson::ondemand::value args;
  if (obj.find_field_unordered("args").get(args)) return false;
  if (!key) return true;
  simdjson::ondemand::object argsObj;
  if (args.get_object().get(argsObj)) return false;
  simdjson::ondemand::value v;
  return !argsObj.find_field_unordered(key).get(v);
}

/// The reference reads every event's ph and every metadata event's value
/// before it builds anything: a missing one makes its build throw.
std::string checkMetadata(const Trace& t) {
  EventText text(t);
  simdjson::ondemand::parser parser;
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (t.ph[e] == Ph::Missing) return "event " + std::to_string(e) + " has no ph";
    if (t.ph[e] != Ph::Metadata) continue;
    const char* label = metadataLabel(t.nameOf(e));
    if (!label) return "metadata event " + std::to_string(e) + " has an unknown name";
    if (!argsHave(text, parser, e, label)) return "metadata event " + std::to_string(e) + " has no args." + label;
  }
  return {};
}

/// An event's link id, by the trace's link key.
struct LinkKey {
  bool correlation = true;  // args.correlation, else args["External id"]
  std::optional<CorrKey> of(const EventIndex& idx, EventIdx e) const {
    if (correlation) return idx.hasCorr(e) ? std::optional<CorrKey>(idx.corrKey(e)) : std::nullopt;
    return idx.hasExtId(e) ? std::optional<CorrKey>(idx.extKey(e)) : std::nullopt;
  }
};

bool containsLaunch(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("launch") != std::string::npos;
}

/// Which args key links launches to GPU events: that of the first launch.
std::variant<LinkKey, std::string> chooseLinkKey(const Trace& t, const CatRoles& roles) {
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.runtime[t.cat[e]] || !containsLaunch(t.nameOf(e))) continue;
    if (t.has(e, ev::HasCorr)) return LinkKey{true};
    EventText text(t);
    simdjson::ondemand::parser parser;
    if (!t.has(e, ev::HasExtId) && !argsHave(text, parser, e, nullptr))
      return "launch event " + std::to_string(e) + " has no args";
    return LinkKey{false};
  }
  return LinkKey{false};
}

/// Faults in [block, block + bytes) from its end, 2 MiB at a time, without
/// changing a byte: another thread may be filling it from the front meanwhile.
void populateBackwards(const void* block, size_t bytes) {
  constexpr size_t kStep = size_t(2) << 20;
  auto* p = static_cast<char*>(const_cast<void*>(block));
  for (size_t end = bytes; end > 0;) {
    const size_t begin = end > kStep ? end - kStep : 0;
    if (!bigmem::populate(p + begin, end - begin)) return;
    end = begin;
  }
}

bool laneHasPidTid(const Trace& t, uint32_t lane) {
  return t.lanes[lane].pid.type != JsonKey::Type::None && t.lanes[lane].tid.type != JsonKey::Type::None;
}

}  // namespace

CallTree::CallTree(const EventIndex& index) : index_(&index), trace_(&index.trace()), roles_(catRoles(index)) {}

namespace {

/// Per flow id, all a launch's lookup reads of the ac2g flows: the id's last
/// flow end in file order, when some flow start has the id too. Ids close
/// together get a slot each (no list of the 1.5 M flows of a 1 GB trace, the
/// tree's biggest fresh block after its own arrays); others are grouped.
class FlowEnds {
 public:
  /// forEach(fn) hands fn every flow event in file order; called twice at most.
  template <typename ForEach>
  void build(const EventIndex& idx, const KeyRange& range, ForEach&& forEach) {
    dense_ = range.dense();
    if (!dense_) {
      groups_.build(range, forEach, [&](EventIdx e) { return idx.corrKey(e); });
      return;
    }
    min_ = range.mn;
    const auto slots = static_cast<size_t>(range.mx - range.mn + 1);
    lastEnd_.assign(slots, kNone);
    started_.assign(slots / 64 + 1, 0);
    const Trace& t = idx.trace();
    forEach([&](EventIdx e) {
      const auto s = static_cast<size_t>(idx.corrKey(e).v - min_);
      if (t.ph[e] == Ph::FlowStart)
        started_[s >> 6] |= uint64_t(1) << (s & 63);
      else
        lastEnd_[s] = e;
    });
  }
  EventIdx endOf(const Trace& t, const CorrKey& k) const {
    if (!dense_) {
      EventIdx s = kNone, f = kNone;  // the last of each, as a dict keeps the last
      for (EventIdx x : groups_.eventsOf(k)) (t.ph[x] == Ph::FlowStart ? s : f) = x;
      return s == kNone ? kNone : f;
    }
    const size_t s = slotOf(k);
    return s != kNoSlot && (started_[s >> 6] >> (s & 63)) & 1 ? lastEnd_[s] : kNone;
  }
  /// Dense ids only: event x (not a flow) with id k becomes the id's target
  /// when it is on the thread of the id's last flow end. A slot keeps its
  /// thread once overwritten, so after every linked event in file order each
  /// slot holds what a lookup of its id finds: the last such event.
  void takeLinked(const Trace& t, const CorrKey& k, EventIdx x) {
    const size_t s = slotOf(k);
    if (s != kNoSlot && lastEnd_[s] != kNone && t.lane[lastEnd_[s]] == t.lane[x]) lastEnd_[s] = x;
  }

 private:
  static constexpr size_t kNoSlot = SIZE_MAX;
  size_t slotOf(const CorrKey& k) const {  // dense ids: the id's slot, or kNoSlot
    if (k.tag != 0 || k.v < min_ || static_cast<uint64_t>(k.v - min_) >= lastEnd_.size()) return kNoSlot;
    return static_cast<size_t>(k.v - min_);
  }
  bool dense_ = false;
  int64_t min_ = 0;
  Column<EventIdx> lastEnd_;       // per id: its last flow end (kNone: none)
  std::vector<uint64_t> started_;  // per id: a flow start has it
  CorrGroups groups_;              // ids far apart: the flows by id
};

}  // namespace

/// What links launches to their GPU events: the ac2g flows' ends by id, and
/// the other events that carry the link key, grouped by it. Direct (flow ids
/// close together, no graph launch): no grouping, each id's slot holds the
/// event its launch links to (FlowEnds::takeLinked).
struct CallTree::GpuLinks {
  LinkKey link;
  bool direct = false;
  FlowEnds flows;
  CorrGroups linked;  // only when not direct
};

/// What the build's two sides hand each other (CallTree::build).
struct CallTree::BuildState {
  explicit BuildState(bool p) : parallel(p) {}
  const bool parallel;                             // the sides run on two threads
  std::atomic<const void*> entriesBlock{nullptr};  // the child list, once reserved
  size_t entriesBytes = 0;
  std::variant<GpuLinks, std::string> links;
  // Found beside the host stacks, attached after them: the GPU events whose
  // parent the helper wrote (direct links), else (launch, GPU event) pairs.
  std::vector<uint64_t> directlyLinked;
  LinkPairs gpuPairs;
  EventIdx hostWithoutTs = kNone;  // the first host frame without ts
  std::string metadataWhy, stacksWhy;

  /// Why the build fails, in the order the reference's build finds it: it
  /// reads the link key, the metadata and the flows before it stacks frames.
  std::string failure() const {
    const auto* linksWhy = std::get_if<std::string>(&links);
    if (linksWhy && linksWhy->rfind("launch", 0) == 0) return *linksWhy;
    if (!metadataWhy.empty()) return metadataWhy;
    if (linksWhy) return *linksWhy;
    if (hostWithoutTs != kNone) return "call-tree event " + std::to_string(hostWithoutTs) + " has no ts";
    return stacksWhy;
  }
};

// The groupings, the GPU links and the metadata check read the trace only:
// on big traces they run on another core while the host stacks are built.
// The tree's arrays are fresh memory that needs no fill (zero reads as
// none): each side faults in the pages it writes first, and the other side
// faults in the stacks' blocks from their ends while the stacks fill them
// from the front.
std::variant<CallTree, std::string> CallTree::build(const EventIndex& index, unsigned threads) {
  CallTree tree(index);
  tree.threads_ = threads;
  const size_t n = index.trace().size();
  tree.parent_ = IdArray(n);
  tree.head_ = IdArray(n);
  tree.gpuPath_ = ZeroedArray<uint64_t>((n + 63) / 64);
  const bool big = n >= (size_t(1) << 18);
  BuildState s(sideBySide(threads, big));
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  runSideBySide(
      threads, big, [&] { tree.buildBeside(s); }, [&] { tree.buildStacks(s); });
  timer.mark("    tree: both sides");
  if (std::string why = s.failure(); !why.empty()) return why;
  if (std::get<GpuLinks>(s.links).direct)
    forEachSetBit(s.directlyLinked, [&](EventIdx x) { tree.attachLinked(x); });
  else
    for (const auto& [launch, gpuEvent] : s.gpuPairs) tree.linkChild(launch, gpuEvent);
  tree.entryRoots_ = tree.findEntryRoots();  // GPU links change no host frame's parent
  timer.mark("    tree: GPU links");
  return tree;
}

void CallTree::buildBeside(BuildState& s) {
  const Trace& t = *trace_;
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  s.links = groupGpuLinks(*index_, roles_, true);
  if (auto* g = std::get_if<GpuLinks>(&s.links); g && g->direct)
    if (!linkDirect(*g, s.directlyLinked)) s.links = groupGpuLinks(*index_, roles_, false);
  if (auto* g = std::get_if<GpuLinks>(&s.links); g && !g->direct) s.gpuPairs = findGpuLinks(*index_, roles_, *g);
  timer.mark("    tree: GPU pairs");
  if (s.parallel) {
    if (const void* block = s.entriesBlock.load(std::memory_order_acquire)) populateBackwards(block, s.entriesBytes);
    populateBackwards(head_.data(), head_.bytes());
  }
  s.metadataWhy = checkMetadata(t);
  scanHostEvents(s.hostWithoutTs);  // for the reattachment, off the stacks' path
  timer.mark("    tree: helper done");
}

void CallTree::buildStacks(BuildState& s) {
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  // One entry per host frame with a parent, one per linked GPU event (about one per kernel).
  reserveFresh(entries_, hostFrameCount() + index_->kernels.size());
  s.entriesBytes = entries_.capacity() * sizeof(ChildEntry);
  s.entriesBlock.store(entries_.data(), std::memory_order_release);
  s.stacksWhy = buildHostStacks();
  timer.mark("    tree: host stacks");
}

void CallTree::addChild(EventIdx p, EventIdx c) {
  // Prepended (no tail pointers to keep): a list runs from the last child to the first.
  entries_.push_back({c, head_[p]});
  head_.set(p, static_cast<uint32_t>(entries_.size() - 1));
}

std::vector<EventIdx> CallTree::children(EventIdx e) const {
  std::vector<EventIdx> out;
  for (uint32_t k = head_[e]; k != kNone; k = entries_[k].next) out.push_back(entries_[k].child);
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {

/// |ns| under 2^53: ns and 1000 are exact doubles, so ns / 1000 is one
/// correctly rounded division (the float the reference reads) and ns order
/// is float order.
bool fitsExactNs(int64_t ns) { return ns > -(int64_t(1) << 53) && ns < (int64_t(1) << 53); }

/// The reference's order of frames: ts as Python floats, then file order.
struct TsThenFileOrder {
  const EventIndex& idx;
  bool operator()(EventIdx a, EventIdx b) const {
    const double ta = idx.tsUs(a), tb = idx.tsUs(b);
    return ta != tb ? ta < tb : a < b;
  }
};

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
  const TsThenFileOrder less{idx};
  // Huge or finer-than-1-ns ts may tie or order differently as floats.
  if (!exact && !std::is_sorted(out.begin(), out.end(), less)) std::sort(out.begin(), out.end(), less);
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
  const TsThenFileOrder byTsThenFile{*index_};
  if (lanesWithRoots > 1 && !std::is_sorted(cpuRootNodes_.begin(), cpuRootNodes_.end(), byTsThenFile))
    std::sort(cpuRootNodes_.begin(), cpuRootNodes_.end(), byTsThenFile);
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
    __builtin_prefetch(t.durNs.narrow().data() + a);
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

void CallTree::markGpuUpwards(EventIdx e) {
  // A marked frame's ancestors are all marked (marks always go to the top).
  for (EventIdx a = e; a != kNone && !onGpuPath(a); a = parent_[a]) markGpuPath(a);
}

namespace {

/// The linked events grouped by their link id (forEachLinked(fn) calls
/// fn(event, id) in file order).
template <typename ForEachLinked, typename Links>
void groupLinked(const EventIndex& idx, ForEachLinked&& forEachLinked, Links& g) {
  KeyRange linkRange;
  EventList linked;  // big: on huge pages, reused blocks
  reserveFresh(linked, idx.kernels.size());
  forEachLinked([&](EventIdx e, const CorrKey& key) {
    linkRange.add(key);
    linked.push_back(e);
  });
  g.linked.build(
      linkRange,
      [&linked](auto&& fn) {
        for (EventIdx e : linked) fn(e);
      },
      [&](EventIdx e) { return *g.link.of(idx, e); });
}

}  // namespace

std::variant<CallTree::GpuLinks, std::string> CallTree::groupGpuLinks(const EventIndex& idx, const CatRoles& roles,
                                                                      bool mayLinkDirect) {
  const Trace& t = idx.trace();
  auto chosen = chooseLinkKey(t, roles);
  if (auto* why = std::get_if<std::string>(&chosen)) return *why;
  GpuLinks g;
  g.link = std::get<LinkKey>(chosen);
  auto isFlow = [&](EventIdx e) {
    return roles.ac2g[t.cat[e]] && (t.ph[e] == Ph::FlowStart || t.ph[e] == Ph::FlowEnd);
  };
  // Lookups ask for GPU events (graph launches) and for events on the lanes
  // flows end on: only those are linked. One pass over the trace checks the
  // flows, the next fills their ends, a third takes the linked events.
  KeyRange flowRange;
  std::vector<uint8_t> flowEndLane(t.lanes.size(), 0);
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!isFlow(e)) continue;
    if (!t.has(e, ev::HasId)) return "flow event " + std::to_string(e) + " has no id";
    flowRange.add(idx.corrKey(e));
    if (t.ph[e] == Ph::FlowEnd) flowEndLane[t.lane[e]] = 1;
  }
  g.flows.build(idx, flowRange, [&](auto&& fn) {  // the trace again: cheaper than a list of the flows
    for (EventIdx e = 0; e < t.size(); ++e)
      if (isFlow(e)) fn(e);
  });
  g.direct = mayLinkDirect && flowRange.dense() && t.strings.find("cudaGraphLaunch") == kNoStr &&
             t.strings.find("hipGraphLaunch") == kNoStr;
  auto forEachLinked = [&](auto&& fn) {
    for (EventIdx e = 0; e < t.size(); ++e) {
      if (roles.ac2g[t.cat[e]] || !(flowEndLane[t.lane[e]] || roles.gpu[t.cat[e]])) continue;
      if (const auto key = g.link.of(idx, e)) fn(e, *key);
    }
  };
  if (g.direct)
    forEachLinked([&](EventIdx e, const CorrKey& key) { g.flows.takeLinked(t, key, e); });
  else
    groupLinked(idx, forEachLinked, g);
  return g;
}

// Each launch's GPU events: a graph launch owns every GPU event with its
// link id; another launch the one its ac2g flow pair points at (the last
// event in file order with the flow end's pid, tid and id). In the order the
// reference links them; reads the trace only, so it runs beside the stacks.
CallTree::LinkPairs CallTree::findGpuLinks(const EventIndex& idx, const CatRoles& roles, const GpuLinks& g) {
  const Trace& t = idx.trace();
  LinkPairs pairs;
  reserveFresh(pairs, idx.kernels.size());
  const StrId cudaGraph = t.strings.find("cudaGraphLaunch"), hipGraph = t.strings.find("hipGraphLaunch");
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.runtime[t.cat[e]]) continue;
    const auto key = g.link.of(idx, e);
    if (!key) continue;
    if ((cudaGraph != kNoStr && t.name[e] == cudaGraph) || (hipGraph != kNoStr && t.name[e] == hipGraph)) {
      for (EventIdx x : g.linked.eventsOf(*key))
        if (roles.gpu[t.cat[x]]) pairs.push_back({e, x});
      continue;
    }
    const EventIdx f = g.flows.endOf(t, *key);
    if (f == kNone || !laneHasPidTid(t, t.lane[f])) continue;
    EventIdx out = kNone;
    for (EventIdx x : g.linked.eventsOf(idx.corrKey(f)))
      if (t.lane[x] == t.lane[f]) out = x;
    if (out != kNone) pairs.push_back({e, out});
  }
  return pairs;
}

bool CallTree::linkDirect(const GpuLinks& g, std::vector<uint64_t>& linked) {
  const Trace& t = *trace_;
  const EventIndex& idx = *index_;
  linked.assign((t.size() + 63) / 64, 0);
  auto targetOf = [&](EventIdx launch) {
    const auto key = g.link.of(idx, launch);
    const EventIdx x = key ? g.flows.endOf(t, *key) : kNone;  // the flow end when nothing took its slot
    return x == kNone || roles_.ac2g[t.cat[x]] || !laneHasPidTid(t, t.lane[x]) ? kNone : x;
  };
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles_.runtime[t.cat[e]]) continue;
    const EventIdx x = targetOf(e);
    if (x == kNone) continue;
    if (roles_.host[t.cat[x]] || parent_[x] != kNone) {  // a host frame's parent is the stacks'; two launches
      forEachSetBit(linked, [&](EventIdx y) { parent_.set(y, kNone); });
      return false;
    }
    parent_.set(x, e);
    linked[x >> 6] |= uint64_t(1) << (x & 63);
  }
  return true;
}

void CallTree::attachLinked(EventIdx x) {
  addChild(parent_[x], x);
  markGpuUpwards(parent_[x]);
}

void CallTree::linkChild(EventIdx launch, EventIdx g) {
  if (parent_[g] != kNone || head_[g] != kNone || g == launch) {  // already in the tree: walks must not count it twice
    sharedNodes_ = true;
    // Linking an enclosing frame under its own launch would close a loop
    // (the reference's build never returns on it): leave that link out.
    for (EventIdx a = launch; a != kNone; a = parent_[a])
      if (a == g) return;
  }
  addChild(launch, g);
  parent_.set(g, launch);
  markGpuUpwards(launch);
}

std::vector<EventIdx> CallTree::findEntryRoots() const {
  std::vector<EventIdx> roots;
  std::vector<uint64_t> seen((trace_->size() + 63) / 64, 0);  // a bit per event: fewer fresh pages than a byte
  for (EventIdx e : cpuRootNodes_) {
    EventIdx top = e;
    while (parent_[top] != kNone) top = parent_[top];
    uint64_t& word = seen[top / 64];
    const uint64_t bit = uint64_t(1) << (top % 64);
    if (!(word & bit)) {
      word |= bit;
      roots.push_back(top);
    }
  }
  return roots;
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

template <typename Add>
void CallTree::walkEach(std::span<const EventIdx> nodes, size_t from, size_t to, std::vector<double>& each,
                        Add&& add) const {
  std::vector<uint32_t> cursors;
  for (size_t k = to; k-- > from;) {
    double& mine = each[k];
    walk(nodes.subspan(k, 1), cursors, [&](double dur) {
      add(dur);
      mine += dur;
    });
  }
}

CallTree::GpuTimes CallTree::descendantGpuTimes(std::span<const EventIdx> nodes) const {
  GpuTimes out;
  if (sharedNodes_) {  // each walk needs its own visit marks
    out.total = descendantGpuTime(nodes);
    for (EventIdx n : nodes) out.each.push_back(descendantGpuTime(std::span<const EventIdx>(&n, 1)));
    return out;
  }
  // A forest, and siblings share no descendants: one walk in the reference's
  // order (the last node's subtree first) gives both sums, each with its own
  // additions in the order a walk of that node alone makes them. Many
  // siblings are walked on two threads: the first ones' kernel times are kept
  // in walk order and added to the total after the others', as one walk would.
  out.each.assign(nodes.size(), 0.0);
  const size_t split = sideBySide(threads_, nodes.size() >= kSiblingsForTwoWalks) ? nodes.size() / 2 : 0;
  Column<double> later;  // the kernel times of nodes [0, split), in walk order
  runSideBySide(
      threads_, split > 0,
      [&] {
        if (split > 0) reserveFresh(later, index_->kernels.size());
        walkEach(nodes, 0, split, out.each, [&](double dur) { later.push_back(dur); });
      },
      [&] { walkEach(nodes, split, nodes.size(), out.each, [&](double dur) { out.total += dur; }); });
  for (double dur : later) out.total += dur;
  return out;
}

double CallTree::descendantGpuTime(std::span<const EventIdx> nodes) const {
  double total = 0.0;
  if (!sharedNodes_) {  // a forest: no node is reached twice
    std::vector<uint32_t> cursors;
    walk(nodes, cursors, [&](double dur) { total += dur; });
    return total;
  }
  std::vector<EventIdx> stack(nodes.begin(), nodes.end());
  if (seen_.empty()) seen_.assign(trace_->size(), 0);
  if (++stamp_ == 0) {  // wrapped: start the stamps again
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  while (!stack.empty()) {
    const EventIdx e = stack.back();
    stack.pop_back();
    if (seen_[e] == stamp_) continue;
    seen_[e] = stamp_;
    if (isGpuKernel(e) && index_->hasDur(e)) total += index_->durUs(e);
    // The children in attach order onto the stack: the list runs backwards.
    const size_t at = stack.size();
    for (uint32_t k = head_[e]; k != kNone; k = entries_[k].next) stack.push_back(entries_[k].child);
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());
  }
  return total;
}

}  // namespace steadyscope::analysis
