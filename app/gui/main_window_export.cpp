// The window's Chunk ▸ Export…, Save report… and Copy image: the selected
// chunk handed to the export dialog and to the report (export_dialog,
// report), kept apart from the window's other wiring.
#include "about_dialog.hpp"
#include "export_dialog.hpp"
#include "main_window.hpp"
#include "run_panel.hpp"
#include "report.hpp"

#include "panels/chunks_panel.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
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
}  // namespace

QString MainWindow::exportBlocker() const {
  if (!doc_) return tr("Open a trace first: an export copies the chunk's events from it.");
  if (doc_.trace->partial) return tr("The trace was read only in part; an export needs the whole trace.");
  const auto& rows = chunks_->model()->chunks();
  const int c = selection_->chunk();
  if (c < 0 || c >= rows.size()) return tr("Select a chunk in the Chunks pane first.");
  if (rows[c].file.isEmpty()) return tr("This window of the split made no chunk file.");
  if (!names::parseModeName(rows[c].mode.toStdString())) return tr("Only a mode's chunk can be exported.");
  const Result* r = current_ >= 0 && size_t(current_) < results_.size() ? &results_[size_t(current_)] : nullptr;
  if (!r || !r->planned || &r->planned->splitter->trace() != doc_.trace.get())
    return splitDir_.isEmpty() ? tr("Run the split on this trace first.")
                               : tr("The chunks are still being placed on the source trace.");
  return {};
}

void MainWindow::updateChunkActions() {
  if (!exportAction_) return;
  const QString why = exportBlocker();
  exportAction_->setEnabled(why.isEmpty());
  exportAction_->setToolTip(why.isEmpty() ? tr("Write the selected chunk, its execution_details row and a "
                                               "provenance manifest into a folder")
                                          : why);
  const bool canReport = doc_ && selection_->chunk() >= 0;
  reportAction_->setEnabled(canReport);
  reportAction_->setToolTip(canReport ? tr("A one-page PDF of the split and the chosen chunk's verdict, and a PNG "
                                           "of the timeline")
                                      : tr("Open a trace, split it and select a chunk first."));
}

void MainWindow::exportSelectedChunk() {
  if (const QString why = exportBlocker(); !why.isEmpty()) {
    flash(why, 6000);
    return;
  }
  const widgets::ChunkRow& row = chunks_->model()->chunks()[selection_->chunk()];
  ExportDialog::Subject s;
  s.planned = results_[size_t(current_)].planned;
  s.mode = *names::parseModeName(row.mode.toStdString());
  s.chunkTitle = row.firstStep < 0 ? tr("%1 chunk").arg(row.mode)
                                   : tr("%1 chunk, steps %2–%3").arg(row.mode).arg(row.firstStep).arg(row.lastStep);
  s.gate = run_->gateOptions();  // the export records the mode it writes
  auto* d = new ExportDialog(std::move(s), exports_, settings_.get(), this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->open();
}

QImage MainWindow::timelineImage(QSize size) {
  QImage img(size, QImage::Format_RGB32);
  img.fill(palette().color(QPalette::Base));
  QPainter p(&img);
  timeline_->renderTo(p, size);
  return img;
}

void MainWindow::saveReportDialog() {
  const auto& rows = chunks_->model()->chunks();
  const int c = selection_->chunk();
  if (!doc_ || c < 0 || c >= rows.size()) return flash(tr("Select a chunk first."), 5000);
  const QFileInfo src(path_);
  QString base = src.fileName().section(QLatin1Char('.'), 0, 0);
  const QString suggested = src.absoluteDir().filePath(QStringLiteral("%1-%2-report.pdf").arg(base, rows[c].mode));
  const QString pdf = QFileDialog::getSaveFileName(this, tr("Save report"), suggested, tr("PDF (*.pdf)"));
  if (pdf.isEmpty()) return;
  const QString error = saveReport(pdf, QSize(1920, 1080));
  if (!error.isEmpty()) return showError(tr("The report was not saved"), error);
  flash(tr("Saved %1 and %2").arg(QFileInfo(pdf).fileName(), QFileInfo(pngPathFor(pdf)).fileName()), 8000);
}

QString MainWindow::saveReport(const QString& pdfPath, QSize pngSize) {
  const auto& rows = chunks_->model()->chunks();
  const int sel = selection_->chunk();
  if (!doc_ || sel < 0 || sel >= rows.size()) return tr("no chunk is selected");
  const widgets::ChunkRow& row = rows[sel];
  const Trace& t = *doc_.trace;
  ReportContent c;
  c.traceName = QFileInfo(path_).fileName();
  c.tracePath = QFileInfo(path_).absoluteFilePath();
  c.traceBytes = QFileInfo(path_).size();
  c.events = t.size();
  auto digest = t.digest->wait(t.path);  // computed after the load; usually ready
  c.sha256 = digest ? QString::fromStdString(digest->sha256)
                    : tr("unavailable (%1)").arg(QString::fromStdString(digest.error().describe()));
  const Result* r = current_ >= 0 && size_t(current_) < results_.size() ? &results_[size_t(current_)] : nullptr;
  c.resultTitle = r ? r->title : tr("split");
  c.splitFlags = r && r->options ? splitFlags(*r->options) : tr("(not recorded)");
  c.stepsFrom = rootTier_;
  const gate::GateOptions go = run_->gateOptions();
  const double margin = go.margin;
  c.gateText = tr("mode %1 · busy-ratio threshold %2 · margin %3")
                   .arg(row.mode)
                   .arg(go.threshold, 0, 'f', 3)
                   .arg(margin, 0, 'f', 2);
  const widgets::ChunkModel* m = chunks_->model();
  for (int col : kReportColumns) c.tableHeaders << widgets::ChunkModel::headerText(col);
  for (int i = 0; i < rows.size(); ++i) {
    QStringList cells;
    for (int col : kReportColumns) cells << m->data(m->index(i, col), Qt::DisplayRole).toString();
    c.tableRows << cells;
  }
  c.selectedRow = sel;
  c.chunkFile = row.file;
  c.busyRatio = row.busyRef < 0 ? tr("unknown") : QString::fromStdString(timeline::formatRatio(row.busyRef));
  if (shownGate_) c.explanation = explanationOf(*shownGate_);
  if (doc_.overlays)
    c.stepChart =
        stepChartImage(*doc_.overlays, *doc_.index, row.beginNs, row.endNs, row.mode, QSize(1400, 820), palette());
  c.timeline = timelineImage(pngSize);
  c.version = AboutDialog::versionText();
  c.generatedAt = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"));
  return writeReportFiles(pdfPath, reportPdf(c), pngPathFor(pdfPath), c.timeline);
}

}  // namespace steadyscope::app
