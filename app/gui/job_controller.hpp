#pragma once
// The Job view's controller: opening several rank traces at once, a folder of
// them or a many-rank split's summary.tsv (the Job lane: every rank's row in
// parallel within the CPUs and memory, progress, Esc cancels), a rank's
// timeline on request (loaded then, through the open path), and two ranks
// compared with the A/B: the first opened and split, the second loaded as the
// compared trace, then their picked chunks side by side.
#include "controller.hpp"
#include "job_adapter.hpp"

namespace steadyscope::app {

class CompareController;
class SplitController;

class JobController : public Controller {
  Q_OBJECT
 public:
  JobController(Document* doc, JobSystem* jobs, SplitController* split, CompareController* compare,
                QObject* parent = nullptr);

  /// True when `dir` is a job (summary.tsv, or rank traces and no split files) and its opening started.
  bool openDirectory(const QString& dir);
  /// At most this many bytes for the ranks loading together (0: the free memory; the setting).
  void setMemoryBudget(quint64 bytes) { memoryBudget_ = bytes; }
  /// Ranks load through this trace cache (null: parse every time).
  void setTraceCache(std::shared_ptr<TraceCache> cache) { cache_ = std::move(cache); }
  /// Two ranks are being opened and split to be compared.
  bool isComparing() const { return pending_.has_value(); }

 public slots:
  void openRanks(const QStringList& paths);
  void openSummary(const QString& path);
  /// Opens the timeline of the job's rank at `position` (in Document::job().ranks).
  void openRank(int position);
  /// A/B of two ranks' picked chunks (positions in Document::job().ranks).
  void compareRanks(int positionA, int positionB);

 signals:
  /// A trace to open through the window's open path (OpenController::openFile).
  void traceRequested(const QString& path);

 private:
  void onJob(const JobOutcome& out, const QString& what);
  void advanceCompare();
  void stopCompare(const QString& why);

  SplitController* split_;
  CompareController* compare_;
  struct PendingCompare {
    QString a, b, mode;
    enum class Step { Opening, Splitting, Comparing } step = Step::Opening;
  };
  std::optional<PendingCompare> pending_;
  QString opening_;
  quint64 memoryBudget_ = 0;
  std::shared_ptr<TraceCache> cache_;
};

}  // namespace steadyscope::app
