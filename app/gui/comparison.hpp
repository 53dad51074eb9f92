#pragma once
// The document's compare part: the trace (or split directory) compared with
// the open one, and the two A/B sides. A side keeps its trace alive, so sides
// of a trace no longer open are dropped (sidesDropped). The By op comparison
// of the open trace against the compared one belongs to both: it is dropped
// when either changes.
#include "ab_sides.hpp"
#include "op_compare.hpp"

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

  /// The open trace against the compared one, op by op (null: none; byOpHint() says why).
  const OpComparison* byOp() const { return byOp_.get(); }
  const QString& byOpHint() const { return byOpHint_; }

  void setCompared(std::shared_ptr<const ComparedTrace> c);
  /// A By op result, or none with what the pane says instead.
  void setByOp(std::shared_ptr<const OpComparison> c, const QString& hint = {});
  void setSide(int i, std::optional<AbPick> pick);
  /// Both sides at once (one sidesChanged).
  void setSides(std::optional<AbPick> a, std::optional<AbPick> b);
  void swapSides();
  /// The trace the window has open: sides of any other trace but the compared one's are dropped.
  void setOpenTrace(TracePtr trace);

 signals:
  void comparedChanged();
  /// The By op comparison was set or dropped.
  void byOpChanged();
  /// A side was picked, swapped or cleared by the user.
  void sidesChanged();
  /// Sides of a trace no longer open were dropped.
  void sidesDropped();

 private:
  void dropStaleSides();

  TracePtr open_;
  std::shared_ptr<const ComparedTrace> compared_;
  std::shared_ptr<const OpComparison> byOp_;
  QString byOpHint_;
  std::optional<AbPick> sides_[2];
};

}  // namespace steadyscope::app
