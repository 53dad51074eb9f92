#pragma once
// The call tree the splitter's fallback tiers search (spec §2.6.1–§2.6.2):
// host frames nested by time per thread (cpu_op, runtime and driver calls,
// python functions), each launch's GPU events under it, worker-thread roots
// folded under the host frame that encloses them. Nodes are the trace's own
// events (EventIdx); the tree only adds links and a mark.
#include "util/big_alloc.hpp"

#include "analysis/event_index.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace steadyscope::analysis {

namespace tree_detail {
/// What the tree reads of each category (by category index): made once per tree.
struct CatRoles {
  std::vector<uint8_t> host, cpuOp, runtime, python, ac2g, gpu;
};
/// An event's ts and end in exact ns, for the host stacks' comparisons:
/// where two values lie further apart than float rounding can move them, the
/// integer comparison is the reference's float one, without a division
/// (nsTimes and farApart in call_tree_stacks.cpp).
struct NsTimes {
  int64_t ts = 0, end = 0;
  int64_t magnitude = 0;  // |ts| + |dur|: bounds every value compared
  bool exact = false;     // false: ts or dur needs Python's arithmetic
};
}  // namespace tree_detail

class CallTree {
 public:
  static constexpr EventIdx kNone = UINT32_MAX;

  /// The tree of `index`'s trace, or why the reference's build would have
  /// failed on it (its detection then falls back to the annotation tiers).
  static std::variant<CallTree, std::string> build(const EventIndex& index, unsigned threads = 0);

  /// Folds the roots of other threads under the host thread's enclosing
  /// frames (the host: the thread with the most python_function events).
  void reattachWorkerThreads();
  /// Parentless frames above the cpu_op roots, deduplicated, in discovery order.
  const std::vector<EventIdx>& entryRoots() const { return entryRoots_; }

  EventIdx parent(EventIdx e) const { return parent_[e]; }
  /// Some event is the child of two launches (walks then mark what they visit).
  bool hasSharedNodes() const { return sharedNodes_; }
  /// Children in the order they were attached (host frames by time, then GPU
  /// events, then reattached roots); an event may be the child of several
  /// launches.
  std::vector<EventIdx> children(EventIdx e) const;
  /// No GPU work below (the reference's non_gpu_path mark).
  bool nonGpuPath(EventIdx e) const { return !isGpuKernel(e) && !onGpuPath(e); }
  /// A kernel, memcpy or memset by its category as written.
  bool isGpuKernel(EventIdx e) const { return roles_.gpu[trace_->cat[e]]; }
  /// GPU time of the kernels below `nodes` (the nodes included), each counted
  /// once, summed in the reference's depth-first order. Not thread-safe.
  double descendantGpuTime(std::span<const EventIdx> nodes) const;
  /// descendantGpuTime of `nodes` together and of each alone (siblings).
  struct GpuTimes {
    double total = 0.0;
    std::vector<double> each;
  };
  GpuTimes descendantGpuTimes(std::span<const EventIdx> nodes) const;

  const Trace& trace() const { return *trace_; }
  const EventIndex& index() const { return *index_; }

 private:
  struct ChildEntry {
    EventIdx child;
    uint32_t next;
  };
  explicit CallTree(const EventIndex& index);  // no arrays yet: the build's sides make them
  struct BuildState;
  void buildBeside(BuildState& s);  // the links, the checks, the stacks' pages faulted in ahead
  void buildStacks(BuildState& s);  // the child list and the host stacks
  size_t hostFrameCount() const;
  std::string buildHostStacks();
  struct Frame {  // an open frame of a thread's stack
    EventIdx event;
    bool hasEnd;    // false: the event has no dur
    uint8_t cpuOp;  // 1: a cpu_op
    tree_detail::NsTimes ns;
  };
  struct LaneStack {  // one thread's stack while its frames are pushed
    std::vector<Frame>& frames;
    const std::vector<uint8_t>& isCpuOp;
    uint32_t cpuOps = 0;  // cpu_op frames on the stack
  };
  std::string stackLane(uint32_t lane, LaneStack& stack);
  bool pushFrame(EventIdx e, LaneStack& stack, std::string& why);  // false: the build fails, for `why`
  struct GpuLinks;
  /// mayLinkDirect: the links may be made direct (GpuLinks::direct) where the trace allows.
  static std::variant<GpuLinks, std::string> groupGpuLinks(const EventIndex& index, const tree_detail::CatRoles& roles,
                                                           bool mayLinkDirect);
  /// Direct links only, beside the host stacks: sets each linked event's
  /// parent to its launch and its bit in `linked`. False, with every such
  /// parent cleared again, when an event would have two launches or is a
  /// host frame (whose parent is the stacks'): the pairs are needed then.
  bool linkDirect(const GpuLinks& links, std::vector<uint64_t>& linked);
  void attachLinked(EventIdx x);  // after the stacks: x under the launch linkDirect gave it
  /// (launch, GPU event) in link order.
  using LinkPairs = Column<std::pair<EventIdx, EventIdx>>;
  static LinkPairs findGpuLinks(const EventIndex& index, const tree_detail::CatRoles& roles, const GpuLinks& links);
  void linkChild(EventIdx launch, EventIdx gpuEvent);
  void addChild(EventIdx parent, EventIdx child);
  void markGpuUpwards(EventIdx e);
  bool isAncestor(EventIdx a, EventIdx e) const;  // a is e or above it
  std::vector<EventIdx> findEntryRoots() const;
  /// Depth-first from `nodes` (the last first, each node's children the
  /// last first), calling add(dur) for every kernel; for a forest only.
  /// `cursors`: scratch, one entry per open node (its next child entry: a
  /// list runs from the last child to the first, the walk's own order).
  template <typename Add>
  void walk(std::span<const EventIdx> nodes, std::vector<uint32_t>& cursors, Add&& add) const {
    auto visit = [&](EventIdx e) {
      if (isGpuKernel(e) && index_->hasDur(e)) add(index_->durUs(e));
      if (const uint32_t first = head_[e]; first != kNone) cursors.push_back(first);
    };
    for (size_t r = nodes.size(); r-- > 0;) {
      visit(nodes[r]);
      while (!cursors.empty()) {
        const ChildEntry entry = entries_[cursors.back()];
        if (entry.next == kNone)
          cursors.pop_back();
        else
          cursors.back() = entry.next;
        visit(entry.child);
      }
    }
  }

  /// Walks nodes[to - 1] down to nodes[from], each alone: each[k] gets its
  /// kernel times, add() every one of them in walk order.
  template <typename Add>
  void walkEach(std::span<const EventIdx> nodes, size_t from, size_t to, std::vector<double>& each, Add&& add) const;
  /// Siblings enough for descendantGpuTimes to walk them on two threads.
  static constexpr size_t kSiblingsForTwoWalks = 4096;

  /// Per event, an id or kNone, stored plus one: zero reads as kNone, so the
  /// arrays start as fresh zero pages with no fill pass and each page is
  /// faulted in by the side that first writes to it (D-060).
  class IdArray {
   public:
    IdArray() = default;
    explicit IdArray(size_t n) : v_(n) {}
    uint32_t operator[](size_t i) const { return v_[i] - 1u; }
    void set(size_t i, uint32_t id) { v_[i] = id + 1u; }
    const uint32_t* data() const { return v_.data(); }
    size_t bytes() const { return v_.size() * sizeof(uint32_t); }

   private:
    ZeroedArray<uint32_t> v_;
  };

  const EventIndex* index_;
  const Trace* trace_;
  unsigned threads_ = 0;  // as for jobThreads: 0 = the hardware's count
  tree_detail::CatRoles roles_;
  IdArray parent_;
  IdArray head_;                // an event's last-attached child entry (kNone: none)
  Column<ChildEntry> entries_;  // child lists, linked from the last child to the first
  /// A bit per event: GPU work below it, by a link or a reattachment. A
  /// marked frame's ancestors are all marked (marks go to the top), so one
  /// mark serves both, where the reference keeps two.
  ZeroedArray<uint64_t> gpuPath_;
  bool onGpuPath(EventIdx e) const { return (gpuPath_[e >> 6] >> (e & 63)) & 1; }
  void markGpuPath(EventIdx e) { gpuPath_[e >> 6] |= uint64_t(1) << (e & 63); }
  EventList cpuRootNodes_;        // cpu_ops pushed with no cpu_op below them on their thread (big: on huge pages)
  struct PythonLanes {            // python_function events per thread, counted during the build
    std::vector<uint32_t> count;  // per lane
    std::vector<uint32_t> byFirstEvent;  // lanes with any, in the order of their first one
  };
  /// Counts the python_function events per thread; finds the first host frame without ts.
  void scanHostEvents(EventIdx& withoutTs);
  PythonLanes pythonLanes_;
  std::vector<EventIdx> entryRoots_;  // made at the end of the build, again after a reattachment
  bool sharedNodes_ = false;          // some event has two parents: walks mark what they visit
  mutable Column<uint32_t> seen_;     // descendantGpuTime's visit stamps (shared nodes only)
  mutable uint32_t stamp_ = 0;
};

}  // namespace steadyscope::analysis
