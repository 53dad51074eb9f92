#include "main_window.hpp"

#include "about_dialog.hpp"
#include "compare_controller.hpp"
#include "export_controller.hpp"
#include "find_controller.hpp"
#include "job_controller.hpp"
#include "open_controller.hpp"
#include "review_controller.hpp"
#include "run_panel.hpp"
#include "settings_dialog.hpp"
#include "split_controller.hpp"
#include "status_bar.hpp"
#include "theme.hpp"

#include "common/selection_model.hpp"
#include "panels/ab_panel.hpp"
#include "panels/anomalies_panel.hpp"
#include "panels/charts_panel.hpp"
#include "panels/chunks_panel.hpp"
#include "panels/details_panel.hpp"
#include "panels/explanation_panel.hpp"
#include "panels/find_panel.hpp"
#include "panels/job_view.hpp"
#include "panels/welcome_widget.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/common.hpp>

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#ifndef STEADYSCOPE_SAMPLE_TRACE
#define STEADYSCOPE_SAMPLE_TRACE ""
#endif

namespace steadyscope::app {

namespace {
// A timeline with a one-line title above it (hidden until two traces are compared).
QWidget* titledTimeline(QWidget* parent, QLabel*& title, widgets::TimelineView* view) {
  auto* box = new QWidget(parent);
  auto* l = new QVBoxLayout(box);
  l->setContentsMargins(0, 0, 0, 0);
  l->setSpacing(0);
  title = new QLabel(box);
  title->setContentsMargins(6, 2, 6, 2);
  title->hide();
  l->addWidget(title);
  l->addWidget(view, 1);
  return box;
}
}  // namespace

MainWindow::MainWindow(std::unique_ptr<AppSettings> settings, QWidget* parent)
    : QMainWindow(parent),
      settings_(settings ? std::move(settings) : std::make_unique<AppSettings>()),
      doc_(new Document(this)),
      jobs_(new JobSystem(this)),
      selection_(new widgets::SelectionModel(this)) {
  tuneAllocatorForLongUse();  // a window opens and closes traces for hours
  setObjectName(QStringLiteral("MainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/steadyscope.svg")));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  createPanes();
  createDocks();
  bindDocument();  // before the controllers: the panes follow a change first, then the controllers react to it
  createControllers();
  createFileMenu();
  createViewMenu();
  createSplitMenus();
  createCompareMenu();
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), this, [this] { showShortcuts(this); });
  help->addAction(tr("&About Steadyscope"), this, [this] { AboutDialog(this).exec(); });
  createToolBar();
  status_ = new StatusBar(statusBar(), doc_, jobs_);
  connect(status_, &StatusBar::cancelRequested, jobs_, &JobSystem::cancelAll);
  bindControllers();

  resize(1600, 1000);  // un-maximised the first time; showAsLastClosed() maximises
  applyDefaultDockSizes();
  defaultState_ = saveState();
  if (!settings_->geometry().isEmpty()) restoreGeometry(settings_->geometry());
  fitDocksOnShow_ = settings_->windowState().isEmpty() || !restoreState(settings_->windowState());
  updateRecentMenu(settings_->recentFiles());
  status_->update();
  updateTitle();
  updateChunkActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createPanes() {
  centre_ = new QStackedWidget(this);
  panes_.welcome = new widgets::WelcomeWidget(centre_);
  panes_.welcome->setSamplePath(QStringLiteral(STEADYSCOPE_SAMPLE_TRACE));
  panes_.timeline = new widgets::TimelineView(centre_);
  panes_.timeline->setObjectName(QStringLiteral("timeline"));
  panes_.timeline->setSelectionModel(selection_);
  panes_.timelineB = new widgets::TimelineView(centre_);
  panes_.timelineB->setObjectName(QStringLiteral("timelineB"));  // its own selection: B's events are not A's
  timelines_ = new QSplitter(Qt::Vertical, centre_);
  timelines_->setObjectName(QStringLiteral("timelines"));
  timelines_->addWidget(titledTimeline(timelines_, panes_.timelineTitleA, panes_.timeline));
  timelineBoxB_ = titledTimeline(timelines_, panes_.timelineTitleB, panes_.timelineB);
  timelines_->addWidget(timelineBoxB_);
  panes_.timelineTitleB->show();
  timelineBoxB_->hide();
  panes_.job = new widgets::JobView(centre_);
  centre_->addWidget(panes_.welcome);
  centre_->addWidget(timelines_);
  centre_->addWidget(panes_.job);
  setCentralWidget(centre_);
  panes_.chunks = new widgets::ChunksPanel(this);
  panes_.chunks->setSelectionModel(selection_);
  panes_.explanation = new widgets::ExplanationPanel(this);
  panes_.details = new widgets::DetailsPanel(this);
  panes_.details->setSelectionModel(selection_);
  panes_.anomalies = new widgets::AnomaliesPanel(this);
  panes_.charts = new widgets::ChartsPanel(this);
  panes_.charts->setSelectionModel(selection_);
  panes_.ab = new widgets::AbPanel(this);
  panes_.ab->clear(
      tr("Select two chunks in the table and press Ctrl+B, or pick a chunk, step or range and "
         "choose Compare ▸ Use the selection as A, then another as B. "
         "Compare ▸ Compare with another trace… adds a second trace's chunks to the table."));
  panes_.find = new widgets::FindPanel(this);
  panes_.run = new RunPanel(this);
  panes_.laneFilter = new QLineEdit(this);
  panes_.laneFilter->setObjectName(QStringLiteral("laneFilter"));
  panes_.laneFilter->setPlaceholderText(tr("filter lanes…  Ctrl+L"));
  panes_.laneFilter->setClearButtonEnabled(true);
  panes_.laneFilter->setMaximumWidth(200);
  for (widgets::TimelineView* t : {panes_.timeline, panes_.timelineB})
    connect(panes_.laneFilter, &QLineEdit::textChanged, t, &widgets::TimelineView::setLaneFilter);
}

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    docks_ << d;
    return d;
  };
  QDockWidget* chunks = dock(tr("Chunks"), QStringLiteral("dock.chunks"), panes_.chunks, Qt::BottomDockWidgetArea);
  QDockWidget* anom =
      dock(tr("Anomalies"), QStringLiteral("dock.anomalies"), panes_.anomalies, Qt::BottomDockWidgetArea);
  QDockWidget* charts = dock(tr("Charts"), QStringLiteral("dock.charts"), panes_.charts, Qt::BottomDockWidgetArea);
  abDock_ = dock(tr("A/B"), QStringLiteral("dock.ab"), panes_.ab, Qt::BottomDockWidgetArea);
  QDockWidget* expl =
      dock(tr("Explanation"), QStringLiteral("dock.explanation"), panes_.explanation, Qt::RightDockWidgetArea);
  QDockWidget* details = dock(tr("Details"), QStringLiteral("dock.details"), panes_.details, Qt::RightDockWidgetArea);
  dock(tr("Run"), QStringLiteral("dock.run"), panes_.run, Qt::LeftDockWidgetArea);
  tabifyDockWidget(chunks, anom);
  tabifyDockWidget(anom, charts);
  tabifyDockWidget(charts, abDock_);
  chunks->raise();
  splitDockWidget(expl, details, Qt::Vertical);
  QDockWidget* find = dock(tr("Find results"), QStringLiteral("dock.find"), panes_.find, Qt::BottomDockWidgetArea);
  tabifyDockWidget(charts, find);
  chunks->raise();
  // A chosen range: the range statistics get the room (the explanation stays one drag away).
  connect(selection_, &widgets::SelectionModel::rangeChanged, this, [this, expl, details](qint64 b, qint64 e) {
    if (e > b && !details->isFloating()) resizeDocks({expl, details}, {160, 800}, Qt::Vertical);
  });
}

void MainWindow::applyDefaultDockSizes() {
  // Fixed widths for the side docks (their text wraps), so a wider window widens the timeline:
  // at 1920 px it keeps about two thirds of the width, at 1400 px over half.
  auto* run = findChild<QDockWidget*>(QStringLiteral("dock.run"));
  auto* expl = findChild<QDockWidget*>(QStringLiteral("dock.explanation"));
  auto* details = findChild<QDockWidget*>(QStringLiteral("dock.details"));
  auto* chunks = findChild<QDockWidget*>(QStringLiteral("dock.chunks"));
  const int w = width(), h = height();
  resizeDocks({run, expl}, {std::clamp(w / 7, 220, 280), std::clamp(w / 5, 300, 400)}, Qt::Horizontal);
  resizeDocks({expl, details}, {h * 2 / 3, h / 3}, Qt::Vertical);  // the explanation is the long one
  resizeDocks({chunks}, {std::clamp(h / 4, 200, 300)}, Qt::Vertical);
}

void MainWindow::resetLayout() {
  for (QDockWidget* d : std::exchange(hiddenDocks_, {})) d->show();
  restoreState(defaultState_);
  applyDefaultDockSizes();
  if (isJobViewShown()) showCentre(panes_.job);  // the Job view keeps the docks out of its way
}

void MainWindow::showAsLastClosed() {
  if (settings_->geometry().isEmpty())
    showMaximized();
  else
    show();  // restoreGeometry() kept whether it was maximised
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (!std::exchange(fitDocksOnShow_, false)) return;
  // A maximised window gets its size after the show: size the docks once it has settled.
  QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
}

void MainWindow::bindDocument() {
  const Document* d = doc_;
  connect(d, &Document::traceChanged, this, [this, d] {
    panes_.timeline->setDocument(d->view());
    panes_.anomalies->setTrace(d->trace());
    panes_.details->setDocument(d->view());
    panes_.charts->setDocument(d->view());
    if (*d)
      showCentre(panes_.timeline);
    else
      showCentre(d->job().empty() ? static_cast<QWidget*>(panes_.welcome) : panes_.job);
    panes_.chunks->model()->setTimeOrigin(*d ? d->index()->firstNs : 0);
    updateTitle();
  });
  connect(d, &Document::overlaysChanged, this, [this, d] {
    panes_.chunks->model()->setTimeOrigin(*d ? d->index()->firstNs : 0);
    panes_.timeline->setOverlays(d->overlays());
    panes_.details->setDocument(d->view());
    panes_.charts->setDocument(d->view());
  });
  // The chunk table, the details and the charts all show the document's rows.
  connect(d, &Document::rowsReset, this, [this, d] {
    panes_.chunks->setChunks(d->rows());
    panes_.details->setChunks(d->rows());
    panes_.charts->setChunks(d->rows());
  });
  connect(d, &Document::rowsUpdated, this, [this, d] {
    panes_.chunks->updateChunks(d->rows());
    panes_.details->setChunks(d->rows());
    panes_.charts->setChunks(d->rows());
  });
  connect(d, &Document::placeholderChanged, this, [this, d] { panes_.chunks->setPlaceholder(d->placeholder()); });
  connect(&doc_->comparison(), &Comparison::comparedChanged, this, [this, d] {
    if (const ComparedTrace* c = d->comparison().compared())
      panes_.chunks->setComparedChunks(c->rows, c->name);
    else
      panes_.chunks->setComparedChunks({}, {});
    showComparedTimeline();
  });
  connect(&doc_->comparison(), &Comparison::byOpChanged, this, [this, d] {
    const OpComparison* c = d->comparison().byOp();
    if (!c) return panes_.ab->clearByOp(d->comparison().byOpHint());
    panes_.ab->setByOp(c->view);
    raiseAb();
    panes_.ab->showTab(1);
  });
  connect(d, &Document::gateShown, this, [this, d] {
    if (d->shownGate())
      panes_.explanation->setExplanation(explanationOf(*d->shownGate()));
    else
      panes_.explanation->clear(d->shownGateError());
  });
  connect(d, &Document::resultsChanged, this, &MainWindow::updateResultBox);
  connect(d, &Document::jobChanged, this, [this, d] {
    panes_.job->setJob(d->job());
    if (jobViewAction_) jobViewAction_->setEnabled(!d->job().empty());
    showCentre(!d->job().empty() ? panes_.job : *d ? static_cast<QWidget*>(panes_.timeline) : panes_.welcome);
  });
  connect(panes_.anomalies, &widgets::AnomaliesPanel::eventActivated, panes_.timeline,
          &widgets::TimelineView::revealEvent);
  connect(panes_.run, &RunPanel::gateOptionsChanged, this,
          [this] { panes_.charts->setThreshold(panes_.run->gateOptions().threshold); });
}

void MainWindow::createControllers() {
  c_.open = new OpenController(doc_, jobs_, settings_.get(), selection_, this);
  c_.review = new ReviewController(doc_, jobs_, panes_.run, selection_, this);
  c_.split = new SplitController(doc_, jobs_, panes_.run, c_.review, selection_, this);
  c_.compare = new CompareController(doc_, jobs_, panes_.run, selection_, this);
  c_.exporting = new ExportController(doc_, jobs_, panes_.run, selection_, panes_.timeline, settings_.get(), this);
  c_.find = new FindController(doc_, panes_.timeline, panes_.find, this);
  c_.job = new JobController(doc_, jobs_, c_.split, c_.compare, this);
  applySettings();
}

void MainWindow::applySettings() {
  c_.job->setMemoryBudget(settings_->jobMemoryBudget());
  const std::shared_ptr<TraceCache> cache = makeTraceCache(*settings_);
  c_.open->setTraceCache(cache);
  c_.job->setTraceCache(cache);
}

void MainWindow::showSettings() {
  SettingsDialog d(settings_.get(), availableMemoryBytes(), this);
  if (d.exec() == QDialog::Accepted) applySettings();
}

void MainWindow::bindControllers() {
  for (Controller* c :
       std::initializer_list<Controller*>{c_.open, c_.split, c_.review, c_.compare, c_.exporting, c_.job}) {
    connect(c, &Controller::message, status_, &StatusBar::flash);
    connect(c, &Controller::problem, this, &MainWindow::showError);
  }
  connect(c_.find, &FindController::message, status_, &StatusBar::flash);
  connect(c_.open, &OpenController::directoryRequested, this, &MainWindow::openDirectory);
  connect(c_.job, &JobController::traceRequested, c_.open, &OpenController::openFile);
  connect(panes_.job, &widgets::JobView::rankActivated, c_.job, &JobController::openRank);
  connect(panes_.job, &widgets::JobView::compareRequested, c_.job, &JobController::compareRanks);
  connect(c_.open, &OpenController::partialOpenOffered, this, &MainWindow::offerPartialOpen);
  connect(c_.open, &OpenController::recentFilesChanged, this, &MainWindow::updateRecentMenu);
  connect(c_.review, &ReviewController::sourceTraceRequested, c_.open, &OpenController::openFile);
  connect(panes_.explanation, &widgets::ExplanationPanel::stepsActivated, c_.review, &ReviewController::showSteps);
  connect(panes_.chunks, &widgets::ChunksPanel::placeholderLinkActivated, c_.split,
          &SplitController::followPlaceholderLink);
  connect(c_.split, &SplitController::commandCopied, this,
          [](const QString& line) { QGuiApplication::clipboard()->setText(line); });
  connect(panes_.chunks, &widgets::ChunksPanel::comparedRowSelected, c_.compare, &CompareController::pickCompared);
  connect(c_.compare, &CompareController::comparisonReady, this, [this](const auto& a, const auto& b) {
    raiseAb();
    panes_.ab->setComparison(a, b);
    panes_.ab->showTab(0);
  });
  connect(panes_.ab, &widgets::AbPanel::opChosen, c_.compare,
          [this](const QString& op, const QString& kernel) { c_.compare->chooseOp(op, kernel); });
  // An op's kernels are marked as find matches are, on both timelines.
  connect(c_.compare, &CompareController::opHighlighted, this, [this](auto a, auto b) {
    panes_.timeline->setFindResults(std::move(a));
    panes_.timelineB->setFindResults(std::move(b));
  });
  connect(c_.compare, &CompareController::comparisonPending, this, [this](const QString& text) {
    raiseAb();
    panes_.ab->clear(text);
  });
  connect(c_.compare, &CompareController::comparisonCleared, panes_.ab,
          [this](const QString& t) { panes_.ab->clear(t); });
  JobLane* splits = jobs_->lane(JobKind::Split);
  connect(splits, &JobLane::started, this, [this] { runSplitAction_->setEnabled(false); });
  connect(splits, &JobLane::finished, this, [this] { runSplitAction_->setEnabled(true); });
  connect(selection_, &widgets::SelectionModel::chunkChanged, this, &MainWindow::updateChunkActions);
  for (auto signal : {&Document::traceChanged, &Document::overlaysChanged, &Document::resultsChanged,
                      &Document::rowsReset, &Document::rowsUpdated})
    connect(doc_, signal, this, &MainWindow::updateChunkActions);
  connect(panes_.welcome, &widgets::WelcomeWidget::openTraceRequested, openAction_, &QAction::trigger);
  connect(panes_.welcome, &widgets::WelcomeWidget::openSplitDirRequested, openDirAction_, &QAction::trigger);
  connect(panes_.welcome, &widgets::WelcomeWidget::openSampleRequested, this, &MainWindow::openSample);
  connect(panes_.welcome, &widgets::WelcomeWidget::openRecentRequested, this, &MainWindow::openFile);
}

void MainWindow::raiseAb() {
  abDock_->show();
  abDock_->raise();
  // The two tables need a dozen rows to be read; grow a short bottom area once, never shrink it.
  if (!abDock_->isFloating() && abDock_->height() < 320) resizeDocks({abDock_}, {340}, Qt::Vertical);
}

void MainWindow::showComparedTimeline() {
  const ComparedTrace* c = doc_->comparison().compared();
  const bool shown = c && c->doc && *doc_;
  panes_.timelineB->setDocument(shown ? c->doc : widgets::TraceDocument{});
  timelineBoxB_->setVisible(shown);
  panes_.timelineTitleA->setVisible(shown);
  if (!shown) return;
  const QString a = QString::fromStdString(doc_->trace()->path);
  panes_.timelineTitleA->setText(tr("<b>%1</b> — the open trace").arg(sideName(0, a, c->path).toHtmlEscaped()));
  panes_.timelineTitleB->setText(tr("<b>%1</b> — the compared trace").arg(sideName(1, a, c->path).toHtmlEscaped()));
}

void MainWindow::openFile(const QString& path) { c_.open->openFile(path); }

void MainWindow::openPaths(const QStringList& paths) {
  if (paths.size() > 1)
    c_.job->openRanks(paths);
  else if (!paths.isEmpty())
    openFile(paths.first());
}

void MainWindow::openDirectory(const QString& dir) {
  if (!c_.job->openDirectory(dir)) c_.review->openSplitDirectory(dir);
}

void MainWindow::showJobView() {
  if (!doc_->job().empty()) showCentre(panes_.job);
}

void MainWindow::showCentre(QWidget* w) {
  const bool job = w == panes_.job;
  if (job && !isJobViewShown()) {
    // The docks are about the one trace open; the job's panes need the room.
    for (QDockWidget* d : docks_)
      if (d->isVisible()) hiddenDocks_ << d, d->hide();
  } else if (!job) {
    for (QDockWidget* d : std::exchange(hiddenDocks_, {})) d->show();
  }
  centre_->setCurrentWidget(w == panes_.timeline ? timelines_ : w);
  updateTitle();
}

bool MainWindow::isJobViewShown() const { return centre_->currentWidget() == panes_.job; }
void MainWindow::openSample() { c_.open->openSample(); }
void MainWindow::runSplit() { c_.split->runSplit(); }

QString MainWindow::statusText() const { return status_->statusText(); }
QString MainWindow::messageText() const { return status_->messageText(); }
bool MainWindow::isWelcomeShown() const { return centre_->currentWidget() == panes_.welcome; }

bool MainWindow::raiseDock(const QString& name) {
  auto* d = findChild<QDockWidget*>(QStringLiteral("dock.") + name);
  if (!d) return false;
  d->show();
  d->raise();
  return true;
}

void MainWindow::updateTitle() {
  if (isJobViewShown())
    setWindowTitle(tr("Job: %1 — Steadyscope").arg(doc_->job().title));
  else if (!*doc_)
    setWindowTitle(tr("Steadyscope"));
  else
    setWindowTitle(
        (doc_->isPartial() ? tr("%1 (partial) — Steadyscope") : tr("%1 — Steadyscope")).arg(doc_->fileName()));
}

void MainWindow::updateResultBox() {
  const QSignalBlocker block(panes_.results);
  panes_.results->clear();
  for (const Result& r : doc_->results()) panes_.results->addItem(r.title);
  panes_.results->setCurrentIndex(doc_->currentResult());
  panes_.results->setEnabled(doc_->results().size() > 1);
}

void MainWindow::updateChunkActions() {
  if (!exportAction_) return;
  const QString why = c_.exporting->exportBlocker();
  exportAction_->setEnabled(why.isEmpty());
  exportAction_->setToolTip(why.isEmpty() ? tr("Write the selected chunk, its execution_details row and a "
                                               "provenance manifest into a folder")
                                          : why);
  const QString noReport = c_.exporting->reportBlocker();
  reportAction_->setEnabled(noReport.isEmpty());
  reportAction_->setToolTip(noReport.isEmpty() ? tr("A one-page PDF of the split and the chosen chunk's verdict, and a "
                                                    "PNG of the timeline")
                                               : noReport);
}

void MainWindow::updateRecentMenu(const QStringList& files) {
  recentMenu_->clear();
  for (const QString& f : files)
    recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
  if (files.isEmpty()) {
    recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  } else {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear the list"), c_.open, &OpenController::clearRecentFiles);
  }
  panes_.welcome->setRecentFiles(files);
}

void MainWindow::showError(const QString& title, const QString& message) {
  if (errorBox_) errorBox_->close();
  errorBox_ = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  errorBox_->setAttribute(Qt::WA_DeleteOnClose);
  errorBox_->open();  // window-modal, non-blocking
}

void MainWindow::offerPartialOpen(const QString& path, const QString& message) {
  // A truncated trace (a profiler killed mid-write) still holds every event
  // before the cut: worth a look, though it cannot be split as the whole run.
  showError(tr("Could not open the trace"),
            tr("%1\n\nThe file ends early. The events before the cut can still be opened for a look; "
               "splitting, reviewing and exporting need the whole trace.")
                .arg(message));
  QPushButton* part = errorBox_->addButton(tr("Open the part that was read"), QMessageBox::AcceptRole);
  part->setObjectName(QStringLiteral("openPartial"));
  errorBox_->setDefaultButton(QMessageBox::Ok);
  connect(part, &QPushButton::clicked, c_.open, [this, path] { c_.open->openPartially(path); });
}

void MainWindow::closeEvent(QCloseEvent* e) {
  jobs_->discardAll();
  for (QDockWidget* d : std::exchange(hiddenDocks_, {})) d->show();  // the layout is saved as the trace view's
  jobs_->lane(JobKind::Export)->discard();
  settings_->setGeometry(saveGeometry());
  settings_->setWindowState(saveState());
  settings_->sync();
  QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  QStringList paths;
  for (const QUrl& u : e->mimeData()->urls())
    if (u.isLocalFile()) paths << u.toLocalFile();
  if (paths.isEmpty()) return;
  e->acceptProposedAction();
  openPaths(paths);  // several files: a job; a directory: a job or a split directory's review
}

}  // namespace steadyscope::app
