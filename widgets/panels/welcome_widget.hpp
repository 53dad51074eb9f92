#pragma once
// The empty state: what to do when no trace is open.
#include <QStringList>
#include <QWidget>

class QListWidget;
class QPushButton;
class QLabel;

namespace steadyscope::widgets {

class WelcomeWidget : public QWidget {
  Q_OBJECT
 public:
  explicit WelcomeWidget(QWidget* parent = nullptr);
  void setRecentFiles(const QStringList& files);
  /// Empty path or a missing file disables "Open the sample" with a reason.
  void setSamplePath(const QString& path);
  QPushButton* openTraceButton() const { return openTrace_; }
  QPushButton* openSplitDirButton() const { return openSplitDir_; }
  QPushButton* openSampleButton() const { return openSample_; }
  QListWidget* recentList() const { return recent_; }

 signals:
  void openTraceRequested();
  void openSplitDirRequested();
  void openSampleRequested();
  void openRecentRequested(const QString& path);

 private:
  QPushButton* openTrace_ = nullptr;
  QPushButton* openSplitDir_ = nullptr;
  QPushButton* openSample_ = nullptr;
  QListWidget* recent_ = nullptr;
  QLabel* recentTitle_ = nullptr;
};

}  // namespace steadyscope::widgets
