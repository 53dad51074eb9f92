#include "job_runner.hpp"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace steadyscope::app {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
  // A superseded job may still be winding down (or held by a test) while the
  // current one runs: room for a few, so the current one never queues.
  pool_.setMaxThreadCount(4);
  poll_.setInterval(33);
  connect(&poll_, &QTimer::timeout, this, &JobRunner::progressChanged);
}

JobRunner::~JobRunner() {
  if (current_) current_->requestCancel();
  pool_.waitForDone();
}

void JobRunner::launch(const QString& title, std::function<Deliver(JobContext&)> job, StageText stageText) {
  if (current_) current_->requestCancel();  // superseded: its result is dropped by generation
  const quint64 gen = ++generation_;
  auto ctx = std::make_shared<JobContext>();
  if (nextObserver_) ctx->control.setStageObserver(std::exchange(nextObserver_, {}));
  current_ = ctx;
  stageText_ = std::move(stageText);
  title_ = title;
  running_ = true;
  clock_.start();
  ++inFlight_;
  auto* w = new QFutureWatcher<Deliver>(this);
  connect(w, &QFutureWatcher<Deliver>::finished, this, [this, w, gen] {
    --inFlight_;
    const Deliver deliver = w->result();
    w->deleteLater();
    if (!deliver) ++stopped_;
    if (gen != generation_ || !running_) return;  // stale: superseded or cancelled
    current_.reset();
    running_ = false;
    poll_.stop();
    if (deliver)
      deliver();
    else
      emit cancelled();  // the job stopped on a cancel it saw before we did
    emit finished();
  });
  w->setFuture(QtConcurrent::run(&pool_, [job = std::move(job), ctx] { return job(*ctx); }));
  poll_.start();
  emit started();
  emit progressChanged();
}

void JobRunner::end(bool userCancel) {
  if (!running_) return;
  current_->requestCancel();
  current_.reset();
  ++generation_;
  running_ = false;
  poll_.stop();
  if (userCancel) emit cancelled();
  emit finished();
}

void JobRunner::cancel() { end(true); }
void JobRunner::discard() { end(false); }

void JobRunner::requestStop() {
  if (current_) current_->requestCancel();
}

JobProgress JobRunner::progress() const {
  JobProgress p;
  if (current_) {
    const JobControl& c = current_->control;
    if (stageText_) {
      p = stageText_(c);
    } else {
      p.stage = QString::fromUtf8(c.stageName());
      p.doneBytes = c.doneBytes();
      p.totalBytes = c.totalBytes();
      p.events = c.events();
    }
  }
  p.title = title_;
  return p;
}

}  // namespace steadyscope::app
