#pragma once
// The main window: welcome screen or timeline in the centre, dock panes
// around it (chunks, explanation, details, anomalies, charts), actions and
// menus, find, recent files, drag and drop, settings. Loads, splits and gate
// reviews run in JobRunners (one per kind); the status bar shows the running
// job's stage and progress with Cancel (Esc cancels too).
#include "ab_sides.hpp"
#include "app_settings.hpp"
#include "gate_adapter.hpp"
#include "job_runner.hpp"
#include "load_job.hpp"
#include "run_panel.hpp"
#include "split_adapter.hpp"
#include "split_directory.hpp"

#include "common/selection_model.hpp"
#include "common/trace_document.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/core/timeline/find.hpp>

#include <QMainWindow>
#include <QPointer>
#include <QRegularExpression>

#include <array>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QDockWidget;
class QMenu;
class QComboBox;
class QSpinBox;
class QDoubleSpinBox;
class QMessageBox;
class QTimer;

namespace steadyscope::widgets {
class TimelineView;
class WelcomeWidget;
class AnomaliesPanel;
class DetailsPanel;
class ChunksPanel;
class ExplanationPanel;
class ChartsPanel;
class AbPanel;
class FindPanel;
}  // namespace steadyscope::widgets

namespace steadyscope::app {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(std::unique_ptr<AppSettings> settings = nullptr, QWidget* parent = nullptr);
  ~MainWindow() override;

  // State for tests and the headless screenshot.
  const widgets::TraceDocument& document() const { return doc_; }
  QString currentPath() const { return path_; }
  QString lastError() const { return lastError_; }
  QMessageBox* errorBox() const;  // the open error message, if any
  QString statusText() const;     // the permanent status bar fields, joined
  QString messageText() const;    // the transient status message
  bool isWelcomeShown() const;
  JobRunner* loads() const { return loads_; }
  JobRunner* splits() const { return splits_; }
  JobRunner* reviews() const { return reviews_; }
  JobRunner* exports() const { return exports_; }
  /// No load, split or gate review is running.
  bool isIdle() const;
  /// Runs the event loop until every job has ended (the headless screenshot);
  /// false on timeout.
  bool waitForJobs(int timeoutMs = 600000);
  AppSettings* settings() const { return settings_.get(); }
  widgets::TimelineView* timeline() const { return timeline_; }
  widgets::WelcomeWidget* welcome() const { return welcome_; }
  widgets::AnomaliesPanel* anomaliesPanel() const { return anomalies_; }
  widgets::DetailsPanel* detailsPanel() const { return details_; }
  widgets::ChunksPanel* chunksPanel() const { return chunks_; }
  widgets::ExplanationPanel* explanationPanel() const { return explanation_; }
  widgets::ChartsPanel* chartsPanel() const { return charts_; }
  widgets::AbPanel* abPanel() const { return ab_; }
  JobRunner* compares() const { return compares_; }
  /// The trace compared with the open one (File ▸ Compare with…), or null.
  const ComparedTrace* compared() const { return compared_.get(); }
  /// The A/B pane's sides (index 0: A, 1: B).
  const std::optional<AbPick>& side(int i) const { return sides_[i]; }
  widgets::SelectionModel* selection() const { return selection_; }
  QLineEdit* findEdit() const { return findEdit_; }
  int findMatchCount() const { return found_ ? int(found_->events.size()) : 0; }
  widgets::FindPanel* findPanel() const { return findPanel_; }
  QLineEdit* laneFilterEdit() const { return laneFilter_; }
  int findCurrent() const { return matchPos_; }

  /// Selects the chunk of a mode ("mixed", "decode_only", "prefilldecode",
  /// "generic") and zooms to it; false if there is none.
  bool selectMode(const QString& mode);

  /// The split seam: overlays and chunk rows; the status bar shows steps and
  /// root tier.
  void setSplitResult(std::shared_ptr<const timeline::TimelineOverlays> overlays, QVector<widgets::ChunkRow> chunks,
                      const QString& rootTier);

  /// The gate seam: what the gate reads for the rows shown (a live split or a
  /// split directory). Re-gates in the review runner: verdicts in the chunk
  /// table, the selected chunk's (or the requested mode's) explanation.
  void setGateSource(std::shared_ptr<const GateSource> source);
  const GateSource* gateSource() const { return gate_.get(); }
  /// The gate's result shown in the Explanation pane (nullopt: none).
  const std::optional<gate::GateResult>& shownGate() const { return shownGate_; }
  QDoubleSpinBox* thresholdBox() const { return run_->thresholdBox(); }
  RunPanel* runPanel() const { return run_; }

  /// The results the window holds (a split directory's review, each Run split),
  /// one shown at a time; a new split is added, never put in place of a review.
  struct Result {
    QString title;
    std::shared_ptr<const timeline::TimelineOverlays> overlays;
    QVector<widgets::ChunkRow> rows;
    std::shared_ptr<const GateSource> gate;
    QString splitDir;  // a directory review
    QString rootTier;
    // The split that made the rows (a directory review: the re-plan that placed
    // them on its source); what Export and "Copy as command" reproduce.
    std::optional<analysis::SplitOptions> options;
    std::shared_ptr<PlannedSplit> planned;  // that split's splitter and plan: Export reuses them
  };
  const std::vector<Result>& results() const { return results_; }
  int currentResult() const { return current_; }
  void showResult(int index);
  QComboBox* resultBox() const { return resultCombo_; }
  QComboBox* modeBox() const { return run_->modeBox(); }

  /// The `steadyscope-cli split … && steadyscope-cli gate …` line that
  /// reproduces the shown result with the Run panel's gate options, the
  /// chunks written to `outDir` (empty: "<trace name>_split" in the current
  /// directory). Empty when nothing is split yet.
  QString commandLine(const QString& outDir = {}) const;
  /// commandLine() on the clipboard.
  void copyCommand();

 public slots:
  void openFile(const QString& path);
  /// Opens the complete events of a file that ends early, marked partial.
  void openPartially(const QString& path);
  void openSplitDirectory(const QString& dir, const QString& sourceTrace = {});
  void openDialog();
  void openSplitDirectoryDialog();
  void openSample();
  void closeTrace();
  void cancelJobs();  // every running job; the previous trace and panes stay
  void findNext();
  void findPrevious();
  void runSplit();  // a new result with the Run panel's options
  /// Marks and selects steps (the ruler's numbers) and shows them: a finding's link.
  void showSteps(const QVector<int>& steps);
  /// Chunk ▸ Export…: the export dialog on the selected chunk (window-modal).
  void exportSelectedChunk();
  /// Chunk ▸ Save report…: asks for OUT.pdf, writes OUT.pdf and OUT.png.
  void saveReportDialog();
  /// File ▸ Compare with…: a second trace (split with the Run panel's options) or
  /// a split directory; its chunks join the chunk table under its name.
  void compareWith(const QString& path);
  void compareWithDialog();
  void compareWithDirectoryDialog();
  void stopComparing();
  /// Compare ▸ Compare the two selected chunks (Ctrl+B): the first row is A. False (and says why) unless two rows.
  bool compareSelectedRows();
  /// Compare ▸ Use the selection as A (0) or B (1): the chunk, step or range picked last.
  bool useSelectionAs(int side);
  /// A/B of the chunk table's model rows `a` and `b` (either trace's); false (and says why) when one has no window.
  bool compareRows(int a, int b);
  /// A/B of `mode`'s chunk of the open trace against the compared trace's (the headless --compare).
  bool compareModes(const QString& mode);
  /// Brings a bottom tab to the front: "chunks", "anomalies", "charts" or "ab".
  bool raiseDock(const QString& name);

 public:
  /// Why Export and the report are unavailable now, in words ("": they are available).
  QString exportBlocker() const;
  /// Writes the report of the selected chunk: OUT.pdf and beside it OUT.png, the
  /// timeline view at `pngSize`. "" on success, else the reason.
  QString saveReport(const QString& pdfPath, QSize pngSize);
  /// The timeline view as it is shown, rendered at `size` (the report's PNG, Copy image).
  QImage timelineImage(QSize size);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  void createActions();
  void createFileActions();
  void createViewActions();
  void createSplitActions();
  void createFindActions();
  void createHelpActions();
  void createCompareActions();
  void addCompareFileActions(QMenu* file);
  QDockWidget* createAbDock();
  QString shownName() const;
  std::optional<AbPick> pickOfModelRow(int row) const;
  std::optional<AbPick> pickOfSelection() const;
  void showComparison();
  void onCompared(const ComparedOutcome& out);
  void releaseStalePicks();
  /// Every job runner whose work the status bar shows and Cancel stops.
  std::array<JobRunner*, 4> runners() const { return {loads_, splits_, reviews_, compares_}; }
  void createToolBar();
  void createDocks();
  void createStatusBar();
  void connectRunners();
  void updateRecentMenu();
  void updateStatus();
  void updateTitle();
  void onLoaded(const LoadOutcome& out, const QString& path);
  void startSplit(bool replaceShown);
  void rerunLive();
  void onSplit(const SplitView& v, const TracePtr& trace, const analysis::SplitOptions& options, bool replaceShown);
  void onReviewed(const GateReview& r, quint64 rowsGeneration);
  void onCancelled(JobRunner* runner);
  void showJobs();
  void showError(const QString& title, const QString& message);
  QMessageBox* newErrorBox(const QString& title, const QString& message);
  void offerPartialOpen(const QString& path, const QString& message);
  void startLoad(const QString& path, bool allowPartial);
  /// True (and says why) when the open trace was read only in part: `what` needs the whole trace.
  bool refusePartial(const QString& what);
  void addWindowFigures(QVector<widgets::ChunkRow>& rows) const;
  void publish(const widgets::TraceDocument& doc);
  void flash(const QString& text, int ms = 5000);
  void regate();
  void selectRequestedOnce();
  void storeResult();
  void addResult(Result r);
  void updateResultBox();
  void locateDirectory();
  void onPlaced(const DirectoryPlacement& placement);
  // The timeline's menu, docks and find (main_window_timeline.cpp).
  void createTimelineActions(QMenu* view);
  void createTimelineDocks();
  void clearFind();
  void rebuildMatches();
  void showMatch();
  void showNextMatchOf(quint32 name);
  void updateChunkActions();

  std::unique_ptr<AppSettings> settings_;
  JobRunner* loads_ = nullptr;
  JobRunner* splits_ = nullptr;
  JobRunner* reviews_ = nullptr;
  JobRunner* exports_ = nullptr;
  JobRunner* compares_ = nullptr;
  QString loadingPath_;
  QString reviewDir_;
  JobRunner* shownJob_ = nullptr;  // the job the status bar shows (Esc cancels it)
  quint64 rowsGeneration_ = 0;     // bumped whenever the chunk table gets new rows
  bool selectRequested_ = false;   // new rows: select the requested mode's once its verdicts are in
  widgets::SelectionModel* selection_;
  widgets::TraceDocument doc_;
  QString path_;
  QString lastError_;
  QString splitDir_;
  QString rootTier_;

  QStackedWidget* centre_ = nullptr;
  widgets::WelcomeWidget* welcome_ = nullptr;
  widgets::TimelineView* timeline_ = nullptr;
  widgets::AnomaliesPanel* anomalies_ = nullptr;
  widgets::DetailsPanel* details_ = nullptr;
  widgets::ChunksPanel* chunks_ = nullptr;
  widgets::ExplanationPanel* explanation_ = nullptr;
  widgets::ChartsPanel* charts_ = nullptr;
  widgets::AbPanel* ab_ = nullptr;
  QDockWidget* abDock_ = nullptr;
  QList<QDockWidget*> docks_;
  QByteArray defaultState_;

  QMenu* recentMenu_ = nullptr;
  QLineEdit* findEdit_ = nullptr;
  RunPanel* run_ = nullptr;
  QTimer* rerunTimer_ = nullptr;  // a split option changed: re-run the shown split once the user pauses
  QAction* openAction_ = nullptr;
  QAction* openDirAction_ = nullptr;
  QAction* closeAction_ = nullptr;
  QAction* runSplitAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* reportAction_ = nullptr;
  QAction* compareWithAction_ = nullptr;

  QLabel* fileLabel_ = nullptr;
  QLabel* eventsLabel_ = nullptr;
  QLabel* anomaliesLabel_ = nullptr;
  QLabel* splitLabel_ = nullptr;
  QLabel* messageLabel_ = nullptr;
  QTimer* messageTimer_ = nullptr;
  QLabel* progressLabel_ = nullptr;
  QProgressBar* progressBar_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QPointer<QMessageBox> errorBox_;

  std::vector<Result> results_;
  int current_ = -1;
  QComboBox* resultCombo_ = nullptr;
  TracePtr locatedFor_;  // the source trace the directory's rows were placed on
  std::shared_ptr<const GateSource> gate_;
  std::optional<gate::GateResult> shownGate_;

  // A/B: the sides shown, the compared trace, and which part of the selection was picked last.
  std::optional<AbPick> sides_[2];
  std::shared_ptr<const ComparedTrace> compared_;
  enum class Picked { None, Chunk, Step, Range, Compared } picked_ = Picked::None;
  int pickedCompared_ = -1;

  QRegularExpression findPattern_;
  std::shared_ptr<const timeline::FindResults> found_;
  int matchPos_ = -1;
  widgets::FindPanel* findPanel_ = nullptr;
  QLineEdit* laneFilter_ = nullptr;
};

}  // namespace steadyscope::app
