#include "split_controller.hpp"

#include "review_controller.hpp"
#include "run_panel.hpp"

#include "common/selection_model.hpp"
#include "common/text.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/review.hpp>

#include <QFileInfo>
#include <QTimer>

#include <cstring>

namespace steadyscope::app {

namespace {
constexpr int kRerunPauseMs = 400;
}

SplitController::SplitController(Document* doc, JobSystem* jobs, RunPanel* run, ReviewController* review,
                                 widgets::SelectionModel* selection, QObject* parent)
    : Controller(doc, jobs, parent), run_(run), review_(review), selection_(selection), rerunTimer_(new QTimer(this)) {
  rerunTimer_->setSingleShot(true);
  rerunTimer_->setInterval(kRerunPauseMs);
  connect(rerunTimer_, &QTimer::timeout, this, &SplitController::rerunLive);
  connect(run_, &RunPanel::splitOptionsChanged, rerunTimer_, qOverload<>(&QTimer::start));
  connect(run_, &RunPanel::runRequested, this, &SplitController::runSplit);
  connect(run_, &RunPanel::copyCommandRequested, this, &SplitController::copyCommand);
  JobLane* splits = lane(JobKind::Split);
  connect(run_, &RunPanel::cancelRequested, splits, &JobLane::cancel);
  for (auto signal : {&JobLane::started, &JobLane::progressChanged, &JobLane::finished})
    connect(splits, signal, run_, [this, splits] { run_->showJob(splits); });
  connect(splits, &JobLane::cancelled, this, [this] { fail(tr("The split was cancelled."), 5000); });
}

void SplitController::runSplit() { startSplit(false); }

void SplitController::followPlaceholderLink(const QString& link) {
  // The fix is turned on in the Run panel and the split runs as a new result, so the faithful one stays.
  if (link.startsWith(kFixLinkPrefix) && run_->setFix(link.mid(kFixLinkPrefix.size()), true)) runSplit();
}

void SplitController::rerunLive() {
  // Only a split the panel made is re-run in place: a directory's review stays until Run split.
  const Result* shown = doc_->shownResult();
  const bool shownIsSplit = shown && shown->splitDir.isEmpty() && doc_->splitDir().isEmpty();
  if (*doc_ && run_->isLive() && shownIsSplit) startSplit(true);
}

void SplitController::startSplit(bool replaceShown) {
  if (!*doc_) return void(emit message(tr("Open a trace first."), 4000));
  if (refusePartial(tr("A split"))) return;
  rerunTimer_->stop();
  const TracePtr trace = doc_->trace();
  const timeline::TimelineIndexPtr index = doc_->index();
  const analysis::WorkloadKind kind = run_->kind();
  const auto options = std::make_shared<analysis::SplitOptions>(run_->splitOptions());
  lane(JobKind::Split)
      ->start<SplitView>(
          tr("Splitting %1").arg(doc_->fileName()),
          [trace, index, options, kind](JobContext& ctx) {
            options->llmInference =
                analysis::llmInferenceFor(kind, *trace);  // "auto" reads the trace: off the GUI thread
            return planSplitView(trace, index, *options, &ctx.control);
          },
          [this, trace, options, replaceShown](SplitView v) { onSplit(v, trace, *options, replaceShown); });
}

void SplitController::onSplit(const SplitView& v, const TracePtr& trace, const analysis::SplitOptions& options,
                              bool replaceShown) {
  if (doc_->trace() != trace) return;  // planned on a trace no longer shown
  Result r;
  r.options = options;
  r.planned = v.planned;
  const Result* shown = doc_->shownResult();
  const bool replace = replaceShown && shown && shown->splitDir.isEmpty();
  const int number = replace ? doc_->currentResult() + 1 : int(doc_->results().size()) + 1;
  r.title =
      tr("split %1 (%2, %3)")
          .arg(number)
          .arg(v.gate && v.gate->llm ? tr("LLM inference") : tr("generic"))  // serving annotations: LLM either way
          .arg(widgets::countOf(options.numSteps, tr("step"), tr("steps")));
  if (replace)
    doc_->replaceShownResult(std::move(r));
  else
    doc_->addResult(std::move(r));
  selection_->clear();
  doc_->setSplitDir({});
  doc_->setGateSource({});
  QVector<widgets::ChunkRow> rows = v.chunks;
  addWindowFigures(doc_->view(), rows);
  doc_->setOverlays(v.overlays, v.rootTier);
  doc_->setRows(std::move(rows));
  if (!v.noChunks.isEmpty()) doc_->setPlaceholder(v.noChunks);
  review_->setGateSource(v.gate);
  emit message(tr("Split: %1").arg(v.summary), 8000);
}

QString SplitController::commandLine(const QString& outDir) const {
  const Result* shown = doc_->shownResult();
  if (!shown || !shown->options || doc_->path().isEmpty()) return {};
  const analysis::SplitOptions& o = *shown->options;
  QString dir = outDir;
  if (dir.isEmpty()) {
    QString stem = doc_->fileName();
    for (const char* ext : {".zst", ".zip", ".gz", ".json", ".pt.trace"})
      if (stem.endsWith(QLatin1String(ext))) stem.chop(qsizetype(std::strlen(ext)));
    dir = stem + QStringLiteral("_split");
  }
  gate::GateOptions g = run_->gateOptions();
  const auto& gate = doc_->gateSource();
  g.mode = gate ? requestedMode(*gate, run_->modeText())
                : gate::parseMode(run_->modeText().toStdString())
                      .value_or(o.llmInference ? gate::Mode::Mixed : gate::Mode::Generic);
  const std::string trace = QFileInfo(doc_->path()).absoluteFilePath().toStdString();
  const std::string d = dir.toStdString();
  return QString::fromStdString(review::shellLine(review::splitCommandArgs(o, trace, d)) + " && " +
                                review::shellLine(review::gateCommandArgs(g, d, trace, o)));
}

void SplitController::copyCommand() {
  const QString line = commandLine();
  if (line.isEmpty())
    return void(emit message(tr("Split the trace first: the command reproduces the shown split."), 5000));
  emit commandCopied(line);
  emit message(tr("Copied the command: %1").arg(line), 8000);
}

bool SplitController::selectMode(const QString& mode) {
  const std::optional<names::ChunkMode> wanted = names::parseModeName(mode.toStdString());
  if (!wanted) return false;
  const auto& rows = doc_->rows();
  for (int i = 0; i < rows.size(); ++i) {
    if (names::parseModeName(rows[i].mode.toStdString()) != wanted) continue;
    selection_->setChunk(i);
    if (rows[i].endNs > rows[i].beginNs) emit selection_->zoomRequested(rows[i].beginNs, rows[i].endNs);
    return true;
  }
  return false;
}

void SplitController::showResult(int index) {
  if (index < 0 || size_t(index) >= doc_->results().size() || index == doc_->currentResult()) return;
  for (JobKind k : {JobKind::Split, JobKind::Review}) lane(k)->discard();
  selection_->clear();
  doc_->showResult(index);
  review_->regate();  // the explanation of this result (its rows keep their verdicts)
}

}  // namespace steadyscope::app
