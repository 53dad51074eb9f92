#include "compare_controller.hpp"

#include "load_job.hpp"
#include "run_panel.hpp"

#include "common/selection_model.hpp"

#include <QFileInfo>

#include <utility>

namespace steadyscope::app {

CompareController::CompareController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                                     QObject* parent)
    : Controller(doc, jobs, parent), run_(run), selection_(selection) {
  connect(lane(JobKind::Compare), &JobLane::cancelled, this, [this] {
    if (!byOpRunning_) return fail(tr("Loading the trace to compare was cancelled."), 5000);
    byOpRunning_ = false;
    doc_->comparison().setByOp({}, tr("Comparing the two traces op by op was cancelled."));
    fail(tr("Comparing the two traces op by op was cancelled."), 5000);
  });
  connect(&doc_->comparison(), &Comparison::byOpChanged, this, [this] {
    if (!doc_->comparison().byOp() && highlighting_) chooseOp({});  // its events belong to a trace gone
  });
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
  connect(&doc_->comparison(), &Comparison::sidesChanged, this, &CompareController::showComparison);
  connect(&doc_->comparison(), &Comparison::sidesDropped, this, [this] {
    if (doc_->comparison().side(0) || doc_->comparison().side(1))
      showComparison();
    else
      emit comparisonCleared(tr("The compared chunks belonged to a trace that is closed."));
  });
}

void CompareController::pickCompared(int index) {
  picked_ = Picked::Compared;
  pickedCompared_ = index;
}

std::optional<AbPick> CompareController::pickOfModelRow(int row) const {
  const auto& rows = doc_->rows();
  if (row < 0) return std::nullopt;
  if (row < rows.size()) return pickChunk(doc_->view(), rows[row], size_t(row), doc_->fileName());
  const size_t i = size_t(row - rows.size());
  const ComparedTrace* c = doc_->comparison().compared();
  if (!c || i >= c->picks.size()) return std::nullopt;
  return c->picks[i];
}

std::optional<AbPick> CompareController::pickOfSelection() const {
  switch (picked_) {
    case Picked::Chunk: return pickOfModelRow(selection_->chunk());
    case Picked::Step: return pickStep(doc_->view(), selection_->step(), doc_->fileName());
    case Picked::Range:
      if (!selection_->hasRange()) return std::nullopt;
      return pickRange(doc_->view(), selection_->rangeBegin(), selection_->rangeEnd(), doc_->fileName());
    case Picked::Compared: return pickOfModelRow(int(doc_->rows().size()) + pickedCompared_);
    case Picked::None: break;
  }
  return std::nullopt;
}

bool CompareController::useSelectionAs(int side) {
  std::optional<AbPick> p = pickOfSelection();
  if (!p) {
    emit message(tr("Select a chunk, a step or a range first (a chunk needs its place on the timeline)."), 5000);
    return false;
  }
  doc_->comparison().setSide(side, std::move(p));
  return true;
}

bool CompareController::compareSelectedRows(const QVector<int>& rows) {
  if (rows.size() != 2) {
    emit message(tr("Select two chunks in the table (Ctrl+click) to compare them; %1 selected.").arg(rows.size()),
                 5000);
    return false;
  }
  return compareRows(rows[0], rows[1]);
}

bool CompareController::compareRows(int rowA, int rowB) {
  std::optional<AbPick> a = pickOfModelRow(rowA), b = pickOfModelRow(rowB);
  if (!a || !b) {
    emit message(tr("A chunk without a place on the timeline cannot be compared; open its source trace."), 6000);
    return false;
  }
  doc_->comparison().setSides(std::move(a), std::move(b));  // shows the comparison
  return true;
}

bool CompareController::compareModes(const QString& mode) {
  const auto& rows = doc_->rows();
  const ComparedTrace* c = doc_->comparison().compared();
  int a = -1, b = -1;
  for (int r = 0; r < rows.size() && a < 0; ++r)
    if (rows[r].mode == mode) a = r;
  for (int r = 0; c && r < c->rows.size() && b < 0; ++r)
    if (c->rows[r].mode == mode) b = int(rows.size()) + r;
  return a >= 0 && b >= 0 && compareRows(a, b);
}

void CompareController::swapSides() { doc_->comparison().swapSides(); }

void CompareController::showComparison() {
  const auto& sa = doc_->comparison().side(0);
  const auto& sb = doc_->comparison().side(1);
  const QString a = sa ? QString::fromStdString(sa->input.label) : QString();
  const QString b = sb ? QString::fromStdString(sb->input.label) : QString();
  if (!sa || !sb) {
    emit comparisonPending(sa ? tr("A: %1. Now pick B (Compare ▸ Use the selection as B).").arg(a)
                              : tr("B: %1. Now pick A (Compare ▸ Use the selection as A).").arg(b));
    return;
  }
  emit comparisonReady(timeline::abSideFigures(sa->input), timeline::abSideFigures(sb->input));
}

void CompareController::compareWith(const QString& path) {
  if (!*doc_) return void(emit message(tr("Open a trace first; the compared trace's chunks join its table."), 5000));
  const analysis::SplitOptions options = run_->splitOptions();
  const analysis::WorkloadKind kind = run_->kind();
  byOpRunning_ = false;
  lane(JobKind::Compare)
      ->start<ComparedOutcome>(
          tr("Loading %1 to compare").arg(QFileInfo(path).fileName()),
          [path, options, kind](JobContext& ctx) { return loadCompared(path, options, kind, ctx); },
          [this](ComparedOutcome out) { onCompared(out); }, loadProgress);
}

void CompareController::onCompared(const ComparedOutcome& out) {
  if (!out.compared) {
    doc_->setLastError(out.error);
    emit problem(tr("Cannot compare"), out.error);
    return;
  }
  doc_->comparison().setCompared(out.compared);
  const ComparedTrace& c = *out.compared;
  compareByOp();
  if (c.rows.isEmpty())
    emit message(tr("%1 has no chunk to compare: %2").arg(c.name, c.note), 8000);
  else
    emit message(tr("%1 chunks of %2 are in the chunk table; select one of each trace and press Ctrl+B.")
                     .arg(c.rows.size())
                     .arg(c.name),
                 8000);
}

void CompareController::compareByOp() {
  const ComparedTrace* c = doc_->comparison().compared();
  if (!*doc_ || !c) return;
  if (!c->doc)
    return doc_->comparison().setByOp(
        {}, tr("%1 is a split directory: the op-by-op comparison needs a trace (File ▸ Compare with…).").arg(c->name));
  if (doc_->isPartial())
    return doc_->comparison().setByOp(
        {}, tr("Comparing op by op needs the whole trace: %1 was read only in part.").arg(doc_->fileName()));
  OpCompareSide a{doc_->trace(), doc_->index(), QString::fromStdString(doc_->trace()->path), {}};
  OpCompareSide b{c->doc.trace, c->doc.index, c->path, {}};
  doc_->comparison().setByOp(
      {}, tr("Comparing %1 and %2 op by op…").arg(sideName(0, a.path, b.path), sideName(1, a.path, b.path)));
  byOpRunning_ = true;
  lane(JobKind::Compare)
      ->start<OpCompareOutcome>(
          tr("Comparing %1 and %2 op by op").arg(doc_->fileName(), c->name),
          [a = std::move(a), b = std::move(b)](JobContext& ctx) { return app::compareByOp(a, b, ctx); },
          [this](OpCompareOutcome out) { onByOp(out); });
}

void CompareController::onByOp(const OpCompareOutcome& out) {
  byOpRunning_ = false;
  if (!out.comparison) {
    doc_->comparison().setByOp({}, out.error);
    return fail(out.error);
  }
  doc_->comparison().setByOp(out.comparison);
  const widgets::ByOpData& v = out.comparison->view;
  emit message(v.note.isEmpty() ? tr("%1 against %2: %3 ops, %4 aligned steps; choose an op to mark its kernels.")
                                      .arg(v.a.name, v.b.name)
                                      .arg(v.rows.size())
                                      .arg(v.a.steps)
                                : v.note,
               8000);
}

void CompareController::chooseOp(const QString& op, const QString& kernel) {
  const OpComparison* c = doc_->comparison().byOp();
  if (op.isEmpty() || !c) {
    if (!std::exchange(highlighting_, false)) return;  // find's matches stay as they are
    emit opHighlighted(nullptr, nullptr);
    return;
  }
  const std::string o = op.toStdString(), k = kernel.toStdString();
  auto a = opHighlight(*c, 0, o, k), b = opHighlight(*c, 1, o, k);
  highlighting_ = true;
  emit opHighlighted(a, b);
  const auto count = [](const auto& f) { return f ? qsizetype(f->events.size()) : 0; };
  emit message(
      tr("%1: GPU events marked: %2 in A, %3 in B").arg(kernel.isEmpty() ? op : kernel).arg(count(a)).arg(count(b)),
      5000);
}

void CompareController::stopComparing() {
  byOpRunning_ = false;
  lane(JobKind::Compare)->discard();
  doc_->comparison().setCompared({});
}

}  // namespace steadyscope::app
