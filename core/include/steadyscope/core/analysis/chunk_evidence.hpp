#pragma once
// What the source trace says about one chunk beyond its §4.4 statistics:
// the union of its GPU intervals, the steps without GPU work, the largest
// GPU event, whether the startup transient (§3.9) lies inside it. Computed
// on the EventIndex the split was planned on (Splitter::eventIndex), never a
// second one. The gate reads its summary, gate::ChunkFacts (review::gateFacts).
#include <steadyscope/core/analysis/extraction_types.hpp>
#include <steadyscope/core/analysis/splitter.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

/// How a chunk is judged (the gate's own thresholds live in gate::GateOptions).
struct EvidenceOptions {
  /// The split's extraction fixes (dedupe, annotations-not-work, ac2g flows):
  /// the recomputed statistics follow the same rules as the split.
  ExtractionOptions extraction;
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
  EventList gpuWork;      // those events (the window's per-device figures and GPU spans)
};

/// What the evidence needs to know about the startup transient (§3.9).
struct TransientContext {
  TrimInfo trim;                    // the detection's trim decision
  std::optional<size_t> firstRoot;  // index (in the roots numbering) of the trace's first root
};

/// Why the startup transient lies inside a chunk that holds the trace's
/// first iteration (the trim did not remove it).
struct StartupTransient {
  enum class Kind : uint8_t {
    None,
    CollectiveKept,     // its collective kernel ran >= 5x as long, but the trim kept it (noise)
    InflatedFirstStep,  // its GPU busy time >= inflatedFirstStepFactor x the median of the other steps
  };
  Kind kind = Kind::None;
  size_t firstRoot = 0;          // its step index
  std::string kernel;            // CollectiveKept: the trim's kernel
  double collectiveRatio = 0.0;  // CollectiveKept
  double noiseRatio = 0.0;       // CollectiveKept
  double firstBusyUs = 0.0;      // InflatedFirstStep
  double medianBusyUs = 0.0;     // InflatedFirstStep
};

struct ChunkEvidence {
  // The splitter's §4.4 statistics of the chunk at full precision.
  int64_t numGpuEvents = 0;
  double gpuDuration = 0.0;
  double gpuBusyDuration = 0.0;
  /// false: a whole-trace or rootless chunk, of which only the statistics are known.
  bool hasSteps = false;
  std::vector<StepWork> steps;
  std::vector<int> emptyStepIndices;     // root numbers of the steps without GPU work
  double unionUs = 0.0;                  // union of the chunk's kernel/memcpy/memset intervals
  double kernelBusyUs = 0.0;             // sum of the distinct kernel/memcpy/memset durations
  std::optional<double> unionBusyRatio;  // unionUs / gpuDuration (gpuDuration > 0)
  std::optional<EventIdx> largestEvent;
  std::optional<double> largestEventShare;  // its duration / kernelBusyUs
  std::optional<std::string> largestEventName;
  std::optional<bool> startupTransientInside;  // unknown without TransientContext::firstRoot
  StartupTransient transient;                  // why it is inside (kind None otherwise)
};

/// Evidence for a chunk whose roots are `roots` (events, in chunk order;
/// `rootNumbers` are the step indices reported, same length, or empty for
/// 0..n-1). `tiles` = the split's global tiles (null: --no-gap-fill, tiles
/// are built from the chunk's own roots, as the splitter does).
///
/// * the statistics: the splitter's selection of the chunk (selectChunk);
/// * unionUs: each kernel/memcpy/memset event once, all devices together;
/// * a step has GPU work when its window reaches such an event with dur > 0;
/// * the largest event is the longest of them, its share over the sum of the
///   chunk's distinct durations (gpu_user_annotation spans are not GPU work);
/// * the startup transient: see TransientContext / inflatedFirstStepFactor.
ChunkEvidence computeChunkEvidence(const EventIndex& index, const RootList& roots,
                                   const std::vector<size_t>& rootNumbers, const TileSet* tiles,
                                   const EvidenceOptions& options = {}, const TransientContext& transient = {});

/// The evidence of a plan's chunks on the index it was planned on: keeps the
/// plan's global tiles between chunks. `index` must outlive it (and be the
/// one the plan used: Splitter::eventIndex(splitOptions)).
class EvidenceContext {
 public:
  EvidenceContext(const EventIndex& index, const SplitOptions& splitOptions);
  const EventIndex& index() const { return index_; }
  /// The trace the index is of.
  const Trace& trace() const;
  const EvidenceOptions& options() const { return options_; }
  EvidenceOptions& options() { return options_; }

  /// Evidence for chunk `c` of the plan `r`; computed once per chunk of the
  /// last plan asked about (the window's table and the gate read the same).
  const ChunkEvidence& evidenceFor(const SplitResult& r, const ChunkPlan& c);

 private:
  ChunkEvidence compute(const SplitResult& r, const ChunkPlan& c);
  const EventIndex& index_;
  EvidenceOptions options_;
  bool gapFill_ = true;
  const SplitResult* tilesFor_ = nullptr;  // plan the cached tiles belong to
  EventList tileRoots_;
  TileSet tiles_;
  const SplitResult* cachedFor_ = nullptr;  // plan the cached evidence belongs to
  struct Cached {
    const ChunkPlan* plan;
    std::vector<size_t> roots;  // the plan's roots when computed (a new plan may reuse the address)
    ChunkEvidence evidence;
  };
  std::deque<Cached> cache_;  // a deque: references handed out stay valid
};

/// The split's extraction fixes as the evidence applies them.
ExtractionOptions extractionOptionsOf(const SplitOptions& o);

}  // namespace steadyscope::analysis
