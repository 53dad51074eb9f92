#pragma once
// Gating a split with what its source trace says, without the splitter and
// the gate depending on each other: a plan as the gate's input, the
// analysis's chunk evidence in the gate's terms.
//
//   analysis::Splitter sp(trace);
//   analysis::SplitResult r = sp.plan(o);
//   analysis::EvidenceContext ev(sp.eventIndex(o), o);       // optional: evidence
//   gate::GateInput in = review::gateInputFromSplit(r, o, &ev);
//   gate::GateResult g = gate::evaluateGate(in, gateOptions);
//
// No Qt. Nothing here writes files.
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/gate.hpp>

#include <optional>
#include <string>

namespace steadyscope::review {

/// The analysis's evidence as the gate reads it (a chunk without steps
/// gives the statistics only).
gate::ChunkFacts gateFacts(const analysis::ChunkEvidence& ev);

/// Why the startup transient lies inside the chunk, as one sentence for the
/// finding's details ("" when it does not).
std::string transientReason(const analysis::ChunkEvidence& ev);

/// The chunk files of a plan as the pipeline would list them in the written
/// directory (§6.3: family prefix on the file name, four extensions, each list
/// sorted by path, B11 duplicates kept). Paths are ChunkPlan::outputPath.
gate::SplitListing listingFromSplit(const analysis::SplitResult& r);

/// Index into r.chunks of the chunk whose outputPath is `path`, or -1.
int chunkIndexForPath(const analysis::SplitResult& r, const std::string& path);

/// GateInput for a live split: listing as on disk, each family's first
/// chunk's row from the plan at full precision (busy_ratio given when the plan
/// writes that column), rowMatch Supplied, details Readable when the plan has
/// chunks (Absent otherwise), splitReturnCode = r.exitStatus. With `evidence`
/// (on the plan's index) the evidence of each family's first chunk is filled too.
gate::GateInput gateInputFromSplit(const analysis::SplitResult& r, const analysis::SplitOptions& splitOptions,
                                   analysis::EvidenceContext* evidence = nullptr,
                                   const std::optional<std::string>& traceInput = std::nullopt);

}  // namespace steadyscope::review
