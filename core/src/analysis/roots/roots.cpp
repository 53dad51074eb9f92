// RootList: its spans, shared between copies until one changes (see roots.hpp).
#include <steadyscope/core/analysis/roots.hpp>
#include "analysis/event_index.hpp"

#include <stdexcept>

namespace steadyscope::analysis {

RootList::Spans& RootList::ownSpans() {
  if (!spans_)
    spans_ = std::make_shared<Spans>();
  else if (spans_.use_count() > 1)
    spans_ = std::make_shared<Spans>(*spans_);
  return *spans_;
}

void RootList::insertSpan(size_t pos, EventIdx e, RootSpan s) {
  if (spanCount() != events_.size()) throw std::logic_error("RootList: spans mixed with plain events");
  Spans& spans = ownSpans();
  events_.insert(events_.begin() + static_cast<std::ptrdiff_t>(pos), e);
  spans.insert(spans.begin() + static_cast<std::ptrdiff_t>(pos), std::move(s));
}

PyNum RootList::dur(const EventIndex& index, size_t k) const {
  return hasSpans() ? (*spans_)[k].dur : index.durPy(events_[k]);
}

PyNum RootList::endPy(const EventIndex& index, size_t k) const { return index.tsPy(events_[k]) + dur(index, k); }

double RootList::durUs(const EventIndex& index, size_t k) const {
  return hasSpans() ? (*spans_)[k].dur.asDouble() : index.durUs(events_[k]);
}

void RootList::eraseFront() {
  if (events_.empty()) return;
  events_.erase(events_.begin());
  if (hasSpans()) {
    Spans& spans = ownSpans();
    spans.erase(spans.begin());
  }
}

bool operator==(const RootList& a, const RootList& b) {
  if (a.events_ != b.events_ || a.spanCount() != b.spanCount()) return false;
  for (size_t k = 0; k < a.spanCount(); ++k) {
    const RootSpan &x = (*a.spans_)[k], &y = (*b.spans_)[k];
    if (x.name != y.name || x.dur.isInt != y.dur.isInt || x.dur.asDouble() != y.dur.asDouble()) return false;
  }
  return true;
}

RootList RootList::subset(const std::vector<size_t>& ks) const {
  RootList out;
  out.events_.reserve(ks.size());
  for (size_t k : ks) out.events_.push_back(events_[k]);
  if (hasSpans()) {
    Spans& spans = out.ownSpans();
    spans.reserve(ks.size());
    for (size_t k : ks) spans.push_back((*spans_)[k]);
  }
  return out;
}

}  // namespace steadyscope::analysis
