#pragma once
// Reviewing a split directory on disk against its source trace: re-plan the
// split in memory (with the directory's likely flags), match the families'
// chunks by file name, and run gate::reviewSplitDirectory with their
// evidence plus the findings only the trace allows (gate/trace_findings.hpp).
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::review {

/// Per family: how the directory's first chunk was matched to a re-planned chunk.
struct FamilyMatch {
  std::string chunk;  // first chunk of the family in the directory ("" none)
  bool matched = false;
  std::string plannedFile;    // the re-planned chunk's fileName
  int64_t numSteps = 0;       // --num-steps of the plan that matched
  bool llmInference = false;  // --llm-inference of the plan that matched
  std::optional<analysis::ChunkEvidence> evidence;
};

struct TraceReviewOptions {
  gate::ReviewOptions review;
  /// Options of the re-run split. findSteadyState is forced on; outputDir is
  /// set to the directory. When a family's chunk does not match by file name,
  /// the re-run is repeated with --num-steps taken from the CSV's num_steps
  /// cells and with --llm-inference toggled (at most `maxPlans` plans).
  analysis::SplitOptions split;
  int maxPlans = 6;
  analysis::EvidenceOptions evidence;  // its extraction follows split.fixes
};

struct TraceReview {
  gate::GateResult result;  // the gate's result with the evidence findings
  std::array<FamilyMatch, 4> families;
  int plans = 0;                   // how many splits were planned
  std::vector<std::string> notes;  // plain sentences (what was matched, what not)
};

/// The costly half of a review against the source trace: the re-planned
/// splits and each family's match and evidence; no gate. A window re-gating
/// with other options keeps one and calls gateWithTraceMatch each time.
struct TraceMatch {
  std::array<FamilyMatch, 4> families;
  int plans = 0;
  std::vector<std::string> notes;
  std::string tracePath;
  std::string lastProblem;  // why the last re-run split did not split, if one did not
};
Expected<TraceMatch> matchSplitDirectory(const std::string& splitDir, TracePtr trace,
                                         const TraceReviewOptions& options);
/// The cheap half: the directory's gate with the matched families' evidence
/// and the findings only the trace allows (as reviewSplitDirectoryWithTrace).
Expected<TraceReview> gateWithTraceMatch(const std::string& splitDir, const TraceMatch& match,
                                         const gate::ReviewOptions& options);

/// Reviews `splitDir` with evidence from `trace` (its source trace): match, then gate.
/// Families whose chunk no re-planned chunk matches by file name get no
/// evidence and an `evidence_unavailable` finding (never verdict-bearing).
/// Duplicate findings (same code, subject and sentence) are dropped. Error
/// only when `splitDir` is not a readable directory.
Expected<TraceReview> reviewSplitDirectoryWithTrace(const std::string& splitDir, TracePtr trace,
                                                    const TraceReviewOptions& options);

}  // namespace steadyscope::review
