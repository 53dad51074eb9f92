// The Charts tab on a real split (the bundled sample): the per-step series
// equal the core's per-step figures, clicking a point selects its step,
// clicking a bar selects its chunk, a selected chunk's steps are drawn in
// the histogram, a closed trace leaves no series behind, and 20,000 steps are drawn min/max per bucket with the
// peak kept.
#include "../support/load_json.hpp"
#include "app_test_support.hpp"
#include "split_adapter.hpp"

#include "common/selection_model.hpp"
#include "panels/charts_panel.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/timeline/step_series.hpp>

#include <QAreaSeries>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLineSeries>
#include <QPointer>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::app;
using steadyscope::widgets::ChartsPanel;
using steadyscope::widgets::SelectionModel;
using steadyscope::widgets::TraceDocument;

namespace {
template <typename S>
S* firstSeries(QChart* c) {
  for (QAbstractSeries* s : c->series())
    if (auto* x = qobject_cast<S*>(s)) return x;
  return nullptr;
}
}  // namespace

class TestCharts : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    auto t = loadTrace(STEADYSCOPE_SOURCE_DIR "/resources/sample/vllm_sample.json.gz");
    QVERIFY(t.ok());
    doc_.trace = t.value();
    doc_.index = timeline::buildTimelineIndex(*doc_.trace);
    auto v = planSplitView(doc_.trace, doc_.index, windowSplitOptions(32));
    QVERIFY(v && !v->chunks.isEmpty());
    doc_.overlays = v->overlays;
    view_ = *v;
  }

  void seriesEqualTheCoreFigures() {
    SelectionModel sel;
    ChartsPanel p;
    p.setSelectionModel(&sel);
    p.setDocument(doc_);
    p.setChunks(view_.chunks);
    p.resize(1920, 320);
    p.show();
    const auto core = timeline::stepSeries(*doc_.index, *doc_.overlays);
    QCOMPARE(p.steps().size(), core.size());
    auto* line = firstSeries<QLineSeries>(p.durationChart());
    QVERIFY(line);
    QVERIFY(core.size() <= size_t(ChartsPanel::kMaxColumns));  // one point per step here
    QCOMPARE(size_t(line->count()), core.size());
    for (size_t i = 0; i < core.size(); ++i) {
      QCOMPARE(line->at(int(i)).x(), double(core[i].step));
      QCOMPARE(line->at(int(i)).y(), core[i].durationNs * 1e-6);
    }
    auto* busy = firstSeries<QLineSeries>(p.busyChart());
    QCOMPARE(busy->at(3).y(), core[3].busyRatio);
    if (qEnvironmentVariableIsSet("STEADYSCOPE_SHOT")) p.grab().save(qEnvironmentVariable("STEADYSCOPE_SHOT"));
  }

  void clicksSelect() {
    SelectionModel sel;
    ChartsPanel p;
    showSample(p, sel);
    const auto& steps = p.steps();
    const timeline::StepPoint target = steps[steps.size() / 2];
    auto* line = firstSeries<QLineSeries>(p.durationChart());
    emit line->clicked(QPointF(target.step + 0.2, 0.0));
    QCOMPARE(sel.step(), int(target.position));
    auto* bars = firstSeries<QBarSeries>(p.chunkChart());
    QVERIFY(bars);
    QCOMPARE(bars->barSets().first()->count(), int(view_.chunks.size()));
    const int last = int(view_.chunks.size()) - 1;
    emit bars->clicked(last, bars->barSets().first());
    QCOMPARE(sel.chunk(), last);
    QCOMPARE(bars->barSets().first()->selectedBars(), QList<int>{last});
  }

  void selectedChunkInTheHistogram() {
    SelectionModel sel;
    ChartsPanel p;
    showSample(p, sel);
    const int before = int(p.histogramChart()->series().size());
    sel.setChunk(0);
    const int after = int(p.histogramChart()->series().size());
    QVERIFY2(after > before, qPrintable(QStringLiteral("%1 -> %2 bands").arg(before).arg(after)));
    QVERIFY(p.histogramChart()->title().contains(view_.chunks[0].mode + QStringLiteral(" in colour")));
  }

  // A histogram bar's line goes with its chart, and a closed trace's charts go
  // at once, even on a hidden tab: a window that opens traces for hours keeps nothing of them.
  void closedTraceLeavesNoSeries() {
    SelectionModel sel;
    ChartsPanel p;
    showSample(p, sel);
    auto* bar = firstSeries<QAreaSeries>(p.histogramChart());
    QVERIFY(bar && bar->upperSeries());
    QPointer<QLineSeries> line = bar->upperSeries();
    p.hide();
    p.setDocument(TraceDocument{});
    QVERIFY2(line.isNull(), "a histogram bar's line outlived its chart");
    for (QChart* c : {p.durationChart(), p.busyChart(), p.chunkChart(), p.histogramChart()})
      QVERIFY(c->series().isEmpty());
  }

  void manyStepsKeepThePeak() {
    auto ov = std::make_shared<timeline::TimelineOverlays>();
    for (int i = 0; i < 20000; ++i)
      ov->steps.push_back({int64_t(i) * 1000000, int64_t(i) * 1000000 + (i == 12345 ? 900000 : 500000), i,
                           timeline::StepKind::Generic});
    TraceDocument d = doc_;
    d.overlays = ov;
    ChartsPanel p;
    p.setDocument(d);
    p.show();
    QVERIFY(p.pointCount() <= 2 * ChartsPanel::kMaxColumns);
    auto* line = firstSeries<QLineSeries>(p.durationChart());
    double peak = 0;
    for (const QPointF& pt : line->points()) peak = std::max(peak, pt.y());
    QCOMPARE(peak, 0.9);
    QVERIFY(p.durationChart()->title().contains(QStringLiteral("min–max")));
  }

 private:
  /// `p` on the sample's split, shown, selecting through `sel`.
  void showSample(ChartsPanel& p, SelectionModel& sel) const {
    p.setSelectionModel(&sel);
    p.setDocument(doc_);
    p.setChunks(view_.chunks);
    p.show();
  }

  TraceDocument doc_;
  SplitView view_;
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
