#pragma once
// What would make a trace splittable when a split made no chunk, from what the
// trace holds: too few steps (how many, how many a split needs, how to capture
// more), no GPU work under the categories the splitter reads (which categories
// there are), or steps found only as repeats in the call tree (how to mark the
// iteration). One sentence or two, for the window, the gate and the CLI.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/model/trace.hpp>

#include <cstddef>
#include <string>

namespace steadyscope::analysis {

/// The profiler's step annotations (`ProfilerStep#N` on the CPU side) of a trace.
struct StepAnnotations {
  size_t found = 0;     // events named ProfilerStep#N, not on a GPU lane
  size_t needed = 0;    // the fewest a family of step annotations must have to be used
  std::string example;  // the first one's name ("ProfilerStep#6"), "" when none
};
StepAnnotations countStepAnnotations(const Trace& trace);

/// What would make the trace splittable; "" when the split made chunks or
/// nothing in the trace points at a fix (a cancelled or failed split).
std::string splitRemedy(const Trace& trace, const SplitResult& result);

}  // namespace steadyscope::analysis
