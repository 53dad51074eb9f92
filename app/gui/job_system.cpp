#include "job_system.hpp"

#include <QEventLoop>

namespace steadyscope::app {

namespace {
// The lanes the status bar follows, in the order it prefers them; an export shows in its dialog.
constexpr JobKind kShown[] = {JobKind::Load,   JobKind::Job,     JobKind::Split,
                              JobKind::Review, JobKind::Compare, JobKind::Report};
constexpr qint64 kReviewShownAfterMs = 150;
}  // namespace

JobSystem::JobSystem(QObject* parent) : QObject(parent) {
  for (int k = 0; k < kJobKinds; ++k) {
    auto* lane = new JobLane(this);
    lanes_[size_t(k)] = lane;
    for (auto signal : {&JobLane::started, &JobLane::progressChanged, &JobLane::finished})
      connect(lane, signal, this, &JobSystem::changed);
    connect(lane, &JobLane::cancelled, this, [this, k] { emit cancelled(JobKind(k)); });
  }
}

bool JobSystem::isIdle() const {
  for (JobKind k : kShown)
    if (lane(k)->isRunning()) return false;
  return true;
}

void JobSystem::cancelAll() {
  for (JobKind k : kShown) lane(k)->cancel();
}

void JobSystem::discardAll() {
  for (JobKind k : kShown) lane(k)->discard();
}

JobLane* JobSystem::shownLane() const {
  for (JobKind k : kShown) {
    JobLane* l = lane(k);
    if (l->isRunning() && (k != JobKind::Review || l->elapsedMs() >= kReviewShownAfterMs)) return l;
  }
  return nullptr;
}

bool JobSystem::waitForIdle(int timeoutMs) {
  if (isIdle()) return true;
  QEventLoop loop;
  QTimer timeout;
  timeout.setSingleShot(true);
  connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
  connect(this, &JobSystem::changed, &loop, [this, &loop] {
    if (isIdle()) loop.quit();  // a finished job may start the next (a split starts its review)
  });
  timeout.start(timeoutMs);
  loop.exec();
  return isIdle();
}

}  // namespace steadyscope::app
