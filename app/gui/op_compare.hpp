#pragma once
// The A/B pane's By op view: the open trace against the compared one, op by
// op (core compare: each GPU event's launching op, the steps aligned by
// index). Both traces are split as `steadyscope-cli compare` splits them, so
// the window and the CLI agree. The steps: both steady-state chunks; a side
// without one: every step of both; a side without steps: the whole traces.
// The note says which, naming the side. Runs on the Compare lane.
#include "job_lane.hpp"

#include "panels/by_op_data.hpp"

#include <steadyscope/compare.hpp>
#include <steadyscope/split.hpp>
#include <steadyscope/timeline.hpp>

#include <QString>

#include <memory>
#include <optional>
#include <string>

namespace steadyscope::app {

struct OpCompareSide {
  TracePtr trace;
  timeline::TimelineIndexPtr index;
  QString path;
  compare::Attribution attribution;  // filled by the job
};

/// A finished By op comparison: what the pane shows and what a highlight reads.
struct OpComparison {
  OpCompareSide a, b;
  compare::Comparison result;
  widgets::ByOpData view;
};

struct OpCompareOutcome {
  std::shared_ptr<const OpComparison> comparison;  // null on failure
  QString error;                                   // the reason, naming the side
};

/// "A (run.json)"; with the folder ("A (h100/run.json)") when both sides' file names are equal.
QString sideName(int side, const QString& pathA, const QString& pathB);

/// The steps both sides compare, from their splits, and the note naming a side that has no
/// steady-state chunk or no steps; or an error naming the side that cannot be compared.
struct ChosenSteps {
  std::optional<std::pair<compare::SideSteps, compare::SideSteps>> steps;
  QString note, error;
};
ChosenSteps chooseWithFallback(const OpCompareSide& a, const analysis::SplitResult& sa, const OpCompareSide& b,
                               const analysis::SplitResult& sb);

/// (job thread) Splits both traces, attributes their GPU events and compares them. nullopt: cancelled.
std::optional<OpCompareOutcome> compareByOp(OpCompareSide a, OpCompareSide b, JobContext& ctx);

/// The GPU events of `op` on side `side` (0: A, 1: B), only those called `kernel` unless it is
/// empty, as find results for that side's timeline (the timeline marks them as it marks matches).
std::shared_ptr<const timeline::FindResults> opHighlight(const OpComparison& c, int side, const std::string& op,
                                                         const std::string& kernel = {});

}  // namespace steadyscope::app
