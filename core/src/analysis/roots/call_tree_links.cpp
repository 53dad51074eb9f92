// The call tree's GPU links (which launch each GPU event hangs under, by the
// ac2g flows or a graph launch's link id) and the metadata check its build
// makes first: the build's helper side (spec §2.6.1).
#include "analysis/roots/call_tree_links.hpp"
#include "analysis/roots/call_tree.hpp"

#include "util/bits.hpp"
#include "util/big_alloc.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <variant>

namespace steadyscope::analysis {

using tree_detail::CatRoles;
using tree_detail::LinkKey;

namespace {

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

bool laneHasPidTid(const Trace& t, uint32_t lane) {
  return t.lanes[lane].pid.type != JsonKey::Type::None && t.lanes[lane].tid.type != JsonKey::Type::None;
}

}  // namespace

namespace tree_detail {

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

}  // namespace tree_detail

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

}  // namespace steadyscope::analysis
