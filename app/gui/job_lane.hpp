#pragma once
// One lane of the window's job system (job_system.hpp): runs one kind of core
// job (a load, a split, a gate review …) on a background thread and hands its
// result to the GUI thread. One job is current per lane: starting another
// supersedes it, cancel() ends it at once for the window, and the generation
// counter drops whatever a superseded or cancelled job still returns, so a
// stale result never reaches the window. A dropped result is destroyed off the
// GUI thread (a big trace's columns take long to free). Progress is read from
// the job's JobControl on a ~30 Hz timer (no callbacks from the job thread).
#include <steadyscope/common.hpp>

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace steadyscope::app {

/// What a job's work gets: the JobControl core jobs read, and the same cancel
/// as a plain flag for core calls that take one (buildTimelineIndex).
struct JobContext {
  JobControl control;
  std::atomic<bool> cancelFlag{false};
  void requestCancel() {
    control.requestCancel();
    cancelFlag.store(true, std::memory_order_relaxed);
  }
};

struct JobProgress {
  QString title;  // "Opening x.json.gz", "Splitting x", "Reviewing dir"
  QString stage;  // the stage's words (JobControl::stageName, or a job's own)
  quint64 doneBytes = 0, totalBytes = 0, events = 0;
  bool complete = false;  // the job's last stage: show a full bar
};

/// Destroys `garbage` on a background thread (never the caller's): for values
/// whose destructor may take long, such as a trace's columns.
void disposeOffGuiThread(std::shared_ptr<const void> garbage);
/// Gives freed memory back to the system (releaseFreedMemory) on the same
/// thread, once the values handed to disposeOffGuiThread before are destroyed.
void releaseMemoryOffGuiThread();
/// Returns once every value handed to disposeOffGuiThread (and every release) is done.
void waitForDisposals();

class JobLane : public QObject {
  Q_OBJECT
 public:
  /// Words for the current stage of a job (default: JobControl::stageName()).
  using StageText = std::function<JobProgress(const JobControl&)>;

  explicit JobLane(QObject* parent = nullptr);
  ~JobLane() override;  // cancels, then waits for the job threads to return

  /// Runs `work` on a job thread; `done` gets its value on the GUI thread if
  /// the job is still current then. `work` returns nullopt when it stopped
  /// because it was cancelled. Supersedes the current job.
  template <class T>
  void start(const QString& title, std::function<std::optional<T>(JobContext&)> work, std::function<void(T)> done,
             StageText stageText = {});

  /// Ends the current job for the window (its result will be dropped) and
  /// asks it to stop; emits cancelled() and finished(). No-op when idle.
  void cancel();
  /// The same without cancelled(): a job made pointless by something else.
  void discard();
  /// Asks the current job to stop but still delivers what it returns: a job
  /// whose last step cannot be undone (an export's renames) reports what it did.
  void requestStop();

  bool isRunning() const { return running_; }
  quint64 generation() const { return generation_; }
  JobProgress progress() const;
  qint64 elapsedMs() const { return running_ ? clock_.elapsed() : 0; }

  /// Job threads that have not returned yet (current, superseded, cancelled).
  int inFlight() const { return inFlight_; }
  /// Jobs whose work returned nullopt (stopped on cancel) so far.
  quint64 stoppedJobs() const { return stopped_; }
  /// Results dropped because their job was superseded or cancelled (each freed off the GUI thread).
  quint64 droppedResults() const { return dropped_; }

  /// Installed on the JobControl of the next job only; runs on its thread at
  /// every JobControl::enterStage (tests hold a job at a stage with it).
  void setStageObserverForTests(std::function<void(std::string_view)> f) { nextObserver_ = std::move(f); }

 signals:
  void started();
  void progressChanged();
  void cancelled();
  /// The current job ended (delivered, stopped, cancelled or superseded).
  void finished();

 private:
  /// A job's result, type-erased: `deliver` hands it to `done` on the GUI thread.
  struct Outcome {
    std::shared_ptr<void> value;  // null: the work stopped on a cancel
    std::function<void(std::shared_ptr<void>)> deliver;
  };
  void launch(const QString& title, std::function<Outcome(JobContext&)> job, StageText stageText);
  void arrive(quint64 gen, Outcome out, bool stopped, bool droppedOnJobThread);
  void end(bool userCancel);

  QThreadPool pool_;
  QTimer poll_;
  QElapsedTimer clock_;
  std::shared_ptr<JobContext> current_;
  StageText stageText_;
  QString title_;
  std::function<void(std::string_view)> nextObserver_;
  quint64 generation_ = 0;
  std::shared_ptr<std::atomic<quint64>> liveGeneration_ = std::make_shared<std::atomic<quint64>>(0);
  quint64 stopped_ = 0;
  quint64 dropped_ = 0;
  int inFlight_ = 0;
  bool running_ = false;
};

template <class T>
void JobLane::start(const QString& title, std::function<std::optional<T>(JobContext&)> work,
                    std::function<void(T)> done, StageText stageText) {
  launch(
      title,
      [work = std::move(work), done = std::move(done)](JobContext& ctx) -> Outcome {
        std::optional<T> r = work(ctx);
        if (!r) return {};
        return {std::make_shared<T>(std::move(*r)),
                [done](std::shared_ptr<void> v) { done(std::move(*static_cast<T*>(v.get()))); }};
      },
      std::move(stageText));
}

}  // namespace steadyscope::app
