#pragma once
// The findings of a review against the split's source trace (core/review):
// a family without evidence, the startup transient's explanation, the CSV's
// rounding deciding the verdict, and the final de-duplication.
#include <steadyscope/core/gate/gate.hpp>

#include <string>

namespace steadyscope::gate {

/// `evidence_unavailable`: no re-planned chunk has the family's chunk file
/// name, so it has no evidence (never verdict-bearing).
void addEvidenceUnavailable(GateResult& result, Mode m, const std::string& chunk, std::string sentence, int plans);

/// Gives family m's startup_transient_inside findings their reason.
void explainStartupTransient(GateResult& result, Mode m, const std::string& reason);

/// The verdict changes with the statistics recomputed at full precision
/// while the CSV agrees with them within its rounding: the CSV's 2-decimal
/// rounding (of busy_ratio or of the durations) decides the verdict. The
/// gate alone only checks the busy_ratio column; this adds
/// csv_rounding_decides (details.source "trace") unless a finding already
/// says so or the statistics disagree.
void addTraceRoundingFinding(GateResult& result);

/// Drops findings repeated with the same code, subject, chunk and sentence
/// (keeps the first), then re-applies --strict.
void dedupeFindings(GateResult& result);

}  // namespace steadyscope::gate
