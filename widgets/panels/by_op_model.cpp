#include "panels/by_op_model.hpp"

#include "common/table_tsv.hpp"
#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QColor>
#include <QStringList>

#include <cmath>

namespace steadyscope::widgets {

namespace {
// Internal ids: 0 for an op row, 1 + the op's row for one of its kernels.
constexpr quintptr kOpRow = 0;

QString timeText(double us) { return qs(timeline::formatDuration(us * 1000.0)); }

QString signedTime(double us) {
  if (us == 0.0) return QStringLiteral("0");
  return (us > 0 ? QStringLiteral("+") : QStringLiteral("−")) + timeText(std::fabs(us));
}

QString countText(uint64_t n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(qs(timeline::formatCount(n)), n == 1 ? one : many);
}

const char* const kHeaders[] = {"Launching op", "A GPU events", "B GPU events", "A GPU time",
                                "B GPU time",   "A per step",   "B per step",   "Δ per step"};
const char* const kTips[] = {
    "The PyTorch op under which the GPU work was launched; expand it for the kernels it launched",
    "Kernels, copies and memsets launched under the op in A's compared steps",
    "Kernels, copies and memsets launched under the op in B's compared steps",
    "Their durations summed, in A",
    "Their durations summed, in B",
    "A's GPU time divided by A's compared steps",
    "B's GPU time divided by B's compared steps",
    "B per step minus A per step: positive is slower in B"};
// The clipboard's header: the figures' words with their units, after op and kernel.
const char* const kCopyHeaders[] = {"A GPU events",    "B GPU events",    "A GPU time (µs)", "B GPU time (µs)",
                                    "A per step (µs)", "B per step (µs)", "Δ per step (µs)"};
}  // namespace

void ByOpModel::setComparison(ByOpData d) {
  beginResetModel();
  d_ = std::move(d);
  endResetModel();
}

void ByOpModel::clear() { setComparison({}); }

ByOpModel::Line ByOpModel::lineOf(const QModelIndex& index) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kOpRow) {
    if (size_t(index.row()) >= d_.rows.size()) return {};
    return {&d_.rows[size_t(index.row())], nullptr};
  }
  const size_t op = size_t(index.internalId() - 1);
  if (op >= d_.rows.size() || size_t(index.row()) >= d_.rows[op].kernels.size()) return {};
  return {&d_.rows[op], &d_.rows[op].kernels[size_t(index.row())]};
}

QModelIndex ByOpModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= NUM_COLUMNS) return {};
  if (!parent.isValid()) return size_t(row) < d_.rows.size() ? createIndex(row, column, kOpRow) : QModelIndex();
  if (parent.internalId() != kOpRow || size_t(parent.row()) >= d_.rows.size()) return {};
  if (size_t(row) >= d_.rows[size_t(parent.row())].kernels.size()) return {};
  return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex ByOpModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kOpRow) return {};
  return createIndex(int(child.internalId() - 1), 0, kOpRow);
}

int ByOpModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return int(d_.rows.size());
  if (parent.column() != 0 || parent.internalId() != kOpRow) return 0;
  const Line l = lineOf(parent);
  return l.op ? int(l.op->kernels.size()) : 0;
}

int ByOpModel::columnCount(const QModelIndex&) const { return NUM_COLUMNS; }

double ByOpModel::value(const Line& l, int c) const {
  const double stepsA = double(d_.a.steps), stepsB = double(d_.b.steps);
  const auto perStep = [](double us, double steps) { return steps > 0 ? us / steps : 0.0; };
  const uint64_t aCount = l.kernel ? l.kernel->aCount : l.op->aCount,
                 bCount = l.kernel ? l.kernel->bCount : l.op->bCount;
  const double aUs = l.kernel ? l.kernel->aGpuUs : l.op->aGpuUs, bUs = l.kernel ? l.kernel->bGpuUs : l.op->bGpuUs;
  switch (c) {
    case ACountColumn: return double(aCount);
    case BCountColumn: return double(bCount);
    case AGpuColumn: return aUs;
    case BGpuColumn: return bUs;
    case APerStepColumn: return l.kernel ? perStep(aUs, stepsA) : l.op->aUsPerStep;
    case BPerStepColumn: return l.kernel ? perStep(bUs, stepsB) : l.op->bUsPerStep;
    case DeltaColumn: return l.kernel ? perStep(bUs, stepsB) - perStep(aUs, stepsA) : l.op->deltaUsPerStep;
  }
  return 0.0;
}

QVariant ByOpModel::display(const Line& l, int c) const {
  const uint64_t aCount = l.kernel ? l.kernel->aCount : l.op->aCount,
                 bCount = l.kernel ? l.kernel->bCount : l.op->bCount;
  switch (c) {
    case OpColumn: return l.kernel ? l.kernel->name : l.op->op;
    case ACountColumn:
    case BCountColumn: return qs(timeline::formatCount(uint64_t(value(l, c))));
    case AGpuColumn:
    case APerStepColumn: return aCount ? timeText(value(l, c)) : QStringLiteral("–");
    case BGpuColumn:
    case BPerStepColumn: return bCount ? timeText(value(l, c)) : QStringLiteral("–");
    case DeltaColumn: return signedTime(value(l, c));
  }
  return {};
}

QVariant ByOpModel::data(const QModelIndex& index, int role) const {
  const Line l = lineOf(index);
  if (!l.op) return {};
  const int c = index.column();
  switch (role) {
    case Qt::DisplayRole: return display(l, c);
    case SortRole: return c == OpColumn ? display(l, c) : QVariant(value(l, c));
    case CopyRole:
      if (c == OpColumn) return display(l, c);
      return c <= BCountColumn ? QString::number(qulonglong(value(l, c))) : QString::number(value(l, c), 'f', 3);
    case OpRole: return l.op->op;
    case KernelRole: return l.kernel ? l.kernel->name : QString();
    case Qt::TextAlignmentRole:
      return c == OpColumn ? QVariant() : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (c == DeltaColumn && value(l, c) != 0.0)  // slower in B: red, faster: green
        return QColor(value(l, c) > 0 ? QColor(0xB0, 0x30, 0x20) : QColor(0x20, 0x80, 0x40));
      return {};
    case Qt::ToolTipRole:
      if (c != OpColumn) return {};
      if (l.kernel) return tr("%1\nlaunched under %2").arg(l.kernel->name, l.op->op);
      return tr("%1: %2 in A, %3 in B; %4")
          .arg(l.op->op, countText(l.op->aCount, tr("GPU event"), tr("GPU events")),
               countText(l.op->bCount, tr("GPU event"), tr("GPU events")))
          .arg(countText(l.op->kernels.size(), tr("kernel name"), tr("kernel names")));
  }
  return {};
}

QVariant ByOpModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS) return {};
  if (role == Qt::DisplayRole) return tr(kHeaders[section]);
  if (role == Qt::ToolTipRole) return tr(kTips[section]);
  return {};
}

QString ByOpModel::rowsTsv(const QModelIndexList& rows) const {
  QStringList header{tr("Launching op"), tr("Kernel")};
  for (const char* h : kCopyHeaders) header << tr(h);
  QStringList lines{header.join(QLatin1Char('\t'))};
  for (const QModelIndex& i : rows) {
    const Line l = lineOf(i);
    if (!l.op) continue;
    QStringList f{tsvCell(l.op->op), l.kernel ? tsvCell(l.kernel->name) : QString()};
    for (int c = ACountColumn; c < NUM_COLUMNS; ++c) f << i.siblingAtColumn(c).data(CopyRole).toString();
    lines << f.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace steadyscope::widgets
