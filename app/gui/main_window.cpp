#include "main_window.hpp"

#include "about_dialog.hpp"
#include "export_dialog.hpp"
#include "report.hpp"

#include "panels/anomalies_panel.hpp"
#include "panels/charts_panel.hpp"
#include "panels/chunks_panel.hpp"
#include "panels/details_panel.hpp"
#include "panels/explanation_panel.hpp"
#include "panels/welcome_widget.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/review/command_line.hpp>
#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <cstring>

#ifndef STEADYSCOPE_SAMPLE_TRACE
#define STEADYSCOPE_SAMPLE_TRACE ""
#endif

namespace steadyscope::app {

using widgets::TraceDocument;

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
const char* kTraceFilter = "Traces (*.json *.json.gz *.gz *.zip *.zst);;All files (*)";
}  // namespace

MainWindow::MainWindow(std::unique_ptr<AppSettings> settings, QWidget* parent)
    : QMainWindow(parent), settings_(settings ? std::move(settings) : std::make_unique<AppSettings>()) {
  setObjectName(QStringLiteral("MainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/steadyscope.svg")));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  loads_ = new JobRunner(this);
  splits_ = new JobRunner(this);
  reviews_ = new JobRunner(this);
  exports_ = new JobRunner(this);
  compares_ = new JobRunner(this);
  selection_ = new widgets::SelectionModel(this);

  centre_ = new QStackedWidget(this);
  welcome_ = new widgets::WelcomeWidget(centre_);
  welcome_->setSamplePath(QStringLiteral(STEADYSCOPE_SAMPLE_TRACE));
  timeline_ = new widgets::TimelineView(centre_);
  timeline_->setObjectName(QStringLiteral("timeline"));
  timeline_->setSelectionModel(selection_);
  centre_->addWidget(welcome_);
  centre_->addWidget(timeline_);
  setCentralWidget(centre_);

  createDocks();
  createActions();
  createStatusBar();

  connect(welcome_, &widgets::WelcomeWidget::openTraceRequested, this, &MainWindow::openDialog);
  connect(welcome_, &widgets::WelcomeWidget::openSplitDirRequested, this, &MainWindow::openSplitDirectoryDialog);
  connect(welcome_, &widgets::WelcomeWidget::openSampleRequested, this, &MainWindow::openSample);
  connect(welcome_, &widgets::WelcomeWidget::openRecentRequested, this, &MainWindow::openFile);
  connectRunners();
  connect(anomalies_, &widgets::AnomaliesPanel::eventActivated, timeline_, &widgets::TimelineView::revealEvent);
  // The gate: a chunk row shows its own gate (as if its mode were requested);
  // threshold and mode re-gate without re-splitting.
  connect(selection_, &widgets::SelectionModel::chunkChanged, this, [this] {
    selection_->setMarkedSteps({});  // they belonged to the previous chunk's findings
    regate();
  });
  connect(explanation_, &widgets::ExplanationPanel::stepsActivated, this, &MainWindow::showSteps);
  auto rowsToDetails = [this] {
    details_->setChunks(chunks_->model()->chunks());
    charts_->setChunks(chunks_->model()->chunks());
  };
  connect(chunks_->model(), &QAbstractItemModel::modelReset, this, rowsToDetails);
  connect(chunks_->model(), &QAbstractItemModel::dataChanged, this, rowsToDetails);
  // Gate options re-gate without re-splitting; split options re-run the shown split once the user pauses.
  connect(run_, &RunPanel::gateOptionsChanged, this, [this] {
    charts_->setThreshold(run_->gateOptions().threshold);
    regate();
  });
  rerunTimer_ = new QTimer(this);
  rerunTimer_->setSingleShot(true);
  rerunTimer_->setInterval(400);
  connect(rerunTimer_, &QTimer::timeout, this, &MainWindow::rerunLive);
  connect(run_, &RunPanel::splitOptionsChanged, rerunTimer_, qOverload<>(&QTimer::start));
  connect(run_, &RunPanel::runRequested, this, &MainWindow::runSplit);
  connect(run_, &RunPanel::copyCommandRequested, this, &MainWindow::copyCommand);
  connect(run_, &RunPanel::cancelRequested, splits_, &JobRunner::cancel);
  // "Count them and split again": the fix is turned on in the Run panel and the split runs as a new result,
  // so the faithful one stays in the result list.
  connect(chunks_, &widgets::ChunksPanel::placeholderLinkActivated, this, [this](const QString& link) {
    if (link.startsWith(kFixLinkPrefix) && run_->setFix(link.mid(kFixLinkPrefix.size()), true)) runSplit();
  });

  resize(1400, 900);
  if (auto* e = findChild<QDockWidget*>(QStringLiteral("dock.explanation")))
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("dock.details")))
      resizeDocks({e, d}, {600, 200}, Qt::Vertical);  // the explanation is the long one
  defaultState_ = saveState();
  if (!settings_->geometry().isEmpty()) restoreGeometry(settings_->geometry());
  if (!settings_->windowState().isEmpty()) restoreState(settings_->windowState());
  updateRecentMenu();
  updateStatus();
  updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    docks_ << d;
    return d;
  };
  chunks_ = new widgets::ChunksPanel(this);
  chunks_->setSelectionModel(selection_);
  explanation_ = new widgets::ExplanationPanel(this);
  details_ = new widgets::DetailsPanel(this);
  details_->setSelectionModel(selection_);
  anomalies_ = new widgets::AnomaliesPanel(this);
  charts_ = new widgets::ChartsPanel(this);
  charts_->setSelectionModel(selection_);
  run_ = new RunPanel(this);
  QDockWidget* dChunks = dock(tr("Chunks"), QStringLiteral("dock.chunks"), chunks_, Qt::BottomDockWidgetArea);
  QDockWidget* dAnom = dock(tr("Anomalies"), QStringLiteral("dock.anomalies"), anomalies_, Qt::BottomDockWidgetArea);
  QDockWidget* dCharts = dock(tr("Charts"), QStringLiteral("dock.charts"), charts_, Qt::BottomDockWidgetArea);
  abDock_ = createAbDock();
  addDockWidget(Qt::BottomDockWidgetArea, abDock_);
  docks_ << abDock_;
  QDockWidget* dExpl =
      dock(tr("Explanation"), QStringLiteral("dock.explanation"), explanation_, Qt::RightDockWidgetArea);
  QDockWidget* dDetails = dock(tr("Details"), QStringLiteral("dock.details"), details_, Qt::RightDockWidgetArea);
  QDockWidget* dRun = dock(tr("Run"), QStringLiteral("dock.run"), run_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(dChunks, dAnom);
  tabifyDockWidget(dAnom, dCharts);
  tabifyDockWidget(dCharts, abDock_);
  dChunks->raise();
  splitDockWidget(dExpl, dDetails, Qt::Vertical);
  resizeDocks({dExpl}, {520}, Qt::Horizontal);
  resizeDocks({dChunks}, {230}, Qt::Vertical);
  resizeDocks({dRun}, {270}, Qt::Horizontal);
  createTimelineDocks();
}

void MainWindow::createActions() {
  createFileActions();
  createViewActions();
  createSplitActions();
  createCompareActions();
  createFindActions();
  createHelpActions();
  createToolBar();
}

void MainWindow::createFileActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  openAction_ = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open trace…"), this,
                                &MainWindow::openDialog);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setObjectName(QStringLiteral("action.open"));
  openDirAction_ = file->addAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &split directory…"), this,
                                   &MainWindow::openSplitDirectoryDialog);
  file->addAction(tr("Open the s&ample"), this, &MainWindow::openSample);
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addSeparator();
  addCompareFileActions(file);
  file->addSeparator();
  closeAction_ = file->addAction(tr("&Close trace"), this, &MainWindow::closeTrace);
  closeAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);
}

void MainWindow::createViewActions() {
  // Single-letter keys: Perfetto / Tracy habits.
  QMenu* view = menuBar()->addMenu(tr("&View"));
  auto key = [this, view](const QString& text, QKeySequence seq, auto slot, const QString& name) {
    QAction* a = view->addAction(text);
    a->setShortcut(seq);
    a->setObjectName(name);
    a->setShortcutContext(Qt::WindowShortcut);
    connect(a, &QAction::triggered, timeline_, slot);
    addAction(a);
    return a;
  };
  key(tr("&Fit all"), QKeySequence(Qt::Key_F), &widgets::TimelineView::fitAll, QStringLiteral("action.fit"));
  key(tr("Zoom &in"), QKeySequence(Qt::Key_W), &widgets::TimelineView::zoomIn, QStringLiteral("action.zoomIn"));
  key(tr("Zoom &out"), QKeySequence(Qt::Key_S), &widgets::TimelineView::zoomOut, QStringLiteral("action.zoomOut"));
  key(tr("Pan &left"), QKeySequence(Qt::Key_A), &widgets::TimelineView::panLeft, QStringLiteral("action.panLeft"));
  key(tr("Pan &right"), QKeySequence(Qt::Key_D), &widgets::TimelineView::panRight, QStringLiteral("action.panRight"));
  key(tr("&Zoom to selection"), QKeySequence(Qt::Key_Z), &widgets::TimelineView::zoomToSelection,
      QStringLiteral("action.zoomSel"));
  // Esc cancels the job the status bar shows; with none shown it clears the selection.
  QAction* esc = view->addAction(tr("Cancel / &clear selection"));
  esc->setShortcut(QKeySequence(Qt::Key_Escape));
  esc->setObjectName(QStringLiteral("action.clearSelection"));
  connect(esc, &QAction::triggered, this, [this] {
    if (shownJob_)
      cancelJobs();
    else
      selection_->clear();
  });
  addAction(esc);
  createTimelineActions(view);
  view->addSeparator();
  for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
  view->addAction(tr("Reset &layout"), this, [this] { restoreState(defaultState_); });
}

void MainWindow::createSplitActions() {
  QMenu* split = menuBar()->addMenu(tr("&Split"));
  runSplitAction_ = split->addAction(tr("&Run split"), this, &MainWindow::runSplit);
  runSplitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  runSplitAction_->setObjectName(QStringLiteral("action.runSplit"));
  split->addAction(tr("&Copy as command"), this, &MainWindow::copyCommand)
      ->setObjectName(QStringLiteral("action.copyCommand"));
  // The selected chunk's actions; Chunk ▸ Export… goes here, after the separator.
  QMenu* chunk = menuBar()->addMenu(tr("&Chunk"));
  chunk->setObjectName(QStringLiteral("menu.chunk"));
  chunk->addAction(tr("&Zoom to the selected chunk"), this, [this] {
    const auto& rows = chunks_->model()->chunks();
    const int c = selection_->chunk();
    if (c >= 0 && c < rows.size() && rows[c].endNs > rows[c].beginNs)
      timeline_->zoomToRange(rows[c].beginNs, rows[c].endNs);
  });
  chunk->addAction(tr("&Copy the selected rows (TSV)"), this, [this] { chunks_->copySelectedRows(); });
  chunk->addSeparator();
  chunk->setToolTipsVisible(true);  // a disabled action's tooltip says why
  exportAction_ = chunk->addAction(tr("&Export…"), this, &MainWindow::exportSelectedChunk);
  exportAction_->setObjectName(QStringLiteral("action.export"));
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  reportAction_ = chunk->addAction(tr("Save &report…"), this, &MainWindow::saveReportDialog);
  reportAction_->setObjectName(QStringLiteral("action.report"));
  QAction* copy = chunk->addAction(tr("Copy the timeline as an &image"), this, [this] {
    QGuiApplication::clipboard()->setImage(timelineImage(timeline_->viewport()->size()));
    flash(tr("The timeline is on the clipboard as an image."), 4000);
  });
  copy->setObjectName(QStringLiteral("action.copyImage"));
  connect(selection_, &widgets::SelectionModel::chunkChanged, this, &MainWindow::updateChunkActions);
  connect(chunk, &QMenu::aboutToShow, this, &MainWindow::updateChunkActions);
}

void MainWindow::createFindActions() {
  QAction* find = new QAction(tr("&Find events…"), this);
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    findEdit_->setFocus(Qt::ShortcutFocusReason);
    findEdit_->selectAll();
  });
  addAction(find);
  QAction* next = new QAction(tr("Find next"), this);
  next->setShortcut(QKeySequence::FindNext);
  connect(next, &QAction::triggered, this, &MainWindow::findNext);
  addAction(next);
  QAction* prev = new QAction(tr("Find previous"), this);
  prev->setShortcut(QKeySequence::FindPrevious);
  connect(prev, &QAction::triggered, this, &MainWindow::findPrevious);
  addAction(prev);
}

void MainWindow::createHelpActions() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    QMessageBox::information(
        this, tr("Keyboard shortcuts"),
        tr("<table>"
           "<tr><td>Ctrl+O</td><td>open a trace</td></tr><tr><td>Ctrl+W</td><td>close it</td></tr>"
           "<tr><td>Ctrl+Q</td><td>quit</td></tr><tr><td>Ctrl+R</td><td>run the split</td></tr>"
           "<tr><td>Ctrl+E</td><td>export the selected chunk</td></tr>"
           "<tr><td>F</td><td>fit all</td></tr>"
           "<tr><td>W / S</td><td>zoom in / out</td></tr><tr><td>A / D</td><td>pan left / right</td></tr>"
           "<tr><td>Z</td><td>zoom to the selection</td></tr>"
           "<tr><td>Esc</td><td>cancel the running job, else clear the selection</td></tr>"
           "<tr><td>Ctrl+F, Enter / Shift+Enter, F3</td><td>find events by name (regex), next / previous "
           "match</td></tr>"
           "<tr><td>G</td><td>go to the other end of the selected event's flow</td></tr>"
           "<tr><td>Ctrl+L</td><td>filter the lanes by name</td></tr>"
           "<tr><td>wheel</td><td>zoom around the cursor (Shift+wheel scrolls)</td></tr>"
           "<tr><td>drag</td><td>pan; drag on the ruler selects a range; Ctrl/right-drag box-zooms</td></tr>"
           "</table>"));
  });
  help->addAction(tr("&About Steadyscope"), this, [this] { AboutDialog(this).exec(); });
}

void MainWindow::createToolBar() {
  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("toolbar.main"));
  tb->setMovable(false);
  tb->setToolButtonStyle(Qt::ToolButtonTextOnly);
  tb->addAction(openAction_);
  tb->addAction(openDirAction_);
  tb->addAction(runSplitAction_);
  tb->addWidget(new QLabel(tr("  result "), tb));
  resultCombo_ = new QComboBox(tb);
  resultCombo_->setObjectName(QStringLiteral("resultBox"));
  resultCombo_->setToolTip(
      tr("The results of this trace (a split directory's review, each Run split): switch to compare"));
  resultCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  resultCombo_->setEnabled(false);
  tb->addWidget(resultCombo_);
  connect(resultCombo_, &QComboBox::activated, this, [this](int i) { showResult(i); });
  tb->addWidget(laneFilter_);
  auto* spacer = new QWidget(tb);
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  tb->addWidget(spacer);
  findEdit_ = new QLineEdit(tb);
  findEdit_->setObjectName(QStringLiteral("findEdit"));
  findEdit_->setPlaceholderText(tr("find events (regex)…  Ctrl+F"));
  findEdit_->setClearButtonEnabled(true);
  findEdit_->setMinimumWidth(260);
  tb->addWidget(findEdit_);
  connect(findEdit_, &QLineEdit::returnPressed, this, [this] {
    if (QApplication::keyboardModifiers() & Qt::ShiftModifier)
      findPrevious();
    else
      findNext();
  });
  connect(findEdit_, &QLineEdit::textChanged, this, &MainWindow::clearFind);
}

void MainWindow::createStatusBar() {
  QStatusBar* sb = statusBar();
  fileLabel_ = new QLabel(sb);
  fileLabel_->setObjectName(QStringLiteral("status.file"));
  eventsLabel_ = new QLabel(sb);
  eventsLabel_->setObjectName(QStringLiteral("status.events"));
  anomaliesLabel_ = new QLabel(sb);
  anomaliesLabel_->setObjectName(QStringLiteral("status.anomalies"));
  splitLabel_ = new QLabel(sb);
  splitLabel_->setObjectName(QStringLiteral("status.split"));
  progressLabel_ = new QLabel(sb);
  progressBar_ = new QProgressBar(sb);
  progressBar_->setObjectName(QStringLiteral("status.progress"));
  progressBar_->setRange(0, 1000);
  progressBar_->setMaximumWidth(220);
  cancelButton_ = new QPushButton(tr("Cancel"), sb);
  cancelButton_->setObjectName(QStringLiteral("status.cancel"));
  connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::cancelJobs);
  sb->addWidget(fileLabel_);
  sb->addWidget(eventsLabel_);
  sb->addWidget(anomaliesLabel_);
  sb->addWidget(splitLabel_);
  messageLabel_ = new QLabel(sb);
  messageLabel_->setObjectName(QStringLiteral("status.message"));
  sb->addWidget(messageLabel_, 1);
  messageTimer_ = new QTimer(this);
  messageTimer_->setSingleShot(true);
  connect(messageTimer_, &QTimer::timeout, messageLabel_, &QLabel::clear);
  sb->addPermanentWidget(progressLabel_);
  sb->addPermanentWidget(progressBar_);
  sb->addPermanentWidget(cancelButton_);
  for (QWidget* w : {static_cast<QWidget*>(progressLabel_), static_cast<QWidget*>(progressBar_),
                     static_cast<QWidget*>(cancelButton_)})
    w->hide();
}

void MainWindow::flash(const QString& text, int ms) {
  // A transient message next to the permanent fields (QStatusBar::showMessage
  // would hide them).
  messageLabel_->setText(text);
  messageTimer_->start(ms);
}

QString MainWindow::messageText() const { return messageLabel_->text(); }

QString MainWindow::statusText() const {
  QStringList parts;
  for (QLabel* l : {fileLabel_, eventsLabel_, anomaliesLabel_, splitLabel_})
    if (!l->text().isEmpty()) parts << l->text();
  return parts.join(QStringLiteral(" · "));
}

bool MainWindow::isWelcomeShown() const { return centre_->currentWidget() == welcome_; }

void MainWindow::updateStatus() {
  if (!doc_) {
    fileLabel_->setText(tr("No trace open"));
    eventsLabel_->clear();
    anomaliesLabel_->clear();
  } else {
    const Trace& t = *doc_.trace;
    if (t.partial) {
      fileLabel_->setText(tr("%1 — partial").arg(QFileInfo(path_).fileName()));
      fileLabel_->setToolTip(tr("%1\nRead only in part: %2").arg(path_, qs(t.partial->reason)));
    } else {
      fileLabel_->setText(QFileInfo(path_).fileName());
      fileLabel_->setToolTip(path_);
    }
    eventsLabel_->setText(t.size() == 0 ? tr("no events: the trace's event list is empty")
                                        : tr("%1 events").arg(qs(timeline::formatCount(t.size()))));
    anomaliesLabel_->setText(tr("%1 anomalies").arg(qs(timeline::formatCount(t.anomalyCount()))));
    anomaliesLabel_->setToolTip(tr("%1 named counters; see the Anomalies pane").arg(t.anomalies.size()));
  }
  const auto& ov = doc_.overlays;
  if (ov && !ov->steps.empty())
    splitLabel_->setText(tr("%1 steps (%2)").arg(qs(timeline::formatCount(ov->steps.size())), rootTier_));
  else if (!splitDir_.isEmpty())
    splitLabel_->setText(tr("split dir %1").arg(QFileInfo(splitDir_).fileName()));
  else if (doc_ && doc_.trace->partial)
    splitLabel_->setText(tr("not splittable: read only in part"));
  else if (ov)  // a split ran and found no step: the chunks pane says why
    splitLabel_->setText(tr("split: no steps found"));
  else
    splitLabel_->setText(doc_ ? tr("not split yet") : QString());
  updateChunkActions();
}

void MainWindow::updateTitle() {
  if (path_.isEmpty() || !doc_)
    setWindowTitle(tr("Steadyscope"));
  else
    setWindowTitle((doc_.trace->partial ? tr("%1 (partial) — Steadyscope") : tr("%1 — Steadyscope"))
                       .arg(QFileInfo(path_).fileName()));
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = settings_->recentFiles();
  for (const QString& f : files)
    recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
  if (files.isEmpty())
    recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  else {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear the list"), this, [this] {
      settings_->clearRecentFiles();
      updateRecentMenu();
    });
  }
  welcome_->setRecentFiles(files);
}

// ------------------------------------------------------------ opening

void MainWindow::openDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Open trace"), QFileInfo(path_).absolutePath(),
                                                 QString::fromLatin1(kTraceFilter));
  if (!f.isEmpty()) openFile(f);
}

void MainWindow::openSplitDirectoryDialog() {
  const QString d =
      QFileDialog::getExistingDirectory(this, tr("Open split directory"), QFileInfo(path_).absolutePath());
  if (!d.isEmpty()) openSplitDirectory(d);
}

void MainWindow::openSample() {
  const QString s = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
  if (s.isEmpty() || !QFileInfo::exists(s)) {
    lastError_ = tr("The bundled sample trace is not installed (%1).").arg(s);
    flash(lastError_, 8000);
    return;
  }
  openFile(s);
}

void MainWindow::openFile(const QString& path) {
  if (QFileInfo(path).isDir()) {
    openSplitDirectory(path);
    return;
  }
  startLoad(path, false);
}

void MainWindow::openPartially(const QString& path) { startLoad(path, true); }

void MainWindow::startLoad(const QString& path, bool allowPartial) {
  lastError_.clear();
  loadingPath_ = path;
  const std::string p = path.toStdString();
  loads_->start<LoadOutcome>(
      tr("Opening %1").arg(QFileInfo(path).fileName()),
      [p, allowPartial](JobContext& ctx) { return loadDocument(p, ctx, allowPartial); },
      [this, path](LoadOutcome out) { onLoaded(out, path); }, &loadProgress);
}

void MainWindow::onLoaded(const LoadOutcome& out, const QString& path) {
  // On failure the previous trace (if any) stays open and unchanged.
  if (!out.error.isEmpty()) {
    lastError_ = out.error;
    flash(tr("Could not open %1").arg(QFileInfo(path).fileName()), 8000);
    if (out.endsEarly)
      offerPartialOpen(path, out.error);
    else
      showError(tr("Could not open the trace"), out.error);
    return;
  }
  path_ = path;
  settings_->addRecentFile(path);
  updateRecentMenu();
  publish(out.doc);
  if (out.doc.trace->partial)
    flash(tr("Opened the part of %1 that was read: %2 complete events")
              .arg(QFileInfo(path).fileName(), qs(timeline::formatCount(out.doc.trace->size()))),
          8000);
  else
    flash(tr("Loaded %1").arg(QFileInfo(path).fileName()), 4000);
}

void MainWindow::offerPartialOpen(const QString& path, const QString& message) {
  // A truncated trace (a profiler killed mid-write) still holds every event
  // before the cut: worth a look, though it cannot be split as the whole run.
  QMessageBox* box =
      newErrorBox(tr("Could not open the trace"),
                  tr("%1\n\nThe file ends early. The events before the cut can still be opened for a look; "
                     "splitting, reviewing and exporting need the whole trace.")
                      .arg(message));
  QPushButton* part = box->addButton(tr("Open the part that was read"), QMessageBox::AcceptRole);
  part->setObjectName(QStringLiteral("openPartial"));
  box->setDefaultButton(QMessageBox::Ok);
  connect(part, &QPushButton::clicked, this, [this, path] { openPartially(path); });
  box->open();
}

bool MainWindow::refusePartial(const QString& what) {
  if (!doc_ || !doc_.trace->partial) return false;
  lastError_ = tr("%1 needs the whole trace: %2 was read only in part (%3).")
                   .arg(what, QFileInfo(path_).fileName(), qs(doc_.trace->partial->reason));
  flash(lastError_, 8000);
  return true;
}

QMessageBox* MainWindow::errorBox() const { return errorBox_; }

QMessageBox* MainWindow::newErrorBox(const QString& title, const QString& message) {
  if (errorBox_) errorBox_->close();
  errorBox_ = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  errorBox_->setAttribute(Qt::WA_DeleteOnClose);
  return errorBox_;
}

void MainWindow::showError(const QString& title, const QString& message) {
  newErrorBox(title, message)->open();  // window-modal, non-blocking
}

void MainWindow::publish(const TraceDocument& doc) {
  if (doc.trace != doc_.trace) splits_->discard();  // a split of the previous trace is moot
  doc_ = doc;
  selection_->clear();
  clearFind();
  timeline_->setDocument(doc_);
  anomalies_->setTrace(doc_.trace);
  details_->setDocument(doc_);
  charts_->setDocument(doc_);
  centre_->setCurrentWidget(doc_ ? static_cast<QWidget*>(timeline_) : static_cast<QWidget*>(welcome_));
  chunks_->model()->setTimeOrigin(doc_ ? doc_.index->firstNs : 0);
  if (doc_ && !chunks_->model()->chunks().isEmpty()) {  // a directory's source arrived after its rows
    selectRequested_ = true;
    selectRequestedOnce();
    locateDirectory();
  }
  updateStatus();
  releaseStalePicks();
  updateTitle();
}

void MainWindow::closeTrace() {
  for (JobRunner* r : runners()) r->discard();
  stopComparing();  // the compared trace was opened beside this one
  path_.clear();
  splitDir_.clear();
  rootTier_.clear();
  gate_.reset();
  shownGate_.reset();
  results_.clear();
  current_ = -1;
  locatedFor_.reset();
  updateResultBox();
  chunks_->setChunks({});
  ++rowsGeneration_;
  explanation_->clear();
  publish({});
}

void MainWindow::openSplitDirectory(const QString& dir, const QString& sourceTrace) {
  const SplitDirectoryInfo info = inspectSplitDirectory(dir, sourceTrace);
  if (!info.error.isEmpty()) {
    lastError_ = info.error;
    flash(info.error, 8000);
    showError(tr("Not a split directory"), info.error);
    return;
  }
  // Rows (one per chunk file, the numbers from execution_details.csv), the
  // verdicts and the explanation come from the review runner.
  splits_->discard();
  splitDir_ = info.dir;
  gate_.reset();
  shownGate_.reset();
  chunks_->setChunks({});
  ++rowsGeneration_;
  selectRequested_ = true;
  results_.clear();
  current_ = -1;
  locatedFor_.reset();
  Result review;
  review.title = tr("review of %1").arg(QFileInfo(info.dir).fileName());
  review.splitDir = info.dir;
  addResult(std::move(review));
  regate();
  updateStatus();
  if (!info.sourceTrace.isEmpty())
    openFile(info.sourceTrace);
  else
    flash(tr("No source trace found beside %1; open it with File ▸ Open to see the timeline.")
              .arg(QFileInfo(info.dir).fileName()),
          8000);
}

// ------------------------------------------------------------ jobs

void MainWindow::connectRunners() {
  for (JobRunner* r : runners()) {
    connect(r, &JobRunner::started, this, &MainWindow::showJobs);
    connect(r, &JobRunner::progressChanged, this, &MainWindow::showJobs);
    connect(r, &JobRunner::finished, this, &MainWindow::showJobs);
    connect(r, &JobRunner::cancelled, this, [this, r] { onCancelled(r); });
  }
  connect(splits_, &JobRunner::started, this, [this] { runSplitAction_->setEnabled(false); });
  connect(splits_, &JobRunner::finished, this, [this] { runSplitAction_->setEnabled(true); });
  for (auto signal : {&JobRunner::started, &JobRunner::progressChanged, &JobRunner::finished})
    connect(splits_, signal, this, [this] { run_->showJob(splits_); });
}

bool MainWindow::isIdle() const {
  for (JobRunner* r : runners())
    if (r->isRunning()) return false;
  return true;
}

void MainWindow::cancelJobs() {
  for (JobRunner* r : runners()) r->cancel();
}

void MainWindow::onCancelled(JobRunner* r) {
  if (r == loads_)
    lastError_ = tr("Loading %1 was cancelled.").arg(QFileInfo(loadingPath_).fileName());
  else if (r == splits_)
    lastError_ = tr("The split was cancelled.");
  else if (r == compares_)
    lastError_ = tr("Loading the trace to compare was cancelled.");
  else
    lastError_ = tr("The gate review was cancelled.");
  flash(lastError_, 5000);
}

void MainWindow::showJobs() {
  // The status bar follows the first running job: a load, else a split, else a
  // review once it has run long enough to be worth showing (most take ms).
  shownJob_ = nullptr;
  for (JobRunner* r : runners())
    if (r->isRunning() && (r != reviews_ || r->elapsedMs() >= 150)) {
      shownJob_ = r;
      break;
    }
  for (QWidget* w : {static_cast<QWidget*>(progressLabel_), static_cast<QWidget*>(progressBar_),
                     static_cast<QWidget*>(cancelButton_)})
    w->setVisible(shownJob_ != nullptr);
  if (!shownJob_) return;
  const JobProgress p = shownJob_->progress();
  QString text = p.title;
  if (!p.stage.isEmpty()) text += QStringLiteral(" · ") + p.stage;
  if (p.totalBytes)
    text += tr(" · %1 / %2 MB").arg(double(p.doneBytes) / 1e6, 0, 'f', 1).arg(double(p.totalBytes) / 1e6, 0, 'f', 1);
  if (p.events) text += tr(" · %1 events").arg(qs(timeline::formatCount(p.events)));
  progressLabel_->setText(text);
  if (p.complete || p.totalBytes) {
    const double f = p.complete ? 1.0 : double(p.doneBytes) / double(p.totalBytes);
    progressBar_->setRange(0, 1000);
    progressBar_->setValue(std::clamp(int(1000.0 * f), 0, 1000));
  } else {
    progressBar_->setRange(0, 0);  // no measure of the work: a busy bar
  }
}

bool MainWindow::waitForJobs(int timeoutMs) {
  if (isIdle()) return true;
  QEventLoop loop;
  QTimer timeout;
  timeout.setSingleShot(true);
  connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
  for (JobRunner* r : runners())
    connect(r, &JobRunner::finished, &loop, [this, &loop] {
      if (isIdle()) loop.quit();  // a finished job may start the next (a split starts its review)
    });
  timeout.start(timeoutMs);
  loop.exec();
  return isIdle();
}

// ------------------------------------------------------------ split

void MainWindow::setSplitResult(std::shared_ptr<const timeline::TimelineOverlays> overlays,
                                QVector<widgets::ChunkRow> chunks, const QString& rootTier) {
  doc_.overlays = std::move(overlays);
  rootTier_ = rootTier;
  addWindowFigures(chunks);
  chunks_->model()->setTimeOrigin(doc_ ? doc_.index->firstNs : 0);
  timeline_->setOverlays(doc_.overlays);
  details_->setDocument(doc_);
  charts_->setDocument(doc_);
  chunks_->setChunks(std::move(chunks));
  ++rowsGeneration_;
  selectRequested_ = true;
  updateStatus();
}

void MainWindow::addWindowFigures(QVector<widgets::ChunkRow>& rows) const {
  // Rows that know their CPU window but not its figures (a split directory's)
  // get the window's busy ratio and longest gap from the timeline's coverage.
  if (!doc_ || doc_.index->devices.empty()) return;
  for (widgets::ChunkRow& c : rows) {
    if (c.endNs <= c.beginNs || c.busyWindow >= 0) continue;
    const timeline::ChunkFigures f = timeline::computeChunkFigures(*doc_.trace, *doc_.index, c.beginNs, c.endNs, {});
    if (const auto* d = f.worstWindow()) c.busyWindow = d->windowRatio();
    if (const auto* d = f.worstGap()) c.longestGapNs = d->longestGapNs;
  }
}

void MainWindow::runSplit() { startSplit(false); }

void MainWindow::rerunLive() {
  // Only a split the panel made is re-run in place: a directory's review stays until Run split.
  const bool shownIsSplit = current_ >= 0 && results_[size_t(current_)].splitDir.isEmpty() && splitDir_.isEmpty();
  if (doc_ && run_->isLive() && shownIsSplit) startSplit(true);
}

void MainWindow::startSplit(bool replaceShown) {
  if (!doc_) {
    flash(tr("Open a trace first."), 4000);
    return;
  }
  if (refusePartial(tr("A split"))) return;
  rerunTimer_->stop();
  const TracePtr trace = doc_.trace;
  const timeline::TimelineIndexPtr index = doc_.index;
  const analysis::WorkloadKind kind = run_->kind();
  const auto options = std::make_shared<analysis::SplitOptions>(run_->splitOptions());
  splits_->start<SplitView>(
      tr("Splitting %1").arg(QFileInfo(path_).fileName()),
      [trace, index, options, kind](JobContext& ctx) {
        options->llmInference = analysis::llmInferenceFor(kind, *trace);  // "auto" reads the trace: off the GUI thread
        return planSplitView(trace, index, *options, &ctx.control);
      },
      [this, trace, options, replaceShown](SplitView v) { onSplit(v, trace, *options, replaceShown); });
}

void MainWindow::onSplit(const SplitView& v, const TracePtr& trace, const analysis::SplitOptions& options,
                         bool replaceShown) {
  if (doc_.trace != trace) return;  // planned on a trace no longer shown
  storeResult();
  splitDir_.clear();
  gate_.reset();
  Result r;
  r.options = options;
  r.planned = v.planned;
  const bool replace = replaceShown && current_ >= 0 && results_[size_t(current_)].splitDir.isEmpty();
  const int number = replace ? current_ + 1 : int(results_.size()) + 1;
  r.title =
      tr("split %1 (%2, %3 steps)")
          .arg(number)
          .arg(v.gate && v.gate->llm ? tr("LLM inference") : tr("generic"))  // serving annotations: LLM either way
          .arg(options.numSteps);
  if (replace) {
    results_[size_t(current_)] = std::move(r);
    updateResultBox();
  } else {
    addResult(std::move(r));
  }
  selection_->clear();
  setSplitResult(v.overlays, v.chunks, v.rootTier);
  if (!v.noChunks.isEmpty()) chunks_->setPlaceholder(v.noChunks);
  setGateSource(v.gate);
  flash(tr("Split: %1").arg(v.summary), 8000);
}

QString MainWindow::commandLine(const QString& outDir) const {
  if (current_ < 0 || !results_[size_t(current_)].options || path_.isEmpty()) return {};
  const analysis::SplitOptions& o = *results_[size_t(current_)].options;
  QString dir = outDir;
  if (dir.isEmpty()) {
    QString stem = QFileInfo(path_).fileName();
    for (const char* ext : {".zst", ".zip", ".gz", ".json", ".pt.trace"})
      if (stem.endsWith(QLatin1String(ext))) stem.chop(qsizetype(std::strlen(ext)));
    dir = stem + QStringLiteral("_split");
  }
  gate::GateOptions g = run_->gateOptions();
  g.mode = gate_ ? requestedMode(*gate_, run_->modeText())
                 : gate::parseMode(run_->modeText().toStdString())
                       .value_or(o.llmInference ? gate::Mode::Mixed : gate::Mode::Generic);
  const std::string trace = QFileInfo(path_).absoluteFilePath().toStdString();
  const std::string d = dir.toStdString();
  return QString::fromStdString(review::shellLine(review::splitCommandArgs(o, trace, d)) + " && " +
                                review::shellLine(review::gateCommandArgs(g, d, trace, o)));
}

void MainWindow::copyCommand() {
  const QString line = commandLine();
  if (line.isEmpty()) {
    flash(tr("Split the trace first: the command reproduces the shown split."), 5000);
    return;
  }
  QGuiApplication::clipboard()->setText(line);
  flash(tr("Copied the command: %1").arg(line), 8000);
}

bool MainWindow::selectMode(const QString& mode) {
  const std::optional<names::ChunkMode> wanted = names::parseModeName(mode.toStdString());
  if (!wanted) return false;
  const auto& rows = chunks_->model()->chunks();
  for (int i = 0; i < rows.size(); ++i) {
    if (names::parseModeName(rows[i].mode.toStdString()) != wanted) continue;
    selection_->setChunk(i);
    if (rows[i].endNs > rows[i].beginNs) timeline_->zoomToRange(rows[i].beginNs, rows[i].endNs);
    return true;
  }
  return false;
}

// ------------------------------------------------------------ results

void MainWindow::storeResult() {
  if (current_ < 0 || size_t(current_) >= results_.size()) return;
  Result& r = results_[size_t(current_)];
  r.overlays = doc_.overlays;
  r.rows = chunks_->model()->chunks();
  r.gate = gate_;
  r.splitDir = splitDir_;
  r.rootTier = rootTier_;
}

void MainWindow::addResult(Result r) {
  results_.push_back(std::move(r));
  current_ = int(results_.size()) - 1;
  updateResultBox();
}

void MainWindow::updateResultBox() {
  const QSignalBlocker block(resultCombo_);
  resultCombo_->clear();
  for (const Result& r : results_) resultCombo_->addItem(r.title);
  resultCombo_->setCurrentIndex(current_);
  resultCombo_->setEnabled(results_.size() > 1);
}

void MainWindow::showResult(int index) {
  if (index < 0 || size_t(index) >= results_.size() || index == current_) return;
  storeResult();
  for (JobRunner* r : {splits_, reviews_}) r->discard();
  current_ = index;
  const Result& r = results_[size_t(index)];
  selection_->clear();
  splitDir_ = r.splitDir;
  gate_ = r.gate;
  doc_.overlays = r.overlays;
  rootTier_ = r.rootTier;
  timeline_->setOverlays(doc_.overlays);
  details_->setDocument(doc_);
  charts_->setDocument(doc_);
  chunks_->setChunks(r.rows);
  ++rowsGeneration_;
  selectRequested_ = true;
  updateResultBox();
  updateStatus();
  regate();  // the explanation of this result (its rows keep their verdicts)
}

void MainWindow::locateDirectory() {
  // A directory review with its source trace open: re-plan the split on the
  // source and place the directory's chunks (bands, steps, figures) on it.
  if (splitDir_.isEmpty() || !doc_ || locatedFor_ == doc_.trace || chunks_->model()->chunks().isEmpty()) return;
  if (refusePartial(tr("Placing the split's chunks on the source"))) return;
  bool reviewed = false;
  int numSteps = 0;
  for (const widgets::ChunkRow& r : chunks_->model()->chunks()) {
    reviewed = reviewed || r.hasVerdict;
    numSteps = std::max(numSteps, r.stepCount);  // --num-steps: the longest window (the others may be shorter)
  }
  if (!reviewed) return;
  locatedFor_ = doc_.trace;
  const TracePtr trace = doc_.trace;
  const timeline::TimelineIndexPtr index = doc_.index;
  if (numSteps <= 0) numSteps = run_->numStepsBox()->value();
  const int result = current_;
  const analysis::SplitOptions options = windowSplitOptions(numSteps);
  const std::string dir = splitDir_.toStdString();
  splits_->start<DirectoryPlacement>(
      tr("Placing the chunks on %1").arg(QFileInfo(path_).fileName()),
      [trace, index, options, dir](JobContext& ctx) {
        return placeDirectory(trace, index, options, dir, &ctx.control);
      },
      [this, trace, result, options](DirectoryPlacement placed) {
        if (doc_.trace != trace || current_ != result || splitDir_.isEmpty()) return;
        results_[size_t(result)].options = options;
        results_[size_t(result)].planned = placed.plan.planned;
        onPlaced(placed);
      });
}

void MainWindow::onPlaced(const DirectoryPlacement& placement) {
  QVector<widgets::ChunkRow> rows = chunks_->model()->chunks();
  auto ov = std::make_shared<timeline::TimelineOverlays>();
  const int placed = locateDirectoryRows(placement.plan, rows, *ov);
  doc_.overlays = ov;
  rootTier_ = placement.plan.rootTier;
  timeline_->setOverlays(doc_.overlays);
  details_->setDocument(doc_);
  charts_->setDocument(doc_);
  addWindowFigures(rows);
  chunks_->updateChunks(rows);
  storeResult();
  updateStatus();
  if (placed < rows.size())
    flash(tr("%1 of %2 chunk files were found in a split of the source trace; the others are not drawn.")
              .arg(placed)
              .arg(rows.size()),
          8000);
  const int c = selection_->chunk();
  if (c >= 0 && c < rows.size() && rows[c].endNs > rows[c].beginNs)
    timeline_->zoomToRange(rows[c].beginNs, rows[c].endNs);
  if (placement.match && gate_) {  // the gate now reads the trace's evidence, as for a live split
    auto withEvidence = std::make_shared<GateSource>(*gate_);
    withEvidence->match = placement.match;
    gate_ = std::move(withEvidence);
    storeResult();
    regate();
  }
}

// ------------------------------------------------------------ gate

void MainWindow::setGateSource(std::shared_ptr<const GateSource> source) {
  gate_ = std::move(source);
  regate();
}

void MainWindow::regate() {
  // A directory being opened has no source yet: its review reads it.
  if (!gate_ && splitDir_.isEmpty()) return;
  GateRequest req;
  req.source = gate_;
  if (!gate_) req.dir = splitDir_.toStdString();
  req.rows = chunks_->model()->chunks();
  const gate::GateOptions go = run_->gateOptions();
  req.threshold = go.threshold;
  req.margin = go.margin;
  req.strict = go.strict;
  req.comboMode = run_->modeText();
  const int c = selection_->chunk();
  if (c >= 0 && c < req.rows.size()) req.selectedMode = req.rows[c].mode;
  const QString title = gate_ ? tr("Gating") : tr("Reviewing %1").arg(QFileInfo(splitDir_).fileName());
  const quint64 rowsGen = rowsGeneration_;
  reviews_->start<GateReview>(
      title, [req = std::move(req)](JobContext& ctx) { return reviewGate(req, ctx.control); },
      [this, rowsGen](GateReview r) { onReviewed(r, rowsGen); });
}

void MainWindow::onReviewed(const GateReview& r, quint64 rowsGeneration) {
  if (rowsGeneration != rowsGeneration_) return;  // the table got other rows meanwhile
  const bool newRows = r.source != gate_;         // a directory's first review brings its rows
  gate_ = r.source;
  if (newRows) {
    chunks_->setChunks(r.rows);
    ++rowsGeneration_;
  } else {
    // Only the gate's fields: the rows may have been placed on the source trace since the request.
    QVector<widgets::ChunkRow> rows = chunks_->model()->chunks();
    if (rows.size() != r.rows.size()) rows = r.rows;
    for (qsizetype i = 0; i < rows.size() && rows[i].file == r.rows[i].file; ++i)
      widgets::takeGateFields(rows[i], r.rows[i]);
    chunks_->updateChunks(rows);
  }
  selectRequestedOnce();
  storeResult();
  if (newRows) locateDirectory();
  shownGate_ = r.shown.result;
  if (shownGate_)
    explanation_->setExplanation(explanationOf(*shownGate_));
  else
    explanation_->clear(tr("The gate could not run: %1").arg(r.shown.error));
}

void MainWindow::selectRequestedOnce() {
  // New rows open on the mode the pipeline asks for (its selection re-gates for the explanation).
  const auto& rows = chunks_->model()->chunks();
  if (!selectRequested_ || std::none_of(rows.begin(), rows.end(), [](const auto& r) { return r.hasVerdict; }))
    return;  // not reviewed yet: the review's arrival selects
  selectRequested_ = false;
  if (selection_->chunk() >= 0) return;
  for (int i = 0; i < rows.size(); ++i)
    if (rows[i].requested) {
      selection_->setChunk(i);
      if (rows[i].endNs > rows[i].beginNs) timeline_->zoomToRange(rows[i].beginNs, rows[i].endNs);
      return;
    }
}

void MainWindow::showSteps(const QVector<int>& steps) {
  // A finding's steps (the ruler's numbers): marked on ruler and lanes, the first selected, all in view.
  const auto& ov = doc_.overlays;
  if (!ov) return;
  QVector<int> positions;
  for (int s : steps)
    if (const int64_t p = ov->positionOfStep(s); p >= 0) positions << int(p);
  if (positions.isEmpty()) {
    flash(tr("Those steps are not on the timeline (open the source trace to see them)."), 6000);
    return;
  }
  selection_->setMarkedSteps(positions);
  std::sort(positions.begin(), positions.end());
  selection_->setStep(positions.first());
  timeline_->zoomToRange(ov->steps[size_t(positions.first())].beginNs, ov->steps[size_t(positions.last())].endNs);
}

// ------------------------------------------------------------ find

// ------------------------------------------------------------ window

void MainWindow::closeEvent(QCloseEvent* e) {
  for (JobRunner* r : {loads_, splits_, reviews_, exports_}) r->discard();
  settings_->setGeometry(saveGeometry());
  settings_->setWindowState(saveState());
  settings_->sync();
  QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QList<QUrl> urls = e->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString p = urls.first().toLocalFile();
  e->acceptProposedAction();
  if (QFileInfo(p).isDir())
    openSplitDirectory(p);
  else
    openFile(p);
}

}  // namespace steadyscope::app
