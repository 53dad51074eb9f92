// Qt-free timeline math: view mapping, zoom/pan invariants, coverage and gap
// queries, LOD folding bounds, hit testing, range statistics vs brute force.
#include "trace_builder.hpp"

#include <steadyscope/core/timeline/draw_list.hpp>
#include <steadyscope/core/timeline/find.hpp>
#include <steadyscope/core/timeline/flows.hpp>
#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/timeline/range_stats.hpp>
#include <steadyscope/core/timeline/track_layout.hpp>
#include <steadyscope/core/timeline/view_math.hpp>

#include <QTest>

#include <map>
#include <random>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;

class TstTimelineCore : public QObject {
  Q_OBJECT
 private slots:
  void zoomInThenOutReturns();
  void cursorTimeFixedUnderZoom();
  void panIsReversible();
  void epochTimestampsKeepPrecision();
  void coverageMatchesBruteForce();
  void maxGapMatchesBruteForce();
  void drawListExactWhenZoomedIn();
  void drawListBoundedOnMillionEvents();
  void drawListFoldsKeepIdleGapsVisible();
  void coverageColumnsBusyAndIdle();
  void coverageColumnsMatchQueries();
  void hitTestKernelAndEmpty();
  void rangeStatsMatchBruteForce();
  void rangeStatsCountOnlyTheOverlap();
  void linkedEventFindsLaunch();
  void gpuAnnotationsHaveTheirOwnRows();
  void flowsFollowedBothWays();
  void findMatchesAndMarks();
  void findEventSetMarksThoseEvents();
  void layoutGroupsGpuFirst();
  void formatting();
};

void TstTimelineCore::zoomInThenOutReturns() {
  ViewControl v;
  v.setBounds(5'000'000, 105'000'000);
  v.setWidth(1700);
  const double b = v.beginRel(), e = v.endRel();
  for (double x : {0.0, 300.0, 850.0, 1699.0}) {
    for (int k = 0; k < 10; ++k) QVERIFY(v.zoomAt(x, 1.7));
    for (int k = 0; k < 10; ++k) QVERIFY(v.zoomAt(x, 1.0 / 1.7));
    QVERIFY(std::abs(v.beginRel() - b) < 1e-3);
    QVERIFY(std::abs(v.endRel() - e) < 1e-3);
  }
}

void TstTimelineCore::cursorTimeFixedUnderZoom() {
  ViewControl v;
  v.setBounds(0, 1'000'000'000);
  v.setWidth(1000);
  for (double x : {10.0, 500.0, 990.0}) {
    const double before = v.mapper().relAt(x);
    v.zoomAt(x, 3.0);
    QVERIFY(std::abs(v.mapper().relAt(x) - before) < 1e-3);
    v.zoomAt(x, 1.25);
    QVERIFY(std::abs(v.mapper().relAt(x) - before) < 1e-3);
  }
}

void TstTimelineCore::panIsReversible() {
  ViewControl v;
  v.setBounds(0, 1'000'000);
  v.setWidth(800);
  v.zoomAt(400, 8);
  const double b = v.beginRel();
  v.panPx(123);
  v.panPx(-123);
  QVERIFY(std::abs(v.beginRel() - b) < 1e-6);
  // Panning far away is clamped: the centre stays inside the data.
  for (int k = 0; k < 1000; ++k) v.panPx(-800);
  QVERIFY((v.beginRel() + v.endRel()) / 2 <= 1'020'000 + 1e-6);
  for (int k = 0; k < 1000; ++k) v.panPx(800);
  QVERIFY((v.beginRel() + v.endRel()) / 2 >= -20'000 - 1e-6);
}

void TstTimelineCore::epochTimestampsKeepPrecision() {
  // ~1.7e18 ns (epoch µs * 1000): doubles of absolute ns would lose 256 ns.
  const int64_t t0 = 1'700'000'000'000'000'000LL;
  ViewControl v;
  v.setBounds(t0, t0 + 10'000'000);
  v.setWidth(1000);
  v.setWindowAbs(t0 + 5000, t0 + 6000);
  const TimeMapper m = v.mapper();
  QCOMPARE(m.nsAt(m.toPx(t0 + 5500)), t0 + 5500);
  QVERIFY(std::abs(m.toPx(t0 + 5001) - m.toPx(t0 + 5000) - 1.0) < 1e-6);
}

void TstTimelineCore::coverageMatchesBruteForce() {
  std::mt19937 rng(7);
  std::vector<Interval> iv;
  int64_t t = 0;
  for (int k = 0; k < 500; ++k) {
    t += int64_t(rng() % 1000);
    const int64_t len = 1 + int64_t(rng() % 800);
    iv.push_back({t, t + len});
  }
  Coverage c(iv);
  auto brute = [&](int64_t a, int64_t b) {
    std::vector<uint8_t> on(size_t(t + 1000), 0);
    for (const Interval& x : iv)
      for (int64_t p = x.begin; p < x.end; ++p) on[size_t(p)] = 1;
    int64_t n = 0;
    for (int64_t p = std::max<int64_t>(0, a); p < std::min<int64_t>(b, int64_t(on.size())); ++p) n += on[size_t(p)];
    return n;
  };
  for (int k = 0; k < 50; ++k) {
    const int64_t a = int64_t(rng() % uint32_t(t)), b = a + int64_t(rng() % 20000);
    QCOMPARE(c.busyIn(a, b), brute(a, b));
  }
  QCOMPARE(c.busyIn(-100, t + 5000), brute(0, t + 5000));
}

void TstTimelineCore::maxGapMatchesBruteForce() {
  std::mt19937 rng(11);
  std::vector<Interval> iv;
  int64_t t = 0;
  for (int k = 0; k < 1000; ++k) {
    t += 1 + int64_t(rng() % 5000);
    iv.push_back({t, t + 10});
    t += 10;
  }
  Coverage c(iv);
  const auto bg = c.begins();
  const auto en = c.ends();
  for (int k = 0; k < 200; ++k) {
    const int64_t a = int64_t(rng() % uint32_t(t)), b = a + int64_t(rng() % 400000);
    int64_t best = 0;
    for (size_t i = 0; i + 1 < bg.size(); ++i)
      if (en[i] >= a && bg[i + 1] <= b) best = std::max(best, bg[i + 1] - en[i]);
    QCOMPARE(c.maxGapIn(a, b), best);
  }
}

void TstTimelineCore::drawListExactWhenZoomedIn() {
  auto trace = testing::makeRegularTrace(1000);
  auto ix = buildTimelineIndex(*trace);
  QVERIFY(ix);
  QCOMPARE(ix->rows.size(), size_t(1));
  // 10 kernels visible, each 60 px wide: 10 slices, none folded.
  ViewControl v;
  v.setBounds(ix->firstNs, ix->lastNs);
  v.setWidth(1000);
  v.setWindowAbs(1'000'000 + 100'000, 1'000'000 + 110'000);
  std::vector<DrawItem> items;
  appendRowDrawList(*trace, *ix, 0, v.mapper(), {}, items);
  int slices = 0;
  for (const DrawItem& d : items) {
    QVERIFY(!d.folded);
    QVERIFY(std::abs((d.x1 - d.x0) - 60.0f) < 0.01f || d.x0 <= -10 || d.x1 >= 1010);
    ++slices;
  }
  QVERIFY(slices >= 10 && slices <= 11);
}

void TstTimelineCore::drawListBoundedOnMillionEvents() {
  const size_t n = 1'000'000;
  auto trace = testing::makeRegularTrace(n, 1000, 600);
  auto ix = buildTimelineIndex(*trace);
  ViewControl v;
  v.setBounds(ix->firstNs, ix->lastNs);
  v.setWidth(1920);
  std::vector<DrawItem> items;
  appendRowDrawList(*trace, *ix, 0, v.mapper(), {}, items);
  // Bounded by the width, not the events.
  QVERIFY2(items.size() <= 1920, qPrintable(QString::number(items.size())));
  uint64_t covered = 0;
  for (const DrawItem& d : items) covered += d.count;
  QCOMPARE(covered, uint64_t(n));  // every event is in exactly one item
}

void TstTimelineCore::drawListFoldsKeepIdleGapsVisible() {
  // Two dense bursts separated by an idle gap of 40% of the span.
  TraceBuilder b;
  for (int k = 0; k < 10000; ++k) b.add(0, 7, "k", "kernel", k * 100, 50);
  for (int k = 0; k < 10000; ++k) b.add(0, 7, "k", "kernel", 2'000'000 + k * 100, 50);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  ViewControl v;
  v.setBounds(ix->firstNs, ix->lastNs);
  v.setWidth(1000);
  std::vector<DrawItem> items;
  appendRowDrawList(*trace, *ix, 0, v.mapper(), {}, items);
  QVERIFY(items.size() >= 2);
  const TimeMapper m = v.mapper();
  const double gapX0 = m.toPx(1'000'000), gapX1 = m.toPx(2'000'000);
  for (const DrawItem& d : items) QVERIFY(d.x1 <= gapX0 + 2.5 || d.x0 >= gapX1 - 0.5);
}

void TstTimelineCore::coverageColumnsBusyAndIdle() {
  TraceBuilder b;
  b.add(0, 7, "busy", "kernel", 0, 1'000'000);           // [0, 1 ms) busy
  b.add(0, 7, "busy2", "kernel", 3'000'000, 1'000'000);  // [3, 4 ms) busy
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  QCOMPARE(ix->devices.size(), size_t(1));
  const TimeMapper m(0, 0, 4'000'000, 400);  // 10 µs per px
  std::vector<float> f;
  std::vector<uint8_t> gap;
  coverageColumns(ix->devices[0].busy, m, 400, 500'000, f, gap);
  QCOMPARE(f[50], 1.0f);
  QCOMPARE(f[200], 0.0f);
  QCOMPARE(f[350], 1.0f);
  // Zoomed far out: the 2 ms gap sits inside one column and is flagged.
  const TimeMapper far(0, -1'000'000'000, 1'000'000'000, 100);  // 20 ms per px
  coverageColumns(ix->devices[0].busy, far, 100, 500'000, f, gap);
  const int col = int(far.toPx(2'000'000));
  QVERIFY(gap[size_t(col)]);
  QVERIFY(f[size_t(col)] > 0.0f && f[size_t(col)] < 0.2f);
}

void TstTimelineCore::coverageColumnsMatchQueries() {
  // The incremental (galloping) column walk equals per-column queries.
  std::mt19937 rng(5);
  std::vector<Interval> iv;
  int64_t t = 0;
  for (int k = 0; k < 20000; ++k) {
    t += 1 + int64_t(rng() % (k % 97 == 0 ? 2'000'000 : 5'000));
    const int64_t len = 1 + int64_t(rng() % 3000);
    iv.push_back({t, t + len});
    t += len;
  }
  Coverage c(iv);
  for (double zoom : {1.0, 7.0, 60.0}) {
    const double span = double(t) / zoom;
    const TimeMapper m(0, double(t) / 3.0 - span / 2, double(t) / 3.0 + span / 2, 800);
    std::vector<float> f;
    std::vector<uint8_t> gap;
    coverageColumns(c, m, 800, 500'000, f, gap);
    for (int x = 0; x < 800; ++x) {
      const int64_t a = m.nsAt(x), b = m.nsAt(x + 1);
      const double want = double(c.busyIn(a, b)) / double(std::max<int64_t>(1, b - a));
      QVERIFY(std::abs(double(f[size_t(x)]) - std::clamp(want, 0.0, 1.0)) < 1e-5);
      if (m.nsPerPx() > 250'000.0) QCOMPARE(bool(gap[size_t(x)]), c.maxGapIn(a, b) >= 500'000);
    }
  }
}

void TstTimelineCore::hitTestKernelAndEmpty() {
  auto trace = testing::makeRegularTrace(100, 10'000, 2'000);
  auto ix = buildTimelineIndex(*trace);
  const TimeMapper m(trace->tsNs[0], 0, 100'000, 1000);  // 100 ns per px
  // Kernel 3 starts at +30 µs = px 300, 20 px wide.
  const int64_t hit = hitTestRow(*trace, *ix, 0, m, 310);
  QVERIFY(hit >= 0);
  QCOMPARE(trace->tsNs[size_t(hit)], trace->tsNs[0] + 30'000);
  QCOMPARE(hitTestRow(*trace, *ix, 0, m, 360), int64_t(-1));  // idle
  QCOMPARE(hitTestRow(*trace, *ix, 0, m, 321.5), hit);        // within the 3 px catch area
}

void TstTimelineCore::rangeStatsMatchBruteForce() {
  std::mt19937 rng(3);
  TraceBuilder b;
  const char* names[] = {"a", "b", "c", "d"};
  for (int lane = 0; lane < 3; ++lane) {
    int64_t t = 0;
    for (int k = 0; k < 2000; ++k) {
      t += int64_t(rng() % 300);
      const int64_t d = int64_t(rng() % 500);
      b.add(lane == 0 ? 0 : 100, lane + 1, names[rng() % 4], lane == 0 ? "kernel" : "cpu_op", t, d);
      t += d;
    }
  }
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  for (int k = 0; k < 20; ++k) {
    const int64_t a = int64_t(rng() % 400000), e = a + 1 + int64_t(rng() % 200000);
    const RangeStats rs = computeRangeStats(*trace, *ix, a, e);
    std::map<StrId, NameStats> brute;
    uint64_t count = 0;
    for (EventIdx i = 0; i < trace->size(); ++i) {
      const int64_t ts = trace->tsNs[i], d = trace->durNs[i];
      const bool in = d == 0 ? (ts >= a && ts < e) : (ts < e && ts + d > a);
      if (!in) continue;
      const int64_t c = std::min(e, ts + d) - std::max(a, ts);  // the part inside the range
      NameStats& s = brute[trace->name[i]];
      if (!s.count) s.minNs = s.maxNs = std::max<int64_t>(0, c);
      s.minNs = std::min(s.minNs, std::max<int64_t>(0, c));
      s.maxNs = std::max(s.maxNs, std::max<int64_t>(0, c));
      ++s.count;
      s.totalNs += std::max<int64_t>(0, c);
      ++count;
    }
    QCOMPARE(rs.sliceCount, count);
    QCOMPARE(rs.perName.size(), brute.size());
    for (const NameStats& s : rs.perName) {
      const NameStats& x = brute[s.name];
      QCOMPARE(s.count, x.count);
      QCOMPARE(s.totalNs, x.totalNs);
      QCOMPARE(s.minNs, x.minNs);
      QCOMPARE(s.maxNs, x.maxNs);
    }
    // Busy ratio: brute force over the GPU lane's events (they do not overlap).
    int64_t busy = 0;
    for (EventIdx i = 0; i < trace->size(); ++i)
      if (isGpuWork(trace->classOf(i)))
        busy += std::max<int64_t>(0, std::min(e, trace->endNs(i)) - std::max(a, trace->tsNs[i]));
    QCOMPARE(rs.devices.at(0).busyNs, busy);
  }
}

void TstTimelineCore::rangeStatsCountOnlyTheOverlap() {
  // A 271 ms span around a 7.9 ms range counts 7.9 ms; a kernel half inside counts its half.
  TraceBuilder b;
  b.add(100, 1, "ProfilerStep#3", "user_annotation", 0, 271'000'000);
  b.add(0, 7, "gemm", "kernel", 100'000'000, 2'000'000);
  b.add(100, 1, "tiny", "cpu_op", 50'000'000, 1'000);  // outside
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const RangeStats rs = computeRangeStats(*trace, *ix, 93'100'000, 101'000'000);
  QCOMPARE(rs.sliceCount, uint64_t(2));
  QCOMPARE(rs.perName.size(), size_t(2));
  QCOMPARE(trace->strings.view(rs.perName[0].name), std::string_view("ProfilerStep#3"));
  QCOMPARE(rs.perName[0].totalNs, int64_t(7'900'000));
  QCOMPARE(rs.perName[0].maxNs, int64_t(7'900'000));
  QCOMPARE(rs.perName[1].totalNs, int64_t(1'000'000));
  QCOMPARE(rs.devices.at(0).busyNs, int64_t(1'000'000));
}

void TstTimelineCore::gpuAnnotationsHaveTheirOwnRows() {
  // On a stream, an annotation encloses two kernels: it gets a row above them,
  // and the kernels' row is a row of kernels only.
  TraceBuilder b;
  b.add(0, 7, "forward", "gpu_user_annotation", 0, 10'000, 0);
  const EventIdx k1 = b.add(0, 7, "gemm", "kernel", 1'000, 2'000, 1);
  const EventIdx k2 = b.add(0, 7, "relu", "kernel", 4'000, 2'000, 1);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const LaneIndex& li = ix->lanes.at(0);
  QCOMPARE(li.annotationRows, 1u);
  QCOMPARE(li.rowCount, 2u);
  QVERIFY(ix->rows[li.firstRow].gpuAnnotations);
  QVERIFY(!ix->rows[li.firstRow + 1].gpuAnnotations);
  QCOMPARE(ix->rowOf(*trace, k1).value_or(99), li.firstRow + 1);
  QCOMPARE(ix->rowOf(*trace, k2).value_or(99), li.firstRow + 1);
  QCOMPARE(ix->rowOf(*trace, 0).value_or(99), li.firstRow);
  TimeMapper m(0, 0, 10'000, 1000);
  QCOMPARE(hitTestRow(*trace, *ix, li.firstRow + 1, m, 200.0), int64_t(k1));
}

void TstTimelineCore::flowsFollowedBothWays() {
  // launch -> kernel by correlation, forward -> backward by flow events s / f.
  TraceBuilder b;
  const EventIdx launch = b.add(100, 1, "cudaLaunchKernel", "cuda_runtime", 1'000, 500, 0, 42);
  const EventIdx kernel = b.add(0, 7, "gemm", "kernel", 3'000, 800, 0, 42);
  const EventIdx fwd = b.add(100, 1, "aten::mm", "cpu_op", 5'000, 1'000);
  const EventIdx bwd = b.add(100, 2, "MmBackward0", "cpu_op", 9'000, 1'000);
  const EventIdx s = b.add(100, 1, "fwdbwd", "fwdbwd", 5'000, 0, 0, 7);
  const EventIdx f = b.add(100, 2, "fwdbwd", "fwdbwd", 9'000, 0, 0, 7);
  Trace& t = b.trace();
  for (EventIdx e : {s, f}) {  // flow events carry their id in the correlation column
    t.ph[e] = e == s ? Ph::FlowStart : Ph::FlowEnd;
    t.flags[e] = ev::HasTs | ev::HasId;
  }
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  auto one = [&](EventIdx e) {
    const auto l = flowLinks(*trace, *ix, e);
    return l.size() == 1 ? l[0] : FlowLink{EventIdx(999), false, {}};
  };
  QCOMPARE(one(launch).other, kernel);
  QVERIFY(one(launch).outgoing);
  QCOMPARE(one(kernel).other, launch);
  QVERIFY(!one(kernel).outgoing);
  QCOMPARE(one(fwd).other, bwd);
  QCOMPARE(one(fwd).kind, std::string("forward → backward"));
  QCOMPARE(one(bwd).other, fwd);
  QVERIFY(!one(bwd).outgoing);
}

void TstTimelineCore::findMatchesAndMarks() {
  TraceBuilder b;
  for (int k = 0; k < 200'000; ++k) b.add(0, 7, k % 2 ? "gemm" : "relu", "kernel", k * 100, 50);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const auto hit = matchNames(trace->strings, [](std::string_view n) { return n == "gemm"; });
  const FindResults found = findEvents(*trace, *ix, hit);
  QCOMPARE(found.events.size(), size_t(100'000));
  QCOMPARE(found.totalNs, int64_t(100'000) * 50);
  QCOMPARE(found.perName.size(), size_t(1));
  QCOMPARE(firstMatchFrom(*trace, found, 150), size_t(1));  // the gemm at 300
  // Whole trace in 1000 px: one mark per column at most, and every column marked.
  std::vector<MatchMark> marks;
  appendRowMatchMarks(*ix, found, 0, TimeMapper(0, 0, 20'000'000, 1000), marks);
  QVERIFY(!marks.empty() && marks.size() <= 1000);
  double covered = 0;
  for (const MatchMark& mk : marks) covered += mk.x1 - mk.x0;
  QVERIFY(covered >= 990);
  // Zoomed in on 10 events: each match its own mark, none for relu.
  marks.clear();
  appendRowMatchMarks(*ix, found, 0, TimeMapper(0, 0, 1'000, 1000), marks);
  QCOMPARE(marks.size(), size_t(5));
  QCOMPARE(marks[0].x0, 100.0f);
}

// A set of events (an op's kernels) is found as name matches are, but event by event: two of the
// gemms, not every gemm; those fade nothing else in, and their marks are theirs only.
void TstTimelineCore::findEventSetMarksThoseEvents() {
  TraceBuilder b;
  for (int k = 0; k < 10; ++k) b.add(0, 7, k % 2 ? "gemm" : "relu", "kernel", k * 100, 50);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const FindResults found = findEventSet(*trace, *ix, {7, 3, 99});  // 99: no such event
  QCOMPARE(found.events, (std::vector<EventIdx>{3, 7}));  // time order
  QCOMPARE(found.totalNs, int64_t(100));
  QCOMPARE(found.perName.size(), size_t(1));
  QCOMPARE(found.perName[0].count, uint64_t(2));
  QVERIFY(found.matches(*trace, 3));
  QVERIFY(!found.matches(*trace, 1));  // a gemm too, but not in the set
  std::vector<MatchMark> marks;
  appendRowMatchMarks(*ix, found, 0, TimeMapper(0, 0, 1'000, 1000), marks);
  QCOMPARE(marks.size(), size_t(2));
  QCOMPARE(marks[0].x0, 300.0f);
  QVERIFY(findEventSet(*trace, *ix, {}).empty());
}

void TstTimelineCore::linkedEventFindsLaunch() {
  auto trace = testing::makeRegularTrace(10, 10'000, 2'000, true);
  auto ix = buildTimelineIndex(*trace);
  // Events alternate launch, kernel.
  QCOMPARE(ix->linkedEvent(*trace, 1).value_or(999), EventIdx(0));
  QCOMPARE(ix->linkedEvent(*trace, 0).value_or(999), EventIdx(1));
}

void TstTimelineCore::layoutGroupsGpuFirst() {
  auto trace = testing::makeRegularTrace(10, 10'000, 2'000, true);
  auto ix = buildTimelineIndex(*trace);
  auto groups = buildTrackGroups(*trace, *ix);
  QCOMPARE(groups.size(), size_t(2));
  QVERIFY(groups[0].gpu);
  QCOMPARE(groups[0].device, 0);
  TrackLayout l = layoutTracks(*ix, groups);
  QCOMPARE(l.tracks[0].kind, TrackKind::GroupHeader);
  QCOMPARE(l.tracks[1].kind, TrackKind::DeviceBusy);
  QCOMPARE(l.tracks[2].kind, TrackKind::Slices);
  groups[0].collapsed = true;
  TrackLayout c = layoutTracks(*ix, groups);
  QVERIFY(c.totalHeight < l.totalHeight);
  QCOMPARE(c.tracks[1].kind, TrackKind::DeviceBusy);  // the busy strip survives collapsing
  QCOMPARE(l.trackAt(l.tracks[2].y + 1), 2);
}

void TstTimelineCore::formatting() {
  QCOMPARE(QString::fromStdString(formatDuration(850)), QStringLiteral("850 ns"));
  QCOMPARE(QString::fromStdString(formatDuration(12'345'678)), QStringLiteral("12.35 ms"));
  QCOMPARE(QString::fromStdString(formatCount(1234567)), QStringLiteral("1,234,567"));
  QCOMPARE(QString::fromStdString(formatCountOf(1, "step", "steps")), QStringLiteral("1 step"));
  QCOMPARE(QString::fromStdString(formatCountOf(0, "step", "steps")), QStringLiteral("0 steps"));
  QCOMPARE(QString::fromStdString(formatCountOf(1234, "match", "matches")), QStringLiteral("1,234 matches"));
  QCOMPARE(QString::fromStdString(formatRatio(0.0312)), QStringLiteral("0.031"));
  QCOMPARE(niceTickStep(1000.0, 100.0), 100000.0);
  QCOMPARE(niceTickStep(1300.0, 100.0), 200000.0);
  QCOMPARE(QString::fromStdString(formatTick(2'500'000, 500'000)), QStringLiteral("2.5 ms"));
}

QTEST_APPLESS_MAIN(TstTimelineCore)
#include "tst_timeline_core.moc"
