#include "panels/chunks_panel.hpp"

#include <steadyscope/core/timeline/format.hpp>

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace steadyscope::widgets {

void ChunkModel::setChunks(QVector<ChunkRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void ChunkModel::updateChunks(QVector<ChunkRow> rows) {
  if (rows.size() != rows_.size()) return setChunks(std::move(rows));
  rows_ = std::move(rows);
  if (!rows_.isEmpty()) emit dataChanged(index(0, 0), index(rowCount() - 1, NUM_COLUMNS - 1));
}

int ChunkModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int ChunkModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant ChunkModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const ChunkRow& c = rows_[index.row()];
  const bool sort = role == SortRole;
  if (role == Qt::TextAlignmentRole)
    return index.column() == ModeColumn || index.column() == VerdictColumn
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == VerdictColumn && c.hasVerdict) return colors::verdict(c.verdict);
  if (role == MaxCostRole) return 1.0;
  if (role != Qt::DisplayRole && !sort && role != Qt::ToolTipRole) return {};
  auto ratio = [&](double r) -> QVariant {
    if (sort) return r;
    return r < 0 ? QStringLiteral("–") : QString::fromStdString(timeline::formatRatio(r));
  };
  auto count = [&](qint64 n) -> QVariant {  // -1: unknown (e.g. a split directory without its trace)
    if (sort) return n;
    return n < 0 ? QStringLiteral("–") : QString::fromStdString(timeline::formatCount(uint64_t(n)));
  };
  switch (index.column()) {
    case ModeColumn: return role == Qt::ToolTipRole && !c.file.isEmpty() ? c.file : c.mode;
    case StepsColumn:
      if (sort) return c.firstStep;
      return c.firstStep < 0 ? QStringLiteral("–") : QStringLiteral("%1–%2").arg(c.firstStep).arg(c.lastStep);
    case DurationColumn:
      if (sort) return c.endNs - c.beginNs;
      return c.endNs > c.beginNs ? QString::fromStdString(timeline::formatDuration(double(c.endNs - c.beginNs)))
                                 : QStringLiteral("–");
    case EventsColumn: return count(c.events);
    case GpuEventsColumn: return count(c.gpuEvents);
    case BusyRefColumn: return ratio(c.busyRef);
    case BusyUnionColumn: return ratio(c.busyUnion);
    case VerdictColumn:
      if (sort) return int(c.verdict);
      return c.hasVerdict ? colors::verdictIcon(c.verdict) + QLatin1Char(' ') + colors::verdictWord(c.verdict)
                          : QStringLiteral("–");
    default: return {};
  }
}

QVariant ChunkModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"mode",       "steps",      "duration",     "events",
                                "GPU events", "busy (ref)", "busy (union)", "verdict"};
  return section >= 0 && section < NUM_COLUMNS ? tr(names[section]) : QVariant();
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
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(true);
  placeholder_ = new QLabel(this);
  placeholder_->setWordWrap(true);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setTextFormat(Qt::RichText);
  placeholder_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(placeholder_);
  l->addWidget(view_);
  setPlaceholder(
      tr("No split yet. Run a split (Split ▸ Run split) or open a split directory to see the chunks "
         "and the gate's verdicts here."));
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (selection_ && i.isValid()) selection_->setChunk(proxy_->mapToSource(i).row());
  });
  connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    const ChunkRow& c = model_->chunks()[proxy_->mapToSource(i).row()];
    if (selection_ && c.endNs > c.beginNs) emit selection_->zoomRequested(c.beginNs, c.endNs);
  });
}

void ChunksPanel::setSelectionModel(SelectionModel* model) {
  selection_ = model;
  if (model)
    connect(model, &SelectionModel::chunkChanged, this, [this](int c) {
      if (c < 0 || c >= model_->rowCount()) {
        view_->clearSelection();
        return;
      }
      view_->selectRow(proxy_->mapFromSource(model_->index(c, 0)).row());
    });
}

void ChunksPanel::setChunks(QVector<ChunkRow> rows) {
  const bool empty = rows.isEmpty();
  model_->setChunks(std::move(rows));
  placeholder_->setVisible(empty);
  view_->setVisible(!empty);
  view_->resizeColumnsToContents();
}

void ChunksPanel::updateChunks(QVector<ChunkRow> rows) {
  const bool reset = rows.size() != model_->rowCount();
  if (reset) return setChunks(std::move(rows));
  model_->updateChunks(std::move(rows));
  view_->resizeColumnsToContents();
}

QString ChunksPanel::placeholderText() const { return placeholder_->text(); }

void ChunksPanel::setPlaceholder(const QString& text) {
  placeholder_->setText(text);
  placeholder_->setVisible(model_->rowCount() == 0);
  view_->setVisible(model_->rowCount() != 0);
}

}  // namespace steadyscope::widgets
