// steadyscope --bench-charts TRACE: loads and splits the trace, then measures
// what switching to the Charts tab costs: a panel filled while hidden is
// shown and rendered (build of the four charts + first paint), 1920x320,
// median of 7 after one warm-up. Then the A/B of the first two chunks and of
// the whole trace against itself (figures of both sides, the kernels' deltas,
// the A/B pane filled), median of 7. A benchmark, not a test.
#include "ab_sides.hpp"
#include "gui_main.hpp"
#include "load_job.hpp"
#include "split_adapter.hpp"

#include "common/selection_model.hpp"
#include "panels/ab_panel.hpp"
#include "panels/charts_panel.hpp"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace steadyscope::app {

namespace {
double showAndRender(const widgets::TraceDocument& doc, const QVector<widgets::ChunkRow>& rows) {
  widgets::SelectionModel sel;
  widgets::ChartsPanel p;
  p.setSelectionModel(&sel);
  p.resize(1920, 320);
  p.setDocument(doc);  // hidden: nothing is built yet
  p.setChunks(rows);
  QImage img(p.size(), QImage::Format_ARGB32_Premultiplied);
  QElapsedTimer t;
  t.start();
  p.show();
  QPainter painter(&img);
  p.render(&painter);
  painter.end();
  return double(t.nsecsElapsed()) / 1e6;
}

double compareMs(const AbPick& a, const AbPick& b) {
  widgets::AbPanel panel;
  QElapsedTimer t;
  t.start();
  panel.setComparison(timeline::abSideFigures(a.input), timeline::abSideFigures(b.input));
  return double(t.nsecsElapsed()) / 1e6;
}

double medianOf7(const std::function<double()>& f) {
  f();  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < 7; ++i) ms.push_back(f());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void benchAb(const widgets::TraceDocument& doc, const QVector<widgets::ChunkRow>& rows) {
  if (rows.size() >= 2) {
    const std::optional<AbPick> a = pickChunk(doc, rows[0], 0, {}), b = pickChunk(doc, rows[1], 1, {});
    if (a && b)
      std::printf("A/B of two chunks (%s, %s): median %.1f ms (target < 50 ms)\n", qPrintable(rows[0].mode),
                  qPrintable(rows[1].mode), medianOf7([&] { return compareMs(*a, *b); }));
  }
  const std::optional<AbPick> all = pickRange(doc, doc.index->firstNs, doc.index->lastNs, {});
  if (all)
    std::printf("A/B of the whole trace with itself: median %.1f ms\n",
                medianOf7([&] { return compareMs(*all, *all); }));
}

}  // namespace

int runChartsBench(const QString& trace) {
  JobContext ctx;
  std::optional<LoadOutcome> out = loadDocument(trace.toStdString(), ctx);
  if (!out || !out->doc) {
    std::fprintf(stderr, "steadyscope: %s\n", qPrintable(out ? out->error : QStringLiteral("cancelled")));
    return 1;
  }
  widgets::TraceDocument doc = out->doc;
  const std::optional<SplitView> v = planSplitView(doc.trace, doc.index, windowSplitOptions(32));
  if (!v || !v->overlays || v->overlays->steps.empty()) {
    std::fprintf(stderr, "steadyscope: %s: the split found no steps to chart\n", qPrintable(trace));
    return 1;
  }
  doc.overlays = v->overlays;
  showAndRender(doc, v->chunks);  // warm-up: fonts, glyph caches
  std::vector<double> ms;
  for (int i = 0; i < 7; ++i) ms.push_back(showAndRender(doc, v->chunks));
  std::sort(ms.begin(), ms.end());
  std::printf("charts of %zu steps, %lld chunks: show + first paint median %.1f ms, max %.1f ms (target < 100 ms)\n",
              v->overlays->steps.size(), static_cast<long long>(v->chunks.size()), ms[ms.size() / 2], ms.back());
  benchAb(doc, v->chunks);
  return 0;
}

}  // namespace steadyscope::app
