#pragma once
// Bridge between the splitter (core/analysis) and the chunk-quality gate
// (core/gate), so that neither depends on the other:
//
//  (a) gate a live split without writing files:
//        analysis::Splitter sp(trace);
//        analysis::SplitResult r = sp.plan(o);
//        EvidenceContext ctx(trace, o);                 // optional: evidence
//        gate::GateInput in = gateInputFromSplit(r, o, &ctx);
//        gate::GateResult g = gate::evaluateGate(in, gateOptions);
//  (b) evidence for one chunk from the loaded trace and the chunk's roots
//      (computeChunkEvidence / evidenceForPlannedChunk);
//  (c) review a split directory on disk against its source trace: re-plan the
//      split in memory, match chunks by file name, fill the evidence and run
//      gate::reviewSplitDirectory (reviewSplitDirectoryWithTrace).
//
// No Qt. Nothing here writes files.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::bridge {

/// How the bridge judges a chunk (the gate's own thresholds live in GateOptions).
struct EvidenceOptions {
  /// The split's extraction fixes (dedupe, annotations-not-work, ac2g flows):
  /// the recomputed statistics follow the same rules as the split.
  analysis::ExtractionOptions extraction;
  /// The first iteration counts as inflated when its GPU busy time is at least
  /// this many times the median of the chunk's other steps.
  double inflatedFirstStepFactor = 3.0;
};

/// GPU work of one step (root) of a chunk, in its window.
struct StepWork {
  size_t root = 0;        // index into SplitResult::roots (or into the roots given)
  EventIdx event = 0;     // the root event
  int64_t gpuEvents = 0;  // kernel / memcpy / memset events reached from the window
  double busyUs = 0.0;    // sum of their durations
};

/// Evidence for one chunk plus the detail behind it (for tables and the GUI).
struct ChunkEvidenceReport {
  gate::ChunkEvidence evidence;
  std::vector<StepWork> steps;
  double unionUs = 0.0;       // union of the chunk's kernel/memcpy/memset intervals
  double kernelBusyUs = 0.0;  // sum of the distinct kernel/memcpy/memset durations
  std::optional<EventIdx> largestEvent;
  std::string transientReason;  // why startupTransientInside is true ("" otherwise)
};

/// What the evidence needs to know about the startup transient (§3.9).
struct TransientContext {
  analysis::TrimInfo trim;          // the detection's trim decision
  std::optional<size_t> firstRoot;  // index (in the roots numbering) of the trace's first root
};

/// (b) Evidence for a chunk whose roots are `roots` (events, in chunk order;
/// `rootNumbers` are the step indices reported, same length, or empty for
/// 0..n-1). `tiles` = the split's global tiles (null: --no-gap-fill, tiles
/// are built from the chunk's own roots, as the splitter does).
///
/// * numGpuEvents / gpuDuration / gpuBusyDuration: the splitter's §4.4
///   statistics of the chunk, recomputed at full precision;
/// * unionBusyRatio: union of the chunk's kernel/memcpy/memset intervals (each
///   event once, all devices together) / gpuDuration;
/// * steps / stepsWithoutGpu / emptyStepIndices: a step has GPU work when its
///   window reaches a kernel/memcpy/memset event with dur > 0;
/// * largestEventShare / largestEventName: the longest kernel/memcpy/memset
///   event over the sum of the chunk's distinct kernel/memcpy/memset durations
///   (gpu_user_annotation spans are not GPU work here);
/// * startupTransientInside: see TransientContext / inflatedFirstStepFactor.
ChunkEvidenceReport computeChunkEvidence(const analysis::EventIndex& index, const EventList& roots,
                                         const std::vector<size_t>& rootNumbers, const analysis::TileSet* tiles,
                                         const EvidenceOptions& options = {}, const TransientContext& transient = {});

/// The index and tiles of one trace for evidence (built once, reused for every
/// chunk of a plan). Holds its own EventIndex (the splitter's is private).
class EvidenceContext {
 public:
  EvidenceContext(TracePtr trace, const analysis::SplitOptions& splitOptions);
  const analysis::EventIndex& index() const { return *index_; }
  const Trace& trace() const { return *trace_; }
  const EvidenceOptions& options() const { return options_; }
  EvidenceOptions& options() { return options_; }

  /// (b) Evidence for chunk `c` of the plan `r` (made from this trace).
  ChunkEvidenceReport evidenceFor(const analysis::SplitResult& r, const analysis::ChunkPlan& c);

 private:
  TracePtr trace_;
  std::unique_ptr<analysis::EventIndex> index_;
  EvidenceOptions options_;
  bool gapFill_ = true;
  const analysis::SplitResult* tilesFor_ = nullptr;  // plan the cached tiles belong to
  EventList tileRoots_;
  analysis::TileSet tiles_;
};

/// The chunk files of a plan as the pipeline would list them in the written
/// directory (§6.3: family prefix on the file name, four extensions, each list
/// sorted by path, B11 duplicates kept). Paths are ChunkPlan::outputPath.
gate::SplitListing listingFromSplit(const analysis::SplitResult& r);

/// Index into r.chunks of the chunk whose outputPath is `path`, or -1.
int chunkIndexForPath(const analysis::SplitResult& r, const std::string& path);

/// (a) GateInput for a live split: listing as on disk, each family's first
/// chunk's row from the plan at full precision (busy_ratio given when the plan
/// writes that column), rowMatch Supplied, details Readable when the plan has
/// chunks (Absent otherwise), splitReturnCode = r.exitStatus. With `evidence`
/// non-null the evidence of each family's first chunk is filled too.
gate::GateInput gateInputFromSplit(const analysis::SplitResult& r, const analysis::SplitOptions& splitOptions,
                                   EvidenceContext* evidence = nullptr,
                                   const std::optional<std::string>& traceInput = std::nullopt);

/// Per family: how the directory's first chunk was matched to a re-planned chunk.
struct FamilyMatch {
  std::string chunk;  // first chunk of the family in the directory ("" none)
  bool matched = false;
  std::string plannedFile;    // the re-planned chunk's fileName
  int64_t numSteps = 0;       // --num-steps of the plan that matched
  bool llmInference = false;  // --llm-inference of the plan that matched
  std::optional<ChunkEvidenceReport> report;
};

struct TraceReviewOptions {
  gate::ReviewOptions review;
  /// Options of the re-run split. findSteadyState is forced on; outputDir is
  /// set to the directory. When a family's chunk does not match by file name,
  /// the re-run is repeated with --num-steps taken from the CSV's num_steps
  /// cells and with --llm-inference toggled (at most `maxPlans` plans).
  analysis::SplitOptions split;
  int maxPlans = 6;
  EvidenceOptions evidence;
};

struct TraceReview {
  gate::GateResult result;  // the gate's result with the evidence findings
  std::array<FamilyMatch, 4> families;
  int plans = 0;                   // how many splits were planned
  std::vector<std::string> notes;  // plain sentences (what was matched, what not)
};

/// (c) Reviews `splitDir` with evidence from `trace` (its source trace).
/// Families whose chunk no re-planned chunk matches by file name get no
/// evidence and an `evidence_unavailable` finding (never verdict-bearing).
/// Duplicate findings (same code, subject and sentence) are dropped. Error
/// only when `splitDir` is not a readable directory.
Expected<TraceReview> reviewSplitDirectoryWithTrace(const std::string& splitDir, TracePtr trace,
                                                    const TraceReviewOptions& options);

/// Drops findings repeated with the same code, subject, chunk and sentence
/// (keeps the first), then re-applies --strict.
void dedupeFindings(gate::GateResult& result);

}  // namespace steadyscope::bridge
