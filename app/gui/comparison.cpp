#include "comparison.hpp"

namespace steadyscope::app {

void Comparison::setCompared(std::shared_ptr<const ComparedTrace> c) {
  compared_ = std::move(c);
  if (byOp_ || !byOpHint_.isEmpty()) setByOp({});  // it compared the trace replaced
  emit comparedChanged();
  dropStaleSides();
}

void Comparison::setSide(int i, std::optional<AbPick> pick) {
  sides_[i] = std::move(pick);
  emit sidesChanged();
}

void Comparison::setSides(std::optional<AbPick> a, std::optional<AbPick> b) {
  sides_[0] = std::move(a);
  sides_[1] = std::move(b);
  emit sidesChanged();
}

void Comparison::swapSides() {
  std::swap(sides_[0], sides_[1]);
  emit sidesChanged();
}

void Comparison::setByOp(std::shared_ptr<const OpComparison> c, const QString& hint) {
  byOp_ = std::move(c);
  byOpHint_ = hint;
  emit byOpChanged();
}

void Comparison::setOpenTrace(TracePtr trace) {
  if (byOp_ && byOp_->a.trace != trace) setByOp({});
  open_ = std::move(trace);
  dropStaleSides();
}

void Comparison::dropStaleSides() {
  const auto open = [this](const TracePtr& t) {
    if (t == open_) return true;
    if (compared_)
      for (const AbPick& p : compared_->picks)
        if (p.trace == t) return true;
    return false;
  };
  bool dropped = false;
  for (auto& s : sides_)
    if (s && !open(s->trace)) {
      s.reset();
      dropped = true;
    }
  if (dropped) emit sidesDropped();
}

}  // namespace steadyscope::app
