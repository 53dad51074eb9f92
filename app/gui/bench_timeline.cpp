// steadyscope --bench-timeline TRACE: renders the real TimelineView into a
// 1920x1080 image for a scripted sequence (fit all, 10 zoom levels, pans at
// each level) and prints median / p95 frame time per level and overall.
// A benchmark, not a test: it measures, it does not assert.
#include "gui_main.hpp"
#include "load_job.hpp"

#include "timeline/timeline_view.hpp"

#include <steadyscope/timeline.hpp>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace steadyscope::app {

namespace {
struct Summary {
  double median = 0, p95 = 0, max = 0;
};
Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, size_t(double(v.size()) * 0.95))];
  s.max = v.back();
  return s;
}
/// Loads `trace` (on this thread: nothing else runs) and prints its figures;
/// an empty document (after printing the error) on failure.
widgets::TraceDocument loadForBench(const QString& trace) {
  QElapsedTimer t;
  t.start();
  JobContext ctx;
  const std::optional<LoadOutcome> out = loadDocument(trace.toStdString(), ctx);
  if (!out || !out->doc) {
    std::fprintf(stderr, "steadyscope: %s\n", qPrintable(out ? out->error : QStringLiteral("cancelled")));
    return {};
  }
  const widgets::TraceDocument& doc = out->doc;
  std::printf("loaded %s: %s events, %s slices, %zu lanes, %zu rows in %.2f s\n", qPrintable(trace),
              timeline::formatCount(doc.trace->size()).c_str(), timeline::formatCount(doc.index->sliceCount).c_str(),
              doc.trace->lanes.size(), doc.index->rows.size(), double(t.elapsed()) / 1000.0);
  return doc;
}
}  // namespace

int runTimelineBench(const QString& trace, const QString& find) {
  const widgets::TraceDocument doc = loadForBench(trace);
  if (!doc) return 1;
  const QSize size(1920, 1080);
  widgets::TimelineView view;
  view.resize(size);
  view.setDocument(doc);
  if (!find.isEmpty()) {  // the window's find: every match framed in every frame
    QElapsedTimer ft;
    ft.start();
    const QRegularExpression re(find, QRegularExpression::CaseInsensitiveOption);
    const auto hit = timeline::matchNames(doc.trace->strings, [&re](std::string_view v) {
      return re.match(QString::fromUtf8(v.data(), qsizetype(v.size()))).hasMatch();
    });
    auto found = std::make_shared<const timeline::FindResults>(timeline::findEvents(*doc.trace, *doc.index, hit));
    std::printf("find \"%s\": %s matches in %.1f ms, highlighted\n", qPrintable(find),
                timeline::formatCount(found->events.size()).c_str(), double(ft.nsecsElapsed()) / 1e6);
    view.setFindResults(std::move(found));
  }
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  timeline::ViewControl& vc = view.viewControl();
  vc.setWidth(size.width() - view.labelWidth());

  {
    // One cold frame first: Qt's font database and glyph caches load on the
    // first text drawn. Reported, not counted in the levels.
    QElapsedTimer ft;
    ft.start();
    QPainter p(&img);
    view.renderTo(p, size);
    std::printf("cold first frame: %.2f ms (font and glyph caches)\n", double(ft.nsecsElapsed()) / 1e6);
  }
  std::vector<double> all;
  auto frame = [&](std::vector<double>& level) {
    QElapsedTimer ft;
    ft.start();
    QPainter p(&img);
    view.renderTo(p, size);
    p.end();
    const double ms = double(ft.nsecsElapsed()) / 1e6;
    level.push_back(ms);
    all.push_back(ms);
  };
  std::printf("%-6s %-12s %8s %8s %8s %10s\n", "level", "span", "median", "p95", "max", "items/frm");
  const double full = vc.span();
  const double centre = (vc.beginRel() + vc.endRel()) / 2.0;
  const int kPans = 24;
  for (int level = 0; level <= 10; ++level) {
    std::vector<double> times;
    const double span = full / std::pow(4.0, level);
    // Start left of the centre and pan right in steps of 1/8 of the view.
    double b = centre - span * 1.5;
    vc.setWindowRel(b, b + span);
    frame(times);  // warm-up of this level is measured too: it is a real frame
    for (int k = 0; k < kPans; ++k) {
      vc.panFraction(0.125);
      frame(times);
    }
    const Summary s = summarize(times);
    std::printf("%-6d %-12s %8.2f %8.2f %8.2f %10lld\n", level, timeline::formatDuration(span).c_str(), s.median, s.p95,
                s.max, static_cast<long long>(view.lastFrameStats().items));
  }
  const Summary s = summarize(all);
  std::printf("overall: %zu frames, median %.2f ms, p95 %.2f ms, max %.2f ms (target p95 <= 16 ms)\n", all.size(),
              s.median, s.p95, s.max);
  return 0;
}

}  // namespace steadyscope::app
