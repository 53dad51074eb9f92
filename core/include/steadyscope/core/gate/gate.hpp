#pragma once
// The consumer's chunk-quality gate (spec §6.3–§6.8), reproduced exactly, with
// a decision record that explains every rule and "findings" the reference
// does not check. The gate's input is plain data so that it can be fed from a
// split directory on disk (review.hpp) or from an in-memory split result.
//
// Typical use for an in-memory split (review::gateInputFromSplit does this):
//   GateInput in;
//   in.listing.splitDir = outDir;
//   in.listing.chunks[modeIndex(Mode::Mixed)] = {outDir + "/mixed_steady_state_…json.gz"};
//   in.rows[modeIndex(Mode::Mixed)] = ChunkRow::fromValues(path, events, dur, busy);
//   in.evidence[modeIndex(Mode::Mixed)] = ChunkFacts{…};   // optional
//   GateResult r = evaluateGate(in, gateOptionsFromEnvironment().value());
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::gate {

// ---- modes and families (§6.1) ---------------------------------------------

/// Consumer modes in family order (the order every list in the gate uses):
/// the split vocabulary's modes (util/split_names.hpp), whose modeName words
/// are the pipeline's INFERENCE_OPTIMIZER_STEADY_STATE_MODE values.
using Mode = names::ChunkMode;
inline constexpr const auto& kAllModes = names::kChunkModes;
using names::modeIndex;
using names::modeName;
/// The pipeline's mode words exactly ("max_prefilldecode" is not one).
std::optional<Mode> parseMode(std::string_view name);

/// The chunk files found per family, exactly as the pipeline lists them (§6.3):
/// each list holds the files of the four extensions in order, each sorted by
/// path, concatenated, so a `.trace.json.gz` file appears twice (§8 B11).
struct SplitListing {
  std::string splitDir;
  std::array<std::vector<std::string>, 4> chunks;
  std::vector<std::string> notes;  // e.g. subdirectories that could not be read

  const std::vector<std::string>& of(Mode m) const { return chunks[modeIndex(m)]; }
  size_t count(Mode m) const { return chunks[modeIndex(m)].size(); }
};

// ---- rows of execution_details.csv (§6.4) ------------------------------------

/// One row of `execution_details.csv` as text, as the pipeline reads it. A cell
/// is nullopt when its column is absent or the row is too short. In-memory
/// callers use fromValues(), which writes numbers as shortest round-trip text,
/// so no precision is lost.
struct ChunkRow {
  std::string sourceFile;   // the CSV the row came from (empty: in memory)
  uint64_t sourceLine = 0;  // 1-based line in sourceFile (0: in memory)
  std::optional<std::string> outputPath;
  std::optional<std::string> numGpuEvents;
  std::optional<std::string> gpuDuration;
  std::optional<std::string> gpuBusyDuration;
  std::optional<std::string> busyRatio;  // nullopt also when the column does not exist
  bool hasBusyRatioColumn = false;

  static ChunkRow fromValues(std::string outputPath, int64_t numGpuEvents, double gpuDuration, double gpuBusyDuration,
                             std::optional<double> busyRatio = std::nullopt);
  /// "FILE line N" or "in-memory row".
  std::string where() const;
};

enum class RatioSource : uint8_t {
  Column,                  // the busy_ratio cell
  ColumnNonFiniteClamped,  // the busy_ratio cell read nan/inf: clamped to 1.0 (§6.4)
  Quotient,                // gpu_busy_duration / gpu_duration
  Undefined,               // no ratio: gpu_duration <= 0 and no usable cell
};
std::string_view ratioSourceName(RatioSource s);

/// The numbers the gate reads from a row (§6.4), and how it got them.
struct RowReading {
  int64_t numGpuEvents = 0;  // int(float(cell)); empty/unparseable -> 0
  double gpuDuration = 0.0;  // float(cell); empty/unparseable -> 0.0
  double gpuBusyDuration = 0.0;
  std::optional<double> busyRatio;  // what the gate compares (nullopt: undefined)
  RatioSource source = RatioSource::Undefined;
  std::optional<double> columnValue;  // the parsed busy_ratio cell, before clamping
  std::optional<double> quotient;     // gpu_busy_duration / gpu_duration when gpu_duration > 0
  std::vector<std::string> notes;     // plain sentences: fallbacks taken while reading
};
RowReading readRow(const ChunkRow& row);

// ---- evidence from the source trace ----

/// What only the trace can tell about one chunk, in the gate's terms: the
/// summary of analysis::ChunkEvidence (review::gateFacts makes it), so the
/// gate needs no splitter. Every field is optional; a finding that needs an
/// absent field is simply not evaluated.
struct ChunkFacts {
  /// union of the chunk's GPU intervals / its gpu_duration (no double counting
  /// of overlapping streams, §8 B16).
  std::optional<double> unionBusyRatio;
  std::optional<int> steps;                 // steps (roots) inside the chunk
  std::optional<int> stepsWithoutGpu;       // of those, steps with no GPU work
  std::vector<int> emptyStepIndices;        // global step indices, for "show steps"
  std::optional<double> largestEventShare;  // largest single GPU event / the sum of the distinct GPU events
  std::optional<std::string> largestEventName;
  std::optional<int> largestEventStep;         // global step index holding that event (for "show steps")
  std::optional<bool> startupTransientInside;  // §3.9's transient lies in the window
  std::optional<int> transientStep;            // global step index of that transient
  // Statistics recomputed from the source trace (full precision), compared
  // with the CSV's.
  std::optional<int64_t> numGpuEvents;
  std::optional<double> gpuDuration;
  std::optional<double> gpuBusyDuration;
};

// ---- input and options -------------------------------------------------------

enum class DetailsState : uint8_t { Readable, Absent, Unreadable };
enum class RowMatch : uint8_t { None, ByOutputPath, ByFileName, Supplied };
std::string_view rowMatchName(RowMatch m);

struct GateInput {
  SplitListing listing;
  /// State of execution_details.csv; not Readable -> the pipeline passes (§6.4).
  DetailsState details = DetailsState::Readable;
  std::string detailsProblem;  // the read error, naming file and line
  /// The row of each family's FIRST chunk (nullopt: no row matched it).
  std::array<std::optional<ChunkRow>, 4> rows;
  std::array<RowMatch, 4> rowMatch{RowMatch::Supplied, RowMatch::Supplied, RowMatch::Supplied, RowMatch::Supplied};
  std::array<std::optional<ChunkFacts>, 4> evidence;
  /// Why the splitter refused the trace, in plain words (empty: it did not):
  /// reported as the finding split_refused.
  std::string splitRefusal;
  /// A split planned in memory (of an open trace), not a directory on disk: the words say "the split".
  bool splitInMemory = false;
  // Context copied into the warnings (null when unknown).
  std::optional<std::string> traceInput;
  std::optional<int> splitReturnCode;
};

struct GateOptions {
  Mode mode = Mode::Mixed;
  double threshold = 0.05;              // §6.5 T
  double margin = 0.10;                 // §6.5 M
  bool refuseWithoutAlternate = false;  // §8 Q2 switch: refuse a low-quality chunk with no alternate
  bool strict = false;                  // findings that bear on the verdict refuse
  double dominantEventShare = 0.5;      // "one event holds most of the GPU time"
};

/// §6.5: INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO, trimmed, Python float;
/// 0.05 when unset, empty, unparseable or outside [0, 1].
double thresholdFromEnvironment();
/// Same rule for an explicit string (nullopt = unset).
double thresholdFromString(const std::optional<std::string>& value);
/// INFERENCE_OPTIMIZER_STEADY_STATE_MODE (trimmed; unset/empty -> mixed); an
/// unknown name is a Usage error naming the variable.
Expected<Mode> modeFromEnvironment();
/// Mode and threshold from the environment, other options at their defaults.
Expected<GateOptions> gateOptionsFromEnvironment();

// ---- result ------------------------------------------------------------------

enum class Refusal : uint8_t { None, NoSteadyState, ChunkMissing, LowQuality };
enum class RuleOutcome : uint8_t { Passed, Failed, Skipped, Info };
std::string_view ruleOutcomeName(RuleOutcome o);

/// One rule evaluated, in order: what it read, what it compared, what happened.
struct RuleEvaluation {
  std::string rule;                        // stable id, e.g. "gpu_events", "threshold", "alternate"
  std::string subject;                     // the mode it is about ("" for the directory)
  JsonValue inputs = JsonValue::object();  // row values, ratio source, threshold, margin…
  RuleOutcome outcome = RuleOutcome::Info;
  std::string sentence;  // one plain sentence
};

/// Something the reference does not check. Never changes the pipeline verdict;
/// with strict on, a finding whose affectsVerdict is set refuses.
struct Finding {
  std::string code;            // e.g. "busy_ratio_above_one"
  std::string subject;         // mode name, or "" for the directory
  std::string chunk;           // chunk file, if any
  bool affectsVerdict = true;  // about the selected chunk, an offered alternate, or the directory
  std::string sentence;
  JsonValue details = JsonValue::object();
};

struct RetryPlan {
  std::string toMode;
  std::string fromMode;
  std::string sourceWarningCode;
};

/// Per family: its first chunk and how the gate sees it (for tables and the GUI).
struct ChunkSummary {
  Mode mode = Mode::Mixed;
  std::string chunk;  // first chunk of the family ("" when none)
  size_t listed = 0;  // how many entries the listing has (B11 duplicates included)
  RowMatch match = RowMatch::None;
  std::optional<ChunkRow> row;
  std::optional<RowReading> reading;
  bool selected = false;
  bool offered = false;  // in non_empty_modes
};

struct GateResult {
  GateOptions options;
  bool accepted = true;  // the pipeline's verdict
  Refusal refusal = Refusal::None;
  bool lowQuality = false;     // the selected chunk had 0 GPU events or a ratio under the threshold
  bool strictRefused = false;  // strict on and a verdict-bearing finding exists
  std::string selectedChunk;
  std::vector<JsonValue> warnings;  // trace_health_warnings as the pipeline would see them
  std::string errorMessage;         // the runtime error text (starts with the code), if refused
  std::vector<std::string> nonEmptyModes;
  std::optional<RetryPlan> retry;
  std::vector<RuleEvaluation> record;
  std::string summary;  // the verdict in one sentence
  std::vector<Finding> findings;
  std::vector<ChunkSummary> chunks;  // one per family, family order

  bool finalAccepted() const { return accepted && !strictRefused; }
  /// CLI exit status: 0 accepted, 1 refused.
  int exitStatus() const { return finalAccepted() ? 0 : 1; }
  /// The failing run's result as the orchestrator sees it:
  /// {"status": "ok"|"error", "error": …, "trace_health_warnings": […]}.
  JsonValue pipelineResult() const;
  JsonValue recordJson() const;
  JsonValue findingsJson() const;
  /// Everything: verdicts, warnings, retry, record, findings, chunks.
  JsonValue toJson() const;
};

/// Runs the gate on `input` (§6.3 steps 1–3, §6.5, §6.6, §6.7) and evaluates
/// the row- and evidence-based findings.
GateResult evaluateGate(const GateInput& input, const GateOptions& options);

/// Sets strictRefused from the findings (call again after adding findings)
/// and records a "strict" rule when strict is on and findings bear on the verdict.
void finalizeStrict(GateResult& result);

/// §6.7 `_extract_steady_state_retry_mode`: the retry mode and its warning, or
/// nullopt. Ignores the result's status.
std::optional<RetryPlan> extractRetryMode(const JsonValue& result);
/// The orchestrator's decision: no retry when status is "ok", else extractRetryMode.
std::optional<RetryPlan> planRetry(const JsonValue& result);

/// The warning codes that trigger the automatic retry (§6.7).
bool isAutoRetryCode(std::string_view code);

/// Ratios and durations in sentences: short, but never printed so that it
/// looks equal to a different value it is compared with.
std::string formatNumber(double v);

}  // namespace steadyscope::gate
