// TimelineView, offscreen: pixels of the busy overlay and the chunk band,
// hit testing by clicks, wheel zoom, keys, range drag, and bounded work per
// frame on a 10^6-event trace (counted with a counting paint device).
#include "counting_device.hpp"
#include "trace_builder.hpp"

#include "common/colors.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/timeline/find.hpp>

#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::widgets::TimelineView;
using steadyscope::widgets::TraceDocument;

namespace {
TraceDocument docOf(TracePtr t) {
  TraceDocument d;
  d.trace = t;
  d.index = buildTimelineIndex(*t);
  return d;
}

// GPU busy [0, 1 ms) and [3, 4 ms), idle in between; a CPU lane with launches.
TracePtr busyIdleTrace() {
  testing::TraceBuilder b;
  b.add(100, 100, "launch_a", "cuda_runtime", 0, 5'000, 0, 1);
  b.add(100, 100, "launch_b", "cuda_runtime", 2'900'000, 5'000, 0, 2);
  b.add(0, 7, "kernel_a", "kernel", 0, 1'000'000, 0, 1);
  b.add(0, 7, "kernel_b", "kernel", 3'000'000, 1'000'000, 0, 2);
  return b.finish();
}

bool near(QColor a, QColor b, int tol = 24) {
  return std::abs(a.red() - b.red()) <= tol && std::abs(a.green() - b.green()) <= tol &&
         std::abs(a.blue() - b.blue()) <= tol;
}
}  // namespace

class TstTimelineView : public QObject {
  Q_OBJECT
 private slots:
  void busyOverlayPixels();
  void selectedChunkBandCoversSteps();
  void clickSelectsKernelAndEmptySelectsNothing();
  void wheelZoomKeepsCursorTime();
  void keysZoomAndPan();
  void dragOnRulerSelectsRange();
  void boundedWorkOnMillionEvents();
  void selectionSettersAreQuiet();
  void followingAKernelsFlowSelectsItsLaunchAndBack();
  void findFramesEveryMatchInView();
  void findHighlightStaysBounded();
  void collapsedLaneIsAThinStrip();
  void cutNamesHaveTooltipsAndNothingBelowTheLastLane();
};

void TstTimelineView::busyOverlayPixels() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  v.setDocument(docOf(busyIdleTrace()));
  v.zoomToRange(0, 4'000'000);
  QImage img(v.viewport()->size(), QImage::Format_ARGB32);
  QPainter p(&img);
  v.renderTo(p, img.size());
  p.end();
  const TimeMapper m = v.mapper();
  const int y = v.busyStripY(0);
  QVERIFY(y > 0);
  const int yBar = y + 22 - 5;  // near the bottom of the strip: any busy fraction fills it
  const QColor busy = widgets::colors::gpuBusy(v.palette());
  auto at = [&](int64_t ns) { return img.pixelColor(v.labelWidth() + int(m.toPx(ns)), yBar); };
  QVERIFY2(near(at(500'000), busy), qPrintable(at(500'000).name()));
  QVERIFY2(near(at(3'500'000), busy), qPrintable(at(3'500'000).name()));
  QVERIFY2(!near(at(2'000'000), busy), qPrintable(at(2'000'000).name()));
}

void TstTimelineView::selectedChunkBandCoversSteps() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  TraceDocument d = docOf(busyIdleTrace());
  auto ov = std::make_shared<TimelineOverlays>();
  for (int s = 0; s < 10; ++s)
    ov->steps.push_back(
        {int64_t(s) * 400'000, int64_t(s + 1) * 400'000, s, s % 2 ? StepKind::DecodeOnly : StepKind::PrefillDecode});
  ov->chunks.push_back({ov->steps[2].beginNs, ov->steps[5].endNs, "decode_only", " ", 2, 5});
  d.overlays = ov;
  v.setDocument(d);
  v.zoomToRange(0, 4'000'000);
  v.selectionModel()->setChunk(0);
  QImage img(v.viewport()->size(), QImage::Format_ARGB32);
  QPainter p(&img);
  v.renderTo(p, img.size());
  p.end();
  if (qEnvironmentVariableIsSet("STEADYSCOPE_TEST_SAVE")) img.save(qEnvironmentVariable("STEADYSCOPE_TEST_SAVE"));
  const TimeMapper m = v.mapper();
  const QColor chunk = widgets::colors::chunkMode(QStringLiteral("decode_only"));
  const int y = v.chunkBandTop() + 9;
  auto at = [&](int64_t ns) { return img.pixelColor(v.labelWidth() + int(m.toPx(ns)), y); };
  for (int s = 2; s <= 5; ++s) {
    QVERIFY(near(at(ov->steps[size_t(s)].beginNs + 40'000), chunk));
    QVERIFY(near(at((ov->steps[size_t(s)].beginNs + ov->steps[size_t(s)].endNs) / 2), chunk));
    QVERIFY(near(at(ov->steps[size_t(s)].endNs - 40'000), chunk));
  }
  QVERIFY(!near(at(ov->steps[0].beginNs + 200'000), chunk));
  QVERIFY(!near(at(ov->steps[8].beginNs + 200'000), chunk));
  // The ruler shows each step's kind colour.
  const QColor pd = widgets::colors::stepKind(StepKind::PrefillDecode);
  QVERIFY(near(img.pixelColor(v.labelWidth() + int(m.toPx(ov->steps[0].beginNs + 20'000)), 4), pd));
}

void TstTimelineView::clickSelectsKernelAndEmptySelectsNothing() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(200, 10'000, 2'000, true);
  v.setDocument(docOf(t));
  v.zoomToRange(t->tsNs[0], t->tsNs[0] + 100'000);
  // Event 41 is kernel #20 (launch, kernel alternate).
  const EventIdx kernel = 41;
  QVERIFY(isGpuWork(t->classOf(kernel)));
  const auto pt = v.pointOfEvent(kernel);
  QVERIFY(pt.has_value());
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, *pt);
  QCOMPARE(v.selectionModel()->event(), qint64(kernel));
  QCOMPARE(v.eventAt(*pt), qint64(kernel));
  // Half-way to the next kernel: nothing there.
  const TimeMapper m = v.mapper();
  const QPoint empty(v.labelWidth() + int(m.toPx(t->tsNs[kernel] + 6'000)), pt->y());
  QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, empty);
  QCOMPARE(v.selectionModel()->event(), qint64(-1));
}

void TstTimelineView::wheelZoomKeepsCursorTime() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(1000);
  v.setDocument(docOf(t));
  const QPoint pos(v.labelWidth() + 333, 200);
  const double before = v.mapper().relAt(333);
  const double span = v.viewControl().span();
  QWheelEvent in(pos, v.viewport()->mapToGlobal(pos), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                 Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(v.viewport(), &in);
  QVERIFY(v.viewControl().span() < span);
  QVERIFY(std::abs(v.mapper().relAt(333) - before) < 1e-3);
  QWheelEvent out(pos, v.viewport()->mapToGlobal(pos), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(v.viewport(), &out);
  QVERIFY(std::abs(v.viewControl().span() - span) < 1e-3);
  QVERIFY(std::abs(v.mapper().relAt(333) - before) < 1e-3);
}

void TstTimelineView::keysZoomAndPan() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  v.setDocument(docOf(testing::makeRegularTrace(1000)));
  const double b = v.viewControl().beginRel(), e = v.viewControl().endRel();
  QTest::keyClick(&v, Qt::Key_W);
  QVERIFY(v.viewControl().span() < e - b);
  QTest::keyClick(&v, Qt::Key_D);
  const double afterPan = v.viewControl().beginRel();
  QTest::keyClick(&v, Qt::Key_A);
  QVERIFY(v.viewControl().beginRel() < afterPan);
  QTest::keyClick(&v, Qt::Key_F);
  QVERIFY(std::abs(v.viewControl().beginRel() - b) < 1e-6 && std::abs(v.viewControl().endRel() - e) < 1e-6);
  v.selectionModel()->setEvent(3);
  QTest::keyClick(&v, Qt::Key_Escape);
  QCOMPARE(v.selectionModel()->event(), qint64(-1));
}

void TstTimelineView::dragOnRulerSelectsRange() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  v.setDocument(docOf(busyIdleTrace()));
  const TimeMapper m = v.mapper();
  const QPoint a(v.labelWidth() + 100, 8), b(v.labelWidth() + 400, 8);
  QTest::mousePress(v.viewport(), Qt::LeftButton, {}, a);
  QTest::mouseMove(v.viewport(), b);
  QTest::mouseRelease(v.viewport(), Qt::LeftButton, {}, b);
  QVERIFY(v.selectionModel()->hasRange());
  QCOMPARE(v.selectionModel()->rangeBegin(), m.nsAt(100));
  QCOMPARE(v.selectionModel()->rangeEnd(), m.nsAt(400));
}

void TstTimelineView::boundedWorkOnMillionEvents() {
  const QSize size(1920, 1080);
  TimelineView v;
  v.resize(size);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(1'000'000, 1000, 600, true);  // 2 * 10^6 slices in 2 lanes
  v.setDocument(docOf(t));
  testing::CountingDevice dev(size);
  {
    QPainter p(&dev);
    v.renderTo(p, size);
  }
  const qint64 prims = dev.primitives();
  const int columns = size.width() - v.labelWidth();
  qInfo("full view of %zu events: %lld primitives for %d columns (%.2f per column), %lld draw items", t->size(),
        static_cast<long long>(prims), columns, double(prims) / columns,
        static_cast<long long>(v.lastFrameStats().items));
  QVERIFY2(prims <= 4 * columns, qPrintable(QString::number(prims)));
  // The same device counts a naive painter (one rect per event): it fails the bound.
  testing::CountingDevice naive(size);
  {
    QPainter p(&naive);
    const TimeMapper m = v.mapper();
    for (EventIdx e = 0; e < t->size(); ++e)
      p.fillRect(QRectF(m.toPx(t->tsNs[e]), 10, std::max(0.1, m.toPx(t->endNs(e)) - m.toPx(t->tsNs[e])), 10), Qt::red);
  }
  QVERIFY(naive.primitives() > 4 * columns);
}

void TstTimelineView::selectionSettersAreQuiet() {
  widgets::SelectionModel s;
  QSignalSpy changed(&s, &widgets::SelectionModel::changed);
  s.setEvent(5);
  s.setEvent(5);
  s.setRange(10, 20);
  s.setRange(10, 20);
  s.setStep(-1);
  s.setChunk(-1);
  QCOMPARE(changed.count(), 2);
  s.clear();
  QCOMPARE(changed.count(), 4);
  QVERIFY(s.isEmpty());
}

void TstTimelineView::cutNamesHaveTooltipsAndNothingBelowTheLastLane() {
  testing::TraceBuilder b;
  for (int tid = 1; tid <= 60; ++tid) b.add(100, tid, "work", "cpu_op", 0, 1'000'000);
  Trace& t = b.trace();
  const std::string longName = "a worker thread with a name far longer than any label column could hold whole";
  t.threadNames[{t.lanes[0].pid, t.lanes[0].tid}] = longName;
  TimelineView v;
  v.resize(900, 400);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  TraceDocument d = docOf(b.finish());
  v.setDocument(d);
  QVERIFY(v.labelWidth() > 210 && v.labelWidth() <= 320);  // widened, up to a limit; the long name still cut
  // Hovering the cut name shows it whole, with the ids the trace writes.
  const Track& first = v.trackLayout().tracks[1];
  QVERIFY(first.kind == TrackKind::Slices && first.laneStart);
  QSignalSpy hover(&v, &TimelineView::hoverTextChanged);
  QTest::mouseMove(v.viewport(), QPoint(40, v.headerHeight() + first.y + first.height / 2));
  QTRY_VERIFY(!hover.isEmpty());
  const QString tip = hover.last().first().toString();
  QVERIFY2(tip.contains(QString::fromStdString(longName)) && tip.contains(QStringLiteral("tid 1")), qPrintable(tip));
  // Scrolled to the end, the last lane ends at the bottom of the view; also once chunk bands grow the header.
  auto gapBelowLastLane = [&] {
    v.verticalScrollBar()->setValue(v.verticalScrollBar()->maximum());
    const Track& last = v.trackLayout().tracks.back();
    return v.viewport()->height() - (v.headerHeight() + last.y + last.height - v.verticalScrollBar()->value());
  };
  QVERIFY(v.verticalScrollBar()->maximum() > 0);
  QVERIFY2(gapBelowLastLane() >= 0 && gapBelowLastLane() <= LayoutParams{}.laneGap,
           qPrintable(QString::number(gapBelowLastLane())));
  auto ov = std::make_shared<TimelineOverlays>();
  ov->steps.push_back({0, 1'000'000, 0, StepKind::Generic});
  for (const char* mode : {"mixed", "decode_only", "prefilldecode"})
    ov->chunks.push_back({0, 1'000'000, mode, " ", 0, 0});
  v.setOverlays(ov);
  QVERIFY2(gapBelowLastLane() >= 0 && gapBelowLastLane() <= LayoutParams{}.laneGap,
           qPrintable(QString::number(gapBelowLastLane())));
  v.setOverlays(nullptr);
  QVERIFY2(gapBelowLastLane() >= 0 && gapBelowLastLane() <= LayoutParams{}.laneGap,
           qPrintable(QString::number(gapBelowLastLane())));
}

QTEST_MAIN(TstTimelineView)
#include "tst_timeline_view.moc"

void TstTimelineView::followingAKernelsFlowSelectsItsLaunchAndBack() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(200, 10'000, 2'000, true);
  v.setDocument(docOf(t));
  const EventIdx kernel = 41, launch = 40;  // launch, kernel alternate; same correlation
  v.selectionModel()->setEvent(kernel);
  v.setFocus();
  QTest::keyClick(v.viewport(), Qt::Key_G);
  QCOMPARE(v.selectionModel()->event(), qint64(launch));
  QVERIFY(v.pointOfEvent(launch).has_value());  // revealed
  QTest::keyClick(v.viewport(), Qt::Key_G);
  QCOMPARE(v.selectionModel()->event(), qint64(kernel));
  v.selectionModel()->setEvent(-1);
  QVERIFY(!v.followFlow());
}

namespace {
std::shared_ptr<const FindResults> findIn(const TraceDocument& d, std::string_view name) {
  const auto hit = matchNames(d.trace->strings, [name](std::string_view n) { return n == name; });
  return std::make_shared<const FindResults>(findEvents(*d.trace, *d.index, hit));
}
}  // namespace

void TstTimelineView::findFramesEveryMatchInView() {
  TimelineView v;
  v.resize(1000, 500);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(200, 10'000, 4'000, false);
  const TraceDocument d = docOf(t);
  v.setDocument(d);
  v.setFindResults(findIn(d, "gemm_kernel"));
  v.zoomToRange(t->tsNs[0], t->tsNs[0] + 100'000);
  QImage img(v.viewport()->size(), QImage::Format_ARGB32);
  QPainter p(&img);
  v.renderTo(p, img.size());
  p.end();
  const QColor mark = widgets::colors::findMatch(v.palette());
  int framed = 0, plain = 0;
  for (EventIdx e = 0; e < 10; ++e) {  // kernel k is gemm unless k % 3 == 0
    const auto pt = v.pointOfEvent(e);
    QVERIFY(pt.has_value());
    int top = pt->y();
    while (top > 0 && !near(img.pixelColor(pt->x(), top), mark, 8) && pt->y() - top < 12) --top;
    const bool hasMark = near(img.pixelColor(pt->x(), top), mark, 8);
    if (t->nameOf(e) == "gemm_kernel") {
      QVERIFY2(hasMark, qPrintable(QString::number(e)));
      ++framed;
    } else {
      QVERIFY2(!hasMark, qPrintable(QString::number(e)));
      ++plain;
    }
  }
  QVERIFY(framed > 0 && plain > 0);
}

void TstTimelineView::findHighlightStaysBounded() {
  // 10^6 kernels, two thirds of them matches, full view: still a few primitives per pixel column.
  const QSize size(1920, 1080);
  TimelineView v;
  v.resize(size);
  v.show();
  QVERIFY(QTest::qWaitForWindowExposed(&v));
  auto t = testing::makeRegularTrace(1'000'000, 1000, 600, true);
  const TraceDocument d = docOf(t);
  v.setDocument(d);
  v.setFindResults(findIn(d, "gemm_kernel"));
  testing::CountingDevice dev(size);
  {
    QPainter p(&dev);
    v.renderTo(p, size);
  }
  const int columns = size.width() - v.labelWidth();
  QVERIFY2(dev.primitives() <= 8 * columns, qPrintable(QString::number(dev.primitives())));
  QVERIFY(v.lastFrameStats().items > 0);
}

void TstTimelineView::collapsedLaneIsAThinStrip() {
  testing::TraceBuilder b;
  for (int k = 0; k < 50; ++k) b.add(1, 1, "step", "user_annotation", k * 1000, 900);
  b.add(2, 2, "PyTorch Profiler (0)", "Trace", 0, 50'000);
  TimelineView v;
  v.resize(1000, 500);
  v.setDocument(docOf(b.finish()));
  const auto& groups = v.trackGroups();
  QCOMPARE(groups.size(), size_t(2));
  QVERIFY(groups[1].lanes[0].collapsed);
  const int before = v.trackLayout().totalHeight;
  v.setLaneCollapsed(1, 0, false);
  QVERIFY(v.trackLayout().totalHeight > before);
  v.setLaneFilter(QStringLiteral("THREAD 2"));
  QVERIFY(!v.trackLayout().tracks.empty());
  for (const Track& tk : v.trackLayout().tracks) QCOMPARE(tk.group, 1u);
}
