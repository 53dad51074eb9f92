#include "export_controller.hpp"

#include "about_dialog.hpp"
#include "export_dialog.hpp"
#include "report.hpp"
#include "run_panel.hpp"

#include "common/selection_model.hpp"
#include "panels/chunks_panel.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/timeline.hpp>

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QPainter>

namespace steadyscope::app {

namespace {
// The chunk table's columns the report prints (the rest are in the window's tooltips).
constexpr int kReportColumns[] = {
    widgets::ChunkModel::ModeColumn,     widgets::ChunkModel::FileColumn,      widgets::ChunkModel::StepRangeColumn,
    widgets::ChunkModel::DurationColumn, widgets::ChunkModel::EventsColumn,    widgets::ChunkModel::GpuEventsColumn,
    widgets::ChunkModel::BusyRefColumn,  widgets::ChunkModel::BusyUnionColumn, widgets::ChunkModel::FindingsColumn,
    widgets::ChunkModel::VerdictColumn,
};

/// The chunk table's cells as it prints them (a model of the rows alone: the report shows this trace's).
void addTable(ReportContent& c, const QVector<widgets::ChunkRow>& rows, qint64 timeOrigin) {
  widgets::ChunkModel m;
  m.setTimeOrigin(timeOrigin);
  m.setChunks(rows);
  for (int col : kReportColumns) c.tableHeaders << widgets::ChunkModel::headerText(col);
  for (int i = 0; i < rows.size(); ++i) {
    QStringList cells;
    for (int col : kReportColumns) cells << m.data(m.index(i, col), Qt::DisplayRole).toString();
    c.tableRows << cells;
  }
}
}  // namespace

ExportController::ExportController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                                   widgets::TimelineView* timeline, AppSettings* settings, QWidget* window)
    : Controller(doc, jobs, window),
      run_(run),
      selection_(selection),
      timeline_(timeline),
      settings_(settings),
      window_(window) {}

QString ExportController::exportBlocker() const {
  if (!*doc_) return tr("Open a trace first: an export copies the chunk's events from it.");
  if (doc_->isPartial()) return tr("The trace was read only in part; an export needs the whole trace.");
  const auto& rows = doc_->rows();
  const int c = selection_->chunk();
  if (c < 0 || c >= rows.size()) return tr("Select a chunk in the Chunks pane first.");
  if (rows[c].file.isEmpty()) return tr("This window of the split made no chunk file.");
  if (!names::parseModeName(rows[c].mode.toStdString())) return tr("Only a mode's chunk can be exported.");
  const Result* r = doc_->shownResult();
  if (!r || !r->planned || &r->planned->splitter->trace() != doc_->trace().get())
    return doc_->splitDir().isEmpty() ? tr("Run the split on this trace first.")
                                      : tr("The chunks are still being placed on the source trace.");
  return {};
}

QString ExportController::reportBlocker() const {
  return *doc_ && selection_->chunk() >= 0 ? QString() : tr("Open a trace, split it and select a chunk first.");
}

void ExportController::exportSelectedChunk() {
  if (const QString why = exportBlocker(); !why.isEmpty()) return void(emit message(why, 6000));
  const widgets::ChunkRow& row = doc_->rows()[selection_->chunk()];
  ExportDialog::Subject s;
  s.planned = doc_->shownResult()->planned;
  s.mode = *names::parseModeName(row.mode.toStdString());
  s.chunkTitle = row.firstStep < 0 ? tr("%1 chunk").arg(row.mode)
                                   : tr("%1 chunk, steps %2–%3").arg(row.mode).arg(row.firstStep).arg(row.lastStep);
  s.gate = run_->gateOptions();  // the export records the mode it writes
  auto* d = new ExportDialog(std::move(s), lane(JobKind::Export), settings_, window_);
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->open();
}

QImage ExportController::timelineImage(QSize size) const {
  QImage img(size, QImage::Format_RGB32);
  img.fill(timeline_->palette().color(QPalette::Base));
  QPainter p(&img);
  timeline_->renderTo(p, size);
  return img;
}

void ExportController::copyTimelineImage() {
  QGuiApplication::clipboard()->setImage(timelineImage(timeline_->viewport()->size()));
  emit message(tr("The timeline is on the clipboard as an image."), 4000);
}

void ExportController::saveReportDialog() {
  const auto& rows = doc_->rows();
  const int c = selection_->chunk();
  if (!*doc_ || c < 0 || c >= rows.size()) return void(emit message(tr("Select a chunk first."), 5000));
  const QFileInfo src(doc_->path());
  const QString base = src.fileName().section(QLatin1Char('.'), 0, 0);
  const QString suggested = src.absoluteDir().filePath(QStringLiteral("%1-%2-report.pdf").arg(base, rows[c].mode));
  const QString pdf = QFileDialog::getSaveFileName(window_, tr("Save report"), suggested, tr("PDF (*.pdf)"));
  if (pdf.isEmpty()) return;
  startReport(pdf, QSize(1920, 1080), [this, pdf](const QString& error) {
    if (!error.isEmpty()) return void(emit problem(tr("The report was not saved"), error));
    emit message(tr("Saved %1 and %2").arg(QFileInfo(pdf).fileName(), QFileInfo(pngPathFor(pdf)).fileName()), 8000);
  });
}

void ExportController::startReport(const QString& pdfPath, QSize pngSize, std::function<void(QString)> done) {
  const auto& rows = doc_->rows();
  const int sel = selection_->chunk();
  if (!*doc_ || sel < 0 || sel >= rows.size()) return done(tr("no chunk is selected"));
  const widgets::ChunkRow& row = rows[sel];
  // What needs the window (its images, palette and options) is taken here; the rest runs on the lane.
  auto c = std::make_shared<ReportContent>();
  c->traceName = doc_->fileName();
  c->tracePath = QFileInfo(doc_->path()).absoluteFilePath();
  c->traceBytes = QFileInfo(doc_->path()).size();
  c->events = doc_->trace()->size();
  const Result* r = doc_->shownResult();
  c->resultTitle = r ? r->title : tr("split");
  c->splitFlags = r && r->options ? splitFlags(*r->options) : tr("(not recorded)");
  c->stepsFrom = doc_->rootTier();
  const gate::GateOptions go = run_->gateOptions();
  c->gateText = tr("mode %1 · busy-ratio threshold %2 · margin %3")
                    .arg(row.mode)
                    .arg(go.threshold, 0, 'f', 3)
                    .arg(go.margin, 0, 'f', 2);
  addTable(*c, rows, doc_->index()->firstNs);
  c->selectedRow = sel;
  c->chunkFile = row.file;
  c->busyRatio = row.busyRef < 0 ? tr("unknown") : QString::fromStdString(timeline::formatRatio(row.busyRef));
  if (doc_->shownGate()) c->explanation = explanationOf(*doc_->shownGate());
  if (doc_->overlays())
    c->stepChart = stepChartImage(*doc_->overlays(), *doc_->index(), row.beginNs, row.endNs, row.mode, QSize(1400, 820),
                                  timeline_->palette());
  c->timeline = timelineImage(pngSize);
  c->version = AboutDialog::versionText();
  c->generatedAt = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"));
  const TracePtr trace = doc_->trace();
  lane(JobKind::Report)
      ->start<QString>(
          tr("Saving the report"),
          [c, trace, pdfPath](JobContext&) -> std::optional<QString> {
            auto digest = trace->digest->wait(trace->path);  // computed after the load; usually ready
            c->sha256 = digest ? QString::fromStdString(digest->sha256)
                               : QObject::tr("unavailable (%1)").arg(QString::fromStdString(digest.error().describe()));
            return writeReportFiles(pdfPath, reportPdf(*c), pngPathFor(pdfPath), c->timeline);
          },
          std::move(done));
}

QString ExportController::saveReport(const QString& pdfPath, QSize pngSize) {
  std::optional<QString> result;
  QEventLoop loop;
  startReport(pdfPath, pngSize, [&](QString error) {
    result = std::move(error);
    loop.quit();
  });
  if (!result) {
    // A superseded or cancelled report ends the lane without a result.
    connect(lane(JobKind::Report), &JobLane::finished, &loop, &QEventLoop::quit);
    loop.exec();
  }
  return result.value_or(tr("the report was cancelled"));
}

}  // namespace steadyscope::app
