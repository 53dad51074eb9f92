#pragma once
// Two traces compared op by op: each GPU kernel, memcpy and memset goes to its
// launching op (correlation id -> runtime launch -> the innermost cpu_op
// around that launch on its thread), the two sides' steps are aligned by
// index, and each op's GPU time per step is set side by side. Times in µs,
// durations as written; nothing is written to disk. No Qt. docs/compare.md.
//
//   compare::CompareOptions o;                        // steady-state steps when both sides split
//   o.stepsA = o.stepsB = compare::parseStepRange("3:10");   // or pick the steps
//   Expected<compare::Comparison> c = compare::compareTraces(traceA, traceB, o);
//   if (!c) return fail(c.error().describe());          // names the file
//   for (const compare::OpRow& r : c->ops) printf("%s %+.1f\n", r.op.c_str(), r.deltaUsPerStep);
//   puts(compare::comparisonJson(*c).dump().c_str());
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steadyscope::compare {

inline constexpr EventIdx kNoEvent = UINT32_MAX;
/// The row of GPU events without a launch, or whose launch no cpu_op encloses.
inline constexpr std::string_view kNoOp = "(no launching op)";

/// Each GPU event's launch and launching op; linear in the trace's events.
struct Attribution {
  std::vector<EventIdx> gpu;     // kernels, memcpys, memsets with a ts, in file order
  std::vector<EventIdx> launch;  // per gpu[i]: the runtime / driver event with its correlation, or kNoEvent
  std::vector<EventIdx> op;      // per gpu[i]: the innermost cpu_op around that launch on its lane, or kNoEvent
  uint64_t withoutLaunch = 0;    // no correlation, or no runtime / driver event carries it
  uint64_t launchOutsideOp = 0;  // launched, but no cpu_op on the launch's thread encloses the launch
};
Attribution attribute(const Trace& trace);
/// The GPU events attributed to `op` (kNoOp: those without one), in file order.
std::vector<EventIdx> eventsOfOp(const Trace& trace, const Attribution& attribution, std::string_view op);

/// Steps [begin, end) by index among a side's steps (the splitter's roots); an open end is the first / last.
struct StepRange {
  std::optional<size_t> begin, end;
};
/// "A:B", "A:", ":B", "N" (step N alone) or "all"; nullopt when malformed.
std::optional<StepRange> parseStepRange(std::string_view text);

struct CompareOptions {
  std::optional<StepRange> stepsA, stepsB;  // default: the steady-state chunk's steps when both split, else all
  bool wholeTrace = false;                  // every GPU event of both traces; steps ignored (one step: the trace)
  unsigned threads = 0;                     // for the two splits (0: jobThreads())
};

/// The steps one side compares: windows of launch time, in ns.
struct SideSteps {
  std::string source;  // "steady_state", "all_steps", "range" or "whole_trace"
  size_t totalSteps = 0;
  size_t available = 0;  // steps chosen before the alignment cut the longer side
  size_t first = 0;      // index of the first compared step among the roots
  struct Window {
    int64_t beginNs = 0, endNs = 0;  // the step's tile (gap filled) or its span: [begin, end)
    double durUs = 0;                // the step's own duration
  };
  std::vector<Window> windows;  // ts order
};
/// Both sides' steps from their splits, aligned: as many on each side (the shorter side's count).
/// With options.wholeTrace the splits are not read (may be null). The error names the file
/// whose steps are missing or out of range.
Expected<std::pair<SideSteps, SideSteps>> chooseSteps(const Trace& a, const analysis::SplitResult* splitA,
                                                      const Trace& b, const analysis::SplitResult* splitB,
                                                      const CompareOptions& options);

struct SideFigures {
  std::string file, stepSource;
  size_t totalSteps = 0, firstStep = 0, steps = 0, availableSteps = 0;  // available: before the alignment
  std::vector<double> stepUs, stepGpuUs;  // per compared step: its duration, its GPU time (a chart's series)
  std::optional<double> stepMedianUs;
  double gpuUs = 0;      // sum of the compared GPU events' durations
  double gpuBusyUs = 0;  // their union, per device, summed
  double gpuBusyPerStepUs = 0;
  uint64_t gpuEvents = 0, withoutLaunch = 0, launchOutsideOp = 0;
  double attributedShare = 0;  // GPU time with a launching op / gpuUs
};

/// One kernel name under an op (names differ between vendors: usually one side only).
struct KernelRow {
  std::string name;
  uint64_t aCount = 0, bCount = 0;
  double aGpuUs = 0, bGpuUs = 0;
};
struct OpRow {
  std::string op;
  uint64_t aCount = 0, bCount = 0;
  double aGpuUs = 0, bGpuUs = 0, aUsPerStep = 0, bUsPerStep = 0, deltaUsPerStep = 0;
  std::vector<KernelRow> kernels;  // by GPU time of both sides, descending
};
struct Comparison {
  SideFigures a, b;
  std::vector<OpRow> ops;  // by |deltaUsPerStep| descending, then by op
  bool wholeTrace = false;
};

/// Plans both splits in memory (find steady state), attributes both, compares.
Expected<Comparison> compareTraces(const TracePtr& a, const TracePtr& b, const CompareOptions& options,
                                   JobControl* control = nullptr);
/// The same from attributions and steps already made (a window that holds its splits).
Comparison compareSides(const Trace& a, const Attribution& attrA, const SideSteps& stepsA, const Trace& b,
                        const Attribution& attrB, const SideSteps& stepsB);

/// {"a": {...}, "b": {...}, "whole_trace": bool, "ops": [rows], "kernels": [{op, kernel, ...}]}.
JsonValue comparisonJson(const Comparison& c);
/// The op rows' TSV columns (the JSON names) and a row's cells.
std::vector<std::string> opColumns();
std::vector<std::string> opCells(const OpRow& row);

}  // namespace steadyscope::compare
