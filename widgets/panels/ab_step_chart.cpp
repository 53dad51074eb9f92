#include "panels/ab_step_chart.hpp"
#include "panels/chart_style.hpp"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace steadyscope::widgets {

namespace {
// Okabe–Ito blue and vermillion: apart for colour-blind readers and on either theme.
const QColor kColorA(0x00, 0x72, 0xB2);
const QColor kColorB(0xD5, 0x5E, 0x00);

QLineSeries* line(const QString& name, const QList<QPointF>& points, const QColor& color) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->append(points);
  QPen pen(color);
  pen.setWidthF(1.6);
  s->setPen(pen);
  s->setPointsVisible(points.size() <= 60);  // a handful of steps: each one a dot
  return s;
}

QValueAxis* axis(const QString& title, double lo, double hi, const QPalette& pal, const QString& format) {
  auto* a = new QValueAxis;
  a->setTitleText(title);
  a->setRange(lo, hi);
  styleValueAxis(a, pal, format);
  return a;
}
}  // namespace

StepChartPoints stepChartPoints(const ByOpData& d) {
  StepChartPoints p;
  for (size_t i = 0; i < d.a.stepUs.size(); ++i) p.a.append(QPointF(double(i), d.a.stepUs[i] / 1000.0));
  for (size_t i = 0; i < d.b.stepUs.size(); ++i) p.b.append(QPointF(double(i), d.b.stepUs[i] / 1000.0));
  return p;
}

AbStepChart::AbStepChart(QWidget* parent) : QChartView(parent) {
  setObjectName(QStringLiteral("ab.stepChart"));
  setRenderHint(QPainter::Antialiasing);
  setMinimumWidth(260);
  clear();
}

void AbStepChart::setComparison(const ByOpData& d) {
  rebuild(stepChartPoints(d), d.a.name, d.b.name,
          d.wholeTrace ? tr("Trace duration (no steps: the whole traces)") : tr("Step duration, aligned steps"));
}

void AbStepChart::clear() { rebuild({}, QStringLiteral("A"), QStringLiteral("B"), tr("Step duration, aligned steps")); }

void AbStepChart::rebuild(const StepChartPoints& p, const QString& nameA, const QString& nameB, const QString& title) {
  auto* c = new QChart;
  c->setTitle(title);
  QFont f = c->titleFont();
  f.setBold(true);
  c->setTitleFont(f);
  c->setMargins(QMargins(2, 2, 2, 2));
  c->setBackgroundRoundness(0);
  c->setBackgroundBrush(palette().color(QPalette::Base));
  c->setTitleBrush(palette().color(QPalette::Text));
  c->legend()->setLabelColor(palette().color(QPalette::Text));
  c->legend()->setAlignment(Qt::AlignBottom);
  a_ = line(nameA, p.a, kColorA);
  b_ = line(nameB, p.b, kColorB);
  double yMax = 0;
  for (const QList<QPointF>* s : {&p.a, &p.b})
    for (const QPointF& q : *s) yMax = std::max(yMax, q.y());
  const qsizetype n = std::max(p.a.size(), p.b.size());
  // Half a step of room at both ends: the first and last steps (or a lone one) are not on the frame.
  auto* x = axis(tr("aligned step"), -0.5, std::max<double>(0.5, double(n) - 0.5), palette(), QStringLiteral("%d"));
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(std::max(1.0, std::ceil(double(n) / 8.0)));
  auto* y = axis(tr("ms"), 0, yMax > 0 ? yMax * 1.1 : 1.0, palette(), QStringLiteral("%.3g"));
  y->applyNiceNumbers();
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (QLineSeries* s : {a_, b_}) {
    c->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  }
  QChart* old = chart();
  setChart(c);
  delete old;
}

}  // namespace steadyscope::widgets
