#pragma once
// The TraceLens-compatible trace splitter (spec §1–§4, newest `split_trace`
// layout) as a library: plan a split of an already loaded Trace into a plain
// struct tree (SplitResult), then write it. Planning does no I/O, so the GUI
// can re-plan with other parameters on the same loaded model and only write
// when asked.
//
//   steadyscope::analysis::Splitter splitter(trace);           // builds the event index once
//   SplitOptions o; o.outputDir = "out"; o.findSteadyState = true;
//   SplitResult r = splitter.plan(o);                           // roots, regions, candidates, chunks
//   if (r.outcome == SplitOutcome::Error) ...;
//   auto w = splitter.write(r);                                 // chunk .json.gz, manifest, details
#include <steadyscope/core/analysis/annotation_types.hpp>
#include <steadyscope/core/analysis/detection_types.hpp>
#include <steadyscope/core/analysis/extraction_types.hpp>
#include <steadyscope/core/analysis/roots.hpp>
#include <steadyscope/core/analysis/steady_state_types.hpp>
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/progress.hpp>
#include <steadyscope/core/util/threads.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

/// Opt-in fixes of reference behaviours (docs/splitter-decisions.md). All off =
/// byte-compatible with the reference.
struct SplitFixes {
  bool metadataAllM = false;           // B4  every ph "M" event is metadata
  bool trimKeepsStatus = false;        // B2  keep the pre-trim status after a startup-transient trim
  bool freshNRoots = false;            // B3  manifest n_roots = roots after the trim
  bool strictIterations = false;       // B9  refuse out-of-range / negative --iterations
  bool largestRegionRatio = false;     // D1  reference ratio of the largest region, not the average
  bool idleBreaksRuns = false;         // B18 idle steps are neither decode nor prefill
  bool dedupeGpuEvents = false;        // B25 a GPU event enters a chunk once
  bool gpuAnnotationsNotWork = false;  // B15 gpu_user_annotation events are not GPU work in the stats
  bool flowsAc2gOnly = false;          // B13 copy only ac2g flows
  bool noBatchOverride = false;        // B10 keep the batch sizes parsed from the root names
  bool legacyCategories = false;       //     2021 Kineto Kernel/Memcpy/Memset are GPU work (EventIndexOptions)
};

/// Parses a comma-separated list of fix names ("metadata-all-m,trim-keeps-status,...");
/// returns an error message for an unknown name.
std::optional<std::string> parseFixList(const std::string& list, SplitFixes& fixes);
/// Names of all fixes, for --help.
std::vector<std::string> fixNames();
/// What a fix changes, in one plain phrase ("" for an unknown name).
std::string fixDescription(std::string_view name);
/// Names of the fixes that are on, in fixNames order.
std::vector<std::string> enabledFixNames(const SplitFixes& fixes);

struct SplitOptions {
  std::string outputDir;  // as given (recorded verbatim in output_path)
  std::string iterations = "all";
  bool storeSingleIteration = false;
  bool findSteadyState = false;
  int64_t numSteps = 32;
  ConcOslR conc;
  bool dividePhases = false;
  bool noGapFill = false;
  bool allowDegraded = false;
  bool llmInference = false;
  std::optional<int64_t> maxNumSeq;
  bool busyRatioColumn = false;  // §4.10, off: CSV identical to the reference
  unsigned threads = 0;          // 0: jobThreads() (the hardware's count, capped)
  SplitFixes fixes;
};

enum class SplitOutcome : uint8_t {
  NoGpuWork,  // "No GPU work in trace; nothing to split." exit 0, nothing written
  Refused,    // the detection found too little coverage: manifest with aborted=true, exit 0
  Split,      // chunks (possibly none) + manifest (+ execution details), exit 0
  Error,      // the reference crashes or this build cannot follow it: exit 1, nothing written
  Cancelled,  // the caller's JobControl asked to stop: no result, nothing written
};
const char* splitOutcomeName(SplitOutcome o);

/// One detected root. `name` views the trace's string pool: a SplitResult is
/// valid while the Trace it was planned on lives (its event indices refer to
/// that trace too).
struct RootInfo {
  EventIdx event = 0;
  std::string_view name;
  double tsUs = 0.0;
  double durUs = 0.0;
  PyNum dur;  // Python's dur (a call-tree root's own, RootList::dur)
  StepDetails step;
  std::optional<Tile> tile;  // global tile (gap fill on)
};

/// The roots at positions `ks` of `roots` (every one when `ks` is null), with their names and spans.
RootList rootListOf(const Column<RootInfo>& roots, const std::vector<size_t>* ks = nullptr);

/// The label of the --divide-phases window (the others carry their chunk label).
inline constexpr const char* kDividePhasesLabel = "divide_phases";

/// One steady-state (or phase) window decision.
struct WindowChoice {
  std::string label;  // names::chunkLabel of its mode, or kDividePhasesLabel
  SteadyMode mode = SteadyMode::Mixed;
  std::string finder;       // "concurrency", "shapes", "duration"
  ModeSelection selection;  // regions, candidates with scores, run (concurrency / shapes)
  std::optional<DurationSelection> duration;
  Region window;         // indices into the working roots
  Region rootRange;      // indices into SplitResult::roots
  double startUs = 0.0;  // first window start .. last window end (tiles)
  double endUs = 0.0;
  int chunk = -1;  // index into SplitResult::chunks, -1 if nothing written
};

/// What a chunk is.
enum class ChunkKind : uint8_t { Iteration, Range, Phase, SteadyState };
const char* chunkKindName(ChunkKind k);  // "iteration", "range", "phase", "steady_state"

/// One output chunk and its execution_details entry.
struct ChunkPlan {
  ChunkKind kind = ChunkKind::Iteration;
  std::string fileName;       // relative to the output dir (phase chunks: "sub/name")
  std::string outputPath;     // output dir as given + "/" + fileName
  JsonValue idx;              // int, or "a:b" for the range chunk
  std::vector<size_t> roots;  // indices into SplitResult::roots
  bool wholeTrace = false;    // empty explicit range: the whole input (§8 B9)
  EventList events;
  ChunkStats stats;
  bool hasSteps = true;
  std::vector<StepDetails> steps;  // after the batch-size override
  PhaseSummary phase;
  double busyRatio = 0.0;
};

struct SplitResult {
  SplitOutcome outcome = SplitOutcome::Split;
  int exitStatus = 0;
  std::string error;  // Error outcome
  std::string baseName;
  std::string outputDir;
  /// GPU events under legacy category names (EventIndex::nLegacyGpuEvents):
  /// not GPU work unless fixes.legacyCategories; the log says which.
  uint64_t nLegacyGpuEvents = 0;
  // Stage 1
  /// Never null. Shared with the splitter's cache and its other plans (a
  /// call-tree detection holds a span per root): read-only.
  std::shared_ptr<const Detection> detection = noDetection();
  Column<RootInfo> roots;  // detected roots after the trim, ts order
  bool gapFill = true;
  int64_t nOverlappingRoots = 0;
  // Stage 2
  Region iterationRange;             // normalised slice of roots used as working roots
  std::vector<size_t> workingRoots;  // indices into roots
  bool servingAnnotations = false;
  std::vector<std::optional<int64_t>> shapeBatchSizes;  // --llm-inference without annotations
  std::vector<WindowChoice> windows;
  // Stage 3
  std::vector<ChunkPlan> chunks;  // in execution_details order
  JsonValue manifest;             // null when no manifest is written
  JsonValue executionDetails;     // array (empty: files not written)
  std::string executionDetailsCsv;
  std::vector<std::string> warnings;
  DetectionStory story;          // the detection in plain words (set once roots are detected)
  std::vector<std::string> log;  // human-readable decision log
};

/// execution_details.json (an array) and .csv of `chunks`, one entry and row
/// each: the reference's columns, order and number formats for that table
/// (spec §4.9; a one-row table formats as one row does). The split writes
/// every chunk's; an export writes its one chunk's.
struct ExecutionDetails {
  JsonValue json;
  std::string csv;  // empty when there are no chunks
};
ExecutionDetails executionDetailsOf(const std::vector<ChunkPlan>& chunks, bool busyRatioColumn);

/// JSON of the structured result (used by `steadyscope-cli split --json` and the GUI).
JsonValue splitResultToJson(const SplitResult& r);

class Splitter {
 public:
  explicit Splitter(TracePtr trace);
  ~Splitter();
  const Trace& trace() const { return *trace_; }
  /// Computes everything; no file is touched. `control`, when given, is
  /// checked at every stage boundary (JobControl::enterStage); a cancelled
  /// plan returns SplitOutcome::Cancelled and nothing else.
  SplitResult plan(const SplitOptions& options, JobControl* control = nullptr);
  /// Writes the planned outputs (creates the output directory when the plan
  /// says so), the chunks on up to `threads` threads (0: jobThreads()).
  /// The split appears whole or not at all: every file is made complete under
  /// a temporary name first and renamed into place only when all are ready
  /// (the manifest last). `control`, when given, is checked before every file:
  /// a cancelled write stops and returns an Error::Kind::Cancelled error,
  /// leaving the directory as it was (as any failure does).
  Expected<void> write(const SplitResult& result, JobControl* control = nullptr, unsigned threads = 0) const;
  /// The event index plan(options) works on, for analyses of its plans (chunk
  /// evidence): built on first use, kept until a plan with another
  /// fixes.metadataAllM or fixes.legacyCategories.
  const EventIndex& eventIndex(const SplitOptions& options);

 private:
  /// Each chunk complete under its temporary name in `dir` (one writer per chunk in `staged`).
  Expected<void> prepareChunks(const SplitResult& r, const std::string& dir, std::vector<AtomicFileWriter>& staged,
                               JobControl* control, unsigned threads) const;
  const EventIndex& index(const SplitFixes& fixes, unsigned threads);
  std::shared_ptr<const Detection> detection(const EventIndex& idx, bool trimKeepsStatus, unsigned threads);
  TracePtr trace_;
  std::unique_ptr<EventIndex> index_;
  bool indexMetadataAllM_ = false;
  bool indexLegacyCategories_ = false;
  std::shared_ptr<const Detection> detection_;  // cached for the current index
  bool detectionTrimKeepsStatus_ = false;
};

}  // namespace steadyscope::analysis
