#include "panels/charts_panel.hpp"
#include "panels/chart_style.hpp"

#include "common/colors.hpp"

#include <steadyscope/timeline.hpp>

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFontMetrics>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

namespace {
QColor translucent(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

/// A filled rectangle [x0, x1] × [0, y] as an area series (Qt Charts has no rectangle item).
QAreaSeries* band(double x0, double x1, double y, const QColor& fill) {
  auto* upper = new QLineSeries;
  upper->append(x0, y);
  upper->append(x1, y);
  auto* a = new QAreaSeries(upper);
  upper->setParent(a);  // an area series does not own its line: without a parent it outlived every chart
  a->setBrush(fill);
  a->setPen(Qt::NoPen);
  return a;
}

/// 1, 2 or 5 times a power of ten, near `x`.
double niceStep(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(std::max(x, 1e-12))));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}

/// An axis with round ticks (0, 0.2, ... rather than 0, 0.25, 0.333); a step
/// axis keeps its range (a step is a point, not an interval) and ticks at round step numbers.
QValueAxis* valueAxis(const QString& title, double lo, double hi, const QPalette& pal, const QString& format,
                      bool keepRange = false) {
  auto* a = new QValueAxis;
  a->setTitleText(title);
  a->setRange(lo, hi);
  if (keepRange) {
    a->setTickType(QValueAxis::TicksDynamic);
    a->setTickAnchor(0);
    a->setTickInterval(std::max(1.0, niceStep((hi - lo) / 6)));
  } else {
    a->applyNiceNumbers();
  }
  styleValueAxis(a, pal, format);
  return a;
}

void attach(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
  c->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}
}  // namespace

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedWidget(this);
  placeholder_ = new QLabel(tr("Per-step charts (duration, GPU busy ratio, the chunks' busy ratios, a histogram of "
                               "step durations) appear here after a split."),
                            this);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(2);
  QChartView** views[] = {&durationView_, &busyView_, &chunkView_, &histogramView_};
  const char* names[] = {"chart.duration", "chart.busy", "chart.chunks", "chart.histogram"};
  for (int i = 0; i < 4; ++i) {
    *views[i] = new QChartView(charts);
    (*views[i])->setObjectName(QString::fromLatin1(names[i]));
    (*views[i])->setRenderHint(QPainter::Antialiasing);
    (*views[i])->setMinimumSize(260, 170);
    grid->addWidget(*views[i], 0, i);
    grid->setColumnStretch(i, i == 3 ? 2 : 3);
  }
  stack_->addWidget(placeholder_);
  stack_->addWidget(charts);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(stack_);
}

void ChartsPanel::setDocument(const TraceDocument& doc) {
  doc_ = doc;
  dirty_ = true;
  if (!doc_) dropCharts();  // a closed trace's charts go at once, shown or not
  rebuildIfShown();
}

void ChartsPanel::dropCharts() {
  durationMark_ = busyMark_ = nullptr;
  for (QChartView* v : {durationView_, busyView_, chunkView_, histogramView_})
    if (!v->chart()->series().isEmpty()) replaceChart(v, new QChart);
}

void ChartsPanel::setChunks(QVector<ChunkRow> rows) {
  chunks_ = std::move(rows);
  dirty_ = true;
  rebuildIfShown();
}

void ChartsPanel::setThreshold(double threshold) {
  if (threshold == threshold_) return;
  threshold_ = threshold;
  dirty_ = true;
  rebuildIfShown();
}

void ChartsPanel::setSelectionModel(SelectionModel* model) {
  selection_ = model;
  connect(model, &SelectionModel::stepChanged, this, &ChartsPanel::showSelection);
  connect(model, &SelectionModel::chunkChanged, this, [this] {
    if (!isVisible()) return;
    buildHistogram();  // the selected chunk's steps
    showSelection();
  });
}

void ChartsPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (dirty_) rebuild();  // built when first seen: a hidden tab costs nothing
}

void ChartsPanel::rebuildIfShown() {
  if (isVisible()) rebuild();
}

QChart* ChartsPanel::durationChart() const { return durationView_->chart(); }
QChart* ChartsPanel::busyChart() const { return busyView_->chart(); }
QChart* ChartsPanel::chunkChart() const { return chunkView_->chart(); }
QChart* ChartsPanel::histogramChart() const { return histogramView_->chart(); }

void ChartsPanel::rebuild() {
  dirty_ = false;
  drawnPoints_ = 0;
  durationMark_ = busyMark_ = nullptr;
  points_.clear();
  if (!doc_ || !doc_.overlays || doc_.overlays->steps.empty()) {
    dropCharts();
    stack_->setCurrentWidget(placeholder_);
    return;
  }
  points_ = stepSeries(*doc_.index, *doc_.overlays);
  buildStepCharts();
  buildChunkChart();
  buildHistogram();
  showSelection();
  stack_->setCurrentIndex(1);
}

QChart* ChartsPanel::newChart(const QString& title) const {
  auto* c = new QChart;
  c->setTitle(title);
  QFont f = c->titleFont();
  f.setBold(true);
  c->setTitleFont(f);
  c->legend()->hide();
  // The x axis's last label is centred on the plot's right edge: room for its half, so it is not cut.
  const int half = QFontMetrics(font()).horizontalAdvance(QStringLiteral("0000.0")) / 2;
  c->setMargins(QMargins(4, 2, std::max(8, half), 4));
  c->setBackgroundRoundness(0);
  c->setBackgroundBrush(palette().color(QPalette::Base));
  c->setTitleBrush(palette().color(QPalette::Text));
  c->legend()->setLabelColor(palette().color(QPalette::Text));
  return c;
}

void ChartsPanel::replaceChart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

int ChartsPanel::positionAtStep(double x) const {
  if (!doc_.overlays || points_.empty()) return -1;
  const int32_t want = int32_t(std::lround(x));
  // Steps are in time order and so (nearly always) in number order: the nearest number wins.
  int best = -1;
  int64_t bestDist = INT64_MAX;
  for (const StepPoint& p : points_) {
    const int64_t d = std::llabs(int64_t(p.step) - want);
    if (d < bestDist) {
      bestDist = d;
      best = int(p.position);
    }
  }
  return best;
}

void ChartsPanel::onStepClicked(double x) {
  const int pos = positionAtStep(x);
  if (selection_ && pos >= 0) selection_->setStep(pos);
}

/// Steady regions (grey) and each mode's chosen window (its colour) behind a per-step chart.
void ChartsPanel::shadeWindows(QChart* chart, double yMax) const {
  const TimelineOverlays& ov = *doc_.overlays;
  for (const RegionBand& r : ov.steadyRegions) {
    size_t first = ov.firstStepEndingAfter(r.beginNs), last = first;
    while (last + 1 < ov.steps.size() && ov.steps[last + 1].beginNs < r.endNs) ++last;
    if (first >= ov.steps.size()) continue;
    chart->addSeries(band(ov.steps[first].index - 0.5, ov.steps[last].index + 0.5, yMax,
                          translucent(palette().color(QPalette::Mid), 45)));
  }
  for (const ChunkBand& c : ov.chunks)
    if (c.lastStep >= c.firstStep)
      chart->addSeries(band(c.firstStep - 0.5, c.lastStep + 0.5, yMax,
                            translucent(colors::chunkMode(QString::fromStdString(c.mode)), 60)));
}

void ChartsPanel::buildStepCharts() {
  const double x0 = points_.front().step - 0.5, x1 = points_.back().step + 0.5;
  struct Plot {
    QChartView* view;
    QString title, yTitle, format;
    QColor colour;
    QScatterSeries** mark;
    double scale;  // value of a point: duration in ms, or the ratio
  };
  const Plot plots[] = {
      {durationView_, tr("Step duration"), tr("ms"), QStringLiteral("%.3g"), colors::stepKind(StepKind::PrefillDecode),
       &durationMark_, 1e-6},
      {busyView_, tr("GPU busy per step"), tr("busy ratio"), QStringLiteral("%.1f"), colors::gpuBusy(palette()),
       &busyMark_, 0},
  };
  for (const Plot& p : plots) {
    std::vector<double> v(points_.size());
    for (size_t i = 0; i < points_.size(); ++i)
      v[i] = p.scale > 0 ? points_[i].durationNs * p.scale : points_[i].busyRatio;
    const double yMax = p.scale > 0 ? std::max(1e-3, *std::max_element(v.begin(), v.end()) * 1.1) : 1.0;
    QChart* c =
        newChart(points_.size() > size_t(kMaxColumns) ? tr("%1 (min–max of %2 steps per point)")
                                                            .arg(p.title)
                                                            .arg((points_.size() + kMaxColumns - 1) / kMaxColumns)
                                                      : p.title);
    auto* x = valueAxis(tr("step"), x0, x1, palette(), QStringLiteral("%d"), true);
    auto* y = valueAxis(p.yTitle, 0, yMax, palette(), p.format);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    shadeWindows(c, yMax);
    for (QAbstractSeries* s : c->series()) {
      s->attachAxis(x);
      s->attachAxis(y);
    }
    auto* line = new QLineSeries;
    line->setColor(p.colour);
    for (const MinMaxBucket& b : decimateMinMax(v, kMaxColumns)) {
      line->append(points_[b.first].step, b.min);
      if (b.max != b.min) line->append(points_[b.first].step, b.max);
    }
    line->setPointsVisible(points_.size() <= 64);
    connect(line, &QLineSeries::clicked, this, [this](const QPointF& pt) { onStepClicked(pt.x()); });
    attach(c, line, x, y);
    if (p.view == durationView_) drawnPoints_ = int(line->count());
    auto* mark = new QScatterSeries;
    mark->setMarkerSize(10);
    mark->setColor(colors::selection(palette()));
    mark->setBorderColor(palette().color(QPalette::Text));
    attach(c, mark, x, y);
    *p.mark = mark;
    replaceChart(p.view, c);
  }
}

void ChartsPanel::buildChunkChart() {
  QChart* c = newChart(tr("Busy ratio per chunk"));
  auto* ref = new QBarSet(tr("gate's busy"));
  auto* uni = new QBarSet(tr("union busy"));
  ref->setColor(colors::gpuBusy(palette()));
  uni->setColor(translucent(colors::gpuBusy(palette()), 110));
  for (QBarSet* s : {ref, uni}) s->setSelectedColor(colors::selection(palette()));
  QStringList cats;
  double yMax = std::max(0.1, threshold_ * 1.5);
  for (int i = 0; i < chunks_.size(); ++i) {
    const ChunkRow& r = chunks_[i];
    QString label = r.mode;  // short: the bars are narrow (the steps are in the chunk table)
    while (cats.contains(label)) label += QLatin1Char(' ');  // categories must differ
    cats << label;
    ref->append(std::max(0.0, r.busyRef));
    uni->append(std::max(0.0, r.busyUnion));
    yMax = std::max({yMax, r.busyRef * 1.1, r.busyUnion * 1.1});
  }
  auto* bars = new QBarSeries;
  bars->append(ref);
  bars->append(uni);
  connect(bars, &QBarSeries::clicked, this, [this](int index, QBarSet*) {
    if (selection_) selection_->setChunk(index);
  });
  auto* x = new QBarCategoryAxis;
  x->append(cats.isEmpty() ? QStringList{tr("no chunks")} : cats);
  x->setLabelsColor(palette().color(QPalette::Text));
  QFont small = x->labelsFont();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  x->setLabelsFont(small);
  x->setTruncateLabels(false);  // Qt elides "decode_only" with room to spare; a mode's name fits its category
  auto* y = valueAxis(tr("busy ratio"), 0, std::min(1.0, yMax), palette(), QStringLiteral("%.1f"));
  // Few ticks: with the legend below, the plot is short and crowded labels would be elided to "…".
  y->setTickType(QValueAxis::TicksDynamic);
  y->setTickAnchor(0);
  y->setTickInterval(niceStep(y->max() / 4));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  attach(c, bars, x, y);
  auto* line = new QLineSeries;
  line->setName(tr("threshold %1").arg(threshold_));
  line->setPen(QPen(colors::verdict(colors::Verdict::Refused), 2, Qt::DashLine));
  line->append(-0.5, threshold_);
  line->append(std::max<qsizetype>(1, cats.size()) - 0.5, threshold_);
  attach(c, line, x, y);
  c->legend()->show();
  c->legend()->setAlignment(Qt::AlignBottom);
  replaceChart(chunkView_, c);
}

void ChartsPanel::buildHistogram() {
  if (points_.empty()) return;
  std::vector<double> ms(points_.size());
  for (size_t i = 0; i < points_.size(); ++i) ms[i] = points_[i].durationNs * 1e-6;
  const Histogram h = histogramOf(ms, kHistogramBins, true);
  std::vector<uint32_t> chunk(h.counts.size(), 0);
  const int sel = selection_ ? selection_->chunk() : -1;
  if (sel >= 0 && sel < chunks_.size())
    for (size_t i = 0; i < points_.size(); ++i)
      if (points_[i].step >= chunks_[sel].firstStep && points_[i].step <= chunks_[sel].lastStep)
        ++chunk[h.binOf(ms[i])];
  // Short enough for a quarter of the dock; the selected chunk's steps are drawn in its mode's colour.
  QString title = sel >= 0 && sel < chunks_.size() ? tr("Step durations, %1 in colour").arg(chunks_[sel].mode)
                                                   : tr("Step durations");
  QChart* c = newChart(title);
  const double x0 = h.lo, x1 = h.lo + h.binWidth * double(h.counts.size());
  const uint32_t top = *std::max_element(h.counts.begin(), h.counts.end());
  const QString unit = h.clipped ? tr("ms (last bar: the %1 slowest)").arg(h.clipped) : tr("ms");
  auto* x = valueAxis(unit, x0, x1, palette(), QStringLiteral("%.3g"));
  auto* y = valueAxis(tr("steps"), 0, std::max(1.0, top * 1.1), palette(), QStringLiteral("%d"));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  const QColor all = translucent(palette().color(QPalette::Text), 90);
  const QColor mine = sel >= 0 && sel < chunks_.size() ? colors::chunkMode(chunks_[sel].mode) : all;
  for (size_t b = 0; b < h.counts.size(); ++b) {
    const double lo = h.lo + h.binWidth * double(b), hi = lo + h.binWidth * 0.92;
    if (h.counts[b]) attach(c, band(lo, hi, h.counts[b], all), x, y);
    if (chunk[b]) attach(c, band(lo, hi, chunk[b], mine), x, y);
  }
  replaceChart(histogramView_, c);
}

void ChartsPanel::showSelection() {
  if (!durationMark_ || !busyMark_) return;
  durationMark_->clear();
  busyMark_->clear();
  const int pos = selection_ ? selection_->step() : -1;
  for (const StepPoint& p : points_)
    if (int(p.position) == pos) {
      durationMark_->append(p.step, p.durationNs * 1e-6);
      busyMark_->append(p.step, p.busyRatio);
    }
  const int sel = selection_ ? selection_->chunk() : -1;
  if (auto* bars = chunkView_->chart() ? qobject_cast<QBarSeries*>(chunkView_->chart()->series().value(0)) : nullptr)
    for (QBarSet* s : bars->barSets()) {
      s->deselectAllBars();
      if (sel >= 0 && sel < s->count()) s->selectBar(sel);
    }
}

}  // namespace steadyscope::widgets
