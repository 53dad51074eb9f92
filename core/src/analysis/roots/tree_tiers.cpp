// Tiers 3–5 (spec §2.6.3–§2.6.7): the pattern finder over call-tree
// siblings, the branch descent, sibling roots and bookend enhancement.
#include "analysis/roots/tree_tiers.hpp"
#include "util/name_normaliser.hpp"
#include "analysis/pyfmt.hpp"
#include "analysis/roots/call_tree.hpp"
#include "analysis/roots/coverage.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace steadyscope::analysis {

uint32_t TreeNames::code(EventIdx e) {
  const StrId id = trace_->name[e];
  uint32_t& c = byName_[id];
  if (c == UINT32_MAX) {
    auto [it, fresh] =
        codes_.try_emplace(names::normalizeNameForComparison(trace_->nameOf(e)), static_cast<uint32_t>(codes_.size()));
    c = it->second;
  }
  return c;
}

namespace {

// Periods worth verifying: the gaps between the recurrences of the rarest
// label that occurs at least minRepeats times (every period is among them).
std::vector<size_t> candidatePeriods(const std::vector<uint32_t>& codes, size_t minRepeats) {
  std::map<uint32_t, size_t> counts;
  for (uint32_t c : codes) ++counts[c];
  std::optional<std::pair<size_t, uint32_t>> anchor;  // (count, code): the smallest
  for (const auto& [code, n] : counts)
    if (n >= minRepeats && (!anchor || std::make_pair(n, code) < *anchor)) anchor = std::make_pair(n, code);
  if (!anchor) return {};
  std::vector<size_t> gaps;
  std::optional<size_t> prev;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] != anchor->second) continue;
    if (prev) gaps.push_back(i - *prev);
    prev = i;
  }
  std::sort(gaps.begin(), gaps.end());
  gaps.erase(std::unique(gaps.begin(), gaps.end()), gaps.end());
  return gaps;
}

// The first longest run with codes[i] == codes[i + p]: (start, repeats).
std::pair<size_t, size_t> longestPeriodicRun(const std::vector<uint32_t>& codes, size_t p) {
  const size_t limit = codes.size() - p;
  size_t bestStart = 0, bestLen = 0;
  for (size_t i = 0; i < limit;) {
    if (codes[i] != codes[i + p]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < limit && codes[j] == codes[j + p]) ++j;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j + 1;
  }
  return {bestStart, (bestLen + p) / p};
}

struct PeriodCandidate {
  size_t period, start;
  double coverage;
};

}  // namespace

std::optional<Period> findRepeatingPeriod(const std::vector<uint32_t>& names, size_t minRepeats) {
  // Codes in first-appearance order within this sequence: the anchor's tie-break depends on it.
  std::vector<uint32_t> codes;
  codes.reserve(names.size());
  std::unordered_map<uint32_t, uint32_t> local;
  for (uint32_t n : names) codes.push_back(local.try_emplace(n, static_cast<uint32_t>(local.size())).first->second);
  const size_t total = codes.size();
  std::vector<PeriodCandidate> found;
  for (size_t p : candidatePeriods(codes, minRepeats)) {
    if (p * minRepeats > total) continue;
    auto [start, repeats] = longestPeriodicRun(codes, p);
    if (repeats < minRepeats) continue;
    const double coverage = static_cast<double>(repeats * p) / static_cast<double>(total);
    if (coverage <= kMinPeriodCoverage) continue;
    found.push_back({p, start, coverage});
  }
  if (found.empty()) return std::nullopt;
  // Most explained first (rounded so float noise cannot reorder near-ties), then the shortest unit.
  std::stable_sort(found.begin(), found.end(), [](const PeriodCandidate& a, const PeriodCandidate& b) {
    const double ra = pyRound(a.coverage, 3), rb = pyRound(b.coverage, 3);
    return ra != rb ? ra > rb : a.period < b.period;
  });
  std::vector<PeriodCandidate> kept;
  for (const PeriodCandidate& c : found) {
    const bool multiple = std::any_of(kept.begin(), kept.end(), [&](const PeriodCandidate& k) {
      return c.period % k.period == 0 && c.coverage <= k.coverage + kPeriodMultipleMargin;
    });
    if (!multiple) kept.push_back(c);
  }
  const PeriodCandidate& best = kept.front();
  Period out{best.period, best.start, {}};
  out.pattern.assign(names.begin() + static_cast<std::ptrdiff_t>(best.start),
                     names.begin() + static_cast<std::ptrdiff_t>(best.start + best.period));
  return out;
}

namespace {

/// The siblings the pattern finder works on, with their name codes and the
/// GPU time under each name.
struct Siblings {
  /// The siblings of one name.
  struct Group {
    std::vector<EventIdx> members;
    double gpu = 0.0;               // the GPU time under all of them
    std::vector<double> memberGpu;  // each member's own
  };
  const CallTree& tree;
  const std::vector<EventIdx>& ordered;
  std::vector<uint32_t> code;   // per sibling: its name's code
  std::vector<uint32_t> group;  // per sibling: its index in groups
  std::vector<Group> groups;    // in first-appearance order
};

Siblings groupSiblings(const CallTree& tree, TreeNames& names, const std::vector<EventIdx>& ordered) {
  Siblings s{tree, ordered, {}, {}, {}};
  s.code.reserve(ordered.size());
  s.group.reserve(ordered.size());
  std::unordered_map<uint32_t, uint32_t> groupOf;  // by code
  for (EventIdx e : ordered) {
    const uint32_t c = names.code(e);
    auto [it, fresh] = groupOf.try_emplace(c, static_cast<uint32_t>(s.groups.size()));
    if (fresh) s.groups.emplace_back();
    s.code.push_back(c);
    s.group.push_back(it->second);
    s.groups[it->second].members.push_back(e);
  }
  for (Siblings::Group& g : s.groups) {
    auto times = tree.descendantGpuTimes(g.members);
    g.gpu = times.total;
    g.memberGpu = std::move(times.each);
  }
  return s;
}

// The frames above e in the tree, innermost first.
AncestorList ancestorsOf(const CallTree& tree, EventIdx e) {
  std::vector<EventIdx> out;
  for (EventIdx p = tree.parent(e); p != CallTree::kNone && out.size() < tree.trace().size(); p = tree.parent(p))
    out.push_back(p);
  return makeAncestorList(std::move(out));
}

// ancestorsOf for a run of roots, one list for each run of the same parent
// (siblings: one list for all of them).
class SharedAncestors {
 public:
  explicit SharedAncestors(const CallTree& tree) : tree_(tree) {}
  AncestorList of(EventIdx e) {
    if (const EventIdx p = tree_.parent(e); p != parent_) {
      list_ = ancestorsOf(tree_, e);
      parent_ = p;
    }
    return list_;
  }

 private:
  const CallTree& tree_;
  EventIdx parent_ = CallTree::kNone;  // a root without a parent has no ancestors: list_ stays null
  AncestorList list_;
};

// The events of a candidate's roots, for membership tests (sorted ids: one
// block, where a hash set of 25,000 roots is 25,000 nodes).
class EventSet {
 public:
  explicit EventSet(std::vector<EventIdx> ids) : ids_(std::move(ids)) { std::sort(ids_.begin(), ids_.end()); }
  bool contains(EventIdx e) const { return std::binary_search(ids_.begin(), ids_.end(), e); }

 private:
  std::vector<EventIdx> ids_;
};

PyNum tsOr0(const EventIndex& idx, EventIdx e) { return idx.hasTs(e) ? idx.tsPy(e) : PyNum::fromInt(0); }
PyNum endOf(const EventIndex& idx, EventIdx e) { return idx.hasDur(e) ? tsOr0(idx, e) + idx.durPy(e) : tsOr0(idx, e); }

DetectionCandidate branchCandidate(double gpuTime, double totalGpu, int64_t depth, const char* source) {
  DetectionCandidate c;
  c.method = "generic:branch_descent";
  c.phaseConfidence = "unknown";
  const double cov = gpuTime / totalGpu;
  c.status = gradeCoverage(cov);
  TreeEvidence ev;
  ev.tier = "branch_descent";
  ev.depth = depth;
  ev.source = source;
  ev.coverage = pyRound(cov, 4);
  ev.iterGpuTime = gpuTime;
  c.tree = std::move(ev);
  return c;
}

void setBookendMaterial(TreeEvidence& ev, const std::vector<EventIdx>& prefix, const std::vector<EventIdx>& suffix,
                        const EventSet& blocked) {
  for (EventIdx e : prefix)
    if (!blocked.contains(e)) ev.before.push_back(e);
  for (EventIdx e : suffix)
    if (!blocked.contains(e)) ev.after.push_back(e);
}

// Blocks of consecutive live siblings matching the pattern; siblings without
// GPU work may sit between matches, any other mismatch ends the loop.
std::vector<std::vector<EventIdx>> blocksByPattern(const CallTree& tree, const std::vector<EventIdx>& live,
                                                   const std::vector<uint32_t>& liveCodes, const Period& p) {
  std::vector<std::vector<EventIdx>> blocks;
  const size_t n = live.size();
  for (size_t i = p.start; i < n;) {
    std::vector<EventIdx> block;
    size_t pos = 0, j = i;
    while (pos < p.length && j < n) {
      if (liveCodes[j] == p.pattern[pos]) {
        block.push_back(live[j]);
        ++pos;
        ++j;
      } else if (tree.nonGpuPath(live[j])) {
        ++j;
      } else {
        break;
      }
    }
    if (pos != p.length) break;
    blocks.push_back(std::move(block));
    i = j;
  }
  return blocks;
}

// One root per repetition of a contiguous repeating run of child names.
std::optional<DetectionCandidate> periodicCandidate(const Siblings& s, std::optional<EventIdx> parent, double totalGpu,
                                                    int64_t depth) {
  const EventIndex& idx = s.tree.index();
  const Trace& t = s.tree.trace();
  std::vector<EventIdx> live;
  std::vector<uint32_t> liveCodes;
  for (size_t k = 0; k < s.ordered.size(); ++k)
    if (s.groups[s.group[k]].gpu > 0) {
      live.push_back(s.ordered[k]);
      liveCodes.push_back(s.code[k]);
    }
  const auto period = findRepeatingPeriod(liveCodes);
  if (!period || period->length == 1) return std::nullopt;
  const auto blocks = blocksByPattern(s.tree, live, liveCodes, *period);
  if (blocks.size() < kMinRepeatingChildren) return std::nullopt;
  std::vector<EventIdx> inBlocks;
  for (const auto& b : blocks) inBlocks.insert(inBlocks.end(), b.begin(), b.end());
  const EventSet blocked(std::move(inBlocks));
  const PyNum lastEnd = endOf(idx, blocks.back().back());
  std::vector<EventIdx> prefix(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(period->start)), suffix;
  for (EventIdx e : live)
    if (!(tsOr0(idx, e) < lastEnd) && !blocked.contains(e)) suffix.push_back(e);
  RootList roots;
  roots.reserveSpans(blocks.size());
  std::vector<double> gpuTimes;
  double sum = 0.0;
  SharedAncestors ancestors(s.tree);
  for (const auto& b : blocks) {
    const std::string_view name = parent ? t.nameOf(*parent) : t.nameOf(b.front());
    roots.pushSpan(b.front(), {name, endOf(idx, b.back()) - tsOr0(idx, b.front()), ancestors.of(b.front())});
    gpuTimes.push_back(s.tree.descendantGpuTime(b));
    sum += gpuTimes.back();
  }
  DetectionCandidate c = branchCandidate(sum, totalGpu, depth, "period");
  c.roots = std::move(roots);
  c.tree->period = static_cast<int64_t>(period->length);
  c.tree->rootGpuTimes = std::move(gpuTimes);
  setBookendMaterial(*c.tree, prefix, suffix, blocked);
  return c;
}

// The recurring child frame that carries the most GPU work (a conditional
// loop body has no contiguous period); its members are the roots.
std::optional<DetectionCandidate> groupedCandidate(const Siblings& s, double totalGpu, int64_t depth) {
  const EventIndex& idx = s.tree.index();
  const Trace& t = s.tree.trace();
  const Siblings::Group* best = nullptr;  // the first of the busiest
  for (const Siblings::Group& g : s.groups) {
    if (g.members.size() < kMinRepeatingChildren || !(g.gpu > 0)) continue;
    if (!best || g.gpu > best->gpu) best = &g;
  }
  if (!best) return std::nullopt;
  const std::vector<EventIdx>& inst = best->members;
  const EventSet blocked(inst);
  const PyNum firstTs = tsOr0(idx, inst.front()), lastEnd = endOf(idx, inst.back());
  std::vector<EventIdx> prefix, suffix;
  for (EventIdx e : s.ordered) {
    if (tsOr0(idx, e) < firstTs) prefix.push_back(e);
    if (!(tsOr0(idx, e) < lastEnd)) suffix.push_back(e);
  }
  DetectionCandidate c = branchCandidate(best->gpu, totalGpu, depth, "frame_family");
  c.roots.reserveSpans(inst.size());
  SharedAncestors ancestors(s.tree);
  for (EventIdx e : inst)
    c.roots.pushSpan(e, {t.nameOf(e), idx.hasDur(e) ? idx.durPy(e) : PyNum::fromInt(0), ancestors.of(e)});
  c.tree->rootGpuTimes = best->memberGpu;
  setBookendMaterial(*c.tree, prefix, suffix, blocked);
  return c;
}

// Roots whose GPU time lies below a gap of kLowGpuGapRatio between sorted
// neighbours are setup or teardown calls, not iterations: drop them.
void dropLowGpuRoots(DetectionCandidate& c, double totalGpu) {
  TreeEvidence& ev = *c.tree;
  std::vector<std::pair<size_t, double>> nonzero;
  for (size_t k = 0; k < ev.rootGpuTimes.size(); ++k)
    if (ev.rootGpuTimes[k] > 0) nonzero.emplace_back(k, ev.rootGpuTimes[k]);
  if (nonzero.size() < kMinRepeatingChildren) return;
  std::stable_sort(nonzero.begin(), nonzero.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  double maxRatio = 1.0;
  size_t splitAt = 0;
  bool split = false;
  for (size_t k = 0; k + 1 < nonzero.size(); ++k) {
    const double ratio = nonzero[k + 1].second / nonzero[k].second;
    if (ratio > maxRatio) {
      maxRatio = ratio;
      splitAt = k;
      split = true;
    }
  }
  if (maxRatio < kLowGpuGapRatio || !split) return;
  std::vector<uint8_t> keep(ev.rootGpuTimes.size(), 0);
  size_t kept = 0;
  for (size_t k = splitAt + 1; k < nonzero.size(); ++k, ++kept) keep[nonzero[k].first] = 1;
  if (kept < kMinRepeatingChildren) return;
  std::vector<size_t> positions;
  std::vector<double> times;
  double sum = 0.0;
  for (size_t k = 0; k < keep.size(); ++k)
    if (keep[k]) {
      positions.push_back(k);
      times.push_back(ev.rootGpuTimes[k]);
      sum += ev.rootGpuTimes[k];
    }
  const double cov = totalGpu != 0.0 ? sum / totalGpu : 0.0;
  ev.droppedLowGpuRoots = static_cast<int64_t>(c.roots.size() - positions.size());
  c.roots = c.roots.subset(positions);
  ev.rootGpuTimes = std::move(times);
  ev.iterGpuTime = sum;
  ev.coverage = pyRound(cov, 4);
  c.status = gradeCoverage(cov);
}

}  // namespace

std::optional<DetectionCandidate> findPattern(const CallTree& tree, TreeNames& names,
                                              const std::vector<EventIdx>& ordered, double totalGpu,
                                              std::optional<EventIdx> parent, int64_t depth) {
  const Siblings s = groupSiblings(tree, names, ordered);
  std::optional<DetectionCandidate> best = periodicCandidate(s, parent, totalGpu, depth);
  if (best && !(best->tree->coverage > 0)) best.reset();
  // Moved, not copied: a candidate holds one span per root.
  if (auto grouped = groupedCandidate(s, totalGpu, depth); grouped && grouped->tree->coverage > 0)
    if (!best || grouped->tree->coverage > best->tree->coverage) best = std::move(grouped);
  if (best) dropLowGpuRoots(*best, totalGpu);
  return best;
}

namespace {

// Stable by ts. A sort reads each key once: siblings lie scattered over the trace,
// so a comparison reading both events' ts would miss the cache twice.
std::vector<EventIdx> sortedByTs(const CallTree& tree, std::vector<EventIdx> v) {
  const EventIndex& idx = tree.index();
  // Children are usually attached in ts order: no keys made for them.
  bool sorted = true;
  for (size_t k = 1; k < v.size() && sorted; ++k) sorted = !(tsOr0(idx, v[k]) < tsOr0(idx, v[k - 1]));
  if (sorted) return v;
  std::vector<std::pair<PyNum, EventIdx>> keyed;
  keyed.reserve(v.size());
  for (EventIdx e : v) keyed.emplace_back(tsOr0(idx, e), e);
  auto byTs = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::stable_sort(keyed.begin(), keyed.end(), byTs);
  for (size_t k = 0; k < v.size(); ++k) v[k] = keyed[k].second;
  return v;
}

}  // namespace

std::optional<DetectionCandidate> detectBranchDescent(const CallTree& tree, TreeNames& names,
                                                      const std::vector<EventIdx>& entryRoots, double totalGpu) {
  std::optional<DetectionCandidate> best;
  std::deque<std::pair<EventIdx, int64_t>> queue;
  for (EventIdx r : entryRoots) queue.emplace_back(r, 0);
  size_t visited = 0;
  while (!queue.empty()) {
    const auto [node, depth] = queue.front();
    queue.pop_front();
    if (++visited > kBranchNodeBudget) break;
    const std::vector<EventIdx> children = tree.children(node);
    if (children.size() >= kMinRepeatingChildren) {
      auto cand = findPattern(tree, names, sortedByTs(tree, children), totalGpu, node, depth);
      if (cand && (!best || cand->tree->coverage > best->tree->coverage)) best = std::move(cand);
      if (best && best->tree->coverage >= kBranchStopCoverage) break;
    }
    for (EventIdx c : children)
      if (!tree.nonGpuPath(c)) queue.emplace_back(c, depth + 1);
  }
  if (best) setTreeDiagnostics(*best);
  return best;
}

std::optional<DetectionCandidate> detectSiblingRoots(const CallTree& tree, TreeNames& names,
                                                     const std::vector<EventIdx>& entryRoots, double totalGpu) {
  auto c = findPattern(tree, names, sortedByTs(tree, entryRoots), totalGpu, std::nullopt, 0);
  if (!c) return std::nullopt;
  c->method = "generic:sibling_roots";
  c->tree->tier = "sibling_roots";
  setTreeDiagnostics(*c);
  return c;
}

namespace {

// A root standing for `events`: a copy of the earliest, spanning to the end
// of the last by ts.
std::pair<EventIdx, RootSpan> spanOf(const CallTree& tree, std::vector<EventIdx> events, std::string_view name) {
  const EventIndex& idx = tree.index();
  events = sortedByTs(tree, std::move(events));
  return {events.front(),
          {name, endOf(idx, events.back()) - tsOr0(idx, events.front()), ancestorsOf(tree, events.front())}};
}

}  // namespace

std::optional<DetectionCandidate> enhanceWithBookends(const CallTree& tree, const DetectionCandidate& c,
                                                      double totalGpu) {
  if (totalGpu == 0.0 || c.roots.empty() || !c.tree) return std::nullopt;
  const TreeEvidence& ev = *c.tree;
  if (ev.before.empty() && ev.after.empty()) return std::nullopt;
  const double beforeGpu = ev.before.empty() ? 0.0 : tree.descendantGpuTime(ev.before);
  const double afterGpu = ev.after.empty() ? 0.0 : tree.descendantGpuTime(ev.after);
  if (!(beforeGpu > 0) && !(afterGpu > 0)) return std::nullopt;
  DetectionCandidate out = c;
  TreeEvidence& oev = *out.tree;
  if (beforeGpu > 0) {
    auto [e, span] = spanOf(tree, ev.before, "warmup");
    out.roots.insertSpan(0, e, span);
    oev.warmupGpuPct = pyRound(100 * beforeGpu / totalGpu, 1);
  }
  if (afterGpu > 0) {
    auto [e, span] = spanOf(tree, ev.after, "wrapup");
    out.roots.pushSpan(e, span);
    oev.wrapupGpuPct = pyRound(100 * afterGpu / totalGpu, 1);
  }
  const double coverage = (beforeGpu + ev.iterGpuTime + afterGpu) / totalGpu;
  oev.bookends = true;
  oev.coverage = pyRound(coverage, 4);
  out.status = gradeCoverage(coverage);
  setTreeDiagnostics(out);
  return out;
}

void setTreeDiagnostics(DetectionCandidate& c) {
  const TreeEvidence& ev = *c.tree;
  JsonValue d = JsonValue::object();
  // Lists made at their size: a value per root on a big trace.
  auto ids = [](const std::vector<EventIdx>& v) {
    std::vector<JsonValue> a;
    a.reserve(v.size());
    for (EventIdx e : v) a.push_back(JsonValue::integer(e));
    return JsonValue::array(std::move(a));
  };
  d.set("period_label_tier", JsonValue::string(ev.tier));
  d.set("period", ev.period ? JsonValue::integer(*ev.period) : JsonValue::null());
  d.set("period_depth", JsonValue::integer(ev.depth));
  d.set("branch_source", JsonValue::string(ev.source));
  d.set("branch_coverage", JsonValue::real(ev.coverage));
  d.set("iter_gpu_time", JsonValue::real(ev.iterGpuTime));
  std::vector<JsonValue> times;
  times.reserve(ev.rootGpuTimes.size());
  for (double g : ev.rootGpuTimes) times.push_back(JsonValue::real(g));
  d.set("root_gpu_times", JsonValue::array(std::move(times)));
  d.set("before_uids", ids(ev.before));
  d.set("after_uids", ids(ev.after));
  if (ev.droppedLowGpuRoots) d.set("dropped_low_gpu_roots", JsonValue::integer(*ev.droppedLowGpuRoots));
  if (ev.warmupGpuPct) d.set("warmup_gpu_pct", JsonValue::real(*ev.warmupGpuPct));
  if (ev.wrapupGpuPct) d.set("wrapup_gpu_pct", JsonValue::real(*ev.wrapupGpuPct));
  if (ev.bookends) d.set("bookend_enhancement", JsonValue::boolean(true));
  c.diagnostics = std::move(d);
}

}  // namespace steadyscope::analysis
