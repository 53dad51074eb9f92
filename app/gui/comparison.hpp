#pragma once
// The document's compare part: the trace (or split directory) compared with
// the open one, and the two A/B sides. A side keeps its trace alive, so sides
// of a trace no longer open are dropped (sidesDropped).
#include "ab_sides.hpp"

#include <QObject>

#include <memory>
#include <optional>

namespace steadyscope::app {

class Comparison : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  const ComparedTrace* compared() const { return compared_.get(); }
  /// The A/B sides (0: A, 1: B).
  const std::optional<AbPick>& side(int i) const { return sides_[i]; }

  void setCompared(std::shared_ptr<const ComparedTrace> c);
  void setSide(int i, std::optional<AbPick> pick);
  /// Both sides at once (one sidesChanged).
  void setSides(std::optional<AbPick> a, std::optional<AbPick> b);
  void swapSides();
  /// The trace the window has open: sides of any other trace but the compared one's are dropped.
  void setOpenTrace(TracePtr trace);

 signals:
  void comparedChanged();
  /// A side was picked, swapped or cleared by the user.
  void sidesChanged();
  /// Sides of a trace no longer open were dropped.
  void sidesDropped();

 private:
  void dropStaleSides();

  TracePtr open_;
  std::shared_ptr<const ComparedTrace> compared_;
  std::optional<AbPick> sides_[2];
};

}  // namespace steadyscope::app
