#include "panels/ab_panel.hpp"
#include "common/text.hpp"

#include "common/table_tsv.hpp"
#include "panels/ab_step_chart.hpp"
#include "panels/by_op_model.hpp"

#include <steadyscope/timeline.hpp>

#include <QApplication>
#include <QClipboard>
#include <QColor>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>

namespace steadyscope::widgets {

namespace {
QString timeText(double ns) { return qs(timeline::formatDuration(ns)); }

/// "+12.5 %", "−3.0 %"; a change from nothing is "new".
QString relativeText(double a, double b) {
  if (a == 0.0) return b == 0.0 ? QStringLiteral("–") : QObject::tr("new");
  const double pct = 100.0 * (b - a) / a;
  return QStringLiteral("%1%2 %").arg(pct > 0 ? QStringLiteral("+") : QString()).arg(pct, 0, 'f', 1);
}

QString signedTime(double ns) {
  if (ns == 0.0) return QStringLiteral("0");
  return (ns > 0 ? QStringLiteral("+") : QStringLiteral("−")) + timeText(std::fabs(ns));
}
}  // namespace

// ------------------------------------------------------------ figures

void AbFiguresModel::setSides(const timeline::AbSideFigures& a, const timeline::AbSideFigures& b) {
  beginResetModel();
  labelA_ = a.label.empty() ? QStringLiteral("A") : qs(a.label);
  labelB_ = b.label.empty() ? QStringLiteral("B") : qs(b.label);
  rows_ = {
      {tr("Duration"), tr("The CPU window: first step's start to last step's end"), Unit::Time, double(a.durationNs),
       double(b.durationNs)},
      {tr("GPU time"), tr("The GPU spans summed over the steps and devices (for a range: the range on each device)"),
       Unit::Time, double(a.gpuTimeNs), double(b.gpuTimeNs)},
      {tr("GPU busy"), tr("Time some GPU work runs inside the GPU spans (overlaps counted once)"), Unit::Time,
       double(a.gpuUnionNs), double(b.gpuUnionNs)},
      {tr("Busy ratio"), tr("GPU busy ÷ GPU time"), Unit::Ratio, a.unionRatio(), b.unionRatio()},
      {tr("Events"), tr("Host slices overlapping the window plus the GPU events inside the spans"), Unit::Count,
       double(a.events), double(b.events)},
      {tr("GPU events"), tr("Kernels, copies and memsets inside the GPU spans"), Unit::Count, double(a.gpuEvents),
       double(b.gpuEvents)},
  };
  std::map<std::string, std::pair<double, double>> cats;
  for (const auto& c : a.categories) cats[c.category].first = double(c.totalNs);
  for (const auto& c : b.categories) cats[c.category].second = double(c.totalNs);
  for (const auto& [name, v] : cats)
    rows_.push_back({tr("time in %1").arg(qs(name)),
                     tr("Time of the %1 events: host events clipped to the window, GPU events whole").arg(qs(name)),
                     Unit::Time, v.first, v.second});
  endResetModel();
}

void AbFiguresModel::clear() {
  beginResetModel();
  rows_.clear();
  labelA_ = QStringLiteral("A");
  labelB_ = QStringLiteral("B");
  endResetModel();
}

int AbFiguresModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int AbFiguresModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant AbFiguresModel::display(const Row& r, int column) const {
  auto value = [&](double v) -> QString {
    switch (r.unit) {
      case Unit::Time: return timeText(v);
      case Unit::Count: return qs(timeline::formatCount(uint64_t(v)));
      case Unit::Ratio: return qs(timeline::formatRatio(v));
    }
    return {};
  };
  switch (column) {
    case FigureColumn: return r.figure;
    case AColumn: return value(r.a);
    case BColumn: return value(r.b);
    case DeltaColumn:
      if (r.unit == Unit::Time) return signedTime(r.b - r.a);
      if (r.unit == Unit::Ratio)
        return QStringLiteral("%1%2").arg(r.b >= r.a ? QStringLiteral("+") : QString()).arg(r.b - r.a, 0, 'f', 3);
      return QStringLiteral("%1%2").arg(r.b >= r.a ? QStringLiteral("+") : QString()).arg(qint64(r.b - r.a));
    case RelativeColumn: return relativeText(r.a, r.b);
  }
  return {};
}

QVariant AbFiguresModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
  const Row& r = rows_[size_t(index.row())];
  if (role == Qt::DisplayRole) return display(r, index.column());
  if (role == Qt::ToolTipRole) return r.tip;
  if (role == Qt::TextAlignmentRole && index.column() != FigureColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant AbFiguresModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  // "A" and "B" keep the columns narrow; the sides' names are in the pane's title and the tooltips.
  if (role == Qt::ToolTipRole) return section == AColumn ? labelA_ : section == BColumn ? labelB_ : QVariant();
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case FigureColumn: return tr("Figure");
    case AColumn: return QStringLiteral("A");
    case BColumn: return QStringLiteral("B");
    case DeltaColumn: return tr("B − A");
    case RelativeColumn: return tr("change");
  }
  return {};
}

// ------------------------------------------------------------ kernels

void AbKernelModel::setDeltas(std::vector<timeline::KernelDelta> deltas) {
  beginResetModel();
  rows_ = std::move(deltas);
  endResetModel();
}

int AbKernelModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int AbKernelModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant AbKernelModel::display(const timeline::KernelDelta& d, int column) const {
  switch (column) {
    case KernelColumn: return qs(d.name);
    case ATimeColumn: return d.countA ? timeText(double(d.nsA)) : QStringLiteral("–");
    case BTimeColumn: return d.countB ? timeText(double(d.nsB)) : QStringLiteral("–");
    case DeltaColumn: return signedTime(double(d.deltaNs()));
    case RelativeColumn:
      if (d.onlyA()) return tr("only in A");
      if (d.onlyB()) return tr("only in B");
      return relativeText(double(d.nsA), double(d.nsB));
    case ACountColumn: return qs(timeline::formatCount(d.countA));
    case BCountColumn: return qs(timeline::formatCount(d.countB));
  }
  return {};
}

QVariant AbKernelModel::sortValue(const timeline::KernelDelta& d, int column) const {
  switch (column) {
    case KernelColumn: return qs(d.name);
    case ATimeColumn: return qlonglong(d.nsA);
    case BTimeColumn: return qlonglong(d.nsB);
    case DeltaColumn: return qlonglong(d.deltaNs());
    case RelativeColumn: return std::isinf(d.relative()) ? 1e300 : d.relative();
    case ACountColumn: return qulonglong(d.countA);
    case BCountColumn: return qulonglong(d.countB);
  }
  return {};
}

QVariant AbKernelModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
  const timeline::KernelDelta& d = rows_[size_t(index.row())];
  if (role == Qt::DisplayRole) return display(d, index.column());
  if (role == SortRole) return sortValue(d, index.column());
  if (role == Qt::ForegroundRole && (index.column() == DeltaColumn || index.column() == RelativeColumn) && d.deltaNs())
    return QColor(d.deltaNs() > 0 ? QColor(0xB0, 0x30, 0x20) : QColor(0x20, 0x80, 0x40));  // slower: red
  if (role == Qt::ToolTipRole && index.column() == KernelColumn)
    return d.key == d.name ? qs(d.name) : tr("%1\nmatched as %2").arg(qs(d.name), qs(d.key));
  if (role == Qt::TextAlignmentRole && index.column() != KernelColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant AbKernelModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Kernel", "A time", "B time", "B − A", "change", "A count", "B count"};
  static const char* const kTips[] = {
      "The kernel's name; kernels are matched by name with addresses and line numbers ignored",
      "GPU time of the kernel's calls in A",
      "GPU time of the kernel's calls in B",
      "B's time minus A's",
      "The change relative to A's time",
      "Calls in A",
      "Calls in B"};
  if (section < 0 || section >= NUM_COLUMNS) return {};
  if (role == Qt::DisplayRole) return tr(kHeaders[section]);
  if (role == Qt::ToolTipRole) return tr(kTips[section]);
  return {};
}

// ------------------------------------------------------------ panel

namespace {
QTableView* newTable(QWidget* parent) {
  auto* v = new QTableView(parent);
  v->setSelectionBehavior(QAbstractItemView::SelectRows);
  v->setSelectionMode(QAbstractItemView::ExtendedSelection);
  v->setAlternatingRowColors(true);
  v->verticalHeader()->hide();
  v->horizontalHeader()->setStretchLastSection(false);
  v->setWordWrap(false);
  v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
  return v;
}
}  // namespace

namespace {
QString plural(size_t n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(qs(timeline::formatCount(n)), n == 1 ? one : many);
}

QString sourceWords(const QString& source) {
  if (source == QLatin1String("steady_state")) return QObject::tr("the steady-state chunk");
  if (source == QLatin1String("all_steps")) return QObject::tr("every step");
  if (source == QLatin1String("range")) return QObject::tr("the chosen steps");
  return QObject::tr("the whole trace");
}

// One side of the By op summary: its steps, step median, GPU busy per step and the share attributed.
QString sideLine(const ByOpSide& s) {
  QString steps;
  if (s.stepSource == QLatin1String("whole_trace")) {
    steps = QObject::tr("the whole trace");
  } else {
    const size_t last = s.firstStep + (s.steps ? s.steps - 1 : 0);
    steps = QObject::tr("%1 (%2–%3 of %4, %5)")
                .arg(plural(s.steps, QObject::tr("step"), QObject::tr("steps")))
                .arg(s.firstStep)
                .arg(last)
                .arg(s.totalSteps)
                .arg(sourceWords(s.stepSource));
    if (s.availableSteps > s.steps) steps += QObject::tr(", %1 left out to align").arg(s.availableSteps - s.steps);
    if (s.stepMedianUs) steps += QObject::tr(", step median %1").arg(timeText(*s.stepMedianUs * 1000.0));
  }
  return QObject::tr("<b>%1</b>: %2, GPU busy per step %3, %4 of %5 GPU time attributed to an op")
      .arg(s.name.toHtmlEscaped(), steps, timeText(s.gpuBusyPerStepUs * 1000.0))
      .arg(QStringLiteral("%1 %").arg(100.0 * s.attributedShare, 0, 'f', 1), timeText(s.gpuUs * 1000.0));
}
}  // namespace

AbPanel::AbPanel(QWidget* parent) : QWidget(parent) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("ab.tabs"));
  tabs_->setDocumentMode(true);
  lay->addWidget(tabs_, 1);
  auto* kernelsTab = new QWidget(tabs_);
  auto* kl = new QVBoxLayout(kernelsTab);
  kl->setContentsMargins(0, 4, 0, 0);
  title_ = new QLabel(kernelsTab);
  title_->setObjectName(QStringLiteral("ab.title"));
  title_->setWordWrap(true);
  kl->addWidget(title_);
  figures_ = new AbFiguresModel(this);
  kernels_ = new AbKernelModel(this);
  kernelProxy_ = new QSortFilterProxyModel(this);
  kernelProxy_->setSourceModel(kernels_);
  kernelProxy_->setSortRole(AbKernelModel::SortRole);
  auto* split = new QSplitter(Qt::Horizontal, kernelsTab);  // side by side: the bottom dock is wide and short
  figuresView_ = newTable(split);
  figuresView_->setModel(figures_);
  kernelView_ = newTable(split);
  kernelView_->setModel(kernelProxy_);
  kernelView_->setSortingEnabled(true);
  kernelView_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: biggest change first
  kernelView_->horizontalHeader()->setSectionResizeMode(AbKernelModel::KernelColumn, QHeaderView::Stretch);
  kernelView_->setTextElideMode(Qt::ElideMiddle);
  split->addWidget(figuresView_);
  split->addWidget(kernelView_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  kl->addWidget(split, 1);
  tabs_->addTab(kernelsTab, tr("By kernel"));
  tabs_->addTab(buildByOpTab(), tr("By op"));
  for (QAbstractItemView* v : std::initializer_list<QAbstractItemView*>{figuresView_, kernelView_, byOpView_})
    v->installEventFilter(this);
  clear();
  clearByOp(tr("Compare ▸ Compare with… another trace sets the two traces side by side, op by op."));
}

QWidget* AbPanel::buildByOpTab() {
  auto* tab = new QWidget(tabs_);
  auto* l = new QVBoxLayout(tab);
  l->setContentsMargins(0, 4, 0, 0);
  byOpSummary_ = new QLabel(tab);
  byOpSummary_->setObjectName(QStringLiteral("ab.byOpSummary"));
  byOpSummary_->setWordWrap(true);
  byOpSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->addWidget(byOpSummary_);
  byOp_ = new ByOpModel(this);
  byOpProxy_ = new QSortFilterProxyModel(this);
  byOpProxy_->setSourceModel(byOp_);
  byOpProxy_->setSortRole(ByOpModel::SortRole);
  auto* split = new QSplitter(Qt::Horizontal, tab);
  byOpView_ = new QTreeView(split);
  byOpView_->setObjectName(QStringLiteral("ab.byOp"));
  byOpView_->setModel(byOpProxy_);
  byOpView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  byOpView_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  byOpView_->setAlternatingRowColors(true);
  byOpView_->setUniformRowHeights(true);
  byOpView_->setSortingEnabled(true);
  byOpView_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: the largest change per step first
  byOpView_->setTextElideMode(Qt::ElideMiddle);
  byOpView_->header()->setStretchLastSection(false);
  byOpView_->header()->setSectionResizeMode(ByOpModel::OpColumn, QHeaderView::Stretch);
  connect(byOpView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) { onByOpCurrent(current); });
  stepChart_ = new AbStepChart(split);
  split->addWidget(byOpView_);
  split->addWidget(stepChart_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  l->addWidget(split, 1);
  return tab;
}

void AbPanel::setByOp(const ByOpData& d) {
  QStringList lines{sideLine(d.a), sideLine(d.b)};
  if (!d.note.isEmpty()) lines << QStringLiteral("<i>%1</i>").arg(d.note.toHtmlEscaped());
  byOpSummary_->setText(lines.join(QStringLiteral("<br>")));
  byOp_->setComparison(d);
  stepChart_->setComparison(d);
  for (int c = ByOpModel::ACountColumn; c < ByOpModel::NUM_COLUMNS; ++c) byOpView_->resizeColumnToContents(c);
  emit opChosen({}, {});  // the rows were replaced: no op is chosen
}

void AbPanel::clearByOp(const QString& hint) {
  byOpSummary_->setText(hint.toHtmlEscaped());
  byOp_->clear();
  stepChart_->clear();
  emit opChosen({}, {});
}

QString AbPanel::byOpSummary() const { return byOpSummary_->text(); }

void AbPanel::showTab(int tab) { tabs_->setCurrentIndex(tab); }
int AbPanel::currentTab() const { return tabs_->currentIndex(); }

void AbPanel::onByOpCurrent(const QModelIndex& current) {
  const QModelIndex i = byOpProxy_->mapToSource(current);
  emit opChosen(i.data(ByOpModel::OpRole).toString(), i.data(ByOpModel::KernelRole).toString());
}

void AbPanel::setComparison(const timeline::AbSideFigures& a, const timeline::AbSideFigures& b) {
  title_->setText(tr("<b>A</b> %1 &nbsp; against &nbsp; <b>B</b> %2")
                      .arg(qs(a.label).toHtmlEscaped(), qs(b.label).toHtmlEscaped()));
  figures_->setSides(a, b);
  kernels_->setDeltas(timeline::compareKernels(a, b));
  for (QTableView* v : {figuresView_, kernelView_}) v->resizeColumnsToContents();
}

void AbPanel::clear(const QString& hint) {
  title_->setText(hint.isEmpty() ? tr("Select two chunks (Ctrl+click in the chunk table) to compare them.") : hint);
  figures_->clear();
  kernels_->setDeltas({});
}

QString AbPanel::selectedRowsTsv() const {
  if (byOpView_->hasFocus() || (tabs_->currentIndex() == 1 && !figuresView_->hasFocus() && !kernelView_->hasFocus())) {
    // In view order: by the op's row, then the op before its kernels.
    QModelIndexList rows = byOpView_->selectionModel()->selectedRows();
    const auto key = [](const QModelIndex& i) {
      return i.parent().isValid() ? std::pair{i.parent().row(), i.row()} : std::pair{i.row(), -1};
    };
    std::sort(rows.begin(), rows.end(), [&](const QModelIndex& x, const QModelIndex& y) { return key(x) < key(y); });
    for (QModelIndex& i : rows) i = byOpProxy_->mapToSource(i);
    return byOp_->rowsTsv(rows);
  }
  const bool figures = figuresView_->hasFocus() && figuresView_->selectionModel()->hasSelection();
  const QTableView* v = figures ? figuresView_ : kernelView_;
  QList<int> rows;
  for (const QModelIndex& i : v->selectionModel()->selectedRows()) rows << i.row();
  std::sort(rows.begin(), rows.end());
  return tableRowsTsv(*v->model(), rows);
}

void AbPanel::copySelectedRows() const { QApplication::clipboard()->setText(selectedRowsTsv()); }

bool AbPanel::eventFilter(QObject* watched, QEvent* e) {
  if ((watched == figuresView_ || watched == kernelView_ || watched == byOpView_) &&
      (e->type() == QEvent::KeyPress || e->type() == QEvent::ShortcutOverride) &&
      static_cast<QKeyEvent*>(e)->matches(QKeySequence::Copy)) {
    if (e->type() == QEvent::KeyPress) copySelectedRows();
    e->accept();
    return e->type() == QEvent::KeyPress;
  }
  return QWidget::eventFilter(watched, e);
}

}  // namespace steadyscope::widgets
