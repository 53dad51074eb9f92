#pragma once
// Turns the splitter's structured result (core/analysis SplitResult) into what
// the panes show: timeline overlays (steps coloured by kind, steady regions,
// the chosen window of every mode) and chunk-table rows. Pure; runs on the
// worker thread next to the split itself.
#include "common/trace_document.hpp"
#include "gate_adapter.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>
#include <steadyscope/timeline.hpp>

#include <QString>
#include <QVector>

#include <memory>
#include <mutex>
#include <optional>

#include <steadyscope/split.hpp>

namespace steadyscope::app {

/// The splitter and its plan, kept with a result so that Export reuses them
/// instead of splitting again. The splitter caches the event index the plan
/// and the export read; `use` serialises the jobs that read it.
struct PlannedSplit {
  std::shared_ptr<analysis::Splitter> splitter;
  analysis::SplitResult plan;
  analysis::SplitOptions options;
  std::mutex use;
};

/// A link in noChunks that turns a fix on and splits again: "fix:" and the fix's name.
inline const QString kFixLinkPrefix = QStringLiteral("fix:");

struct SplitView {
  std::shared_ptr<const timeline::TimelineOverlays> overlays;
  QVector<widgets::ChunkRow> chunks;
  QString rootTier;                        // e.g. "annotation tier, native"
  QString summary;                         // one line for the status bar / explanation
  QString noChunks;                        // rich text shown where the chunks would be ("" when there are chunks)
  std::shared_ptr<const GateSource> gate;  // the gate's input for this split (with evidence)
  std::shared_ptr<PlannedSplit> planned;   // what an export of this split reuses
};

SplitView splitViewOf(const analysis::SplitResult& r, const Trace& trace);

/// The window's default split: the seed pipeline's `--find-steady-state
/// --num-steps N` (output_dir is a placeholder: plan() writes nothing).
analysis::SplitOptions windowSplitOptions(int numSteps);

/// (job thread) Runs the splitter's plan (no files written) with `options`,
/// each window's figures (timeline/chunk_figures, with `index`) and the gate's
/// input for it (evidence from the trace, computed once for both). nullopt:
/// `control` cancelled it.
std::optional<SplitView> planSplitView(const TracePtr& trace, const timeline::TimelineIndexPtr& index,
                                       const analysis::SplitOptions& options, JobControl* control = nullptr);

/// A split directory's source trace, planned once: the split that places the
/// directory's rows (locateDirectoryRows) and the directory's families matched
/// on the trace, so that its gate gets their evidence as a live split's does
/// (null when the directory cannot be read or the trace is partial).
struct DirectoryPlacement {
  SplitView plan;
  std::shared_ptr<const review::TraceMatch> match;
};
/// (job thread) nullopt: `control` cancelled it.
std::optional<DirectoryPlacement> placeDirectory(const TracePtr& trace, const timeline::TimelineIndexPtr& index,
                                                 const analysis::SplitOptions& options, const std::string& dir,
                                                 JobControl* control = nullptr);

/// A split directory's rows placed on its source trace: each row whose chunk
/// file a re-planned split of the source names (`plan`) gets that window (step
/// range, CPU window) and its figures; the CSV's numbers stay. The overlays
/// have the plan's steps and one band per row, in row order (a row without a
/// match gets an empty band). Returns how many rows were placed.
int locateDirectoryRows(const SplitView& plan, QVector<widgets::ChunkRow>& rows, timeline::TimelineOverlays& out);

/// Rows that know their CPU window but not its figures (a split directory's)
/// get the window's busy ratio and longest gap from `doc`'s timeline coverage.
void addWindowFigures(const widgets::TraceDocument& doc, QVector<widgets::ChunkRow>& rows);

}  // namespace steadyscope::app
