#include "panels/anomalies_panel.hpp"

#include <steadyscope/timeline.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace steadyscope::widgets {

void AnomalyModel::setTrace(TracePtr trace) {
  beginResetModel();
  trace_ = std::move(trace);
  endResetModel();
}

int AnomalyModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !trace_ ? 0 : int(trace_->anomalies.size());
}
int AnomalyModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant AnomalyModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid() || index.row() >= rowCount()) return {};
  const Anomaly& a = trace_->anomalies[size_t(index.row())];
  if (role == FirstEventRole) return qint64(a.firstEvent);
  if (role == Qt::TextAlignmentRole)
    return index.column() == CountColumn || index.column() == FirstEventColumn
               ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole) {
    const bool sort = role == SortRole;
    switch (index.column()) {
      case CodeColumn: return QString::fromStdString(a.code);
      case CountColumn:
        return sort ? QVariant(qulonglong(a.count)) : QVariant(QString::fromStdString(timeline::formatCount(a.count)));
      case ExplanationColumn: return QString::fromStdString(a.explanation);
      case FirstEventColumn:
        if (sort) return qint64(a.firstEvent);
        return a.firstEvent >= 0 ? QVariant(QString::number(a.firstEvent)) : QVariant(QStringLiteral("–"));
      default: break;
    }
  }
  return {};
}

QVariant AnomalyModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case CodeColumn: return tr("counter");
    case CountColumn: return tr("count");
    case ExplanationColumn: return tr("meaning");
    case FirstEventColumn: return tr("first event");
    default: return {};
  }
}

AnomaliesPanel::AnomaliesPanel(QWidget* parent) : QWidget(parent) {
  model_ = new AnomalyModel(this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(model_);
  proxy->setSortRole(AnomalyModel::SortRole);
  view_ = new QTableView(this);
  view_->setObjectName(QStringLiteral("anomaliesView"));
  view_->setModel(proxy);
  view_->setSortingEnabled(true);
  view_->sortByColumn(AnomalyModel::CountColumn, Qt::DescendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->verticalHeader()->hide();
  view_->horizontalHeader()->setStretchLastSection(false);
  view_->horizontalHeader()->setSectionResizeMode(AnomalyModel::ExplanationColumn, QHeaderView::Stretch);
  view_->setWordWrap(false);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("anomaliesSummary"));
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(summary_);
  l->addWidget(view_);
  connect(view_, &QTableView::activated, this, [this](const QModelIndex& i) {
    const qint64 e = i.data(AnomalyModel::FirstEventRole).toLongLong();
    if (e >= 0) emit eventActivated(e);
  });
  setTrace(nullptr);
}

void AnomaliesPanel::setTrace(TracePtr trace) {
  model_->setTrace(trace);
  if (!trace)
    summary_->setText(tr("No trace open."));
  else if (trace->anomalies.empty())
    summary_->setText(tr("No anomalies: every event was read as written."));
  else
    summary_->setText(tr("%1 anomalies in %2 counters (double-click a row to show its first event)")
                          .arg(QString::fromStdString(timeline::formatCount(trace->anomalyCount())))
                          .arg(trace->anomalies.size()));
  view_->resizeColumnsToContents();
}

}  // namespace steadyscope::widgets
