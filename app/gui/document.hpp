#pragma once
// What the window has open, in one place: the trace (its path, model, timeline
// index and the shown result's overlays), the results made on it (each Run
// split, a split directory's review) with the chunk rows, the gate's input and
// the gate's result shown, and the compared trace with the two A/B sides (its Comparison).
// Controllers change it; the window's panes follow its signals and never read
// each other. Replaced values that may be big (a trace's columns) are freed
// off the GUI thread.
#include "comparison.hpp"
#include "gate_adapter.hpp"
#include "split_adapter.hpp"

#include "common/trace_document.hpp"
#include "panels/job_view_data.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/gate.hpp>
#include <steadyscope/split.hpp>

#include <QObject>
#include <QString>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

namespace steadyscope::app {

/// One result the window holds (a split directory's review, each Run split);
/// one is shown at a time, and a new split is added, never put in place of a review.
struct Result {
  QString title;
  std::shared_ptr<const timeline::TimelineOverlays> overlays;
  QVector<widgets::ChunkRow> rows;
  std::shared_ptr<const GateSource> gate;
  QString splitDir;  // a directory review
  QString rootTier;
  // The split that made the rows (a directory review: the re-plan that placed
  // them on its source); what Export and "Copy as command" reproduce.
  std::optional<analysis::SplitOptions> options;
  std::shared_ptr<PlannedSplit> planned;  // that split's splitter and plan: Export reuses them
};

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  // ---- the trace
  explicit operator bool() const { return bool(view_); }
  const widgets::TraceDocument& view() const { return view_; }
  const TracePtr& trace() const { return view_.trace; }
  const timeline::TimelineIndexPtr& index() const { return view_.index; }
  const std::shared_ptr<const timeline::TimelineOverlays>& overlays() const { return view_.overlays; }
  const QString& path() const { return path_; }
  QString fileName() const;  // the path's last part, as titles show it
  bool isPartial() const { return view_ && view_.trace->partial.has_value(); }
  /// The last thing that went wrong, in words ("" after a success).
  const QString& lastError() const { return lastError_; }

  // ---- the shown result
  const std::vector<Result>& results() const { return results_; }
  int currentResult() const { return current_; }
  const Result* shownResult() const;
  const QVector<widgets::ChunkRow>& rows() const { return rows_; }
  /// Bumped whenever the chunk table gets new rows (a gate review of older rows is dropped).
  quint64 rowsGeneration() const { return rowsGeneration_; }
  const QString& placeholder() const { return placeholder_; }
  const QString& splitDir() const { return splitDir_; }
  const QString& rootTier() const { return rootTier_; }
  const GateSource* gateSource() const { return gate_.get(); }
  const std::shared_ptr<const GateSource>& gateSourcePtr() const { return gate_; }
  /// The gate's result the Explanation pane shows (nullopt: none, see shownGateError()).
  const std::optional<gate::GateResult>& shownGate() const { return shownGate_; }
  const QString& shownGateError() const { return shownGateError_; }

  // ---- compare: the compared trace and the A/B sides
  const Comparison& comparison() const { return *comparison_; }
  Comparison& comparison() { return *comparison_; }

  // ---- the job: every rank of a distributed job (the Job view), beside the one trace open
  const widgets::JobOverview& job() const { return job_; }

  // ---- changes (the controllers')
  void setLastError(const QString& e) { lastError_ = e; }
  /// A new trace (or none); the results stay until clearResults().
  void setTrace(const QString& path, const widgets::TraceDocument& doc);
  void setOverlays(std::shared_ptr<const timeline::TimelineOverlays> overlays, const QString& rootTier);
  /// New rows for the chunk table (selection and sort start afresh).
  void setRows(QVector<widgets::ChunkRow> rows);
  /// The same rows with new figures or verdicts (the selection stays).
  void updateRows(QVector<widgets::ChunkRow> rows);
  /// Rich text shown where the chunks would be when there are none.
  void setPlaceholder(const QString& text);
  void setSplitDir(const QString& dir);
  void setGateSource(std::shared_ptr<const GateSource> source);
  void setShownGate(std::optional<gate::GateResult> g, const QString& error = {});
  /// Adds a result and shows it (its fields become the shown ones as they are set).
  void addResult(Result r);
  void replaceShownResult(Result r);
  /// Shows result `index`: its overlays, rows, gate and directory.
  void showResult(int index);
  Result* mutableResult(int index);
  /// Forgets every result and the shown rows, gate and directory.
  void clearResults();
  /// A new job (or none: an empty overview); the open trace, if any, stays.
  void setJob(widgets::JobOverview job);

 signals:
  void traceChanged();
  void overlaysChanged();
  void rowsReset();
  void rowsUpdated();
  void placeholderChanged();
  void resultsChanged();
  void gateShown();
  void jobChanged();

 private:
  void storeShown();  // the shown fields into the shown result

  QString path_;
  QString lastError_;
  widgets::TraceDocument view_;
  std::vector<Result> results_;
  int current_ = -1;
  QVector<widgets::ChunkRow> rows_;
  quint64 rowsGeneration_ = 0;
  QString placeholder_;
  QString splitDir_;
  QString rootTier_;
  std::shared_ptr<const GateSource> gate_;
  std::optional<gate::GateResult> shownGate_;
  QString shownGateError_;
  Comparison* comparison_;
  widgets::JobOverview job_;
};

}  // namespace steadyscope::app
