#pragma once
// Runs core jobs (load + timeline index) on a worker thread and reports
// progress, results and errors on the GUI thread. A new request makes older
// ones stale (generation counter, style-anchors §3.7): their results are
// dropped silently. Progress is polled from the core's atomics at ~30 Hz.
#include "common/trace_document.hpp"

#include <steadyscope/core/util/progress.hpp>

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>

namespace steadyscope::app {

struct LoadProgress {
  int stage = 0;  // LoadStage, or kStageTimeline while indexing
  quint64 doneBytes = 0, totalBytes = 0, events = 0;
  QString stageName;
};

class LoadController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kStageTimeline = 100;
  explicit LoadController(QObject* parent = nullptr);
  ~LoadController() override;

  /// Starts loading `path`, cancelling any load in progress.
  void start(const QString& path);
  bool isRunning() const { return running_; }
  QString currentPath() const { return path_; }
  quint64 generation() const { return generation_; }
  LoadProgress progress() const;
  /// Blocks (running the event loop) until the current load ends. For the
  /// headless screenshot and tests. Returns false on timeout.
  bool waitForFinished(int timeoutMs = 600000);

 public slots:
  void cancel();

 signals:
  void started(const QString& path);
  void progressChanged(const steadyscope::app::LoadProgress& p);
  void finished(const steadyscope::widgets::TraceDocument& doc, const QString& path);
  /// `cancelled` is true when the user cancelled; `message` is the loader's.
  void failed(const QString& message, bool cancelled, const QString& path);

 private:
  struct Outcome;
  struct Job {
    quint64 generation = 0;
    std::shared_ptr<JobControl> control;
    std::shared_ptr<std::atomic<bool>> cancelIndex;
    std::shared_ptr<std::atomic<int>> phase;  // 0 loading, 1 indexing
  };
  void onJobDone(quint64 generation, QFutureWatcher<std::shared_ptr<Outcome>>* w);

  QTimer poll_;
  Job job_;
  QFutureWatcher<std::shared_ptr<Outcome>>* watcher_ = nullptr;
  quint64 generation_ = 0;
  bool running_ = false;
  QString path_;
};

}  // namespace steadyscope::app
