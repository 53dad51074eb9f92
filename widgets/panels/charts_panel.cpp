#include "panels/charts_panel.hpp"

#include "common/colors.hpp"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QStackedWidget>
#include <QValueAxis>

#include <algorithm>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

double stepBusyRatio(const TimelineIndex& index, const StepBand& step) {
  const double len = std::max(1.0, double(step.endNs - step.beginNs));
  double r = 0;
  for (const DeviceIndex& dev : index.devices) r = std::max(r, double(dev.busy.busyIn(step.beginNs, step.endNs)) / len);
  return r;
}

ChartsPanel::ChartsPanel(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedWidget(this);
  placeholder_ = new QLabel(tr("Per-step charts (duration, GPU busy ratio) appear here after a split."), this);
  placeholder_->setAlignment(Qt::AlignCenter);
  auto* charts = new QWidget(this);
  auto* h = new QHBoxLayout(charts);
  h->setContentsMargins(0, 0, 0, 0);
  durationView_ = new QChartView(charts);
  busyView_ = new QChartView(charts);
  h->addWidget(durationView_);
  h->addWidget(busyView_);
  stack_->addWidget(placeholder_);
  stack_->addWidget(charts);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(stack_);
}

void ChartsPanel::setDocument(const TraceDocument& doc) {
  doc_ = doc;
  rebuild();
}

void ChartsPanel::setSelectionModel(SelectionModel* model) { selection_ = model; }

void ChartsPanel::rebuild() {
  points_ = 0;
  if (!doc_ || !doc_.overlays || doc_.overlays->steps.empty()) {
    stack_->setCurrentWidget(placeholder_);
    return;
  }
  const auto& steps = doc_.overlays->steps;
  const size_t n = steps.size();
  const size_t bucket = std::max<size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
  auto* dur = new QLineSeries;
  auto* busy = new QLineSeries;
  dur->setName(tr("step duration (ms), max per %1 steps").arg(bucket));
  busy->setName(tr("GPU busy ratio per step"));
  dur->setColor(colors::stepKind(StepKind::PrefillDecode));
  busy->setColor(colors::gpuBusy(palette()));
  double maxDur = 0;
  for (size_t b = 0; b < n; b += bucket) {
    double d = 0, r = 0;
    for (size_t i = b; i < std::min(n, b + bucket); ++i) {
      const double len = double(steps[i].endNs - steps[i].beginNs);
      d = std::max(d, len / 1e6);
      r = std::max(r, stepBusyRatio(*doc_.index, steps[i]));
    }
    dur->append(double(steps[b].index), d);
    busy->append(double(steps[b].index), r);
    maxDur = std::max(maxDur, d);
    ++points_;
  }
  auto make = [this](QLineSeries* s, double maxY, const QString& title) {
    auto* c = new QChart;
    c->addSeries(s);
    c->setTitle(title);
    c->legend()->hide();
    c->setBackgroundBrush(palette().color(QPalette::Base));
    c->setTitleBrush(palette().color(QPalette::Text));
    auto* x = new QValueAxis;
    x->setTitleText(tr("step"));
    auto* y = new QValueAxis;
    y->setRange(0, maxY);
    for (QValueAxis* a : {x, y}) {
      a->setLabelsColor(palette().color(QPalette::Text));
      a->setTitleBrush(palette().color(QPalette::Text));
    }
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    s->attachAxis(x);
    s->attachAxis(y);
    return c;
  };
  QChart* old1 = durationView_->chart();
  QChart* old2 = busyView_->chart();
  durationView_->setChart(make(dur, std::max(maxDur * 1.1, 0.001), tr("step duration (ms)")));
  busyView_->setChart(make(busy, 1.0, tr("GPU busy ratio per step")));
  delete old1;
  delete old2;
  stack_->setCurrentIndex(1);
}

}  // namespace steadyscope::widgets
