#pragma once
// Stage 2 of the splitter (spec §3): steady-state windows over the working
// roots. Pure functions over step details / durations; indices are half-open
// [start, end) into the working-root list.
#include <steadyscope/core/analysis/annotation.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace steadyscope::analysis {

struct Region {
  int64_t start = 0;
  int64_t end = 0;
  int64_t size() const { return end - start; }
  friend bool operator==(const Region&, const Region&) = default;
};

/// §3.2 peak-proximity scan. `fellBack` is set when no region was found and
/// the "middle" region was returned.
struct RegionScan {
  std::vector<Region> regions;
  int64_t peak = 0;
  bool fellBack = false;
};
RegionScan scanRegions(std::span<const int64_t> values, int64_t numSteps, int64_t minRun);

/// §3.3: the largest region (first on ties) and both ratios; the reference uses `average`.
struct ReferenceRatio {
  size_t largestIndex = 0;
  double largest = 0.0;
  double average = 0.0;
  std::vector<int64_t> pdPerRegion;
};
ReferenceRatio referenceRatio(std::span<const StepDetails> steps, std::span<const Region> regions);

/// §3.5 stride for a window length N.
int64_t candidateStride(int64_t numSteps);

/// §3.4 CONC / OSL / R. Throws nothing; `divisionByZero` marks the inputs
/// for which the reference raises ZeroDivisionError (spec §8 B6).
struct ConcOslR {
  std::optional<int64_t> conc;
  std::optional<double> osl;
  std::optional<double> r;
};
struct IdealRatio {
  bool applies = false;         // all three given
  bool divisionByZero = false;  // reference crashes
  bool rClamped = false;
  double r = 0.0;  // after clamping
  double ideal = 0.0;
  int64_t minSteps = 0;
};
IdealRatio idealRatio(const ConcOslR& c);

/// A candidate window of the concurrency finder (§3.5).
struct Candidate {
  Region window;
  int64_t pdCount = 0;
  double pdRatio = 0.0;
  double avgRequests = 0.0;
  double distance = 0.0;  // |pd_ratio - target| (mixed mode only)
  bool eligible = true;   // in the mixed pool
};

enum class SteadyMode : uint8_t { Mixed, DecodeOnly, MaxPrefillDecode };
const char* steadyModeName(SteadyMode m);  // "mixed", "decode_only", "max_prefilldecode"

/// Everything the concurrency finder decided for one mode.
struct ModeSelection {
  SteadyMode mode = SteadyMode::Mixed;
  std::string finder;        // "concurrency", "shapes", "duration"
  RegionScan scan;           // regions (and peak for the concurrency finder)
  ReferenceRatio ratio;      // concurrency finder
  Region largest;            // the largest region
  int64_t numStepsUsed = 0;  // after the CONC/OSL/R raise (mixed)
  int64_t stride = 0;
  double target = 0.0;  // reference ratio actually used
  bool idealUsed = false;
  bool poolFallback = false;          // mixed: no candidate with a PD step
  std::vector<Candidate> candidates;  // mixed
  std::optional<Region> run;          // decode_only / max_prefilldecode: the longest run
  Region window;                      // chosen window (empty: start == end)
  std::vector<std::string> warnings;
  bool crashed = false;  // reference raises here (B6)
};

struct ConcurrencyOptions {
  int64_t numSteps = 32;
  ConcOslR conc;                       // honoured only in mixed mode
  bool useLargestRegionRatio = false;  // fix for spec §8 D1 (default: average, like the reference)
  bool idleBreaksRuns = false;         // fix for spec §8 B18 (default: idle steps count as decode)
};

/// §3.2–§3.6 concurrency finder for one mode.
ModeSelection concurrencyFinder(std::span<const StepDetails> steps, SteadyMode mode, const ConcurrencyOptions& options);

/// §3.8 duration finder. `durations` as Python floats (ints promoted exactly).
struct DurationSelection {
  Region window;
  Region best;  // the scan window before re-centring
  int64_t scan = 0;
  double mean = 0.0;
  double cv = 0.0;
  bool passed = false;
};
DurationSelection durationFinder(std::span<const double> durations, int64_t numSteps);

/// §3.7.2 classification from batch sizes (nullopt = none).
std::vector<bool> classifyPrefillBearing(std::span<const std::optional<int64_t>> batchSizes,
                                         std::optional<int64_t> maxNumSeq);

/// §3.7.3/§3.7.4 shape finder for one mode.
ModeSelection shapeFinder(std::span<const std::optional<int64_t>> batchSizes, SteadyMode mode, int64_t numSteps,
                          std::optional<int64_t> maxNumSeq);

}  // namespace steadyscope::analysis
