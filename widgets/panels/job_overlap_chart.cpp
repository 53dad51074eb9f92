#include "panels/job_overlap_chart.hpp"

#include "common/colors.hpp"
#include "common/text.hpp"
#include "panels/job_table_model.hpp"

#include <steadyscope/timeline.hpp>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace steadyscope::widgets {

namespace {
const QColor kCompute(0, 114, 178);  // Okabe–Ito blue
const QColor kHidden(0, 158, 115);   // bluish green: communication behind compute
const QColor kExposed(230, 159, 0);  // orange: communication the GPU waits on
constexpr int kShareWidth = 84;      // "100 % hidden" right of the bars

QString ms(double us) { return qs(timeline::formatDuration(us * 1000.0)); }

struct Parts {
  double computeOnly, hidden, exposed;
};
Parts partsOf(const JobRank& r) {
  return {std::max(0.0, r.computeBusyUs - r.overlapUs), r.overlapUs, std::max(0.0, r.commBusyUs - r.overlapUs)};
}
}  // namespace

JobOverlapChart::JobOverlapChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("jobOverlapChart"));
  setMouseTracking(true);
  setMinimumSize(260, 160);
}

void JobOverlapChart::setJob(const JobOverview& job) {
  job_ = job;
  order_ = rankOrder(job_);
  maxUs_ = 0;
  for (const JobRank& r : job_.ranks) {
    const Parts s = partsOf(r);
    if (r.loaded) maxUs_ = std::max(maxUs_, s.computeOnly + s.hidden + s.exposed);
  }
  highlighted_.clear();
  update();
}

void JobOverlapChart::setHighlighted(const QVector<int>& positions) {
  highlighted_ = positions;
  update();
}

RankLayout JobOverlapChart::layout() const {
  RankLayout l;
  l.count = int(order_.size());
  const int left = 70;
  l.plot = QRectF(left, RankLayout::kTop, std::max(10, width() - left - kShareWidth),
                  std::max(10, height() - RankLayout::kTop - RankLayout::kBottom));
  return l;
}

void JobOverlapChart::paintLegend(QPainter& p) const {
  const QFontMetrics fm(font());
  int x = 8;
  const int y = 6;
  p.setPen(palette().color(QPalette::Text));
  for (auto [colour, words] : {std::pair{kCompute, tr("compute")}, std::pair{kHidden, tr("comm hidden by compute")},
                               std::pair{kExposed, tr("comm exposed")}}) {
    p.fillRect(x, y + 2, 12, fm.height() - 4, colour);
    x += 16;
    p.drawText(x, y + fm.ascent(), words);
    x += fm.horizontalAdvance(words) + 14;
  }
}

void JobOverlapChart::paintBar(QPainter& p, const JobRank& r, const QRectF& row, double scaleUs) const {
  const double h = std::max(1.0, row.height() * (row.height() >= 6 ? 0.7 : 1.0));
  const double y = row.center().y() - h / 2;
  const Parts s = partsOf(r);
  double x = row.left();
  for (auto [us, colour] :
       {std::pair{s.computeOnly, kCompute}, std::pair{s.hidden, kHidden}, std::pair{s.exposed, kExposed}}) {
    const double w = us / scaleUs * row.width();
    p.fillRect(QRectF(x, y, w, h), colour);
    x += w;
  }
}

void JobOverlapChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  if (job_.empty() || maxUs_ <= 0) {
    p.setPen(palette().color(QPalette::Text));
    p.drawText(rect(), Qt::AlignCenter, tr("No rank has GPU kernels."));
    return;
  }
  paintLegend(p);
  const RankLayout l = layout();
  const QFontMetrics fm(font());
  for (int i = 0; i < order_.size(); ++i) {
    const JobRank& r = job_.ranks[order_[i]];
    const QRectF row = l.row(i);
    if (highlighted_.contains(order_[i]))
      p.fillRect(QRectF(0, row.top(), width(), row.height()), palette().color(QPalette::AlternateBase));
    p.setPen(palette().color(QPalette::Text));
    if (l.labelled())
      p.drawText(QRectF(4, row.top(), l.plot.left() - 10, row.height()), Qt::AlignRight | Qt::AlignVCenter,
                 QStringLiteral("rank %1").arg(r.rank));
    if (!r.loaded) {
      if (l.labelled()) p.drawText(row.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, tr("did not load"));
      continue;
    }
    paintBar(p, r, row, maxUs_);
    const auto f = JobTableModel::hiddenCommFraction(r);
    if (l.labelled())
      p.drawText(QRectF(l.plot.right() + 6, row.top(), kShareWidth - 6, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
                 f ? tr("%1 % hidden").arg(*f * 100.0, 0, 'f', 0) : tr("no comm"));
  }
  p.setPen(palette().color(QPalette::Text));
  const double y = l.plot.bottom() + fm.ascent() + 4;
  p.drawText(QPointF(l.plot.left(), y), QStringLiteral("0"));
  const QString end = ms(maxUs_);
  p.drawText(QPointF(l.plot.right() - fm.horizontalAdvance(end), y), end);
  // The axis' words only where they fit between its two ends.
  const QString what = tr("GPU kernel time over the whole trace");
  const double room = l.plot.width() - 2 * fm.horizontalAdvance(end) - 24;
  if (fm.horizontalAdvance(what) <= room)
    p.drawText(QPointF(l.plot.center().x() - fm.horizontalAdvance(what) / 2.0, y), what);
}

int JobOverlapChart::positionAt(const QPoint& pt) const {
  const int i = layout().rowAt(pt.y());
  return i < 0 ? -1 : order_[i];
}

bool JobOverlapChart::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  auto* h = static_cast<QHelpEvent*>(e);
  const int pos = positionAt(h->pos());
  if (pos < 0 || !job_.ranks[pos].loaded) {
    QToolTip::hideText();
    return true;
  }
  const JobRank& r = job_.ranks[pos];
  const Parts s = partsOf(r);
  QToolTip::showText(h->globalPos(),
                     tr("rank %1\ncompute alone %2\ncommunication hidden by compute %3\ncommunication exposed %4")
                         .arg(r.rank)
                         .arg(ms(s.computeOnly), ms(s.hidden), ms(s.exposed)),
                     this);
  return true;
}

void JobOverlapChart::mousePressEvent(QMouseEvent* e) {
  if (const int pos = positionAt(e->position().toPoint()); pos >= 0) emit rankClicked(pos);
}

void JobOverlapChart::mouseDoubleClickEvent(QMouseEvent* e) {
  if (const int pos = positionAt(e->position().toPoint()); pos >= 0) emit rankActivated(pos);
}

}  // namespace steadyscope::widgets
