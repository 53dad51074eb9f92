#pragma once
// The main window's frame: the welcome screen or the timeline in the centre,
// the dock panes around it, the menus, the toolbar and the status bar. What
// is open lives in the Document; each concern has its controller (opening,
// splitting, the gate's review, compare, export and report, find), whose long
// tasks run in the one JobSystem. The window builds the frame, keeps the panes
// in step with the document, and connects the controllers to the actions.
#include "app_settings.hpp"
#include "document.hpp"
#include "job_system.hpp"

#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include <memory>

class QComboBox;
class QLabel;
class QSplitter;
class QDockWidget;
class QLineEdit;
class QMenu;
class QStackedWidget;

namespace steadyscope::widgets {
class AbPanel;
class AnomaliesPanel;
class ChartsPanel;
class ChunksPanel;
class DetailsPanel;
class ExplanationPanel;
class FindPanel;
class JobView;
class SelectionModel;
class TimelineView;
class WelcomeWidget;
}  // namespace steadyscope::widgets

namespace steadyscope::app {

class CompareController;
class ExportController;
class FindController;
class JobController;
class OpenController;
class ReviewController;
class RunPanel;
class SplitController;
class StatusBar;

/// The window's panes and toolbar fields (owned by the window).
struct Panes {
  widgets::WelcomeWidget* welcome = nullptr;
  widgets::TimelineView* timeline = nullptr;
  widgets::TimelineView* timelineB = nullptr;  // the compared trace's, below A's while one is compared
  QLabel* timelineTitleA = nullptr;
  QLabel* timelineTitleB = nullptr;
  widgets::ChunksPanel* chunks = nullptr;
  widgets::ExplanationPanel* explanation = nullptr;
  widgets::DetailsPanel* details = nullptr;
  widgets::AnomaliesPanel* anomalies = nullptr;
  widgets::ChartsPanel* charts = nullptr;
  widgets::AbPanel* ab = nullptr;
  widgets::FindPanel* find = nullptr;
  widgets::JobView* job = nullptr;
  RunPanel* run = nullptr;
  QComboBox* results = nullptr;
  QLineEdit* findEdit = nullptr;
  QLineEdit* laneFilter = nullptr;
};

/// The window's controllers, one per concern.
struct Controllers {
  OpenController* open = nullptr;
  SplitController* split = nullptr;
  ReviewController* review = nullptr;
  CompareController* compare = nullptr;
  ExportController* exporting = nullptr;
  FindController* find = nullptr;
  JobController* job = nullptr;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(std::unique_ptr<AppSettings> settings = nullptr, QWidget* parent = nullptr);
  ~MainWindow() override;

  const Document& document() const { return *doc_; }
  JobSystem* jobs() const { return jobs_; }
  const Controllers& controllers() const { return c_; }
  const Panes& panes() const { return panes_; }
  widgets::SelectionModel* selection() const { return selection_; }
  AppSettings* settings() const { return settings_.get(); }

  QString statusText() const;   // the permanent status bar fields, joined
  QString messageText() const;  // the transient status message
  QMessageBox* errorBox() const { return errorBox_; }
  bool isWelcomeShown() const;
  /// The Job view is in the centre (the docks hidden).
  bool isJobViewShown() const;
  /// No load, split, gate review, compare or report is running.
  bool isIdle() const { return jobs_->isIdle(); }
  /// Runs the event loop until every job has ended (headless runs); false on timeout.
  bool waitForJobs(int timeoutMs = 600000) { return jobs_->waitForIdle(timeoutMs); }
  /// Brings a bottom tab to the front: "chunks", "anomalies", "charts" or "ab".
  bool raiseDock(const QString& name);
  /// Shows the window as it was last closed; the first time, maximised.
  void showAsLastClosed();

 public slots:
  void openFile(const QString& path);
  /// Several traces open as a job; one path as openFile (a folder: a job, else a split directory).
  void openPaths(const QStringList& paths);
  /// Brings the Job view back to the centre (View ▸ Job view).
  void showJobView();
  /// File ▸ Settings: the memory budget for ranks, the trace cache (applied on OK).
  void showSettings();
  void openSample();
  void runSplit();
  /// View ▸ Reset layout: every dock back in its first place, the timeline given the room.
  void resetLayout();

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void createPanes();
  void createDocks();
  /// The docks' first sizes for the window's size now: the timeline keeps most of the width.
  void applyDefaultDockSizes();
  void createFileMenu();
  void createViewMenu();
  void createSplitMenus();
  void createCompareMenu();
  void createToolBar();
  void createControllers();
  /// The settings' memory budget and trace cache, given to the controllers.
  void applySettings();
  void bindDocument();
  void bindControllers();
  void showError(const QString& title, const QString& message);
  void offerPartialOpen(const QString& path, const QString& message);
  void updateRecentMenu(const QStringList& files);
  void updateTitle();
  void updateResultBox();
  void updateChunkActions();
  void raiseAb();
  /// B's timeline shows the compared trace (hidden when there is none or it is a split directory).
  void showComparedTimeline();
  void openDirectory(const QString& dir);
  /// The centre shows `w`; the docks are hidden while it is the Job view and come back after.
  void showCentre(QWidget* w);

  std::unique_ptr<AppSettings> settings_;
  Document* doc_;
  JobSystem* jobs_;
  widgets::SelectionModel* selection_;
  Controllers c_;
  Panes panes_;
  StatusBar* status_ = nullptr;
  QStackedWidget* centre_ = nullptr;
  QSplitter* timelines_ = nullptr;  // the centre's timeline page: A's timeline, and B's below it
  QWidget* timelineBoxB_ = nullptr;
  QDockWidget* abDock_ = nullptr;
  QList<QDockWidget*> docks_;
  QByteArray defaultState_;
  bool fitDocksOnShow_ = false;  // no saved layout: size the docks once the window has its size
  QMenu* recentMenu_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* openDirAction_ = nullptr;
  QAction* runSplitAction_ = nullptr;
  QAction* compareWithAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* reportAction_ = nullptr;
  QAction* jobViewAction_ = nullptr;
  QList<QDockWidget*> hiddenDocks_;  // the docks the Job view hid
  QPointer<QMessageBox> errorBox_;
};

}  // namespace steadyscope::app
