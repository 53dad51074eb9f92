#include "review_controller.hpp"

#include "run_panel.hpp"

#include "common/selection_model.hpp"

#include <QFileInfo>
#include <QSpinBox>

#include <algorithm>

namespace steadyscope::app {

ReviewController::ReviewController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                                   QObject* parent)
    : Controller(doc, jobs, parent), run_(run), selection_(selection) {
  connect(lane(JobKind::Review), &JobLane::cancelled, this,
          [this] { fail(tr("The gate review was cancelled."), 5000); });
  // A chunk row shows its own gate (as if its mode were requested); the gate's options re-gate without re-splitting.
  connect(selection_, &widgets::SelectionModel::chunkChanged, this, [this] {
    selection_->setMarkedSteps({});  // they belonged to the previous chunk's findings
    regate();
  });
  connect(run_, &RunPanel::gateOptionsChanged, this, &ReviewController::regate);
  connect(doc_, &Document::rowsReset, this, [this] { selectRequested_ = true; });
  connect(doc_, &Document::resultsChanged, this, [this] {
    if (doc_->results().empty()) locatedFor_.reset();
  });
  connect(doc_, &Document::traceChanged, this, [this] {
    if (!*doc_ || doc_->rows().isEmpty()) return;  // a directory's source arrived after its rows
    selectRequested_ = true;
    selectRequestedOnce();
    locateDirectory();
  });
}

void ReviewController::openSplitDirectory(const QString& dir, const QString& sourceTrace) {
  const SplitDirectoryInfo info = inspectSplitDirectory(dir, sourceTrace);
  if (!info.error.isEmpty()) {
    fail(info.error);
    emit problem(tr("Not a split directory"), info.error);
    return;
  }
  // Rows (one per chunk file, the numbers from execution_details.csv), the
  // verdicts and the explanation come from the review.
  lane(JobKind::Split)->discard();
  doc_->clearResults();
  Result review;
  review.title = tr("review of %1").arg(QFileInfo(info.dir).fileName());
  review.splitDir = info.dir;
  doc_->addResult(std::move(review));
  doc_->setSplitDir(info.dir);
  regate();
  if (!info.sourceTrace.isEmpty())
    emit sourceTraceRequested(info.sourceTrace);
  else
    emit message(tr("No source trace found beside %1; open it with File ▸ Open to see the timeline.")
                     .arg(QFileInfo(info.dir).fileName()),
                 8000);
}

void ReviewController::setGateSource(std::shared_ptr<const GateSource> source) {
  doc_->setGateSource(std::move(source));
  regate();
}

void ReviewController::regate() {
  // A directory being opened has no source yet: its review reads it.
  const auto& gate = doc_->gateSourcePtr();
  if (!gate && doc_->splitDir().isEmpty()) return;
  GateRequest req;
  req.source = gate;
  if (!gate) req.dir = doc_->splitDir().toStdString();
  req.rows = doc_->rows();
  const gate::GateOptions go = run_->gateOptions();
  req.threshold = go.threshold;
  req.margin = go.margin;
  req.strict = go.strict;
  req.comboMode = run_->modeText();
  const int c = selection_->chunk();
  if (c >= 0 && c < req.rows.size()) req.selectedMode = req.rows[c].mode;
  const QString title = gate ? tr("Gating") : tr("Reviewing %1").arg(QFileInfo(doc_->splitDir()).fileName());
  const quint64 rowsGen = doc_->rowsGeneration();
  lane(JobKind::Review)
      ->start<GateReview>(
          title, [req = std::move(req)](JobContext& ctx) { return reviewGate(req, ctx.control); },
          [this, rowsGen](GateReview r) { onReviewed(r, rowsGen); });
}

void ReviewController::onReviewed(const GateReview& r, quint64 rowsGeneration) {
  if (rowsGeneration != doc_->rowsGeneration()) return;    // the table got other rows meanwhile
  const bool newRows = r.source != doc_->gateSourcePtr();  // a directory's first review brings its rows
  doc_->setGateSource(r.source);
  if (newRows) {
    doc_->setRows(r.rows);
  } else {
    // Only the gate's fields: the rows may have been placed on the source trace since the request.
    QVector<widgets::ChunkRow> rows = doc_->rows();
    if (rows.size() != r.rows.size()) rows = r.rows;
    for (qsizetype i = 0; i < rows.size() && rows[i].file == r.rows[i].file; ++i)
      widgets::takeGateFields(rows[i], r.rows[i]);
    doc_->updateRows(std::move(rows));
  }
  selectRequestedOnce();
  if (newRows) locateDirectory();
  if (r.shown.result)
    doc_->setShownGate(r.shown.result);
  else
    doc_->setShownGate(std::nullopt, tr("The gate could not run: %1").arg(r.shown.error));
}

void ReviewController::zoomToRow(int row) {
  const auto& rows = doc_->rows();
  if (row >= 0 && row < rows.size() && rows[row].endNs > rows[row].beginNs)
    emit selection_->zoomRequested(rows[row].beginNs, rows[row].endNs);
}

void ReviewController::selectRequestedOnce() {
  // New rows open on the mode the pipeline asks for (its selection re-gates for the explanation).
  const auto& rows = doc_->rows();
  if (!selectRequested_ || std::none_of(rows.begin(), rows.end(), [](const auto& r) { return r.hasVerdict; }))
    return;  // not reviewed yet: the review's arrival selects
  selectRequested_ = false;
  if (selection_->chunk() >= 0) return;
  for (int i = 0; i < rows.size(); ++i)
    if (rows[i].requested) {
      selection_->setChunk(i);
      zoomToRow(i);
      return;
    }
}

void ReviewController::locateDirectory() {
  // A directory review with its source trace open: re-plan the split on the
  // source and place the directory's chunks (bands, steps, figures) on it.
  if (doc_->splitDir().isEmpty() || !*doc_ || locatedFor_ == doc_->trace() || doc_->rows().isEmpty()) return;
  if (refusePartial(tr("Placing the split's chunks on the source"))) return;
  bool reviewed = false;
  int numSteps = 0;
  for (const widgets::ChunkRow& r : doc_->rows()) {
    reviewed = reviewed || r.hasVerdict;
    numSteps = std::max(numSteps, r.stepCount);  // --num-steps: the longest window (the others may be shorter)
  }
  if (!reviewed) return;
  locatedFor_ = doc_->trace();
  const TracePtr trace = doc_->trace();
  const timeline::TimelineIndexPtr index = doc_->index();
  if (numSteps <= 0) numSteps = run_->numStepsBox()->value();
  const int result = doc_->currentResult();
  const analysis::SplitOptions options = windowSplitOptions(numSteps);
  const std::string dir = doc_->splitDir().toStdString();
  lane(JobKind::Split)
      ->start<DirectoryPlacement>(
          tr("Placing the chunks on %1").arg(doc_->fileName()),
          [trace, index, options, dir](JobContext& ctx) {
            return placeDirectory(trace, index, options, dir, &ctx.control);
          },
          [this, trace, result, options](DirectoryPlacement placed) {
            if (doc_->trace() != trace || doc_->currentResult() != result || doc_->splitDir().isEmpty()) return;
            Result* r = doc_->mutableResult(result);
            r->options = options;
            r->planned = placed.plan.planned;
            onPlaced(placed);
          });
}

void ReviewController::onPlaced(const DirectoryPlacement& placement) {
  QVector<widgets::ChunkRow> rows = doc_->rows();
  auto ov = std::make_shared<timeline::TimelineOverlays>();
  const int placed = locateDirectoryRows(placement.plan, rows, *ov);
  doc_->setOverlays(ov, placement.plan.rootTier);
  addWindowFigures(doc_->view(), rows);
  doc_->updateRows(std::move(rows));
  if (placed < doc_->rows().size())
    emit message(tr("%1 of %2 chunk files were found in a split of the source trace; the others are not drawn.")
                     .arg(placed)
                     .arg(doc_->rows().size()),
                 8000);
  zoomToRow(selection_->chunk());
  if (placement.match && doc_->gateSource()) {  // the gate now reads the trace's evidence, as for a live split
    auto withEvidence = std::make_shared<GateSource>(*doc_->gateSource());
    withEvidence->match = placement.match;
    setGateSource(std::move(withEvidence));
  }
}

void ReviewController::showSteps(const QVector<int>& steps) {
  // A finding's steps (the ruler's numbers): marked on ruler and lanes, the first selected, all in view.
  const auto& ov = doc_->overlays();
  if (!ov) return;
  QVector<int> positions;
  for (int s : steps)
    if (const int64_t p = ov->positionOfStep(s); p >= 0) positions << int(p);
  if (positions.isEmpty()) {
    emit message(tr("Those steps are not on the timeline (open the source trace to see them)."), 6000);
    return;
  }
  selection_->setMarkedSteps(positions);
  std::sort(positions.begin(), positions.end());
  selection_->setStep(positions.first());
  emit selection_->zoomRequested(ov->steps[size_t(positions.first())].beginNs,
                                 ov->steps[size_t(positions.last())].endNs);
}

}  // namespace steadyscope::app
