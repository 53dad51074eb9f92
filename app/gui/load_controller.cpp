#include "load_controller.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QtConcurrent/QtConcurrentRun>

namespace steadyscope::app {

struct LoadController::Outcome {
  widgets::TraceDocument doc;
  bool ok = false;
  bool cancelled = false;
  QString message;
};

LoadController::LoadController(QObject* parent) : QObject(parent) {
  poll_.setInterval(33);
  connect(&poll_, &QTimer::timeout, this, [this] { emit progressChanged(progress()); });
}

LoadController::~LoadController() {
  cancel();
  if (watcher_) watcher_->waitForFinished();
}

void LoadController::start(const QString& path) {
  cancel();
  ++generation_;
  job_ = {};
  job_.generation = generation_;
  job_.control = std::make_shared<JobControl>();
  job_.cancelIndex = std::make_shared<std::atomic<bool>>(false);
  job_.phase = std::make_shared<std::atomic<int>>(0);
  path_ = path;
  running_ = true;

  auto control = job_.control;
  auto cancelIndex = job_.cancelIndex;
  auto phase = job_.phase;
  const std::string p = path.toStdString();
  // The previous watcher (if any) is left to finish on its own; its result is
  // stale and dropped by generation.
  auto* w = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
  watcher_ = w;
  const quint64 gen = generation_;
  connect(w, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this, [this, gen, w] { onJobDone(gen, w); });
  w->setFuture(QtConcurrent::run([p, control, cancelIndex, phase]() {
    auto out = std::make_shared<Outcome>();
    LoadOptions opts;
    opts.control = control.get();
    auto r = loadTrace(p, opts);
    if (!r) {
      out->cancelled = r.error().kind == Error::Kind::Cancelled || control->cancelled();
      out->message = QString::fromStdString(r.error().describe());
      return out;
    }
    phase->store(1);
    TracePtr trace = r.value();
    auto index = timeline::buildTimelineIndex(*trace, cancelIndex.get());
    if (!index || control->cancelled()) {
      out->cancelled = true;
      out->message = QStringLiteral("cancelled");
      return out;
    }
    out->doc.trace = std::move(trace);
    out->doc.index = std::move(index);
    out->ok = true;
    return out;
  }));
  poll_.start();
  emit started(path);
  emit progressChanged(progress());
}

void LoadController::cancel() {
  if (!running_) return;
  if (job_.control) job_.control->requestCancel();
  if (job_.cancelIndex) job_.cancelIndex->store(true);
}

LoadProgress LoadController::progress() const {
  LoadProgress p;
  if (!job_.control) return p;
  p.doneBytes = job_.control->doneBytes();
  p.totalBytes = job_.control->totalBytes();
  p.events = job_.control->events();
  p.stage = job_.phase && job_.phase->load() == 1 ? kStageTimeline : job_.control->stage();
  switch (p.stage) {
    case StageOpen: p.stageName = tr("Opening"); break;
    case StageDecompress: p.stageName = tr("Decompressing and parsing"); break;
    case StageParse: p.stageName = tr("Parsing"); break;
    case StageIndex: p.stageName = tr("Indexing"); break;
    case StageDone: p.stageName = tr("Finishing"); break;
    case kStageTimeline: p.stageName = tr("Building the timeline"); break;
    default: p.stageName = tr("Loading"); break;
  }
  return p;
}

void LoadController::onJobDone(quint64 gen, QFutureWatcher<std::shared_ptr<Outcome>>* w) {
  std::shared_ptr<Outcome> out = w ? w->result() : nullptr;
  if (w) w->deleteLater();
  if (w == watcher_) watcher_ = nullptr;
  if (gen != generation_) return;  // stale: a newer request replaced it
  running_ = false;
  poll_.stop();
  if (!out) {
    emit failed(tr("internal error: the load produced no result"), false, path_);
  } else if (out->ok) {
    emit finished(out->doc, path_);
  } else {
    emit failed(out->message, out->cancelled, path_);
  }
}

bool LoadController::waitForFinished(int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (running_) {
    if (t.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (running_ && watcher_ && watcher_->isFinished()) QCoreApplication::processEvents();
  }
  return true;
}

}  // namespace steadyscope::app
