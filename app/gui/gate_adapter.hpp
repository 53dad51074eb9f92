#pragma once
// The gate in the GUI: what a split (live, in memory) or a split directory
// gives the gate, re-evaluated cheaply for any requested mode and threshold,
// and the gate's result turned into what the panes show (verdict words for
// the chunk table, the Explanation pane's GateExplanation).
#include "panels/split_view_data.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/gate.hpp>
#include <steadyscope/model.hpp>

#include <QString>
#include <QVector>

#include <memory>
#include <optional>
#include <string>

namespace steadyscope::analysis {
struct SplitResult;
struct SplitOptions;
class Splitter;
class EvidenceContext;
}  // namespace steadyscope::analysis

namespace steadyscope::review {
struct TraceMatch;
}

namespace steadyscope::app {

/// What the gate reads; immutable once built, shared between threads.
struct GateSource {
  enum class Kind { Live, Directory } kind = Kind::Live;
  gate::GateInput input;  // Live: the in-memory split (with evidence)
  std::string dir;        // Directory: reviewed with gate::reviewSplitDirectory
  // Directory with its source trace: the families matched on it, so the gate gets their evidence.
  std::shared_ptr<const review::TraceMatch> match;
  bool llm = true;  // "auto" mode: mixed for LLM splits, generic otherwise
};

/// (worker thread) The gate's input for a live split `r` planned by `splitter`,
/// with evidence on the splitter's event index.
std::shared_ptr<const GateSource> liveGateSource(const analysis::SplitResult& r, const analysis::SplitOptions& o,
                                                 analysis::EvidenceContext& evidence);
/// A split directory (the CSV is read at each evaluation, as the pipeline does).
std::shared_ptr<const GateSource> directoryGateSource(const std::string& dir);

/// "auto", "mixed", … → the mode the gate is asked about.
gate::Mode requestedMode(const GateSource& s, const QString& comboText);

/// Runs the gate; a directory that cannot be read gives an error message.
struct GateRun {
  std::optional<gate::GateResult> result;
  QString error;
};
GateRun runGate(const GateSource& s, gate::Mode mode, double threshold);
/// The same with the panel's other options (margin, strict); `options.mode` is replaced by `mode`.
GateRun runGate(const GateSource& s, gate::Mode mode, const gate::GateOptions& options);

widgets::colors::Verdict verdictOf(const gate::GateResult& g);
/// A gate sentence for the window: without the spec's section references (they are for the CLI's readers).
QString plainSentence(const std::string& s);
widgets::GateExplanation explanationOf(const gate::GateResult& g);

/// Rows of the chunk table for a directory: one per chunk file, numbers from
/// execution_details.csv where a row names the file (events unknown: -1).
QVector<widgets::ChunkRow> directoryChunkRows(const std::string& dir);

/// Fills verdict, findings, the unchecked mark and busy ratios of each row
/// from the gate run as if the row's mode were requested (one evaluation per
/// mode), and marks the `requested` mode's row. Rows whose mode is not a gate
/// family, or that are not their family's first chunk, get no verdict.
void applyVerdicts(const GateSource& s, double threshold, gate::Mode requested, QVector<widgets::ChunkRow>& rows);
void applyVerdicts(const GateSource& s, const gate::GateOptions& options, gate::Mode requested,
                   QVector<widgets::ChunkRow>& rows);

/// What a gate review needs, taken on the GUI thread.
struct GateRequest {
  std::shared_ptr<const GateSource> source;  // null: a directory, built from `dir` by the job
  std::string dir;
  QVector<widgets::ChunkRow> rows;  // the table's rows (a directory's are read by the job)
  double threshold = 0.05;
  double margin = gate::GateOptions{}.margin;
  bool strict = false;
  QString comboMode;     // the Run panel's requested mode ("auto", "mixed", …)
  QString selectedMode;  // the selected row's mode; empty: none selected
};
struct GateReview {
  std::shared_ptr<const GateSource> source;
  QVector<widgets::ChunkRow> rows;  // with verdicts
  GateRun shown;                    // the selected chunk's gate, else the toolbar mode's
};
/// (job thread) Verdicts for every row and the gate the Explanation pane
/// shows; a directory's CSV is read here. nullopt: `control` cancelled it.
std::optional<GateReview> reviewGate(GateRequest request, JobControl& control);

}  // namespace steadyscope::app
