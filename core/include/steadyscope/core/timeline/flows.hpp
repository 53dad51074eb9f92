#pragma once
// The flows of one slice, followed in both directions: a launch to its kernel
// and back (same correlation), and the trace's flow events (s / t / f: launch
// -> kernel, forward -> backward, ...) bound to the slice that encloses them.
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <string>
#include <vector>

namespace steadyscope::timeline {

struct FlowLink {
  EventIdx other = 0;     // the slice at the other end
  bool outgoing = false;  // this slice is where the flow starts
  std::string kind;       // "launch → kernel", "forward → backward", or the flow's category
};

/// Every flow of `e`, each other end once, in time order of the other end.
std::vector<FlowLink> flowLinks(const Trace& trace, const TimelineIndex& index, EventIdx e);

}  // namespace steadyscope::timeline
