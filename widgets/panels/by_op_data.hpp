#pragma once
// What the A/B pane's By op view shows: two traces compared op by op (the app
// fills it from core compare), as plain values so the widgets need no
// analysis area. Times in µs, as the compare computes them.
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace steadyscope::widgets {

/// One kernel name under an op: its calls and GPU time on each side.
struct ByOpKernel {
  QString name;
  uint64_t aCount = 0, bCount = 0;
  double aGpuUs = 0, bGpuUs = 0;
};

/// One launching op (or "(no launching op)") with its kernels.
struct ByOpRow {
  QString op;
  uint64_t aCount = 0, bCount = 0;
  double aGpuUs = 0, bGpuUs = 0, aUsPerStep = 0, bUsPerStep = 0, deltaUsPerStep = 0;
  std::vector<ByOpKernel> kernels;  // by GPU time of both sides, descending
};

struct ByOpSide {
  QString name;        // "A (run.json)", with the folder when both sides' file names are equal
  QString stepSource;  // "steady_state", "all_steps", "range" or "whole_trace"
  size_t totalSteps = 0, firstStep = 0, steps = 0, availableSteps = 0;
  std::optional<double> stepMedianUs;
  double gpuUs = 0, gpuBusyPerStepUs = 0, attributedShare = 0;
  uint64_t gpuEvents = 0;
  std::vector<double> stepUs;  // per aligned step: its duration
};

struct ByOpData {
  ByOpSide a, b;
  std::vector<ByOpRow> rows;  // by |Δ per step| descending
  QString note;               // how the steps were chosen when not both steady states, naming the side ("" else)
  bool wholeTrace = false;
};

}  // namespace steadyscope::widgets
