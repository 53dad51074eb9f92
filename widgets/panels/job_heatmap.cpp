#include "panels/job_heatmap.hpp"

#include "common/colors.hpp"
#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace steadyscope::widgets {

namespace {
const QColor kFast(0, 114, 178);     // Okabe–Ito blue
const QColor kSlow(213, 94, 0);      // Okabe–Ito vermillion
constexpr double kSaturateLog2 = 1;  // 0.5× and 2× the median take the full colours

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                          float(a.greenF() + (b.greenF() - a.greenF()) * t),
                          float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

double medianOf(QVector<double> v) {
  if (v.isEmpty()) return 0;
  std::sort(v.begin(), v.end());
  const qsizetype n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

QString ms(double us) { return qs(timeline::formatDuration(us * 1000.0)); }
}  // namespace

JobHeatmap::JobHeatmap(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("jobHeatmap"));
  setMouseTracking(true);
  setMinimumSize(300, 160);
}

QColor JobHeatmap::colorForRatio(double ratio, const QPalette& palette) {
  const QColor neutral = mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.12);
  if (!(ratio > 0)) return neutral;
  const double x = std::clamp(std::log2(ratio) / kSaturateLog2, -1.0, 1.0);
  // The square root lifts the few-percent differences a straggler hunt is about.
  const double t = std::sqrt(std::abs(x));
  return mix(neutral, x < 0 ? kFast : kSlow, t);
}

void JobHeatmap::setJob(const JobOverview& job) {
  job_ = job;
  order_ = rankOrder(job_);
  maxSteps_ = 0;
  series_.clear();
  QVector<double> medians;
  for (const JobRank& r : job_.ranks) {
    QVector<double> s = r.stepDurationsUs;
    if (job_.fromSummary && r.stepMedianUs && r.stepP90Us) s = {*r.stepMedianUs, *r.stepP90Us};
    maxSteps_ = std::max(maxSteps_, int(s.size()));
    series_ << s;
    if (r.stepMedianUs) medians << *r.stepMedianUs;
  }
  referenceUs_ = medianOf(medians);
  highlighted_.clear();
  imageColumns_ = 0;
  update();
}

void JobHeatmap::setHighlighted(const QVector<int>& positions) {
  highlighted_ = positions;
  update();
}

RankLayout JobHeatmap::layout() const {
  RankLayout l;
  l.count = int(order_.size());
  l.plot = QRectF(RankLayout::kLabelWidth, RankLayout::kTop, std::max(10, width() - RankLayout::kLabelWidth - 8),
                  std::max(10, height() - RankLayout::kTop - RankLayout::kBottom));
  return l;
}

void JobHeatmap::buildImage(int columns) {
  image_ = QImage(columns, std::max<int>(1, int(order_.size())), QImage::Format_ARGB32);
  image_.fill(Qt::transparent);
  for (int y = 0; y < order_.size(); ++y) {
    const QVector<double>& d = series_[order_[y]];
    for (int x = 0; x < columns; ++x) {
      const qsizetype from = qsizetype(double(x) * maxSteps_ / columns);
      const qsizetype to = std::max(from + 1, qsizetype(double(x + 1) * maxSteps_ / columns));
      double pick = 0, farthest = -1;
      for (qsizetype s = from; s < to && s < d.size(); ++s) {
        const double dev = std::abs(std::log2(std::max(d[s], 1e-3) / referenceUs_));
        if (dev > farthest) farthest = dev, pick = d[s];
      }
      if (farthest >= 0) image_.setPixelColor(x, y, colorForRatio(pick / referenceUs_, palette()));
    }
  }
  imageColumns_ = columns;
}

void JobHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  p.setPen(palette().color(QPalette::Text));
  if (job_.empty() || maxSteps_ == 0 || referenceUs_ <= 0) {
    p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, tr("No rank has steps to show."));
    return;
  }
  const RankLayout l = layout();
  const int columns = std::min(maxSteps_, std::max(1, int(l.plot.width())));
  if (columns != imageColumns_) buildImage(columns);
  paintLegend(p);
  p.drawImage(l.plot, image_);
  for (int i = 0; i < order_.size(); ++i) {
    const JobRank& r = job_.ranks[order_[i]];
    const QRectF row = l.row(i);
    if (highlighted_.contains(order_[i]))
      p.fillRect(QRectF(l.plot.left() - 6, row.top(), 4, row.height()), palette().color(QPalette::Highlight));
    if (!r.loaded && row.height() >= RankLayout::kMinLabelledRow) {
      p.setPen(palette().color(QPalette::PlaceholderText));
      p.drawText(
          row.adjusted(6, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter,
          QFontMetrics(font()).elidedText(tr("did not load: %1").arg(r.reason), Qt::ElideRight, int(row.width()) - 12));
    }
    if (r.straggler) {
      p.setPen(QPen(palette().color(QPalette::Text), 2));
      p.setBrush(Qt::NoBrush);
      p.drawRect(row.adjusted(-1, -1, 1, 1));
    }
  }
  paintLabels(p, l);
  paintAxis(p, l);
}

void JobHeatmap::paintLegend(QPainter& p) const {
  const QFontMetrics fm(font());
  const int y = 6, h = fm.height();
  const QString title = job_.fromSummary
                            ? tr("Median and p90 step against the job's median step (%1; summary.tsv has no "
                                 "per-step durations):")
                                  .arg(ms(referenceUs_))
                            : tr("Step duration against the job's median step (%1):").arg(ms(referenceUs_));
  p.setPen(palette().color(QPalette::Text));
  p.drawText(8, y + fm.ascent(), title);
  int x = 8 + fm.horizontalAdvance(title) + 10;
  const QString lo = QStringLiteral("0.5× faster"), hi = QStringLiteral("2× slower");
  p.drawText(x, y + fm.ascent(), lo);
  x += fm.horizontalAdvance(lo) + 6;
  const int w = 160;
  for (int i = 0; i < w; ++i)
    p.fillRect(x + i, y + 2, 1, h - 4, colorForRatio(std::exp2((2.0 * i / (w - 1) - 1) * kSaturateLog2), palette()));
  p.drawLine(x + w / 2, y, x + w / 2, y + h);
  p.drawText(x + w + 6, y + fm.ascent(), hi);
}

void JobHeatmap::paintLabels(QPainter& p, const RankLayout& l) const {
  const QFontMetrics fm(font());
  const QColor late = colors::verdict(colors::Verdict::LowQuality);
  QVector<QRectF> drawn;
  // The straggler's label first, then the others wherever they do not overlap one drawn.
  for (const bool stragglerPass : {true, false}) {
    for (int i = 0; i < order_.size(); ++i) {
      const JobRank& r = job_.ranks[order_[i]];
      if (r.straggler != stragglerPass) continue;
      const QRectF row = l.row(i);
      if (!l.labelled() && r.skewed && !stragglerPass)  // too many rows to name: a tick per late rank
        p.fillRect(QRectF(RankLayout::kLabelWidth - 6, row.top(), 3, std::max(1.0, row.height())), late);
      if (!l.labelled() && !(r.straggler || r.otherJob)) continue;
      const QRectF box(4, row.center().y() - fm.height() / 2.0, RankLayout::kLabelWidth - 14, fm.height());
      if (std::any_of(drawn.begin(), drawn.end(), [&box](const QRectF& d) { return d.intersects(box); })) continue;
      drawn << box;
      QFont f = font();
      f.setBold(r.straggler || r.skewed || r.otherJob);
      p.setFont(f);
      p.setPen(r.straggler || r.otherJob ? colors::verdict(colors::Verdict::Refused)
               : r.skewed                ? late
                                         : palette().color(QPalette::Text));
      p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
                 QFontMetrics(f).elidedText(rankLabel(r), Qt::ElideRight, int(box.width())));
    }
  }
  p.setFont(font());
}

void JobHeatmap::paintAxis(QPainter& p, const RankLayout& l) const {
  p.setPen(palette().color(QPalette::Text));
  const QFontMetrics fm(font());
  const double y = l.plot.bottom() + fm.ascent() + 4;
  if (job_.fromSummary) {
    p.drawText(QRectF(l.plot.left(), y - fm.ascent(), l.plot.width() / 2, fm.height()), Qt::AlignCenter,
               tr("median step"));
    p.drawText(QRectF(l.plot.center().x(), y - fm.ascent(), l.plot.width() / 2, fm.height()), Qt::AlignCenter,
               tr("p90 step"));
    return;
  }
  p.drawText(QPointF(l.plot.left(), y), tr("step 1"));
  const QString last = tr("step %1").arg(maxSteps_);
  p.drawText(QPointF(l.plot.right() - fm.horizontalAdvance(last), y), last);
  const QString mid = tr("steps in order, per rank");
  p.drawText(QPointF(l.plot.center().x() - fm.horizontalAdvance(mid) / 2.0, y), mid);
}

int JobHeatmap::positionAt(const QPoint& pt) const {
  const int i = layout().rowAt(pt.y());
  return i < 0 ? -1 : order_[i];
}

bool JobHeatmap::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip || job_.empty() || maxSteps_ == 0) return QWidget::event(e);
  auto* h = static_cast<QHelpEvent*>(e);
  const RankLayout l = layout();
  const int pos = positionAt(h->pos());
  if (pos < 0 || h->pos().x() < l.plot.left() || h->pos().x() >= l.plot.right()) {
    QToolTip::hideText();
    return true;
  }
  const JobRank& r = job_.ranks[pos];
  const int step = std::min(maxSteps_ - 1, int((h->pos().x() - l.plot.left()) / l.plot.width() * maxSteps_));
  QString t = tr("rank %1 (%2)").arg(r.rank).arg(r.file);
  const QVector<double>& d = series_[pos];
  const QString what =
      job_.fromSummary ? (step == 0 ? tr("median step") : tr("p90 step")) : tr("step %1").arg(step + 1);
  if (step < d.size())
    t += tr("\n%1: %2, %3× the job's median step").arg(what, ms(d[step])).arg(d[step] / referenceUs_, 0, 'f', 2);
  if (r.stepMedianUs) t += tr("\nmedian step %1").arg(ms(*r.stepMedianUs));
  if (r.straggler) t += tr("\nthe straggler: the largest median step");
  if (r.skewed && r.skewUs) t += tr("\nstarted %1 after the earliest rank").arg(ms(*r.skewUs));
  QToolTip::showText(h->globalPos(), t, this);
  return true;
}

void JobHeatmap::mousePressEvent(QMouseEvent* e) {
  if (const int pos = positionAt(e->position().toPoint()); pos >= 0) emit rankClicked(pos);
}

void JobHeatmap::mouseDoubleClickEvent(QMouseEvent* e) {
  if (const int pos = positionAt(e->position().toPoint()); pos >= 0) emit rankActivated(pos);
}

}  // namespace steadyscope::widgets
