#pragma once
// A/B: the two sides (a chunk row of either trace, a step or a range of the
// open trace, whichever was picked last), and the compared trace (File ▸
// Compare with…) loaded and split on the Compare lane, whose chunks join the
// chunk table under its name. The figures are core's (timeline/ab_compare),
// computed on the GUI thread: a few ms, they read the index, not the events.
// A compared trace is also set against the open one op by op (op_compare) on
// the Compare lane; choosing an op marks its kernels on both timelines.
#include "controller.hpp"

#include <steadyscope/timeline.hpp>

#include <memory>

namespace steadyscope::widgets {
class SelectionModel;
}

namespace steadyscope::app {

class RunPanel;

class CompareController : public Controller {
  Q_OBJECT
 public:
  CompareController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                    QObject* parent = nullptr);

  /// A/B of the chunk table's model rows `a` and `b` (either trace's); false (and says why) when one has no window.
  bool compareRows(int a, int b);
  /// Compare ▸ Compare the two selected chunks: the first row is A. False (and says why) unless two rows.
  bool compareSelectedRows(const QVector<int>& modelRows);
  /// Compare ▸ Use the selection as A (0) or B (1): the chunk, step or range picked last.
  bool useSelectionAs(int side);
  /// A/B of `mode`'s chunk of the open trace against the compared trace's (the headless --compare).
  bool compareModes(const QString& mode);

 public slots:
  /// A second trace (split with the Run panel's options) or a split directory.
  void compareWith(const QString& path);
  void stopComparing();
  void swapSides();
  /// The user chose a row of the compared trace in the chunk table.
  void pickCompared(int index);
  /// The open trace against the compared one, op by op, on the Compare lane (after Compare with…).
  void compareByOp();
  /// Marks the GPU events of `op` (only those named `kernel` unless empty) on both timelines; "" clears.
  void chooseOp(const QString& op, const QString& kernel = {});

 signals:
  /// Both sides are set: the A/B pane shows their figures.
  void comparisonReady(const timeline::AbSideFigures& a, const timeline::AbSideFigures& b);
  /// One side or none: the A/B pane shows what to do next.
  void comparisonPending(const QString& text);
  /// Neither side is left (their trace was closed): the A/B pane says so, without coming to the front.
  void comparisonCleared(const QString& text);
  /// What to mark on A's and on B's timeline (null: nothing), as find results are marked.
  void opHighlighted(std::shared_ptr<const timeline::FindResults> a, std::shared_ptr<const timeline::FindResults> b);

 private:
  std::optional<AbPick> pickOfModelRow(int row) const;
  std::optional<AbPick> pickOfSelection() const;
  void showComparison();
  void onCompared(const ComparedOutcome& out);
  void onByOp(const OpCompareOutcome& out);

  RunPanel* run_;
  widgets::SelectionModel* selection_;
  enum class Picked { None, Chunk, Step, Range, Compared } picked_ = Picked::None;
  int pickedCompared_ = -1;
  bool byOpRunning_ = false;   // the Compare lane's job is the By op one (not a load): its cancel message
  bool highlighting_ = false;  // an op is marked on the timelines
};

}  // namespace steadyscope::app
