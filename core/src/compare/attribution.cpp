// The launching op of every GPU event: its correlation id leads to the runtime
// or driver call that launched it, and the innermost cpu_op around that call on
// the call's own lane is the op. Linear: one array (or hash) from correlation
// id to launch, and one stack sweep per lane in time order.
#include <steadyscope/compare.hpp>

#include <algorithm>
#include <unordered_map>

namespace steadyscope::compare {

namespace {

// Kineto writes HIP and CUDA API calls as cuda_runtime / cuda_driver; other
// writers spell hip_runtime and the like, so any category naming a runtime or driver counts.
std::vector<uint8_t> launchCategories(const Trace& t) {
  std::vector<uint8_t> out(t.categories.size(), 0);
  for (size_t c = 0; c < out.size(); ++c) {
    const CatClass k = t.categoryClass[c];
    const std::string_view text = t.strings.view(t.categories[c]);
    out[c] = k == CatClass::Runtime || k == CatClass::Driver ||
             (k == CatClass::Other && (text.find("runtime") != text.npos || text.find("driver") != text.npos));
  }
  return out;
}

bool hasTs(const Trace& t, EventIdx i) { return t.has(i, ev::HasTs) && t.ph[i] != Ph::End; }

// Correlation id -> the first launch in file order that carries it. The ids
// are counters in every trace we have seen: a dense array over [lo, hi], with
// hashes for ids written as strings and for ids too spread out for an array.
class LaunchIndex {
 public:
  explicit LaunchIndex(const Trace& t) {
    const std::vector<uint8_t> isLaunchCat = launchCategories(t);
    std::vector<EventIdx> launches;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (EventIdx i = 0; i < t.size(); ++i) {
      if (!isLaunchCat[t.cat[i]] || !t.has(i, ev::HasCorr) || !hasTs(t, i)) continue;
      launches.push_back(i);
      if (t.has(i, ev::CorrIsStr)) continue;
      lo = std::min(lo, t.corr[i]);
      hi = std::max(hi, t.corr[i]);
    }
    const bool dense = lo <= hi && static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) <=
                                       4 * static_cast<uint64_t>(launches.size()) + (1u << 16);
    if (dense) {
      lo_ = lo;
      dense_.assign(static_cast<size_t>(hi - lo) + 1, kNoEvent);
    }
    for (EventIdx i : launches) {
      const int64_t id = t.corr[i];
      if (t.has(i, ev::CorrIsStr))
        strings_.try_emplace(id, i);
      else if (dense)
        dense_[static_cast<size_t>(id - lo_)] = std::min(dense_[static_cast<size_t>(id - lo_)], i);
      else
        sparse_.try_emplace(id, i);
    }
  }
  // The launch of GPU event g, or kNoEvent.
  EventIdx find(const Trace& t, EventIdx g) const {
    if (!t.has(g, ev::HasCorr)) return kNoEvent;
    const int64_t id = t.corr[g];
    if (t.has(g, ev::CorrIsStr)) return lookup(strings_, id);
    if (dense_.empty()) return lookup(sparse_, id);
    if (id < lo_ || id - lo_ >= static_cast<int64_t>(dense_.size())) return kNoEvent;
    return dense_[static_cast<size_t>(id - lo_)];
  }

 private:
  static EventIdx lookup(const std::unordered_map<int64_t, EventIdx>& m, int64_t id) {
    auto it = m.find(id);
    return it == m.end() ? kNoEvent : it->second;
  }
  int64_t lo_ = 0;
  std::vector<EventIdx> dense_;
  std::unordered_map<int64_t, EventIdx> sparse_, strings_;
};

enum Role : uint8_t { kNone = 0, kOp = 1, kLaunch = 2 };

// An op with a duration (a negative one encloses nothing). A launch's span
// clamps a negative duration to zero, so ending before a time means ending before every later event.
struct Item {
  int64_t ts, end;
  EventIdx e;
  bool op;
};

// One lane's ops and needed launches in time order; at one ts the longer
// first and ops before launches, so that an op starting with a launch encloses it.
std::vector<Item> laneItems(const Trace& t, const Lane& lane, const std::vector<uint8_t>& role) {
  std::vector<Item> items;
  for (EventIdx e : lane.events) {
    if (role[e] == kNone) continue;
    const int64_t dur = std::max<int64_t>(t.durNs[e], 0);
    items.push_back({t.tsNs[e], t.tsNs[e] + dur, e, role[e] == kOp});
  }
  auto before = [](const Item& x, const Item& y) {
    if (x.end != y.end) return x.end > y.end;
    if (x.op != y.op) return x.op;
    return x.e < y.e;
  };
  for (size_t i = 0; i < items.size();) {  // the lane is in ts order: only runs of one ts need sorting
    size_t j = i + 1;
    while (j < items.size() && items[j].ts == items[i].ts) ++j;
    if (j - i > 1)
      std::sort(items.begin() + static_cast<ptrdiff_t>(i), items.begin() + static_cast<ptrdiff_t>(j), before);
    i = j;
  }
  return items;
}

// The stack holds the ops that may still enclose what comes next; the
// innermost enclosing one is the last pushed whose end reaches the launch's.
void sweepLane(const Trace& t, const Lane& lane, const std::vector<uint8_t>& role, std::vector<EventIdx>& opOf) {
  std::vector<Item> stack;
  for (const Item& it : laneItems(t, lane, role)) {
    while (!stack.empty() && stack.back().end < it.ts) stack.pop_back();
    if (it.op) {
      stack.push_back(it);
      continue;
    }
    for (size_t k = stack.size(); k-- > 0;) {
      if (stack[k].end >= it.end) {
        opOf[it.e] = stack[k].e;
        break;
      }
    }
  }
}

bool isOp(const Trace& t, EventIdx i) {
  const Ph ph = t.ph[i];
  return t.classOf(i) == CatClass::CpuOp && hasTs(t, i) && (ph == Ph::Complete || ph == Ph::Begin) && t.durNs[i] >= 0;
}

}  // namespace

Attribution attribute(const Trace& t) {
  Attribution a;
  const LaunchIndex launches(t);
  std::vector<uint8_t> role(t.size(), kNone);
  std::vector<uint8_t> laneNeeded(t.lanes.size(), 0);
  for (EventIdx i = 0; i < t.size(); ++i) {
    if (isOp(t, i)) role[i] = kOp;
    if (!isGpuWork(t.classOf(i)) || !hasTs(t, i)) continue;
    const EventIdx l = launches.find(t, i);
    a.gpu.push_back(i);
    a.launch.push_back(l);
    if (l == kNoEvent) continue;
    role[l] = kLaunch;
    laneNeeded[t.lane[l]] = 1;
  }
  std::vector<EventIdx> opOf(t.size(), kNoEvent);
  for (size_t l = 0; l < t.lanes.size(); ++l)
    if (laneNeeded[l]) sweepLane(t, t.lanes[l], role, opOf);
  a.op.resize(a.gpu.size(), kNoEvent);
  for (size_t k = 0; k < a.gpu.size(); ++k) {
    if (a.launch[k] == kNoEvent) {
      ++a.withoutLaunch;
      continue;
    }
    a.op[k] = opOf[a.launch[k]];
    if (a.op[k] == kNoEvent) ++a.launchOutsideOp;
  }
  return a;
}

std::vector<EventIdx> eventsOfOp(const Trace& t, const Attribution& a, std::string_view op) {
  std::vector<EventIdx> out;
  for (size_t k = 0; k < a.gpu.size(); ++k) {
    const bool none = a.op[k] == kNoEvent;
    if (none ? op == kNoOp : t.nameOf(a.op[k]) == op) out.push_back(a.gpu[k]);
  }
  return out;
}

}  // namespace steadyscope::compare
