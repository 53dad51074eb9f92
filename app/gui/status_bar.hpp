#pragma once
// The window's status bar: the open trace, its event and anomaly counts, what
// the split found, a transient message, and the job the job system shows with
// its stage, progress and Cancel. It reads the document and the job system.
#include "document.hpp"
#include "job_system.hpp"

#include <QObject>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;
class QTimer;

namespace steadyscope::app {

class StatusBar : public QObject {
  Q_OBJECT
 public:
  StatusBar(QStatusBar* bar, const Document* doc, JobSystem* jobs);

  /// The permanent fields, joined.
  QString statusText() const;
  /// The transient message.
  QString messageText() const;
  /// Whether a job is shown (Esc cancels it).
  bool showsJob() const;

 public slots:
  /// A transient message next to the permanent fields (QStatusBar::showMessage would hide them).
  void flash(const QString& text, int ms = 5000);
  void update();

 signals:
  void cancelRequested();

 private:
  void showJobs();
  void showTrace();

  const Document* doc_;
  JobSystem* jobs_;
  QLabel* file_;
  QLabel* events_;
  QLabel* anomalies_;
  QLabel* split_;
  QLabel* message_;
  QTimer* messageTimer_;
  QLabel* progressLabel_;
  QProgressBar* progress_;
  QPushButton* cancel_;
};

}  // namespace steadyscope::app
