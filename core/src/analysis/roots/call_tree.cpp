// The call tree (spec §2.6.1–§2.6.2) built the way the reference's Trace2Tree
// builds it, its two sides side by side (the host stacks: call_tree_stacks.cpp;
// the GPU links and the metadata check: call_tree_links.cpp), and what the
// tiers ask of it: children, entry roots, GPU time below nodes.
#include "analysis/roots/call_tree.hpp"
#include "analysis/roots/call_tree_links.hpp"

#include "util/bits.hpp"
#include "util/phase_timer.hpp"
#include "util/side_by_side.hpp"
#include "util/big_alloc.hpp"

#include <algorithm>
#include <atomic>
#include <variant>

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

using tree_detail::catRoles;
using tree_detail::checkMetadata;

namespace {

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

}  // namespace

CallTree::CallTree(const EventIndex& index) : index_(&index), trace_(&index.trace()), roles_(catRoles(index)) {}

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
