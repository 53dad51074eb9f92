#include "open_controller.hpp"

#include "common/selection_model.hpp"
#include "common/text.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/timeline.hpp>

#include <QFileInfo>
#include <QPixmapCache>

#ifndef STEADYSCOPE_SAMPLE_TRACE
#define STEADYSCOPE_SAMPLE_TRACE ""
#endif

namespace steadyscope::app {

using widgets::qs;

OpenController::OpenController(Document* doc, JobSystem* jobs, AppSettings* settings,
                               widgets::SelectionModel* selection, QObject* parent)
    : Controller(doc, jobs, parent), settings_(settings), selection_(selection) {
  connect(lane(JobKind::Load), &JobLane::cancelled, this,
          [this] { fail(tr("Loading %1 was cancelled.").arg(QFileInfo(loadingPath_).fileName()), 5000); });
}

QString OpenController::startFolder() const { return QFileInfo(doc_->path()).absolutePath(); }

void OpenController::openSample() {
  const QString s = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
  if (s.isEmpty() || !QFileInfo::exists(s)) return fail(tr("The bundled sample trace is not installed (%1).").arg(s));
  openFile(s);
}

void OpenController::openFile(const QString& path) {
  if (QFileInfo(path).isDir()) {
    emit directoryRequested(path);
    return;
  }
  startLoad(path, false);
}

void OpenController::openPartially(const QString& path) { startLoad(path, true); }

void OpenController::startLoad(const QString& path, bool allowPartial) {
  doc_->setLastError({});
  loadingPath_ = path;
  const std::string p = path.toStdString();
  lane(JobKind::Load)
      ->start<LoadOutcome>(
          tr("Opening %1").arg(QFileInfo(path).fileName()),
          [p, allowPartial, cache = cache_](JobContext& ctx) { return loadDocument(p, ctx, allowPartial, cache.get()); },
          [this, path](LoadOutcome out) { onLoaded(out, path); }, &loadProgress);
}

void OpenController::onLoaded(const LoadOutcome& out, const QString& path) {
  // On failure the previous trace (if any) stays open and unchanged.
  if (!out.error.isEmpty()) {
    doc_->setLastError(out.error);
    emit message(tr("Could not open %1").arg(QFileInfo(path).fileName()), 8000);
    if (out.endsEarly)
      emit partialOpenOffered(path, out.error);
    else
      emit problem(tr("Could not open the trace"), out.error);
    return;
  }
  settings_->addRecentFile(path);
  emit recentFilesChanged(settings_->recentFiles());
  if (out.doc.trace != doc_->trace()) lane(JobKind::Split)->discard();  // a split of the previous trace is moot
  selection_->clear();
  doc_->setTrace(path, out.doc);
  if (out.doc.trace->partial)
    emit message(tr("Opened the part of %1 that was read: %2")
                     .arg(QFileInfo(path).fileName(),
                          widgets::countOf(qint64(out.doc.trace->size()), tr("complete event"), tr("complete events"))),
                 8000);
  else if (out.doc.trace->fromCache)
    emit message(tr("Loaded %1 from the trace cache").arg(QFileInfo(path).fileName()), 4000);
  else
    emit message(tr("Loaded %1").arg(QFileInfo(path).fileName()), 4000);
}

void OpenController::closeTrace() {
  jobs_->discardAll();
  doc_->comparison().setCompared({});  // the compared trace was opened beside this one
  doc_->clearResults();
  doc_->setShownGate(std::nullopt);
  selection_->clear();
  doc_->setTrace({}, {});  // the trace is destroyed off this thread
  QPixmapCache::clear();   // the style's drawn pieces, made for the closed trace's tables and charts
  // A window stays open for hours: what the closed trace took goes back to the
  // system (the C library keeps freed memory otherwise).
  releaseMemoryOffGuiThread();
}

void OpenController::clearRecentFiles() {
  settings_->clearRecentFiles();
  emit recentFilesChanged(settings_->recentFiles());
}

}  // namespace steadyscope::app
