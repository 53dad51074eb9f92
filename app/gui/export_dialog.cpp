#include "export_dialog.hpp"
#include "common/text.hpp"

#include "common/colors.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/timeline.hpp>

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cstring>

namespace steadyscope::app {

using widgets::qs;

namespace {

QString leaf(const std::string& path) { return QFileInfo(qs(path)).fileName(); }

// The core's stages, in order, with their words.
struct StageWords {
  const char* name;
  const char* words;
};
constexpr StageWords kStages[] = {
    {"checks", QT_TRANSLATE_NOOP("ExportDialog", "Checking the folder")},
    {"figures", QT_TRANSLATE_NOOP("ExportDialog", "Gating the split and measuring the chunk")},
    {"chunk", QT_TRANSLATE_NOOP("ExportDialog", "Writing the chunk trace")},
    {"details", QT_TRANSLATE_NOOP("ExportDialog", "Writing execution_details.csv and .json")},
    {"digest", QT_TRANSLATE_NOOP("ExportDialog", "Waiting for the source trace's sha256")},
    {"manifest", QT_TRANSLATE_NOOP("ExportDialog", "Writing the provenance manifest")},
    {"publish", QT_TRANSLATE_NOOP("ExportDialog", "Putting the files in place")},
};
constexpr int kStageCount = int(sizeof(kStages) / sizeof(kStages[0]));

int stageIndex(const char* name) {
  for (int i = 0; i < kStageCount; ++i)
    if (std::strcmp(kStages[i].name, name) == 0) return i;
  return -1;
}

}  // namespace

JobProgress exportProgress(const JobControl& c) {
  JobProgress p;
  const int i = stageIndex(c.stageName());
  p.stage = i < 0 ? QCoreApplication::translate("ExportDialog", "Starting")
                  : QCoreApplication::translate("ExportDialog", kStages[i].words);
  // Stages as the measure of the work: the chunk is the only long one and takes most of it.
  p.doneBytes = quint64(std::max(0, i));
  p.totalBytes = quint64(kStageCount);
  p.complete = i == kStageCount - 1;
  return p;
}

ExportDialog::ExportDialog(Subject subject, JobLane* runner, AppSettings* settings, QWidget* parent)
    : QDialog(parent), subject_(std::move(subject)), runner_(runner), settings_(settings) {
  setObjectName(QStringLiteral("exportDialog"));
  setWindowTitle(tr("Export chunk"));
  build();
  QString dir = settings_ ? settings_->exportFolder() : QString();
  if (dir.isEmpty())
    dir = QFileInfo(qs(subject_.planned->splitter->trace().path)).absoluteDir().filePath(QStringLiteral("export"));
  folder_->setText(QDir::toNativeSeparators(dir));
  connect(folder_, &QLineEdit::textChanged, this, &ExportDialog::refresh);
  connect(gzip_, &QRadioButton::toggled, this, &ExportDialog::refresh);
  connect(runner_, &JobLane::progressChanged, this, &ExportDialog::onProgress);
  connect(runner_, &JobLane::finished, this, [this] {
    if (!running_) return;  // delivered: onDone has run
    showRunning(false);     // dropped by someone else (the window closing)
    refresh();
    showMessage(tr("The export was stopped."), true);
  });
  refresh();
}

ExportDialog::~ExportDialog() {
  if (running_) runner_->discard();
}

void ExportDialog::reject() {
  if (running_)
    runner_->requestStop();
  else
    QDialog::reject();
}

void ExportDialog::build() {
  auto* title = new QLabel(this);
  title->setTextFormat(Qt::RichText);
  title->setText(
      tr("<b>Export the %1</b> of %2")
          .arg(subject_.chunkTitle.toHtmlEscaped(), leaf(subject_.planned->splitter->trace().path).toHtmlEscaped()));
  auto* intro = new QLabel(tr("The chunk's events copied unchanged from the trace, its row of execution_details "
                              "(as the splitter writes it) and a manifest recording where it came from. "
                              "The four files appear together or not at all."),
                           this);
  intro->setWordWrap(true);
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("exportFolder"));
  folder_->setMinimumWidth(420);
  browse_ = new QPushButton(tr("Browse…"), this);
  connect(browse_, &QPushButton::clicked, this, &ExportDialog::browse);
  gzip_ = new QRadioButton(tr("compressed (.json.gz, the splitter's file name)"), this);
  plain_ = new QRadioButton(tr("plain text (.json)"), this);
  gzip_->setChecked(true);
  files_ = new QLabel(this);
  files_->setObjectName(QStringLiteral("exportFiles"));
  files_->setTextFormat(Qt::RichText);
  files_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_ = new QLabel(this);
  message_->setObjectName(QStringLiteral("exportMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setMinimumHeight(2 * message_->fontMetrics().lineSpacing());  // a refusal wraps: room for it
  message_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  stage_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, kStageCount);
  progress_->setTextVisible(false);  // stages, not a percentage of the work

  auto* grid = new QGridLayout;
  grid->addWidget(new QLabel(tr("Folder:"), this), 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(folder_, 1);
  row->addWidget(browse_);
  grid->addLayout(row, 0, 1);
  grid->addWidget(new QLabel(tr("Chunk file:"), this), 1, 0);
  auto* formats = new QHBoxLayout;
  formats->addWidget(gzip_);
  formats->addWidget(plain_);
  formats->addStretch(1);
  grid->addLayout(formats, 1, 1);
  filesLabel_ = new QLabel(tr("Writes:"), this);
  grid->addWidget(filesLabel_, 2, 0, Qt::AlignTop);
  grid->addWidget(files_, 2, 1);

  showFolder_ = new QPushButton(tr("Show in folder"), this);
  showFolder_->setObjectName(QStringLiteral("exportShowFolder"));
  showFolder_->setEnabled(false);
  connect(showFolder_, &QPushButton::clicked, this,
          [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(writtenDir_)); });
  exportButton_ = new QPushButton(tr("Export"), this);
  exportButton_->setObjectName(QStringLiteral("exportRun"));
  exportButton_->setDefault(true);
  connect(exportButton_, &QPushButton::clicked, this, &ExportDialog::startExport);
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  cancelButton_->setObjectName(QStringLiteral("exportCancel"));
  connect(cancelButton_, &QPushButton::clicked, this, &ExportDialog::reject);
  closeButton_ = new QPushButton(tr("Close"), this);
  connect(closeButton_, &QPushButton::clicked, this, &QDialog::reject);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(showFolder_);
  buttons->addStretch(1);
  buttons->addWidget(exportButton_);
  buttons->addWidget(cancelButton_);
  buttons->addWidget(closeButton_);

  auto* l = new QVBoxLayout(this);
  l->addWidget(title);
  l->addWidget(intro);
  l->addSpacing(6);
  l->addLayout(grid);
  l->addWidget(message_);
  l->addWidget(stage_);
  l->addWidget(progress_);
  l->addStretch(1);
  l->addLayout(buttons);
  showRunning(false);
}

exporting::ExportRequest ExportDialog::request(bool force) const {
  exporting::ExportRequest r;
  r.mode = subject_.mode;
  r.targetDir = QDir::fromNativeSeparators(folder_->text().trimmed()).toStdString();
  r.force = force;
  r.gzip = gzip_->isChecked();
  r.gate = subject_.gate;
  r.toolVersion = versionString();
  r.fault = fault_;
  return r;
}

void ExportDialog::refresh() {
  if (runner_->isRunning()) return;
  const exporting::ExportRequest req = request(true);
  const exporting::ExportPreview pv =
      exporting::previewExport(subject_.planned->splitter->trace(), subject_.planned->plan, req);
  QStringList names, marks;
  if (pv.chunk >= 0)
    for (const std::string& f : pv.files.all()) {
      names << leaf(f);
      const bool exists = std::find(pv.existing.begin(), pv.existing.end(), f) != pv.existing.end();
      marks << (exists ? tr("replaces") : tr("new"));
    }
  showFiles(tr("Writes:"), names, marks);
  QString msg;
  if (req.targetDir.empty())
    msg = tr("Choose a folder.");
  else if (pv.overwritesSource)
    msg = tr("Refused: one of these files in %1 is the source trace itself, and an export never replaces its "
             "source. Choose another folder.")
              .arg(QDir::toNativeSeparators(qs(pv.files.dir)));
  else if (!pv.ok())
    msg = tr("Cannot export: %1.").arg(qs(pv.refusal));
  else if (!pv.existing.empty())
    msg = tr("Files of an earlier export are in this folder; Export asks before replacing them.");
  else if (!QFileInfo(qs(pv.files.dir)).isDir())
    msg = tr("The folder does not exist yet: the export creates it.");
  showMessage(msg, !pv.ok());
  exportButton_->setEnabled(pv.ok() && !req.targetDir.empty());
}

void ExportDialog::startExport() {
  if (runner_->isRunning()) return;
  const exporting::ExportPreview pv =
      exporting::previewExport(subject_.planned->splitter->trace(), subject_.planned->plan, request(true));
  if (!pv.ok()) return refresh();
  if (!pv.existing.empty()) {
    QStringList names;
    for (const std::string& f : pv.existing) names << leaf(f);
    const auto answer =
        QMessageBox::question(this, tr("Replace the earlier export?"),
                              tr("%1 already holds files of an earlier export:\n\n%2\n\nReplace them?")
                                  .arg(QDir::toNativeSeparators(qs(pv.files.dir)), names.join(QLatin1Char('\n'))),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      showMessage(tr("Not exported: the earlier files are unchanged."), false);
      return;
    }
  }
  if (settings_) settings_->setExportFolder(folder_->text().trimmed());
  written_.clear();
  writtenDir_.clear();
  showFolder_->setEnabled(false);
  message_->clear();
  using Outcome = Expected<exporting::ExportReport>;
  const std::shared_ptr<PlannedSplit> planned = subject_.planned;
  const exporting::ExportRequest req = request(!pv.existing.empty());
  QPointer<ExportDialog> self(this);
  runner_->start<Outcome>(
      tr("Exporting %1").arg(subject_.chunkTitle),
      [planned, req](JobContext& ctx) -> std::optional<Outcome> {
        const std::lock_guard lock(planned->use);  // the splitter's index is shared with other jobs of this split
        return exporting::exportChunk(*planned->splitter, planned->plan, planned->options, req, &ctx.control);
      },
      [self](Outcome r) {
        if (self) self->onDone(r);
      },
      &exportProgress);
  showRunning(true);
}

void ExportDialog::showRunning(bool running) {
  running_ = running;
  stage_->setVisible(running);
  progress_->setVisible(running);
  cancelButton_->setVisible(running);
  closeButton_->setVisible(!running);
  exportButton_->setVisible(!running);
  folder_->setEnabled(!running);
  browse_->setEnabled(!running);
  gzip_->setEnabled(!running);
  plain_->setEnabled(!running);
  if (running) onProgress();
}

void ExportDialog::onProgress() {
  if (!running_ || !runner_->isRunning()) return;
  const JobProgress p = runner_->progress();
  stage_->setText(p.stage + QStringLiteral("…"));
  progress_->setValue(int(p.doneBytes));
}

void ExportDialog::onDone(const Expected<exporting::ExportReport>& r) {
  showRunning(false);
  refresh();
  if (!r) {
    const Error& e = r.error();
    showMessage(e.kind == Error::Kind::Cancelled ? tr("Export cancelled: nothing was written.")
                                                 : tr("Not exported: %1").arg(qs(e.describe())),
                e.kind != Error::Kind::Cancelled);
    return;
  }
  const exporting::ExportFiles& f = r->files;
  writtenDir_ = qs(f.dir);
  QStringList names, marks;
  for (const std::string& p : f.all()) {
    written_ << qs(p);
    names << leaf(p);
    marks << tr("written");
  }
  showFiles(tr("Wrote:"), names, marks);
  showMessage(
      tr("Exported %1 (and %2 for viewers) into %3. The gate on the split: %4.")
          .arg(widgets::countOf(qint64(r->eventCount), tr("event"), tr("events")))
          .arg(widgets::countOf(qint64(r->addedMetadata), tr("process or thread name"), tr("process and thread names")))
          .arg(QDir::toNativeSeparators(writtenDir_), r->gate.finalAccepted() ? tr("accepted") : tr("refused")),
      false);
  showFolder_->setEnabled(true);
  closeButton_->setDefault(true);
}

void ExportDialog::browse() {
  const QString d = QFileDialog::getExistingDirectory(this, tr("Export into folder"), folder_->text());
  if (!d.isEmpty()) folder_->setText(QDir::toNativeSeparators(d));
}

void ExportDialog::showMessage(const QString& text, bool problem) {
  QPalette pal = palette();
  if (problem) pal.setColor(QPalette::WindowText, widgets::colors::verdict(widgets::colors::Verdict::Refused));
  message_->setPalette(pal);
  message_->setText(text);
}

void ExportDialog::showFiles(const QString& label, const QStringList& names, const QStringList& marks) {
  filesLabel_->setText(label);
  // The marks' column keeps one width ("new", "replaces", "written"), so the dialog does not change size.
  const int markWidth = files_->fontMetrics().horizontalAdvance(tr("replaces")) + 16;
  QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
  for (qsizetype i = 0; i < names.size(); ++i)
    html += QStringLiteral("<tr><td width=\"%1\"><i>%2</i></td><td><tt>%3</tt></td></tr>")
                .arg(markWidth)
                .arg(marks[i].toHtmlEscaped(), names[i].toHtmlEscaped());
  files_->setText(html + QStringLiteral("</table>"));
}

QString ExportDialog::filesText() const { return files_->text(); }
QString ExportDialog::messageText() const { return message_->text(); }

}  // namespace steadyscope::app
