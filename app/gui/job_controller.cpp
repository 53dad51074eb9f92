#include "job_controller.hpp"

#include "compare_controller.hpp"
#include "split_controller.hpp"

#include "common/text.hpp"

#include <QFileInfo>

namespace steadyscope::app {

JobController::JobController(Document* doc, JobSystem* jobs, SplitController* split, CompareController* compare,
                             QObject* parent)
    : Controller(doc, jobs, parent), split_(split), compare_(compare) {
  connect(lane(JobKind::Job), &JobLane::cancelled, this,
          [this] { fail(tr("Reading the ranks of %1 was cancelled.").arg(opening_), 5000); });
  // A compare of two ranks moves on as each of its steps lands in the document.
  connect(doc_, &Document::traceChanged, this, &JobController::advanceCompare);
  connect(doc_, &Document::rowsReset, this, &JobController::advanceCompare);
  connect(&doc_->comparison(), &Comparison::comparedChanged, this, &JobController::advanceCompare);
  for (JobKind k : {JobKind::Load, JobKind::Split, JobKind::Compare})
    connect(lane(k), &JobLane::cancelled, this, [this] { stopCompare(tr("The compare of two ranks was cancelled.")); });
}

bool JobController::openDirectory(const QString& dir) {
  const std::optional<JobInput> in = jobInputOfDirectory(dir);
  if (!in) return false;
  if (!in->summaryTsv.isEmpty())
    openSummary(in->summaryTsv);
  else
    openRanks(in->ranks);
  return true;
}

void JobController::openRanks(const QStringList& paths) {
  doc_->setLastError({});
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  opening_ = widgets::countOf(paths.size(), tr("trace"), tr("traces"));
  const QString what = opening_;
  lane(JobKind::Job)
      ->start<JobOutcome>(
          tr("Reading %1").arg(widgets::countOf(paths.size(), tr("rank"), tr("ranks"))),
          [files, budget = memoryBudget_, cache = cache_](JobContext& ctx) {
            job::RankOptions options;
            options.cache = cache.get();
            return computeJob(files, options, budget, ctx);
          },
          [this, what](JobOutcome out) { onJob(out, what); }, &jobProgress);
}

void JobController::openSummary(const QString& path) {
  doc_->setLastError({});
  opening_ = QFileInfo(path).fileName();
  const QString what = path;
  lane(JobKind::Job)
      ->start<JobOutcome>(
          tr("Reading %1").arg(QFileInfo(path).fileName()),
          [path](JobContext&) { return std::optional<JobOutcome>(readJobSummary(path)); },
          [this, what](JobOutcome out) { onJob(out, what); });
}

void JobController::onJob(const JobOutcome& out, const QString& what) {
  if (!out.error.isEmpty()) {
    fail(out.error);
    emit problem(tr("Cannot open the job"), out.error);
    return;
  }
  const int failed = out.job.failedRanks;
  doc_->setJob(out.job);
  if (failed)
    emit message(tr("%1: %2 of %3 did not load; their rows say why.")
                     .arg(what)
                     .arg(failed)
                     .arg(widgets::countOf(qint64(out.job.ranks.size()), tr("rank"), tr("ranks"))),
                 8000);
  else
    emit message(
        out.plan.isEmpty()
            ? tr("%1: %2").arg(what, widgets::countOf(qint64(out.job.ranks.size()), tr("rank"), tr("ranks")))
            : tr("%1: %2, read %3")
                  .arg(what, widgets::countOf(qint64(out.job.ranks.size()), tr("rank"), tr("ranks")), out.plan),
        4000);
}

void JobController::openRank(int position) {
  pending_.reset();
  const auto& ranks = doc_->job().ranks;
  if (position < 0 || position >= ranks.size()) return;
  const QString file = ranks[position].file;
  if (!QFileInfo::exists(file))
    return fail(tr("Rank %1's trace %2 is not there (moved since the split?).").arg(ranks[position].rank).arg(file));
  emit traceRequested(file);
}

void JobController::compareRanks(int positionA, int positionB) {
  const auto& ranks = doc_->job().ranks;
  if (positionA < 0 || positionB < 0 || positionA >= ranks.size() || positionB >= ranks.size() ||
      positionA == positionB)
    return void(emit message(tr("Select two ranks in the job table (Ctrl+click) to compare them."), 5000));
  const widgets::JobRank& a = ranks[positionA];
  const widgets::JobRank& b = ranks[positionB];
  for (const widgets::JobRank* r : {&a, &b})
    if (!r->loaded || !QFileInfo::exists(r->file))
      return fail(tr("Rank %1 cannot be compared: %2")
                      .arg(r->rank)
                      .arg(r->loaded ? tr("%1 is not there").arg(r->file) : r->reason));
  pending_ =
      PendingCompare{QFileInfo(a.file).absoluteFilePath(), b.file, a.chunkMode.isEmpty() ? b.chunkMode : a.chunkMode};
  emit message(tr("Comparing rank %1 with rank %2: opening and splitting both…").arg(a.rank).arg(b.rank), 8000);
  emit traceRequested(a.file);
}

void JobController::advanceCompare() {
  if (!pending_) return;
  PendingCompare& p = *pending_;
  switch (p.step) {
    case PendingCompare::Step::Opening:
      if (!*doc_ || QFileInfo(doc_->path()).absoluteFilePath() != p.a) return;
      p.step = PendingCompare::Step::Splitting;
      split_->runSplit();
      return;
    case PendingCompare::Step::Splitting:
      if (lane(JobKind::Split)->isRunning() || doc_->currentResult() < 0) return;
      if (doc_->rows().isEmpty()) return stopCompare(tr("%1 has no chunk to compare.").arg(doc_->fileName()));
      p.step = PendingCompare::Step::Comparing;
      compare_->compareWith(p.b);
      return;
    case PendingCompare::Step::Comparing: {
      if (!doc_->comparison().compared()) return;
      const QString mode = p.mode;
      pending_.reset();
      if (mode.isEmpty() || !compare_->compareModes(mode))
        emit message(tr("No %1 chunk on both ranks: pick one of each in the chunk table and press Ctrl+B.")
                         .arg(mode.isEmpty() ? tr("picked") : mode),
                     8000);
      return;
    }
  }
}

void JobController::stopCompare(const QString& why) {
  if (!pending_) return;
  pending_.reset();
  fail(why, 6000);
}

}  // namespace steadyscope::app
