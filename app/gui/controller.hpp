#pragma once
// What every controller of the window shares: the document it changes, the
// job system its long tasks run in, and the two ways it speaks to the user
// (a transient status message, an error box). The window shows both.
#include "document.hpp"
#include "job_system.hpp"

#include <QObject>
#include <QString>

namespace steadyscope::app {

class Controller : public QObject {
  Q_OBJECT
 public:
  Controller(Document* doc, JobSystem* jobs, QObject* parent = nullptr) : QObject(parent), doc_(doc), jobs_(jobs) {}

 signals:
  /// A transient message in the status bar, for `ms`.
  void message(const QString& text, int ms);
  /// A problem worth a (window-modal, non-blocking) message box.
  void problem(const QString& title, const QString& text);

 protected:
  JobLane* lane(JobKind k) const { return jobs_->lane(k); }
  /// Records `text` as the last error and shows it in the status bar.
  void fail(const QString& text, int ms = 8000) {
    doc_->setLastError(text);
    emit message(text, ms);
  }
  /// True (and says why) when the open trace was read only in part: `what` needs the whole trace.
  bool refusePartial(const QString& what) {
    if (!doc_->isPartial()) return false;
    fail(tr("%1 needs the whole trace: %2 was read only in part (%3).")
             .arg(what, doc_->fileName(), QString::fromStdString(doc_->trace()->partial->reason)));
    return true;
  }

  Document* doc_;
  JobSystem* jobs_;
};

}  // namespace steadyscope::app
