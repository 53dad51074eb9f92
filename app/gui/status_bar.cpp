#include "status_bar.hpp"

#include "common/text.hpp"

#include <steadyscope/model.hpp>
#include <steadyscope/timeline.hpp>

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>

namespace steadyscope::app {

using widgets::countOf;
using widgets::qs;

namespace {
QLabel* label(QStatusBar* bar, const char* name) {
  auto* l = new QLabel(bar);
  l->setObjectName(QLatin1String(name));
  return l;
}
}  // namespace

StatusBar::StatusBar(QStatusBar* bar, const Document* doc, JobSystem* jobs)
    : QObject(bar),
      doc_(doc),
      jobs_(jobs),
      file_(label(bar, "status.file")),
      events_(label(bar, "status.events")),
      anomalies_(label(bar, "status.anomalies")),
      split_(label(bar, "status.split")),
      message_(label(bar, "status.message")),
      messageTimer_(new QTimer(this)),
      progressLabel_(new QLabel(bar)),
      progress_(new QProgressBar(bar)),
      cancel_(new QPushButton(tr("Cancel"), bar)) {
  progress_->setObjectName(QStringLiteral("status.progress"));
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  cancel_->setObjectName(QStringLiteral("status.cancel"));
  connect(cancel_, &QPushButton::clicked, this, &StatusBar::cancelRequested);
  for (QLabel* l : {file_, events_, anomalies_, split_}) bar->addWidget(l);
  message_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long message elides, never widens
  bar->addWidget(message_, 1);
  messageTimer_->setSingleShot(true);
  connect(messageTimer_, &QTimer::timeout, message_, &QLabel::clear);
  bar->addPermanentWidget(progressLabel_);
  bar->addPermanentWidget(progress_);
  bar->addPermanentWidget(cancel_);
  for (QWidget* w :
       {static_cast<QWidget*>(progressLabel_), static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancel_)})
    w->hide();
  connect(jobs_, &JobSystem::changed, this, &StatusBar::showJobs);
  for (auto signal : {&Document::traceChanged, &Document::overlaysChanged, &Document::resultsChanged})
    connect(doc_, signal, this, &StatusBar::update);
}

void StatusBar::flash(const QString& text, int ms) {
  // One line: a message with line breaks (an error's details) would grow the bar.
  QString line = text;
  message_->setText(line.replace(QLatin1Char('\n'), QLatin1Char(' ')));
  message_->setToolTip(text);
  messageTimer_->start(ms);
}

QString StatusBar::messageText() const { return message_->text(); }

QString StatusBar::statusText() const {
  QStringList parts;
  for (QLabel* l : {file_, events_, anomalies_, split_})
    if (!l->text().isEmpty()) parts << l->text();
  return parts.join(QStringLiteral(" · "));
}

bool StatusBar::showsJob() const { return jobs_->shownLane() != nullptr; }

void StatusBar::showTrace() {
  if (!*doc_) {
    file_->setText(tr("No trace open"));
    events_->clear();
    anomalies_->clear();
    return;
  }
  const Trace& t = *doc_->trace();
  const QString& path = doc_->path();
  if (t.partial) {
    file_->setText(tr("%1 — partial").arg(QFileInfo(path).fileName()));
    file_->setToolTip(tr("%1\nRead only in part: %2").arg(path, qs(t.partial->reason)));
  } else if (t.fromCache) {
    file_->setText(tr("%1 — from cache").arg(QFileInfo(path).fileName()));
    file_->setToolTip(tr("%1\nRead from the trace cache: the file is unchanged since it was last parsed").arg(path));
  } else {
    file_->setText(QFileInfo(path).fileName());
    file_->setToolTip(path);
  }
  events_->setText(t.size() == 0 ? tr("no events: the trace's event list is empty")
                                 : countOf(qint64(t.size()), tr("event"), tr("events")));
  // Only what may be wrong: flows cut at the capture's edges and the like are in the Anomalies tab.
  const std::string suspicious = suspiciousAnomalyText(t);
  anomalies_->setText(suspicious.empty() ? QString() : tr("suspicious: %1").arg(qs(suspicious)));
  anomalies_->setToolTip(suspicious.empty() ? QString() : tr("Events the loader found broken or unusual; the "
                                                             "Anomalies tab says what each affects"));
}

void StatusBar::update() {
  showTrace();
  const auto& ov = doc_->overlays();
  if (ov && !ov->steps.empty())
    split_->setText(tr("%1 (%2)").arg(countOf(qint64(ov->steps.size()), tr("step"), tr("steps")), doc_->rootTier()));
  else if (!doc_->splitDir().isEmpty())
    split_->setText(tr("split dir %1").arg(QFileInfo(doc_->splitDir()).fileName()));
  else if (doc_->isPartial())
    split_->setText(tr("not splittable: read only in part"));
  else if (ov)  // a split ran and found no step: the chunks pane says why
    split_->setText(tr("split: no steps found"));
  else
    split_->setText(*doc_ ? tr("not split yet") : QString());
}

void StatusBar::showJobs() {
  JobLane* shown = jobs_->shownLane();
  for (QWidget* w :
       {static_cast<QWidget*>(progressLabel_), static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancel_)})
    w->setVisible(shown != nullptr);
  if (!shown) return;
  const JobProgress p = shown->progress();
  QString text = p.title;
  if (!p.stage.isEmpty()) text += QStringLiteral(" · ") + p.stage;
  if (p.totalBytes)
    text += tr(" · %1 / %2 MB").arg(double(p.doneBytes) / 1e6, 0, 'f', 1).arg(double(p.totalBytes) / 1e6, 0, 'f', 1);
  if (p.events) text += QStringLiteral(" · ") + countOf(qint64(p.events), tr("event"), tr("events"));
  progressLabel_->setText(text);
  if (p.complete || p.totalBytes) {
    const double f = p.complete ? 1.0 : double(p.doneBytes) / double(p.totalBytes);
    progress_->setRange(0, 1000);
    progress_->setValue(std::clamp(int(1000.0 * f), 0, 1000));
  } else {
    progress_->setRange(0, 0);  // no measure of the work: a busy bar
  }
}

}  // namespace steadyscope::app
