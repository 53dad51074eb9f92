#include "job_lane.hpp"

#include <steadyscope/common.hpp>

#include <QMetaObject>

namespace steadyscope::app {

namespace {
QThreadPool& disposer() {
  // One thread is enough: freeing is rare and must only stay off the GUI thread.
  static QThreadPool pool;
  pool.setMaxThreadCount(1);
  return pool;
}
}  // namespace

void disposeOffGuiThread(std::shared_ptr<const void> garbage) {
  if (!garbage) return;
  disposer().start([g = std::move(garbage)]() mutable { g.reset(); });
}

void releaseMemoryOffGuiThread() {
  disposer().start([] { releaseFreedMemory(); });  // after every disposal queued before it
}

void waitForDisposals() { disposer().waitForDone(); }

JobLane::JobLane(QObject* parent) : QObject(parent) {
  // A superseded job may still be winding down (or held by a test) while the
  // current one runs: room for a few, so the current one never queues.
  pool_.setMaxThreadCount(4);
  poll_.setInterval(33);
  connect(&poll_, &QTimer::timeout, this, &JobLane::progressChanged);
}

JobLane::~JobLane() {
  if (current_) current_->requestCancel();
  liveGeneration_->store(0);  // whatever still returns is stale: freed on its own thread
  pool_.waitForDone();
}

void JobLane::launch(const QString& title, std::function<Outcome(JobContext&)> job, StageText stageText) {
  if (current_) current_->requestCancel();  // superseded: its result is dropped by generation
  const quint64 gen = ++generation_;
  liveGeneration_->store(gen);
  auto ctx = std::make_shared<JobContext>();
  if (nextObserver_) ctx->control.setStageObserver(std::exchange(nextObserver_, {}));
  current_ = ctx;
  stageText_ = std::move(stageText);
  title_ = title;
  running_ = true;
  clock_.start();
  ++inFlight_;
  pool_.start([this, job = std::move(job), ctx, gen, live = liveGeneration_] {
    Outcome out = job(*ctx);
    const bool stopped = !out.value;
    // Already superseded: free the result here rather than on the GUI thread.
    const bool stale = live->load() != gen;
    if (stale) out = {};
    QMetaObject::invokeMethod(
        this,
        [this, gen, out = std::move(out), stopped, stale]() mutable { arrive(gen, std::move(out), stopped, stale); },
        Qt::QueuedConnection);
  });
  poll_.start();
  emit started();
  emit progressChanged();
}

void JobLane::arrive(quint64 gen, Outcome out, bool stopped, bool droppedOnJobThread) {
  --inFlight_;
  if (stopped) ++stopped_;
  if (droppedOnJobThread) ++dropped_;
  if (gen != generation_ || !running_) {  // stale: superseded or cancelled after the job's own check
    if (out.value) {
      ++dropped_;
      disposeOffGuiThread(std::move(out.value));
    }
    return;
  }
  current_.reset();
  running_ = false;
  poll_.stop();
  if (out.value)
    out.deliver(std::move(out.value));
  else
    emit cancelled();  // the job stopped on a cancel it saw before we did
  emit finished();
}

void JobLane::end(bool userCancel) {
  if (!running_) return;
  current_->requestCancel();
  current_.reset();
  liveGeneration_->store(++generation_);
  running_ = false;
  poll_.stop();
  if (userCancel) emit cancelled();
  emit finished();
}

void JobLane::cancel() { end(true); }
void JobLane::discard() { end(false); }

void JobLane::requestStop() {
  if (current_) current_->requestCancel();
}

JobProgress JobLane::progress() const {
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
