#include "panels/chunks_panel.hpp"
#include "common/text.hpp"

#include "common/table_tsv.hpp"

#include <steadyscope/timeline.hpp>

#include <QApplication>
#include <QClipboard>
#include <QFont>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace steadyscope::widgets {

void ChunkModel::setChunks(QVector<ChunkRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void ChunkModel::updateChunks(QVector<ChunkRow> rows) {
  if (rows.size() != rows_.size()) return setChunks(std::move(rows));
  rows_ = std::move(rows);
  if (!rows_.isEmpty()) emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, NUM_COLUMNS - 1));
}

void ChunkModel::setComparedChunks(QVector<ChunkRow> rows, const QString& traceName) {
  beginResetModel();
  compared_ = std::move(rows);
  comparedName_ = traceName;
  endResetModel();
}

int ChunkModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size() + compared_.size());
}
int ChunkModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

namespace {
struct ColumnText {
  const char* header;
  const char* tip;
  const char* twoLines = nullptr;  // the header as drawn: narrow columns, so every column fits at 1600 px
};
// One sentence per column; the CSV field name is in brackets where there is one.
const ColumnText kColumns[] = {
    {"mode", "The gate's name for the chunk's kind of steps; ▶ marks the mode the pipeline asks for."},
    {"chunk file", "The chunk file the split writes (output_path in execution_details.csv).", "chunk\nfile"},
    {"step range", "The first and last step of the chunk, as numbered on the step ruler.", "step\nrange"},
    {"steps", "How many steps the chunk holds (num_steps)."},
    {"start", "When the chunk's CPU window starts, from the trace's first event."},
    {"wall duration", "The length of the chunk's CPU window, first step start to last step end.", "wall\nduration"},
    {"events", "Events written into the chunk file (event_count)."},
    {"GPU events", "Kernels, copies and memsets in the chunk (num_gpu_events).", "GPU\nevents"},
    {"GPU time",
     "The sum over the chunk's steps of each step's GPU span, first GPU start to last GPU end "
     "(gpu_duration).",
     "GPU\ntime"},
    {"GPU busy time",
     "The plain sum of the chunk's GPU event durations; overlapping streams count twice "
     "(gpu_busy_duration).",
     "GPU\nbusy time"},
    {"busy (ref)",
     "GPU busy time ÷ GPU time, the ratio the pipeline's gate compares with its threshold "
     "(busy_ratio).",
     "busy\n(ref)"},
    {"busy (union)", "The union of the chunk's own GPU events ÷ GPU time, so overlaps count once (worst device).",
     "busy\n(union)"},
    {"busy (window)",
     "The GPU's busy time inside the chunk's CPU window ÷ the window's length, idle time "
     "between steps included (worst device).",
     "busy\n(window)"},
    {"longest gap", "The longest time the GPU is idle inside the chunk's CPU window (worst device).", "longest\ngap"},
    {"findings", "What the gate noticed about the chunk beyond its verdict; ⚠ when one of them warns."},
    {"verdict", "What the gate decides when this chunk's mode is requested; ⚠ beside it when a finding warns."},
};
static_assert(std::size(kColumns) == ChunkModel::NUM_COLUMNS);

QString dash() { return QStringLiteral("–"); }
QString ratioText(double r) { return r < 0 ? dash() : qs(timeline::formatRatio(r)); }
QString countText(qint64 n) { return n < 0 ? dash() : qs(timeline::formatCount(uint64_t(n))); }
QString usText(double us) { return us < 0 ? dash() : qs(timeline::formatDuration(us * 1000.0)); }

QString verdictText(const ChunkRow& c) {
  if (!c.hasVerdict) return dash();
  QString t = c.unchecked ? colors::verdictIcon(colors::Verdict::LowQuality) + QStringLiteral(" unchecked")
                          : colors::verdictIcon(c.verdict) + QLatin1Char(' ') + colors::verdictWord(c.verdict);
  if (c.findingsWarn && !c.unchecked) t += QStringLiteral("  ⚠");
  return t;
}
}  // namespace

QString ChunkModel::headerText(int column) {
  return column >= 0 && column < NUM_COLUMNS ? tr(kColumns[column].header) : QString();
}
QString ChunkModel::headerTip(int column) {
  return column >= 0 && column < NUM_COLUMNS ? tr(kColumns[column].tip) : QString();
}

void ChunkModel::setTimeOrigin(qint64 ns) {
  originNs_ = ns;
  if (!rows_.isEmpty()) emit dataChanged(index(0, StartColumn), index(int(rows_.size()) - 1, StartColumn));
}

QVariant ChunkModel::display(const ChunkRow& c, int column) const {
  const bool window = c.endNs > c.beginNs;
  switch (column) {
    case ModeColumn: return (c.requested ? QStringLiteral("▶ ") : QString()) + c.mode;
    case FileColumn: return c.file.isEmpty() ? dash() : c.file;
    case StepRangeColumn: return c.firstStep < 0 ? dash() : QStringLiteral("%1–%2").arg(c.firstStep).arg(c.lastStep);
    case StepsColumn: return countText(c.stepCount);
    case StartColumn: return window ? qs(timeline::formatDuration(double(c.beginNs - originNs_))) : dash();
    case DurationColumn: return window ? qs(timeline::formatDuration(double(c.endNs - c.beginNs))) : dash();
    case EventsColumn: return countText(c.events);
    case GpuEventsColumn: return countText(c.gpuEvents);
    case GpuTimeColumn: return usText(c.gpuTimeUs);
    case GpuBusyColumn: return usText(c.gpuBusyUs);
    case BusyRefColumn: return ratioText(c.busyRef);
    case BusyUnionColumn: return ratioText(c.busyUnion);
    case BusyWindowColumn: return ratioText(c.busyWindow);
    case LongestGapColumn: return c.longestGapNs < 0 ? dash() : qs(timeline::formatDuration(double(c.longestGapNs)));
    case FindingsColumn:
      return c.findings < 0 ? dash()
                            : (c.findingsWarn ? QStringLiteral("⚠ ") : QString()) + QString::number(c.findings);
    case VerdictColumn: return verdictText(c);
    default: return {};
  }
}

QVariant ChunkModel::sortValue(const ChunkRow& c, int column) const {
  switch (column) {
    case ModeColumn: return c.mode;
    case FileColumn: return c.file;
    case StepRangeColumn: return c.firstStep;
    case StepsColumn: return c.stepCount;
    case StartColumn: return c.beginNs;
    case DurationColumn: return c.endNs - c.beginNs;
    case EventsColumn: return c.events;
    case GpuEventsColumn: return c.gpuEvents;
    case GpuTimeColumn: return c.gpuTimeUs;
    case GpuBusyColumn: return c.gpuBusyUs;
    case BusyRefColumn: return c.busyRef;
    case BusyUnionColumn: return c.busyUnion;
    case BusyWindowColumn: return c.busyWindow;
    case LongestGapColumn: return c.longestGapNs;
    case FindingsColumn: return c.findings;
    case VerdictColumn: return c.unchecked ? int(colors::Verdict::LowQuality) : int(c.verdict);
    default: return {};
  }
}

QVariant ChunkModel::toolTip(const ChunkRow& c, int column) const {
  QString t;
  switch (column) {
    case ModeColumn: t = c.requested ? tr("The mode the pipeline asks for.") : QString(); break;
    case FileColumn: t = c.file; break;
    case BusyUnionColumn: t = c.unionDevices; break;
    case BusyWindowColumn: t = c.windowDevices; break;
    case LongestGapColumn: t = c.gapDevices; break;
    case FindingsColumn: t = c.findingsText; break;
    case VerdictColumn: t = c.note; break;
    default: break;
  }
  if (!c.note.isEmpty() && column != VerdictColumn && (column == GpuEventsColumn || column == BusyRefColumn))
    t = c.note;
  return t.isEmpty() ? headerTip(column) : t;
}

QVariant ChunkModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const ChunkRow& c = rowAt(index.row());
  const int col = index.column();
  if (isCompared(index.row())) {
    // A compared trace's row: its trace's name beside the mode, in italics.
    if (col == ModeColumn && role == Qt::DisplayRole) return QStringLiteral("%1 · %2").arg(c.mode, comparedName_);
    if (col == ModeColumn && role == Qt::ToolTipRole)
      return tr("A chunk of the compared trace %1: use it as A or B (Compare menu).").arg(comparedName_);
    if (role == Qt::FontRole) {
      QFont f;
      f.setItalic(true);
      return f;
    }
  }
  switch (role) {
    case Qt::TextAlignmentRole:
      return col == ModeColumn || col == FileColumn || col == VerdictColumn
                 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (col == VerdictColumn && c.hasVerdict)
        return colors::verdict(c.unchecked ? colors::Verdict::LowQuality : c.verdict);
      return {};
    case Qt::FontRole:
      if (c.requested && col == ModeColumn) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case MaxCostRole: return 1.0;
    case SortRole: return sortValue(c, col);
    case Qt::DisplayRole: return display(c, col);
    case Qt::ToolTipRole: return toolTip(c, col);
    default: return {};
  }
}

QVariant ChunkModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS) return {};
  if (role == Qt::DisplayRole) return kColumns[section].twoLines ? tr(kColumns[section].twoLines) : headerText(section);
  if (role == Qt::ToolTipRole) return headerTip(section);
  return {};
}

ChunksPanel::ChunksPanel(QWidget* parent) : QWidget(parent) {
  model_ = new ChunkModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(ChunkModel::SortRole);
  view_ = new QTableView(this);
  view_->setObjectName(QStringLiteral("chunksView"));
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the split's order until a header is clicked
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->verticalHeader()->hide();
  view_->setTextElideMode(Qt::ElideMiddle);  // long chunk file names keep their mode and trace ends
  view_->horizontalHeader()->setStretchLastSection(true);
  placeholder_ = new QLabel(this);
  placeholder_->setWordWrap(true);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setTextFormat(Qt::RichText);
  placeholder_->setTextInteractionFlags(Qt::TextBrowserInteraction);  // selectable, and its links act
  connect(placeholder_, &QLabel::linkActivated, this, &ChunksPanel::placeholderLinkActivated);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(placeholder_);
  l->addWidget(view_);
  setPlaceholder(
      tr("No split yet. Run a split (Split ▸ Run split) or open a split directory to see the chunks "
         "and the gate's verdicts here."));
  // Choosing a row in the table selects the chunk and zooms to it (a band click on the timeline only selects).
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (!selection_ || !i.isValid() || syncing_) return;
    const int row = proxy_->mapToSource(i).row();
    if (model_->isCompared(row)) {  // another trace's chunk: no chunk of the open trace is selected
      syncing_ = true;
      selection_->setChunk(-1);
      syncing_ = false;
      emit comparedRowSelected(row - int(model_->chunks().size()));
      return;
    }
    selection_->setChunk(row);
    const ChunkRow& c = model_->chunks()[row];
    if (c.endNs > c.beginNs) emit selection_->zoomRequested(c.beginNs, c.endNs);
  });
  view_->installEventFilter(this);  // Ctrl+C copies whole rows, not the view's one cell
  connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    const int row = proxy_->mapToSource(i).row();
    if (model_->isCompared(row)) return;
    const ChunkRow& c = model_->chunks()[row];
    if (selection_ && c.endNs > c.beginNs) emit selection_->zoomRequested(c.beginNs, c.endNs);
  });
}

void ChunksPanel::setSelectionModel(SelectionModel* model) {
  selection_ = model;
  if (model)
    connect(model, &SelectionModel::chunkChanged, this, [this](int c) {
      if (syncing_) return;
      if (c < 0 || c >= int(model_->chunks().size())) {
        view_->clearSelection();
        return;
      }
      syncing_ = true;
      view_->selectRow(proxy_->mapFromSource(model_->index(c, 0)).row());
      syncing_ = false;
    });
}

void ChunksPanel::setChunks(QVector<ChunkRow> rows) {
  model_->setChunks(std::move(rows));
  showTableOrPlaceholder();
  fitColumns();
}

void ChunksPanel::setComparedChunks(QVector<ChunkRow> rows, const QString& traceName) {
  model_->setComparedChunks(std::move(rows), traceName);
  showTableOrPlaceholder();
  fitColumns();
}

void ChunksPanel::showTableOrPlaceholder() {
  const bool empty = model_->rowCount() == 0;
  placeholder_->setVisible(empty);
  view_->setVisible(!empty);
}

QVector<int> ChunksPanel::selectedModelRows() const {
  QList<int> viewRows;
  for (const QModelIndex& i : view_->selectionModel()->selectedRows()) viewRows << i.row();
  std::sort(viewRows.begin(), viewRows.end());
  QVector<int> rows;
  for (int r : viewRows) rows << proxy_->mapToSource(proxy_->index(r, 0)).row();
  return rows;
}

void ChunksPanel::updateChunks(QVector<ChunkRow> rows) {
  const bool reset = rows.size() != model_->chunks().size();
  if (reset) return setChunks(std::move(rows));
  model_->updateChunks(std::move(rows));
  fitColumns();
}

void ChunksPanel::fitColumns() {
  view_->resizeColumnsToContents();
  // The file name would push the verdict out of sight: it is elided, whole in the tooltip and the copy.
  view_->setColumnWidth(ChunkModel::FileColumn, std::min(view_->columnWidth(ChunkModel::FileColumn), 180));
}

QString ChunksPanel::selectedRowsTsv() const {
  QList<int> rows;
  for (const QModelIndex& i : view_->selectionModel()->selectedRows()) rows << i.row();
  std::sort(rows.begin(), rows.end());
  QStringList headers;  // on one line each (the view draws some on two)
  for (int c = 0; c < ChunkModel::NUM_COLUMNS; ++c) headers << ChunkModel::headerText(c);
  return tableRowsTsv(*proxy_, rows, headers);
}

bool ChunksPanel::eventFilter(QObject* watched, QEvent* e) {
  if (watched == view_ && (e->type() == QEvent::KeyPress || e->type() == QEvent::ShortcutOverride) &&
      static_cast<QKeyEvent*>(e)->matches(QKeySequence::Copy)) {
    if (e->type() == QEvent::KeyPress) copySelectedRows();
    e->accept();
    return e->type() == QEvent::KeyPress;
  }
  return QWidget::eventFilter(watched, e);
}

void ChunksPanel::copySelectedRows() const {
  if (!view_->selectionModel()->selectedRows().isEmpty()) QApplication::clipboard()->setText(selectedRowsTsv());
}

QString ChunksPanel::placeholderText() const { return placeholder_->text(); }

void ChunksPanel::setPlaceholder(const QString& text) {
  placeholder_->setText(text);
  showTableOrPlaceholder();
}

}  // namespace steadyscope::widgets
