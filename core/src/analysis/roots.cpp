#include <steadyscope/core/analysis/roots.hpp>

#include <stdexcept>

namespace steadyscope::analysis {

void RootList::insertSpan(size_t pos, EventIdx e, RootSpan s) {
  if (spans_.size() != events_.size()) throw std::logic_error("RootList: spans mixed with plain events");
  events_.insert(events_.begin() + static_cast<std::ptrdiff_t>(pos), e);
  spans_.insert(spans_.begin() + static_cast<std::ptrdiff_t>(pos), std::move(s));
}

void RootList::eraseFront() {
  if (events_.empty()) return;
  events_.erase(events_.begin());
  if (!spans_.empty()) spans_.erase(spans_.begin());
}

bool operator==(const RootList& a, const RootList& b) {
  if (a.events_ != b.events_ || a.spans_.size() != b.spans_.size()) return false;
  for (size_t k = 0; k < a.spans_.size(); ++k) {
    const RootSpan &x = a.spans_[k], &y = b.spans_[k];
    if (x.name != y.name || x.dur.isInt != y.dur.isInt || x.dur.asDouble() != y.dur.asDouble()) return false;
  }
  return true;
}

RootList RootList::subset(const std::vector<size_t>& ks) const {
  RootList out;
  out.events_.reserve(ks.size());
  for (size_t k : ks) out.events_.push_back(events_[k]);
  if (!spans_.empty()) {
    out.spans_.reserve(ks.size());
    for (size_t k : ks) out.spans_.push_back(spans_[k]);
  }
  return out;
}

}  // namespace steadyscope::analysis
