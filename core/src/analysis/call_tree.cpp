// The fallback tiers' call tree (spec §2.6.1–§2.6.2), built the way the
// reference's Trace2Tree builds it, including the inputs on which its build
// throws (the cascade then keeps the annotation candidates).
#include <steadyscope/core/analysis/call_tree.hpp>

#include <simdjson.h>

#include <algorithm>
#include <unordered_map>

namespace steadyscope::analysis {

namespace {

constexpr EventIdx kNone = CallTree::kNone;

/// What the tree needs to know of a category, by its exact text.
struct CatRoles {
  std::vector<uint8_t> host, cpuOp, runtime, python, ac2g, gpu;
};

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

/// The args key a metadata event's value is read from, or null for a name
/// the reference's metadata table does not know (its build then fails).
const char* metadataLabel(std::string_view name) {
  if (name == "process_name" || name == "thread_name") return "name";
  if (name == "process_labels") return "labels";
  if (name == "process_sort_index" || name == "thread_sort_index") return "sort_index";
  return nullptr;
}

/// True when event e's text is an object whose args object has `key`.
bool argsHave(EventText& text, EventIdx e, const char* key) {
  std::string_view raw;
  if (!text.read(e, raw)) return false;
  simdjson::ondemand::parser parser;
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
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (t.ph[e] == Ph::Missing) return "event " + std::to_string(e) + " has no ph";
    if (t.ph[e] != Ph::Metadata) continue;
    const char* label = metadataLabel(t.nameOf(e));
    if (!label) return "metadata event " + std::to_string(e) + " has an unknown name";
    if (!argsHave(text, e, label)) return "metadata event " + std::to_string(e) + " has no args." + label;
  }
  return {};
}

/// An id with the reference's key semantics, by the trace's link key.
struct LinkKey {
  bool correlation = true;  // args.correlation, else args["External id"]
  std::optional<CorrKey> of(const Trace& t, EventIdx e) const {
    const uint16_t f = t.flags[e];
    if (correlation) {
      if (!(f & ev::HasCorr)) return std::nullopt;
      return CorrKey{t.corr[e], static_cast<uint8_t>((f & ev::CorrIsStr) ? 1 : (f & ev::CorrIsReal) ? 2 : 0)};
    }
    if (!(f & ev::HasExtId)) return std::nullopt;
    return CorrKey{t.extId[e], static_cast<uint8_t>((f & ev::ExtIsStr) ? 1 : 0)};
  }
};

CorrKey flowId(const Trace& t, EventIdx e) {
  const uint16_t f = t.flags[e];
  return CorrKey{t.corr[e], static_cast<uint8_t>((f & ev::CorrIsStr) ? 1 : (f & ev::CorrIsReal) ? 2 : 0)};
}

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
    if (!t.has(e, ev::HasExtId) && !argsHave(text, e, nullptr))
      return "launch event " + std::to_string(e) + " has no args";
    return LinkKey{false};
  }
  return LinkKey{false};
}

/// (lane, key) -> the last event in file order, for the lookups asked for.
class LaneKeyTable {
 public:
  void ask(uint32_t lane, const CorrKey& k) { rows_.push_back({lane, k, kNone}); }
  /// Offers every event with a key, in file order; call finishAsking() first.
  void finishAsking() {
    std::sort(rows_.begin(), rows_.end(), less);
    rows_.erase(std::unique(rows_.begin(), rows_.end(), same), rows_.end());
  }
  void offer(uint32_t lane, const CorrKey& k, EventIdx e) {
    if (Row* r = find(lane, k)) r->event = e;
  }
  EventIdx get(uint32_t lane, const CorrKey& k) {
    Row* r = find(lane, k);
    return r ? r->event : kNone;
  }
  bool empty() const { return rows_.empty(); }

 private:
  struct Row {
    uint32_t lane;
    CorrKey key;
    EventIdx event;
  };
  static bool less(const Row& a, const Row& b) { return a.lane != b.lane ? a.lane < b.lane : a.key < b.key; }
  static bool same(const Row& a, const Row& b) { return a.lane == b.lane && a.key == b.key; }
  Row* find(uint32_t lane, const CorrKey& k) {
    Row probe{lane, k, kNone};
    auto it = std::lower_bound(rows_.begin(), rows_.end(), probe, less);
    return it != rows_.end() && same(*it, probe) ? &*it : nullptr;
  }
  std::vector<Row> rows_;
};

bool laneHasPidTid(const Trace& t, uint32_t lane) {
  return t.lanes[lane].pid.type != JsonKey::Type::None && t.lanes[lane].tid.type != JsonKey::Type::None;
}

}  // namespace

CallTree::CallTree(const EventIndex& index) : index_(&index), trace_(&index.trace()) {
  const size_t n = trace_->size();
  parent_.assign(n, kNone);
  head_.assign(n, kNone);
  tail_.assign(n, kNone);
  flags_.assign(n, 0);
}

std::variant<CallTree, std::string> CallTree::build(const EventIndex& index) {
  CallTree tree(index);
  const Trace& t = index.trace();
  const CatRoles roles = catRoles(index);
  tree.gpuCat_ = roles.gpu;
  if (std::string why = checkMetadata(t); !why.empty()) return why;
  if (std::string why = tree.buildHostStacks(); !why.empty()) return why;
  if (std::string why = tree.linkGpuEvents(); !why.empty()) return why;
  tree.labelNonGpuPaths();
  return tree;
}

void CallTree::addChild(EventIdx p, EventIdx c) {
  const auto entry = static_cast<uint32_t>(entries_.size());
  entries_.push_back({c, kNone});
  if (tail_[p] == kNone)
    head_[p] = entry;
  else
    entries_[tail_[p]].next = entry;
  tail_[p] = entry;
}

std::vector<EventIdx> CallTree::children(EventIdx e) const {
  std::vector<EventIdx> out;
  for (uint32_t k = head_[e]; k != kNone; k = entries_[k].next) out.push_back(entries_[k].child);
  return out;
}

size_t CallTree::childCount(EventIdx e) const {
  size_t n = 0;
  for (uint32_t k = head_[e]; k != kNone; k = entries_[k].next) ++n;
  return n;
}

// Host frames per thread by a stack over the time-sorted events, as the
// reference does: a frame ends its predecessors when it starts at or after
// their end; one that bleeds past its enclosing frame by under 1 µs replaces
// it (when that frame is nested), a longer bleed drops the frame.
std::string CallTree::buildHostStacks() {
  const Trace& t = *trace_;
  const EventIndex& idx = *index_;
  const CatRoles roles = catRoles(idx);
  std::vector<EventIdx> order;
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.host[t.cat[e]]) continue;
    if (!idx.hasTs(e)) return "call-tree event " + std::to_string(e) + " has no ts";
    order.push_back(e);
  }
  std::stable_sort(order.begin(), order.end(), [&](EventIdx a, EventIdx b) { return idx.tsPy(a) < idx.tsPy(b); });
  std::vector<std::vector<EventIdx>> stacks(t.lanes.size());
  std::vector<uint32_t> cpuOps(t.lanes.size(), 0);
  auto pop = [&](std::vector<EventIdx>& st, uint32_t lane) {
    if (roles.cpuOp[t.cat[st.back()]]) --cpuOps[lane];
    st.pop_back();
  };
  auto noEnd = [](EventIdx e) { return "call-tree event " + std::to_string(e) + " has no dur"; };
  for (EventIdx e : order) {
    const uint32_t lane = t.lane[e];
    auto& st = stacks[lane];
    const PyNum ts = idx.tsPy(e);
    while (!st.empty()) {
      if (!idx.hasDur(st.back())) return noEnd(st.back());
      if (!(ts >= idx.endPy(st.back()))) break;
      pop(st, lane);
    }
    if (!st.empty()) {
      if (!idx.hasDur(e)) return noEnd(e);
      const PyNum topEnd = idx.endPy(st.back());
      if (idx.endPy(e) > topEnd) {
        if ((topEnd - ts).asDouble() < 1.0 && st.size() >= 2)
          pop(st, lane);
        else
          continue;
      }
    }
    if (!st.empty()) {
      parent_[e] = st.back();
      addChild(st.back(), e);
    }
    st.push_back(e);
    if (roles.cpuOp[t.cat[e]]) {
      if (cpuOps[lane] == 0) cpuRootNodes_.push_back(e);
      ++cpuOps[lane];
    }
  }
  return {};
}

void CallTree::markGpuUpwards(EventIdx e) {
  // A marked frame's ancestors are all marked (marks always go to the top).
  for (EventIdx a = e; a != kNone && !(flags_[a] & kHasGpuEvents); a = parent_[a]) flags_[a] |= kHasGpuEvents;
}

// Each launch's GPU events: a graph launch owns every GPU event with its
// link id; another launch the one its ac2g flow pair points at (the last
// event in file order with the flow end's pid, tid and id).
std::string CallTree::linkGpuEvents() {
  const Trace& t = *trace_;
  const CatRoles roles = catRoles(*index_);
  auto chosen = chooseLinkKey(t, roles);
  if (auto* why = std::get_if<std::string>(&chosen)) return *why;
  const LinkKey link = std::get<LinkKey>(chosen);
  std::map<CorrKey, EventIdx> starts, ends;
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.ac2g[t.cat[e]] || (t.ph[e] != Ph::FlowStart && t.ph[e] != Ph::FlowEnd)) continue;
    if (!t.has(e, ev::HasId)) return "flow event " + std::to_string(e) + " has no id";
    (t.ph[e] == Ph::FlowStart ? starts : ends)[flowId(t, e)] = e;
  }
  const StrId cudaGraph = t.strings.find("cudaGraphLaunch"), hipGraph = t.strings.find("hipGraphLaunch");
  auto isGraphLaunch = [&](EventIdx e) {
    return (cudaGraph != kNoStr && t.name[e] == cudaGraph) || (hipGraph != kNoStr && t.name[e] == hipGraph);
  };
  // What the launches will look up: the flow ends' (lane, id), the graph launches' ids.
  LaneKeyTable outputs;
  std::map<CorrKey, std::vector<EventIdx>> graphEvents;
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.runtime[t.cat[e]]) continue;
    const auto key = link.of(t, e);
    if (isGraphLaunch(e)) {
      if (key) graphEvents[*key];
      continue;
    }
    if (!key || !starts.count(*key)) continue;
    auto f = ends.find(*key);
    if (f != ends.end() && laneHasPidTid(t, t.lane[f->second])) outputs.ask(t.lane[f->second], flowId(t, f->second));
  }
  outputs.finishAsking();
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (roles.ac2g[t.cat[e]]) continue;
    const auto key = link.of(t, e);
    if (!key) continue;
    if (!outputs.empty()) outputs.offer(t.lane[e], *key, e);
    if (roles.gpu[t.cat[e]] && !graphEvents.empty())
      if (auto g = graphEvents.find(*key); g != graphEvents.end()) g->second.push_back(e);
  }
  std::vector<EventIdx> found;
  for (EventIdx e = 0; e < t.size(); ++e) {
    if (!roles.runtime[t.cat[e]]) continue;
    found.clear();
    const auto key = link.of(t, e);
    if (isGraphLaunch(e)) {
      if (key) found = graphEvents[*key];
    } else if (key && starts.count(*key)) {
      auto f = ends.find(*key);
      if (f != ends.end() && laneHasPidTid(t, t.lane[f->second])) {
        const EventIdx out = outputs.get(t.lane[f->second], flowId(t, f->second));
        if (out != kNone) found.push_back(out);
      }
    }
    for (EventIdx g : found) {
      addChild(e, g);
      parent_[g] = e;
      markGpuUpwards(e);
    }
  }
  return {};
}

void CallTree::labelNonGpuPaths() {
  for (EventIdx e = 0; e < trace_->size(); ++e)
    if (!isGpuKernel(e) && !(flags_[e] & kHasGpuEvents)) flags_[e] |= kNonGpuPath;
}

std::vector<EventIdx> CallTree::entryRoots() const {
  std::vector<EventIdx> roots;
  std::vector<uint8_t> seen(trace_->size(), 0);
  for (EventIdx e : cpuRootNodes_) {
    EventIdx top = e;
    while (parent_[top] != kNone) top = parent_[top];
    if (!seen[top]) {
      seen[top] = 1;
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
  const CatRoles roles = catRoles(idx);
  std::vector<uint32_t> pyCount(t.lanes.size(), 0);
  std::vector<uint32_t> laneOrder;  // lanes in first python_function order
  for (EventIdx e = 0; e < t.size(); ++e)
    if (roles.python[t.cat[e]] && pyCount[t.lane[e]]++ == 0) laneOrder.push_back(t.lane[e]);
  if (laneOrder.empty()) return;
  uint32_t host = laneOrder.front();
  for (uint32_t l : laneOrder)
    if (pyCount[l] > pyCount[host]) host = l;
  std::vector<EventIdx> hostNodes;
  for (EventIdx e = 0; e < t.size(); ++e)
    if (t.lane[e] == host && idx.hasTs(e) && idx.hasDur(e)) hostNodes.push_back(e);
  if (hostNodes.empty()) return;
  std::stable_sort(hostNodes.begin(), hostNodes.end(),
                   [&](EventIdx a, EventIdx b) { return idx.tsPy(a) < idx.tsPy(b); });
  for (EventIdx root : entryRoots()) {
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
    if (container == kNone) continue;
    parent_[root] = container;
    addChild(container, root);
    for (EventIdx a = container; a != kNone && (flags_[a] & kNonGpuPath); a = parent_[a]) flags_[a] &= ~kNonGpuPath;
  }
}

double CallTree::descendantGpuTime(std::span<const EventIdx> nodes) const {
  if (seen_.empty()) seen_.assign(trace_->size(), 0);
  if (++stamp_ == 0) {  // wrapped: start the stamps again
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  double total = 0.0;
  std::vector<EventIdx> stack(nodes.begin(), nodes.end());
  while (!stack.empty()) {
    const EventIdx e = stack.back();
    stack.pop_back();
    if (seen_[e] == stamp_) continue;
    seen_[e] = stamp_;
    if (isGpuKernel(e) && index_->hasDur(e)) total += index_->durUs(e);
    for (uint32_t k = head_[e]; k != kNone; k = entries_[k].next) stack.push_back(entries_[k].child);
  }
  return total;
}

}  // namespace steadyscope::analysis
