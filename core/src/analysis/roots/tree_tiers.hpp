#pragma once
// Tiers 3–5 of the root cascade (spec §2.6.3–§2.6.7): iterations found in
// the call tree when no annotation family explains the GPU work — a frame
// whose children repeat (branch descent), repeating top-level frames
// (sibling roots), and either of them extended by the work before and after
// the loop (bookends).
#include <steadyscope/core/analysis/detection_types.hpp>
#include "analysis/roots/call_tree.hpp"

#include <optional>
#include <unordered_map>
#include <vector>

namespace steadyscope::analysis {

inline constexpr size_t kMinRepeatingChildren = 4;     // fewer children: a helper's calls, not a loop
inline constexpr double kBranchStopCoverage = 0.95;    // the descent stops at a candidate this good
inline constexpr size_t kBranchNodeBudget = 200000;    // nodes the descent may visit
inline constexpr double kBookendFloor = 0.50;          // bookends only for a candidate this good
inline constexpr double kLowGpuGapRatio = 10.0;        // a gap this wide drops the roots below it
inline constexpr size_t kMinPeriodRepeats = 3;         // repeats a period needs
inline constexpr double kMinPeriodCoverage = 0.5;      // share of the siblings a period must explain (strictly more)
inline constexpr double kPeriodMultipleMargin = 0.05;  // a multiple of a period must explain this much more

/// A repeating unit in a sequence of name codes.
struct Period {
  size_t length = 0;
  size_t start = 0;
  std::vector<uint32_t> pattern;  // codes[start, start + length)
};
/// The best repeating unit of a sequence of name codes (most of the sequence
/// explained, shortest unit), or nullopt.
std::optional<Period> findRepeatingPeriod(const std::vector<uint32_t>& names, size_t minRepeats = kMinPeriodRepeats);

/// Normalised sibling names as small codes, computed once per distinct name.
class TreeNames {
 public:
  explicit TreeNames(const Trace& t) : trace_(&t), byName_(t.strings.size(), UINT32_MAX) {}
  uint32_t code(EventIdx e);

 private:
  const Trace* trace_;
  std::vector<uint32_t> byName_;  // by StrId
  std::unordered_map<std::string, uint32_t> codes_;
};

/// The pattern finder over ordered siblings: a repeating run or the busiest
/// recurring frame, whichever covers more GPU time; roots are named after
/// `parent` when given (branch descent), else keep their names.
std::optional<DetectionCandidate> findPattern(const CallTree& tree, TreeNames& names,
                                              const std::vector<EventIdx>& ordered, double totalGpu,
                                              std::optional<EventIdx> parent, int64_t depth);
/// Tier 3: breadth-first over the tree from the entry roots.
std::optional<DetectionCandidate> detectBranchDescent(const CallTree& tree, TreeNames& names,
                                                      const std::vector<EventIdx>& entryRoots, double totalGpu);
/// Tier 4: the pattern finder over the entry roots themselves.
std::optional<DetectionCandidate> detectSiblingRoots(const CallTree& tree, TreeNames& names,
                                                     const std::vector<EventIdx>& entryRoots, double totalGpu);
/// Tier 5: `c` with warmup / wrapup roots for the GPU work before / after
/// its loop, graded by the coverage of all three; nullopt when there is none.
std::optional<DetectionCandidate> enhanceWithBookends(const CallTree& tree, const DetectionCandidate& c,
                                                      double totalGpu);
/// Rebuilds a call-tree candidate's diagnostics (the manifest's keys, in the
/// reference's order) from its evidence.
void setTreeDiagnostics(DetectionCandidate& c);

}  // namespace steadyscope::analysis
