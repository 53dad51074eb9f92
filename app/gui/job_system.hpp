#pragma once
// The window's one job system: every long task (load, split, gate review,
// compare, export, report, a job's ranks) runs through it, on the lane of its kind. Kinds
// that may run at once have lanes of their own (a review runs while the next
// load does); within a lane a new job supersedes the current one. The status
// bar shows the lane shownLane() names, and Esc / Cancel stop every lane.
#include "job_lane.hpp"

#include <QObject>

#include <array>

namespace steadyscope::app {

enum class JobKind { Load, Split, Review, Compare, Export, Report, Job };
inline constexpr int kJobKinds = 7;

class JobSystem : public QObject {
  Q_OBJECT
 public:
  explicit JobSystem(QObject* parent = nullptr);

  JobLane* lane(JobKind k) const { return lanes_[size_t(k)]; }
  /// No load, split, review, compare or report is running (an export is its dialog's).
  bool isIdle() const;
  /// Cancels every lane's job but an export's (the export dialog cancels its own).
  void cancelAll();
  /// Drops every lane's job without a "cancelled" message (a closed trace).
  void discardAll();
  /// The job the status bar shows: a load, else a split, else a review that
  /// has run long enough to be worth showing (most take ms), a compare, a report.
  JobLane* shownLane() const;
  /// Runs the event loop until no job runs (headless and benchmark runs); false on timeout.
  bool waitForIdle(int timeoutMs = 600000);

 signals:
  /// A job started, made progress or ended, in any lane.
  void changed();
  /// A lane's job was cancelled by the user.
  void cancelled(steadyscope::app::JobKind kind);

 private:
  std::array<JobLane*, kJobKinds> lanes_{};
};

}  // namespace steadyscope::app
