#pragma once
// Stage 2 of the splitter (spec §3): steady-state windows over the working
// roots. Pure functions over step details / durations; indices are half-open
// [start, end) into the working-root list. What they decide is public
// (steady_state_types.hpp).
#include <steadyscope/core/analysis/annotation_types.hpp>
#include <steadyscope/core/analysis/steady_state_types.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace steadyscope::analysis {

/// §3.2 peak-proximity scan of `values` (RegionScan).
RegionScan scanRegions(std::span<const int64_t> values, int64_t numSteps, int64_t minRun);

/// §3.3 the reference ratio of `regions` (ReferenceRatio).
ReferenceRatio referenceRatio(std::span<const StepDetails> steps, std::span<const Region> regions);

/// §3.5 stride for a window length N.
int64_t candidateStride(int64_t numSteps);

/// §3.4 the ideal ratio from CONC / OSL / R. Throws nothing; `divisionByZero`
/// marks the inputs for which the reference raises ZeroDivisionError (spec §8 B6).
struct IdealRatio {
  bool applies = false;         // all three given
  bool divisionByZero = false;  // reference crashes
  bool rClamped = false;
  double r = 0.0;  // after clamping
  double ideal = 0.0;
  int64_t minSteps = 0;
};
IdealRatio idealRatio(const ConcOslR& c);

struct ConcurrencyOptions {
  int64_t numSteps = 32;
  ConcOslR conc;                       // honoured only in mixed mode
  bool useLargestRegionRatio = false;  // fix for spec §8 D1 (default: average, like the reference)
  bool idleBreaksRuns = false;         // fix for spec §8 B18 (default: idle steps count as decode)
};

/// §3.2–§3.6 concurrency finder for one mode.
ModeSelection concurrencyFinder(std::span<const StepDetails> steps, SteadyMode mode, const ConcurrencyOptions& options);

/// §3.8 duration finder. `durations` as Python floats (ints promoted exactly).
DurationSelection durationFinder(std::span<const double> durations, int64_t numSteps);

/// §3.7.2 classification from batch sizes (nullopt = none).
std::vector<bool> classifyPrefillBearing(std::span<const std::optional<int64_t>> batchSizes,
                                         std::optional<int64_t> maxNumSeq);

/// §3.7.3/§3.7.4 shape finder for one mode.
ModeSelection shapeFinder(std::span<const std::optional<int64_t>> batchSizes, SteadyMode mode, int64_t numSteps,
                          std::optional<int64_t> maxNumSeq);

}  // namespace steadyscope::analysis
