#include "panels/job_view.hpp"

#include "common/colors.hpp"
#include "common/table_tsv.hpp"
#include "common/text.hpp"
#include "panels/job_heatmap.hpp"
#include "panels/job_overlap_chart.hpp"

#include <steadyscope/timeline.hpp>

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace steadyscope::widgets {

namespace {
QString ms(double us) { return qs(timeline::formatDuration(us * 1000.0)); }

QString warning(const QString& text) {
  return QStringLiteral("<b><span style=\"color:%1\">%2</span></b>")
      .arg(colors::verdict(colors::Verdict::Refused).name(), text.toHtmlEscaped());
}
}  // namespace

JobView::JobView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("jobView"));
  model_ = new JobTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(JobTableModel::SortRole);
  view_ = new QTableView(this);
  view_->setObjectName(QStringLiteral("jobTable"));
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(JobTableModel::RankColumn, Qt::AscendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
  view_->setTextElideMode(Qt::ElideRight);  // a reason's start says what went wrong
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->installEventFilter(this);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("jobSummary"));
  summary_->setTextFormat(Qt::RichText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  open_ = new QPushButton(tr("Open the rank's timeline (Enter)"), this);
  open_->setObjectName(QStringLiteral("jobOpenRank"));
  compare_ = new QPushButton(tr("Compare the two selected ranks (Ctrl+B)"), this);
  compare_->setObjectName(QStringLiteral("jobCompare"));
  compare_->setToolTip(tr("Opens the first rank and A/B-compares its picked chunk with the second rank's"));
  heatmap_ = new JobHeatmap(this);
  overlap_ = new JobOverlapChart(this);

  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(open_);
  top->addWidget(compare_);
  auto* charts = new QSplitter(Qt::Horizontal, this);
  charts->addWidget(heatmap_);
  charts->addWidget(overlap_);
  charts->setStretchFactor(0, 3);
  charts->setStretchFactor(1, 2);
  split_ = new QSplitter(Qt::Vertical, this);
  split_->addWidget(view_);
  split_->addWidget(charts);
  split_->setStretchFactor(0, 1);
  split_->setStretchFactor(1, 1);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(6, 6, 6, 6);
  l->addLayout(top);
  l->addWidget(split_, 1);

  connect(split_, &QSplitter::splitterMoved, this, [this] { userSized_ = true; });
  connect(view_, &QTableView::doubleClicked, this, [this] { activateCurrent(); });
  connect(open_, &QPushButton::clicked, this, &JobView::activateCurrent);
  connect(compare_, &QPushButton::clicked, this, &JobView::requestCompare);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &JobView::selectionMoved);
  connect(heatmap_, &JobHeatmap::rankActivated, this, &JobView::rankActivated);
  connect(overlap_, &JobOverlapChart::rankActivated, this, &JobView::rankActivated);
  connect(heatmap_, &JobHeatmap::rankClicked, this, [this](int pos) { selectPositions({pos}); });
  connect(overlap_, &JobOverlapChart::rankClicked, this, [this](int pos) { selectPositions({pos}); });
  selectionMoved();
}

void JobView::setJob(JobOverview job) {
  model_->setJob(std::move(job));
  heatmap_->setJob(model_->job());
  overlap_->setJob(model_->job());
  summary_->setText(summaryText());
  fitColumns();
  fitTableHeight();
  // The first row is current (Enter opens it) but not selected: Ctrl+C copies the whole table.
  if (proxy_->rowCount() > 0)
    view_->selectionModel()->setCurrentIndex(proxy_->index(0, 0), QItemSelectionModel::NoUpdate);
  selectionMoved();
}

QString JobView::summaryText() const {
  const JobOverview& j = model_->job();
  if (j.empty()) return tr("No ranks.");
  QStringList parts;
  parts << tr("<b>%1</b>: %2").arg(j.title.toHtmlEscaped(), countOf(qint64(j.ranks.size()), tr("rank"), tr("ranks")));
  if (j.stragglerRank) {
    QString s = tr("straggler <b>rank %1</b>").arg(*j.stragglerRank);
    for (const JobRank& r : j.ranks)
      if (r.straggler && r.stepMedianUs) s += tr(", median step %1").arg(ms(*r.stepMedianUs));
    if (j.stepSpread) s += tr(", %1× the fastest rank's").arg(*j.stepSpread, 0, 'f', 2);
    parts << s;
  }
  double maxSkew = 0;
  int late = 0;
  for (const JobRank& r : j.ranks) {
    maxSkew = std::max(maxSkew, r.skewUs.value_or(0));
    late += r.skewed;
  }
  parts << (late ? tr("%1 started late (up to %2)").arg(countOf(late, tr("rank"), tr("ranks")), ms(maxSkew))
                 : tr("ranks started within %1").arg(ms(maxSkew)));
  if (j.failedRanks)
    parts << warning(
        tr("%1 of %2 did not load").arg(j.failedRanks).arg(countOf(qint64(j.ranks.size()), tr("rank"), tr("ranks"))));
  if (j.worldSizeMismatch) {
    QStringList sizes;
    for (qint64 w : j.worldSizes) sizes << QString::number(w);
    parts << warning(tr("the ranks disagree on the world size (%1): traces of different jobs")
                         .arg(sizes.join(QStringLiteral(", "))));
  }
  return parts.join(QStringLiteral(" · "));
}

void JobView::fitColumns() {
  view_->resizeColumnsToContents();
  QHeaderView* h = view_->horizontalHeader();
  const int maxWidth = 260;  // a long reason or file name is elided; its tooltip has it whole
  for (int c = 0; c < JobTableModel::NUM_COLUMNS; ++c)
    if (h->sectionSize(c) > maxWidth) h->resizeSection(c, maxWidth);
}

void JobView::fitTableHeight() {
  // A few ranks: the table as tall as its rows, the charts get the rest; many: at most 45 %.
  const int total = std::max(height() - summary_->sizeHint().height() - 20, 400);  // the splitter's, once laid out
  const int rows = view_->horizontalHeader()->height() +
                   proxy_->rowCount() * view_->verticalHeader()->defaultSectionSize() + 2 * view_->frameWidth() +
                   view_->horizontalScrollBar()->sizeHint().height();
  const int table = std::min(rows, total * 45 / 100);
  split_->setSizes({table, total - table});
}

void JobView::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (!userSized_) fitTableHeight();
}

QVector<int> JobView::selectedPositions() const {
  QVector<int> out;
  QModelIndexList rows = view_->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  for (const QModelIndex& i : rows) out << proxy_->mapToSource(i).row();
  return out;
}

void JobView::selectPositions(const QVector<int>& positions) {
  QItemSelection sel;
  for (int pos : positions) {
    const QModelIndex i = proxy_->mapFromSource(model_->index(pos, 0));
    sel.select(i, i.siblingAtColumn(JobTableModel::NUM_COLUMNS - 1));
  }
  view_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
  if (!positions.isEmpty()) {
    const QModelIndex first = proxy_->mapFromSource(model_->index(positions.first(), 0));
    view_->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    view_->scrollTo(first);
  }
}

QString JobView::selectedRowsTsv() const {
  QList<int> rows;
  for (const QModelIndex& i : view_->selectionModel()->selectedRows()) rows << i.row();
  std::sort(rows.begin(), rows.end());
  if (rows.isEmpty())
    for (int r = 0; r < proxy_->rowCount(); ++r) rows << r;
  return tableRowsTsv(*proxy_, rows, {}, JobTableModel::PlainRole);
}

void JobView::activateCurrent() {
  const QModelIndex i = view_->currentIndex();
  if (i.isValid()) emit rankActivated(proxy_->mapToSource(i).row());
}

void JobView::requestCompare() {
  const QVector<int> p = selectedPositions();
  if (p.size() == 2) emit compareRequested(p[0], p[1]);
}

void JobView::selectionMoved() {
  const QVector<int> p = selectedPositions();
  heatmap_->setHighlighted(p);
  overlap_->setHighlighted(p);
  open_->setEnabled(view_->currentIndex().isValid());
  compare_->setEnabled(p.size() == 2);
}

bool JobView::eventFilter(QObject* watched, QEvent* e) {
  if (watched == view_ && e->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (k->matches(QKeySequence::Copy)) {
      QGuiApplication::clipboard()->setText(selectedRowsTsv());
      return true;
    }
    if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
      activateCurrent();
      return true;
    }
  }
  return QWidget::eventFilter(watched, e);
}

}  // namespace steadyscope::widgets
