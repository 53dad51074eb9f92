// The window's A/B: the Compare menu, the A/B pane, and the compared trace
// (File ▸ Compare with…) whose chunks join the chunk table under its name.
// A side is a chunk row of either trace, a step or a range of the open trace;
// the figures are core's (timeline/ab_compare), computed on the GUI thread
// (a few ms: they read the index, not the events' text).
#include "main_window.hpp"

#include "panels/ab_panel.hpp"
#include "panels/chunks_panel.hpp"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QTableView>

namespace steadyscope::app {

void MainWindow::createCompareActions() {
  QMenu* m = menuBar()->addMenu(tr("C&ompare"));
  m->setObjectName(QStringLiteral("menu.compare"));
  QAction* rows = m->addAction(tr("Compare the two selected &chunks"), this, [this] { compareSelectedRows(); });
  rows->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  rows->setObjectName(QStringLiteral("action.compareRows"));
  QAction* a = m->addAction(tr("Use the selection as &A"), this, [this] { useSelectionAs(0); });
  a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
  QAction* b = m->addAction(tr("Use the selection as &B"), this, [this] { useSelectionAs(1); });
  b->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
  m->addAction(tr("&Swap A and B"), this, [this] {
    std::swap(sides_[0], sides_[1]);
    showComparison();
  });
  // The same on the chunk table's right-click menu (a right-click selects the row under the mouse).
  QTableView* table = chunks_->view();
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  for (QAction* act : {rows, a, b}) table->addAction(act);
  auto* copy = new QAction(tr("Copy the selected rows (TSV)"), table);
  connect(copy, &QAction::triggered, chunks_, [this] { chunks_->copySelectedRows(); });
  table->addAction(copy);
  m->addSeparator();
  m->addAction(compareWithAction_);
  m->addAction(tr("Compare with a split &directory…"), this, &MainWindow::compareWithDirectoryDialog);
  m->addAction(tr("Stop comparing with the other trace"), this, &MainWindow::stopComparing);
  // Which of the selection's parts "Use the selection" takes: the one picked last.
  connect(selection_, &widgets::SelectionModel::chunkChanged, this, [this](int c) {
    if (c >= 0) picked_ = Picked::Chunk;
  });
  connect(selection_, &widgets::SelectionModel::stepChanged, this, [this](int s) {
    if (s >= 0) picked_ = Picked::Step;
  });
  connect(selection_, &widgets::SelectionModel::rangeChanged, this, [this](qint64 begin, qint64 end) {
    if (end > begin) picked_ = Picked::Range;
  });
  connect(chunks_, &widgets::ChunksPanel::comparedRowSelected, this, [this](int i) {
    picked_ = Picked::Compared;
    pickedCompared_ = i;
  });
}

QDockWidget* MainWindow::createAbDock() {
  ab_ = new widgets::AbPanel(this);
  ab_->clear(
      tr("Select two chunks in the table and press Ctrl+B, or pick a chunk, step or range and "
         "choose Compare ▸ Use the selection as A, then another as B. "
         "Compare ▸ Compare with another trace… adds a second trace's chunks to the table."));
  auto* d = new QDockWidget(tr("A/B"), this);
  d->setObjectName(QStringLiteral("dock.ab"));
  d->setWidget(ab_);
  return d;
}

QString MainWindow::shownName() const { return QFileInfo(path_).fileName(); }

std::optional<AbPick> MainWindow::pickOfModelRow(int row) const {
  const widgets::ChunkModel* m = chunks_->model();
  if (row < 0 || row >= m->rowCount()) return std::nullopt;
  if (!m->isCompared(row)) return pickChunk(doc_, m->chunks()[row], size_t(row), shownName());
  const size_t i = size_t(row - m->chunks().size());
  if (!compared_ || i >= compared_->picks.size()) return std::nullopt;
  return compared_->picks[i];
}

std::optional<AbPick> MainWindow::pickOfSelection() const {
  switch (picked_) {
    case Picked::Chunk: return pickOfModelRow(selection_->chunk());
    case Picked::Step: return pickStep(doc_, selection_->step(), shownName());
    case Picked::Range:
      if (!selection_->hasRange()) return std::nullopt;
      return pickRange(doc_, selection_->rangeBegin(), selection_->rangeEnd(), shownName());
    case Picked::Compared: return pickOfModelRow(int(chunks_->model()->chunks().size()) + pickedCompared_);
    case Picked::None: break;
  }
  return std::nullopt;
}

bool MainWindow::useSelectionAs(int side) {
  std::optional<AbPick> p = pickOfSelection();
  if (!p) {
    flash(tr("Select a chunk, a step or a range first (a chunk needs its place on the timeline)."), 5000);
    return false;
  }
  sides_[side] = std::move(p);
  showComparison();
  return true;
}

bool MainWindow::compareSelectedRows() {
  const QVector<int> rows = chunks_->selectedModelRows();
  if (rows.size() != 2) {
    flash(tr("Select two chunks in the table (Ctrl+click) to compare them; %1 selected.").arg(rows.size()), 5000);
    return false;
  }
  return compareRows(rows[0], rows[1]);
}

bool MainWindow::compareRows(int rowA, int rowB) {
  std::optional<AbPick> a = pickOfModelRow(rowA), b = pickOfModelRow(rowB);
  if (!a || !b) {
    flash(tr("A chunk without a place on the timeline cannot be compared; open its source trace."), 6000);
    return false;
  }
  sides_[0] = std::move(a);
  sides_[1] = std::move(b);
  showComparison();
  return true;
}

bool MainWindow::compareModes(const QString& mode) {
  const widgets::ChunkModel* m = chunks_->model();
  int a = -1, b = -1;
  for (int r = 0; r < m->rowCount(); ++r) {
    int& side = m->isCompared(r) ? b : a;  // the first row of the mode on each side
    if (side < 0 && m->rowAt(r).mode == mode) side = r;
  }
  return a >= 0 && b >= 0 && compareRows(a, b);
}

bool MainWindow::raiseDock(const QString& name) {
  auto* d = findChild<QDockWidget*>(QStringLiteral("dock.") + name);
  if (!d) return false;
  d->show();
  d->raise();
  return true;
}

void MainWindow::showComparison() {
  abDock_->show();
  abDock_->raise();
  // The two tables need a dozen rows to be read; grow a short bottom area once, never shrink it.
  if (!abDock_->isFloating() && abDock_->height() < 320) resizeDocks({abDock_}, {340}, Qt::Vertical);
  const QString a = sides_[0] ? QString::fromStdString(sides_[0]->input.label) : QString();
  const QString b = sides_[1] ? QString::fromStdString(sides_[1]->input.label) : QString();
  if (!sides_[0] || !sides_[1]) {
    ab_->clear(sides_[0] ? tr("A: %1. Now pick B (Compare ▸ Use the selection as B).").arg(a)
                         : tr("B: %1. Now pick A (Compare ▸ Use the selection as A).").arg(b));
    return;
  }
  const timeline::AbSideFigures fa = timeline::abSideFigures(sides_[0]->input);
  const timeline::AbSideFigures fb = timeline::abSideFigures(sides_[1]->input);
  ab_->setComparison(fa, fb);
}

void MainWindow::releaseStalePicks() {
  // A side keeps its trace alive: drop sides of traces the window no longer shows.
  const auto shown = [this](const TracePtr& t) {
    if (t == doc_.trace) return true;
    if (compared_)
      for (const AbPick& p : compared_->picks)
        if (p.trace == t) return true;
    return false;
  };
  bool dropped = false;
  for (auto& s : sides_)
    if (s && !shown(s->trace)) {
      s.reset();
      dropped = true;
    }
  if (!dropped) return;
  if (sides_[0] || sides_[1])
    showComparison();
  else
    ab_->clear(tr("The compared chunks belonged to a trace that is closed."));
}

void MainWindow::addCompareFileActions(QMenu* file) {
  compareWithAction_ = file->addAction(tr("Compare &with…"), this, &MainWindow::compareWithDialog);
  compareWithAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  compareWithAction_->setToolTip(tr("Open a second trace beside this one; its chunks join the chunk table."));
  file->addAction(tr("Compare with a split &directory…"), this, &MainWindow::compareWithDirectoryDialog);
}

void MainWindow::compareWithDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Compare with a trace"), QFileInfo(path_).absolutePath(),
                                                    tr("Traces (*.json *.json.gz *.gz *.zip *.zst);;All files (*)"));
  if (!path.isEmpty()) compareWith(path);
}

void MainWindow::compareWithDirectoryDialog() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Compare with a split directory"), QFileInfo(path_).absolutePath());
  if (!dir.isEmpty()) compareWith(dir);
}

void MainWindow::compareWith(const QString& path) {
  if (!doc_) {
    flash(tr("Open a trace first; the compared trace's chunks join its table."), 5000);
    return;
  }
  const analysis::SplitOptions options = run_->splitOptions();
  const analysis::WorkloadKind kind = run_->kind();
  compares_->start<ComparedOutcome>(
      tr("Loading %1 to compare").arg(QFileInfo(path).fileName()),
      [path, options, kind](JobContext& ctx) { return loadCompared(path, options, kind, ctx); },
      [this](ComparedOutcome out) { onCompared(out); }, loadProgress);
}

void MainWindow::onCompared(const ComparedOutcome& out) {
  if (!out.compared) {
    lastError_ = out.error;
    showError(tr("Cannot compare"), out.error);
    return;
  }
  compared_ = out.compared;
  chunks_->setComparedChunks(compared_->rows, compared_->name);
  releaseStalePicks();
  if (compared_->rows.isEmpty())
    flash(tr("%1 has no chunk to compare: %2").arg(compared_->name, compared_->note), 8000);
  else
    flash(tr("%1 chunks of %2 are in the chunk table; select one of each trace and press Ctrl+B.")
              .arg(compared_->rows.size())
              .arg(compared_->name),
          8000);
}

void MainWindow::stopComparing() {
  compares_->discard();
  compared_.reset();
  chunks_->setComparedChunks({}, {});
  releaseStalePicks();
}

}  // namespace steadyscope::app
