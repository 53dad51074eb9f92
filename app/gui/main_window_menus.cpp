// The window's menus and toolbar: each action calls its controller (or the
// timeline, for the view keys); the window only places them.
#include "compare_controller.hpp"
#include "export_controller.hpp"
#include "find_controller.hpp"
#include "job_controller.hpp"
#include "main_window.hpp"
#include "open_controller.hpp"
#include "review_controller.hpp"
#include "split_controller.hpp"
#include "status_bar.hpp"
#include "theme.hpp"

#include "common/selection_model.hpp"
#include "panels/chunks_panel.hpp"
#include "panels/job_view.hpp"
#include "timeline/timeline_view.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QTableView>
#include <QToolBar>

namespace steadyscope::app {

namespace {
const QString kTraceFilter = QStringLiteral("Traces (*.json *.json.gz *.gz *.zip *.zst);;All files (*)");
}

void MainWindow::createFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  OpenController* open = c_.open;
  openAction_ = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open trace…"), this, [=, this] {
    // Several traces (the ranks of a job) open in the Job view.
    const QStringList f = QFileDialog::getOpenFileNames(this, tr("Open traces"), open->startFolder(), kTraceFilter);
    openPaths(f);
  });
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setObjectName(QStringLiteral("action.open"));
  openDirAction_ =
      file->addAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &split directory…"), this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Open split directory"), c_.open->startFolder());
        if (!d.isEmpty()) c_.review->openSplitDirectory(d);
      });
  file->addAction(tr("Open the s&ample"), open, &OpenController::openSample);
  recentMenu_ = file->addMenu(tr("Open &recent"));
  file->addSeparator();
  compareWithAction_ = file->addAction(tr("Compare &with…"), this, [this] {
    const QString f =
        QFileDialog::getOpenFileName(this, tr("Compare with a trace"), c_.open->startFolder(), kTraceFilter);
    if (!f.isEmpty()) c_.compare->compareWith(f);
  });
  compareWithAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  compareWithAction_->setToolTip(tr("Open a second trace beside this one; its chunks join the chunk table."));
  QAction* compareDir = file->addAction(tr("Compare with a split &directory…"), this, [this] {
    const QString d =
        QFileDialog::getExistingDirectory(this, tr("Compare with a split directory"), c_.open->startFolder());
    if (!d.isEmpty()) c_.compare->compareWith(d);
  });
  compareDir->setObjectName(QStringLiteral("action.compareDir"));
  file->addSeparator();
  file->addAction(tr("&Close trace"), open, &OpenController::closeTrace)
      ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  file->addSeparator();
  QAction* settings = file->addAction(tr("Se&ttings…"), this, &MainWindow::showSettings);
  settings->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
  settings->setMenuRole(QAction::PreferencesRole);
  settings->setObjectName(QStringLiteral("action.settings"));
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);
}

void MainWindow::createViewMenu() {
  // Single-letter keys: Perfetto / Tracy habits.
  QMenu* view = menuBar()->addMenu(tr("&View"));
  widgets::TimelineView* t = panes_.timeline;
  auto key = [this, view](const QString& text, QKeySequence seq, auto receiver, auto slot, const QString& name) {
    QAction* a = view->addAction(text);
    a->setShortcut(seq);
    a->setObjectName(name);
    a->setShortcutContext(Qt::WindowShortcut);
    connect(a, &QAction::triggered, receiver, slot);
    addAction(a);
    return a;
  };
  using TV = widgets::TimelineView;
  key(tr("&Fit all"), QKeySequence(Qt::Key_F), t, &TV::fitAll, QStringLiteral("action.fit"));
  key(tr("Zoom &in"), QKeySequence(Qt::Key_W), t, &TV::zoomIn, QStringLiteral("action.zoomIn"));
  key(tr("Zoom &out"), QKeySequence(Qt::Key_S), t, &TV::zoomOut, QStringLiteral("action.zoomOut"));
  key(tr("Pan &left"), QKeySequence(Qt::Key_A), t, &TV::panLeft, QStringLiteral("action.panLeft"));
  key(tr("Pan &right"), QKeySequence(Qt::Key_D), t, &TV::panRight, QStringLiteral("action.panRight"));
  key(tr("&Zoom to selection"), QKeySequence(Qt::Key_Z), t, &TV::zoomToSelection, QStringLiteral("action.zoomSel"));
  // Esc cancels the job the status bar shows; with none shown it clears the selection.
  key(
      tr("Cancel / &clear selection"), QKeySequence(Qt::Key_Escape), this,
      [this] {
        if (status_->showsJob())
          jobs_->cancelAll();
        else
          selection_->clear();
      },
      QStringLiteral("action.clearSelection"));
  key(
      tr("&Go to the other end of the flow"), QKeySequence(Qt::Key_G), this,
      [this] {
        if (!panes_.timeline->followFlow())
          status_->flash(tr("The selected event has no flow (no launch, kernel or other link)."));
      },
      QStringLiteral("action.followFlow"));
  key(
      tr("Filter &lanes…"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
      [this] {
        panes_.laneFilter->setFocus(Qt::ShortcutFocusReason);
        panes_.laneFilter->selectAll();
      },
      QStringLiteral("action.filterLanes"));
  // The Job view and the open rank's timeline, one key apart.
  jobViewAction_ = key(
      tr("&Job view"), QKeySequence(Qt::CTRL | Qt::Key_J), this,
      [this] {
        if (isJobViewShown() && *doc_)
          showCentre(panes_.timeline);
        else
          showJobView();
      },
      QStringLiteral("action.jobView"));
  jobViewAction_->setToolTip(tr("Every rank of the job opened; again: back to the open rank's timeline"));
  jobViewAction_->setEnabled(false);
  addThemeMenu(view, settings_.get());
  view->addSeparator();
  for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
  view->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout)
      ->setObjectName(QStringLiteral("action.resetLayout"));
  // Kineto's own "Spans" / "Traces" processes and processes with only a name hold nothing of the run.
  QAction* bookkeeping = view->addAction(tr("Show processes &without events"));
  bookkeeping->setObjectName(QStringLiteral("action.showBookkeeping"));
  bookkeeping->setCheckable(true);
  bookkeeping->setToolTip(
      tr("Also show the processes that hold no event of the run: the profiler's own span "
         "(\"Spans\", \"Traces\") and processes known only by their name"));
  bookkeeping->setChecked(settings_->showBookkeeping());
  t->setShowBookkeeping(bookkeeping->isChecked());
  connect(bookkeeping, &QAction::toggled, this, [this](bool on) {
    panes_.timeline->setShowBookkeeping(on);
    settings_->setShowBookkeeping(on);
  });
  // Find: Ctrl+F to the field, Enter / F3 through the matches.
  auto* find = new QAction(tr("&Find events…"), this);
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, this, [this] {
    panes_.findEdit->setFocus(Qt::ShortcutFocusReason);
    panes_.findEdit->selectAll();
  });
  auto* next = new QAction(tr("Find next"), this);
  next->setShortcut(QKeySequence::FindNext);
  connect(next, &QAction::triggered, c_.find, &FindController::findNext);
  auto* prev = new QAction(tr("Find previous"), this);
  prev->setShortcut(QKeySequence::FindPrevious);
  connect(prev, &QAction::triggered, c_.find, &FindController::findPrevious);
  addActions({find, next, prev});
}

void MainWindow::createSplitMenus() {
  QMenu* split = menuBar()->addMenu(tr("&Split"));
  runSplitAction_ = split->addAction(tr("&Run split"), c_.split, &SplitController::runSplit);
  runSplitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  runSplitAction_->setObjectName(QStringLiteral("action.runSplit"));
  split->addAction(tr("&Copy as command"), c_.split, &SplitController::copyCommand)
      ->setObjectName(QStringLiteral("action.copyCommand"));
  // The selected chunk's actions.
  QMenu* chunk = menuBar()->addMenu(tr("&Chunk"));
  chunk->setObjectName(QStringLiteral("menu.chunk"));
  chunk->addAction(tr("&Zoom to the selected chunk"), this, [this] {
    const auto& rows = doc_->rows();
    const int c = selection_->chunk();
    if (c >= 0 && c < rows.size() && rows[c].endNs > rows[c].beginNs)
      panes_.timeline->zoomToRange(rows[c].beginNs, rows[c].endNs);
  });
  chunk->addAction(tr("&Copy the selected rows (TSV)"), panes_.chunks, &widgets::ChunksPanel::copySelectedRows);
  chunk->addSeparator();
  chunk->setToolTipsVisible(true);  // a disabled action's tooltip says why
  exportAction_ = chunk->addAction(tr("&Export…"), c_.exporting, &ExportController::exportSelectedChunk);
  exportAction_->setObjectName(QStringLiteral("action.export"));
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  reportAction_ = chunk->addAction(tr("Save &report…"), c_.exporting, &ExportController::saveReportDialog);
  reportAction_->setObjectName(QStringLiteral("action.report"));
  chunk->addAction(tr("Copy the timeline as an &image"), c_.exporting, &ExportController::copyTimelineImage)
      ->setObjectName(QStringLiteral("action.copyImage"));
  connect(chunk, &QMenu::aboutToShow, this, &MainWindow::updateChunkActions);
}

void MainWindow::createCompareMenu() {
  QMenu* m = menuBar()->addMenu(tr("C&ompare"));
  m->setObjectName(QStringLiteral("menu.compare"));
  CompareController* cmp = c_.compare;
  QAction* rows = m->addAction(tr("Compare the two selected &chunks or ranks"), cmp, [this] {
    if (isJobViewShown()) {
      const QVector<int> ranks = panes_.job->selectedPositions();
      if (ranks.size() == 2) return c_.job->compareRanks(ranks[0], ranks[1]);
      return c_.job->compareRanks(-1, -1);  // says what to select
    }
    c_.compare->compareSelectedRows(panes_.chunks->selectedModelRows());
  });
  rows->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  rows->setObjectName(QStringLiteral("action.compareRows"));
  QAction* a = m->addAction(tr("Use the selection as &A"), cmp, [cmp] { cmp->useSelectionAs(0); });
  a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
  QAction* b = m->addAction(tr("Use the selection as &B"), cmp, [cmp] { cmp->useSelectionAs(1); });
  b->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
  m->addAction(tr("&Swap A and B"), cmp, &CompareController::swapSides);
  // The same on the chunk table's right-click menu (a right-click selects the row under the mouse).
  QTableView* table = panes_.chunks->view();
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  for (QAction* act : {rows, a, b}) table->addAction(act);
  auto* copy = new QAction(tr("Copy the selected rows (TSV)"), table);
  connect(copy, &QAction::triggered, panes_.chunks, &widgets::ChunksPanel::copySelectedRows);
  table->addAction(copy);
  m->addSeparator();
  m->addAction(compareWithAction_);
  m->addAction(findChild<QAction*>(QStringLiteral("action.compareDir")));
  m->addAction(tr("Stop comparing with the other trace"), cmp, &CompareController::stopComparing);
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
  panes_.results = new QComboBox(tb);
  panes_.results->setObjectName(QStringLiteral("resultBox"));
  panes_.results->setToolTip(
      tr("The results of this trace (a split directory's review, each Run split): switch to compare"));
  panes_.results->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  panes_.results->setEnabled(false);
  tb->addWidget(panes_.results);
  connect(panes_.results, &QComboBox::activated, c_.split, &SplitController::showResult);
  tb->addWidget(panes_.laneFilter);
  auto* spacer = new QWidget(tb);
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  tb->addWidget(spacer);
  panes_.findEdit = new QLineEdit(tb);
  panes_.findEdit->setObjectName(QStringLiteral("findEdit"));
  panes_.findEdit->setPlaceholderText(tr("find events (regex)…  Ctrl+F"));
  panes_.findEdit->setClearButtonEnabled(true);
  panes_.findEdit->setMinimumWidth(260);
  tb->addWidget(panes_.findEdit);
  connect(panes_.findEdit, &QLineEdit::returnPressed, c_.find, [this] {
    if (QApplication::keyboardModifiers() & Qt::ShiftModifier)
      c_.find->findPrevious();
    else
      c_.find->findNext();
  });
  connect(panes_.findEdit, &QLineEdit::textChanged, c_.find, &FindController::setPattern);
}

}  // namespace steadyscope::app
