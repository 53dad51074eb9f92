// steadyscope --bench-charts TRACE: loads and splits the trace, then measures
// what switching to the Charts tab costs: a panel filled while hidden is
// shown and rendered (build of the four charts + first paint), 1920x320,
// median of 7 after one warm-up. A benchmark, not a test.
#include "gui_main.hpp"
#include "load_job.hpp"
#include "split_adapter.hpp"

#include "common/selection_model.hpp"
#include "panels/charts_panel.hpp"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
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
  return 0;
}

}  // namespace steadyscope::app
