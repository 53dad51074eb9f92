#include "panels/anomalies_panel.hpp"

#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <vector>

namespace steadyscope::widgets {

namespace {
QString countText(uint64_t n) { return qs(timeline::formatCount(n)); }

/// Where a counter's first example is and what it is: "event 1,234 · aten::mm".
QString exampleText(const Trace& t, int64_t e) {
  if (e < 0 || size_t(e) >= t.size()) return QStringLiteral("–");
  QString s = QObject::tr("event %1").arg(countText(uint64_t(e)));
  if (const std::string_view name = t.nameOf(EventIdx(e)); !name.empty()) {
    QString n = qs(name);
    if (n.size() > 48) n = n.left(47) + QStringLiteral("…");
    s += QStringLiteral(" · ") + n;
  }
  return s;
}

QList<QStandardItem*> counterRow(const Trace& t, const Anomaly& a) {
  const AnomalyKind* k = findAnomalyKind(a.code);
  auto* kind = new QStandardItem(k ? qs(k->title) : qs(a.code));
  kind->setToolTip(qs(a.explanation));
  auto* count = new QStandardItem(countText(a.count));
  count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  auto* affects = new QStandardItem(k ? qs(k->affects) : QObject::tr("Not described in this version."));
  affects->setToolTip(affects->text());
  auto* example = new QStandardItem(exampleText(t, a.firstEvent));
  if (a.firstEvent >= 0) example->setToolTip(QObject::tr("Double-click to show it on the timeline"));
  auto* code = new QStandardItem(qs(a.code));
  QList<QStandardItem*> row{kind, count, affects, example, code};
  for (QStandardItem* i : row) {
    i->setEditable(false);
    i->setData(qs(a.code), AnomaliesPanel::CodeRole);
    i->setData(qulonglong(a.count), AnomaliesPanel::CountRole);
    i->setData(qint64(a.firstEvent), AnomaliesPanel::FirstEventRole);
  }
  return row;
}
}  // namespace

AnomaliesPanel::AnomaliesPanel(QWidget* parent) : QWidget(parent) {
  model_ = new QStandardItemModel(this);
  model_->setHorizontalHeaderLabels(
      {tr("kind"), tr("count"), tr("what it affects"), tr("first example"), tr("counter")});
  view_ = new QTreeView(this);
  view_->setObjectName(QStringLiteral("anomaliesView"));
  view_->setModel(model_);
  view_->setRootIsDecorated(false);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setUniformRowHeights(true);
  view_->header()->setStretchLastSection(false);
  view_->header()->setSectionResizeMode(AffectsColumn, QHeaderView::Stretch);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("anomaliesSummary"));
  summary_->setWordWrap(true);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(summary_);
  l->addWidget(view_);
  connect(view_, &QTreeView::activated, this, [this](const QModelIndex& i) {
    const QVariant e = i.data(FirstEventRole);
    if (e.isValid() && e.toLongLong() >= 0) emit eventActivated(e.toLongLong());
  });
  setTrace(nullptr);
}

void AnomaliesPanel::addGroup(const Trace& t, AnomalyClass cls) {
  std::vector<const Anomaly*> rows;
  uint64_t total = 0;
  for (const Anomaly& a : t.anomalies)
    if (anomalyClassOf(a.code) == cls) rows.push_back(&a), total += a.count;
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const Anomaly* a, const Anomaly* b) { return a->count > b->count; });
  const bool suspicious = cls == AnomalyClass::Suspicious;
  auto* head = new QStandardItem(suspicious ? tr("Suspicious — broken or unusual data, worth a look")
                                            : tr("Expected — normal in any capture, nothing to fix"));
  QFont bold = head->font();
  bold.setBold(true);
  head->setFont(bold);
  head->setEditable(false);
  auto* headCount = new QStandardItem(countText(total));
  headCount->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  headCount->setEditable(false);
  for (const Anomaly* a : rows) head->appendRow(counterRow(t, *a));
  model_->appendRow({head, headCount});
}

void AnomaliesPanel::setTrace(TracePtr trace) {
  model_->removeRows(0, model_->rowCount());
  if (!trace) {
    summary_->setText(tr("No trace open."));
    return;
  }
  addGroup(*trace, AnomalyClass::Suspicious);
  addGroup(*trace, AnomalyClass::Expected);
  view_->expandAll();
  for (int c = 0; c < NUM_COLUMNS; ++c)
    if (c != AffectsColumn) view_->resizeColumnToContents(c);
  const std::string suspicious = suspiciousAnomalyText(*trace);
  if (trace->anomalies.empty())
    summary_->setText(tr("No anomalies: every event was read as written."));
  else if (suspicious.empty())
    summary_->setText(
        tr("Nothing suspicious: only what any capture has (below). Double-click a row to show its "
           "first example."));
  else
    summary_->setText(tr("Suspicious: %1. Double-click a row to show its first example.").arg(qs(suspicious)));
}

QString AnomaliesPanel::summaryText() const { return summary_->text(); }

}  // namespace steadyscope::widgets
