#pragma once
// What the app publishes to the widgets once a load finishes: the immutable
// trace, the timeline index built next to it (off the GUI thread), and the
// overlays (steps, regions, chunks) that a split fills in later.
#include <steadyscope/model.hpp>
#include <steadyscope/timeline.hpp>

#include <memory>

namespace steadyscope::widgets {

struct TraceDocument {
  TracePtr trace;
  timeline::TimelineIndexPtr index;
  std::shared_ptr<const timeline::TimelineOverlays> overlays;  // may be null
  explicit operator bool() const { return trace && index; }
};

}  // namespace steadyscope::widgets
