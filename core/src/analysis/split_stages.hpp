#pragma once
// The stages Splitter::plan runs, in that order, as plain functions over the
// index and the result so far (each testable alone; docs/splitter.md says
// what each takes and returns):
//   roots        describeRoots, logDetection        split_stages.cpp
//   manifest     manifestHead, manifestTail         chunks/split_manifest.cpp
//   windows      planWindows (iterations, working roots, the Input-Dims vote
//                of steady_state/input_dims_vote.hpp, --divide-phases,
//                --find-steady-state), chooseWindow steady_state/split_windows.cpp
//   chunks       chunkGroupings, makeChunk, nameChunk, fileChunks
//                                                   chunks/split_chunks.cpp
//   details      fillExecutionDetails               chunks/execution_details.cpp
// and the structured result's JSON (chunks/split_json.cpp).
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/util/split_names.hpp>
#include "analysis/event_index.hpp"

#include "analysis/steady_state/steady_state.hpp"
#include "util/big_alloc.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace steadyscope::analysis {

// ---- roots -----------------------------------------------------------------

/// Appends one RootInfo per detected root (event, name, ts, dur, parsed step;
/// no tile yet) to `out`. The caller reserves `out` first, so that it takes
/// the block prefaultRootList warmed.
void describeRoots(const EventIndex& index, const RootList& roots, Column<RootInfo>& out);
/// Faults in (and retains, bigmem::prefault) a block for a root list of up
/// to `maxRoots` roots: run on an idle core ahead of describeRoots, whose
/// list is otherwise its stage's main cost in fresh pages.
void prefaultRootList(size_t maxRoots);
/// The detection's lines of the decision log (coverage, trim).
void logDetection(SplitResult& r);

// ---- manifest (split_manifest.json) ------------------------------------------

/// The manifest's detection fields, in the reference's order: status,
/// method, phase_confidence, n_roots, the coverage figures, then the
/// candidate's diagnostics.
JsonValue manifestHead(const DetectionCandidate& det, const SplitFixes& fixes);
/// Appends the fields known once the chunks are made: gap_fill,
/// n_overlapping_roots, n_gpu_events_in_trace and, for a single-iteration
/// split of every root, the GPU-event retention figures.
void manifestTail(JsonValue& m, const SplitResult& r, const EventIndex& index, const SplitOptions& o);

// ---- windows: which roots each chunk gets -----------------------------------

/// The --iterations value: "all", "N" or "A:B" (Python int() and slice rules).
struct IterRange {
  bool all = true;
  int64_t a = 0, b = 0;  // as the reference names them (b clipped to n)
  int64_t s = 0, e = 0;  // Python slice bounds, normalised
};
/// nullopt (and `*err`, Python's message) when a part is not an int.
std::optional<IterRange> parseIterations(const std::string& text, int64_t n, std::string* err);

/// A chunk whose roots are decided. Chunks are made once every chunk's roots
/// are known (their ids are grouped in one pass: chunkGroupings), in this
/// list's order, which is also their order in the outputs.
struct PendingChunk {
  ChunkKind kind = ChunkKind::Iteration;
  std::vector<size_t> roots;  // indices into SplitResult::roots
  bool structured = true;     // batch sizes overridden from Input Dims (not single iterations)
  bool wholeTrace = false;    // Range over no root: the whole input (§8 B9)
  int64_t first = 0;          // Iteration: its number; Range: the reference's a
  int64_t last = 0;           // Range: the reference's b
  names::PhaseFolder folder = names::PhaseFolder::PrefillDecodeMix;  // Phase
  int64_t number = 0;                                                // Phase: nth chunk of its folder
  names::ChunkMode mode = names::ChunkMode::Generic;                 // SteadyState
  size_t window = 0;                                                 // SteadyState: index into SplitResult::windows
};

/// Everything window choice reads.
struct WindowInputs {
  std::span<const StepDetails> steps;              // of the working roots
  std::span<const std::optional<int64_t>> shapes;  // SplitResult::shapeBatchSizes
  std::vector<double> durations;                   // of the working roots
  bool servingAnnotations = false;
  ConcurrencyOptions concurrency;  // conc applies in mixed mode only
  int64_t numSteps = 32;
  std::optional<int64_t> maxNumSeq;
};
WindowInputs windowInputs(const SplitResult& r, const SplitOptions& o, std::span<const StepDetails> steps);
/// One finder run (§3.1 dispatcher): concurrency with serving annotations,
/// else shapes with batch sizes, else duration. False when the concurrency
/// finder hits the reference's ZeroDivisionError (spec §8 B6).
bool chooseWindow(const WindowInputs& in, SteadyMode mode, WindowChoice& wc);

/// The windows stage: parses --iterations, queues the iteration or range
/// chunks, selects the working roots (their steps into `steps`), runs the
/// Input-Dims vote under --llm-inference, then --divide-phases and
/// --find-steady-state (appending to r.windows). Returns the error message
/// where the reference fails (the plan then ends with SplitOutcome::Error).
std::optional<std::string> planWindows(SplitResult& r, const EventIndex& index, const SplitOptions& o,
                                       Column<StepDetails>& steps, std::vector<PendingChunk>& out);

// ---- chunks -------------------------------------------------------------------

/// The correlation and flow ids of every pending chunk's events, grouped in
/// one pass (EventIndex::groupingsFor).
CorrGroupings chunkGroupings(const EventIndex& index, const Column<RootInfo>& roots, const TileSet* tiles,
                             const std::vector<PendingChunk>& pending);
/// What makeChunk reads.
struct ChunkInputs {
  const EventIndex& index;
  const Column<RootInfo>& roots;
  const RootList& detected;  // the same roots as detected (their call-tree ancestors)
  const TileSet* tiles;      // global tiles, nullptr without gap fill
  ExtractionOptions extraction;
  bool batchOverride = true;  // off: --fix no-batch-override
};
ChunkInputs chunkInputs(const EventIndex& index, const SplitResult& r, const TileSet* tiles, const SplitFixes& fixes);
/// Selects a pending chunk's events and statistics, its steps (after the
/// batch-size override) and phase summary; Input Dims read errors go to
/// `warnings`. Unnamed: see nameChunk.
ChunkPlan makeChunk(const ChunkInputs& in, const PendingChunk& p, const CorrGroupings* groups,
                    std::vector<std::string>& warnings);
/// Sets a made chunk's kind, idx and file name (util/split_names builders).
void nameChunk(const PendingChunk& p, const SplitResult& r, ChunkPlan& c);
/// The chunks stage: makes, names and files every pending chunk in order
/// (output path, decision log, the steady windows' span and chunk index).
void fileChunks(SplitResult& r, const ChunkInputs& in, const std::vector<PendingChunk>& pending,
                const CorrGroupings* groups);

// ---- execution details ------------------------------------------------------------

/// execution_details.json and .csv, one entry / row per chunk.
void fillExecutionDetails(SplitResult& r, bool busyRatioColumn);

// ---- JSON pieces shared by the outputs ----------------------------------------------

JsonValue stepJson(const StepDetails& s);
JsonValue phaseJson(const PhaseSummary& p);
JsonValue regionJson(const Region& g);
/// "prefill_{}_prefilldecode_{}_decode_{}_bs{}_conc{}": the phase part of chunk names.
std::string phaseSuffix(const PhaseSummary& p);

}  // namespace steadyscope::analysis
