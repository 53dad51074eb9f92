#pragma once
// What the steady-state finders decided for a window (spec §3): regions,
// the reference ratio, candidates with their scores, the chosen window per
// mode, the duration finder's window. SplitResult::windows holds them; the
// finders are the splitter's own (analysis/steady_state/steady_state.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

/// A half-open range [start, end) of indices into the working-root list.
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

/// §3.3: the largest region (first on ties) and both ratios; the reference uses `average`.
struct ReferenceRatio {
  size_t largestIndex = 0;
  double largest = 0.0;
  double average = 0.0;
  std::vector<int64_t> pdPerRegion;
};

/// §3.4 CONC / OSL / R as given (--CONC, --OSL, --R).
struct ConcOslR {
  std::optional<int64_t> conc;
  std::optional<double> osl;
  std::optional<double> r;
};

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

/// What the §3.8 duration finder decided.
struct DurationSelection {
  Region window;
  Region best;  // the scan window before re-centring
  int64_t scan = 0;
  double mean = 0.0;
  double cv = 0.0;
  bool passed = false;
};

}  // namespace steadyscope::analysis
