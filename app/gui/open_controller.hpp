#pragma once
// Opening and closing: a trace (whole, or the complete part of one that ends
// early), the bundled sample, the recent files; the load runs on the job
// system's Load lane and its document replaces the open one only on success.
// A directory given to openFile is handed on (directoryRequested).
#include "app_settings.hpp"
#include "controller.hpp"
#include "load_job.hpp"

namespace steadyscope::widgets {
class SelectionModel;
}

namespace steadyscope::app {

class OpenController : public Controller {
  Q_OBJECT
 public:
  OpenController(Document* doc, JobSystem* jobs, AppSettings* settings, widgets::SelectionModel* selection,
                 QObject* parent = nullptr);

  /// The folder file dialogs start in (the open trace's).
  QString startFolder() const;

 public slots:
  void openFile(const QString& path);
  /// Opens the complete events of a file that ends early, marked partial.
  void openPartially(const QString& path);
  void openSample();
  /// Closes the trace, its results and the compared trace; drops their jobs.
  void closeTrace();
  void clearRecentFiles();
  /// Loads from now on read back and store models here (null: parse every time).
  void setTraceCache(std::shared_ptr<TraceCache> cache) { cache_ = std::move(cache); }

 signals:
  void directoryRequested(const QString& dir);
  /// A file that ends early: the window offers to open the part that was read.
  void partialOpenOffered(const QString& path, const QString& message);
  void recentFilesChanged(const QStringList& files);

 private:
  void startLoad(const QString& path, bool allowPartial);
  void onLoaded(const LoadOutcome& out, const QString& path);

  AppSettings* settings_;
  widgets::SelectionModel* selection_;
  QString loadingPath_;
  std::shared_ptr<TraceCache> cache_;
};

}  // namespace steadyscope::app
