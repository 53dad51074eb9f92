#pragma once
// Iteration roots: the events the splitter cuts a trace at. An annotation
// root is an event as written; a call-tree root (spec §2.6) is a copy of an
// event with its own name and duration — a block of repeating siblings takes
// its parent's name and spans the block, a bookend is named warmup / wrapup
// and spans the events before / after the loop. The copy keeps the event's
// ts, pid, tid and args, so everything but name and end reads the event.
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/pynum.hpp>

#include <initializer_list>
#include <memory>
#include <string_view>
#include <vector>

namespace steadyscope::analysis {

class EventIndex;  // the splitter's, private (analysis/event_index.hpp)

/// A call-tree root's enclosing frames, innermost first (null: none). One
/// list is shared by the roots that have the same parent: a candidate of
/// 25,000 sibling roots makes one list, not 25,000.
using AncestorList = std::shared_ptr<const std::vector<EventIdx>>;
inline AncestorList makeAncestorList(std::vector<EventIdx> frames) {
  if (frames.empty()) return nullptr;
  return std::make_shared<const std::vector<EventIdx>>(std::move(frames));
}

/// What a call-tree root changes in the event it copies.
struct RootSpan {
  std::string_view name;  // into the trace's strings, or a literal
  PyNum dur;
  /// The copied event's enclosing frames in the call tree: an explicit
  /// range's chunk carries them (spec §4.2).
  AncestorList ancestors;
};

class RootList {
 public:
  RootList() = default;
  RootList(EventList events) : events_(std::move(events)) {}  // NOLINT: events standing for themselves
  RootList(std::initializer_list<EventIdx> events) : events_(events) {}

  size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  EventIdx operator[](size_t k) const { return events_[k]; }
  EventIdx front() const { return events_.front(); }
  EventIdx back() const { return events_.back(); }
  auto begin() const { return events_.begin(); }
  auto end() const { return events_.end(); }
  const EventList& events() const { return events_; }
  /// True when the roots carry their own names and durations.
  bool hasSpans() const { return spans_ && !spans_->empty(); }

  void reserve(size_t n) { events_.reserve(n); }
  /// Room for n roots with spans.
  void reserveSpans(size_t n) {
    events_.reserve(n);
    ownSpans().reserve(n);
  }
  /// An event standing for itself (only while no root carries a span).
  void push_back(EventIdx e) { events_.push_back(e); }
  /// A root with its own name and duration (a call-tree copy of `e`). A list
  /// holds either events standing for themselves or spans only.
  void pushSpan(EventIdx e, RootSpan s) { insertSpan(size(), e, std::move(s)); }
  void insertSpan(size_t pos, EventIdx e, RootSpan s);
  void eraseFront();

  /// Root k's enclosing call-tree frames (none for an event standing for itself).
  const std::vector<EventIdx>& ancestors(size_t k) const {
    static const std::vector<EventIdx> kNone;
    if (!hasSpans() || !(*spans_)[k].ancestors) return kNone;
    return *(*spans_)[k].ancestors;
  }
  std::string_view name(const Trace& t, size_t k) const {
    return hasSpans() ? (*spans_)[k].name : t.nameOf(events_[k]);
  }
  PyNum dur(const EventIndex& index, size_t k) const;
  /// ts + dur with Python number types.
  PyNum endPy(const EventIndex& index, size_t k) const;
  double durUs(const EventIndex& index, size_t k) const;

  friend bool operator==(const RootList& a, const RootList& b);

  /// The roots at positions `ks` (in that order), spans kept.
  RootList subset(const std::vector<size_t>& ks) const;

 private:
  EventList events_;
  using Spans = std::vector<RootSpan>;
  /// Null or empty, or one per root. Copies of a list share them until one
  /// of the copies changes (a call-tree list has a span per root, each with
  /// its ancestors): change a list only where no other thread copies it.
  std::shared_ptr<Spans> spans_;
  size_t spanCount() const { return spans_ ? spans_->size() : 0; }
  Spans& ownSpans();  // unshared, made if need be: for a change
};

}  // namespace steadyscope::analysis
