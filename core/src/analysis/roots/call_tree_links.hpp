#pragma once
// The call tree's GPU links as its build holds them (the link key, the ac2g
// flows' ends by id, CallTree::GpuLinks) and the metadata check: what the
// build (call_tree.cpp) and the links (call_tree_links.cpp) share.
#include "analysis/roots/call_tree.hpp"

#include <optional>
#include <string>

namespace steadyscope::analysis {

namespace tree_detail {

/// The reference reads every event's ph and every metadata event's value
/// before it builds anything: a missing one makes its build throw.
std::string checkMetadata(const Trace& t);

/// An event's link id, by the trace's link key.
struct LinkKey {
  bool correlation = true;  // args.correlation, else args["External id"]
  std::optional<CorrKey> of(const EventIndex& idx, EventIdx e) const {
    if (correlation) return idx.hasCorr(e) ? std::optional<CorrKey>(idx.corrKey(e)) : std::nullopt;
    return idx.hasExtId(e) ? std::optional<CorrKey>(idx.extKey(e)) : std::nullopt;
  }
};

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
    lastEnd_.assign(slots, CallTree::kNone);
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
      EventIdx s = CallTree::kNone, f = CallTree::kNone;  // the last of each, as a dict keeps the last
      for (EventIdx x : groups_.eventsOf(k)) (t.ph[x] == Ph::FlowStart ? s : f) = x;
      return s == CallTree::kNone ? CallTree::kNone : f;
    }
    const size_t s = slotOf(k);
    return s != kNoSlot && (started_[s >> 6] >> (s & 63)) & 1 ? lastEnd_[s] : CallTree::kNone;
  }
  /// Dense ids only: event x (not a flow) with id k becomes the id's target
  /// when it is on the thread of the id's last flow end. A slot keeps its
  /// thread once overwritten, so after every linked event in file order each
  /// slot holds what a lookup of its id finds: the last such event.
  void takeLinked(const Trace& t, const CorrKey& k, EventIdx x) {
    const size_t s = slotOf(k);
    if (s != kNoSlot && lastEnd_[s] != CallTree::kNone && t.lane[lastEnd_[s]] == t.lane[x]) lastEnd_[s] = x;
  }

 private:
  static constexpr size_t kNoSlot = SIZE_MAX;
  size_t slotOf(const CorrKey& k) const {  // dense ids: the id's slot, or kNoSlot
    if (k.tag != 0 || k.v < min_ || static_cast<uint64_t>(k.v - min_) >= lastEnd_.size()) return kNoSlot;
    return static_cast<size_t>(k.v - min_);
  }
  bool dense_ = false;
  int64_t min_ = 0;
  Column<EventIdx> lastEnd_;       // per id: its last flow end (CallTree::kNone: none)
  std::vector<uint64_t> started_;  // per id: a flow start has it
  CorrGroups groups_;              // ids far apart: the flows by id
};

}  // namespace tree_detail

/// What links launches to their GPU events: the ac2g flows' ends by id, and
/// the other events that carry the link key, grouped by it. Direct (flow ids
/// close together, no graph launch): no grouping, each id's slot holds the
/// event its launch links to (FlowEnds::takeLinked).
struct CallTree::GpuLinks {
  tree_detail::LinkKey link;
  bool direct = false;
  tree_detail::FlowEnds flows;
  CorrGroups linked;  // only when not direct
};

}  // namespace steadyscope::analysis
