// The chunk table's numbers (timeline/chunk_figures): per device, the sum of
// each step's GPU span, the plain sum and the union of the chunk's own GPU
// events, the busy time over the CPU window (the same as the range
// statistics'), and the longest idle gap inside it; checked on hand-made
// traces and against brute force on random ones.
#include "trace_builder.hpp"

#include <steadyscope/core/timeline/chunk_figures.hpp>
#include <steadyscope/core/timeline/range_stats.hpp>

#include <QTest>

#include <random>
#include <set>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;

namespace {
/// Busy ns of a set of intervals, one ns at a time (small traces only).
int64_t bruteUnion(const Trace& t, const std::vector<EventIdx>& events) {
  std::set<int64_t> ns;
  for (EventIdx e : events)
    for (int64_t x = t.tsNs[e]; x < t.tsNs[e] + t.durNs[e]; ++x) ns.insert(x);
  return int64_t(ns.size());
}

ChunkFigures oneDevice(int64_t spanSum, int64_t busySum, int64_t unionNs, int64_t windowBusy, int64_t window) {
  ChunkFigures f;
  f.beginNs = 0;
  f.endNs = window;
  DeviceChunkFigures d;
  d.gpuEvents = 10;
  d.spanSumNs = spanSum;
  d.busySumNs = busySum;
  d.unionNs = unionNs;
  d.windowBusyNs = windowBusy;
  d.windowNs = window;
  f.devices.push_back(d);
  return f;
}
}  // namespace

class TestChunkFigures : public QObject {
  Q_OBJECT
 private slots:
  void handMade() {
    // Device 0: step 0 has two overlapping kernels and one later; step 1 one kernel after a 20 µs gap.
    // Device 1: one long kernel in step 0 only.
    TraceBuilder b;
    const EventIdx a = b.add(0, 7, "k", "kernel", 1000, 100);
    const EventIdx a2 = b.add(0, 8, "k", "kernel", 1050, 100);  // overlaps a by 50
    const EventIdx a3 = b.add(0, 7, "k", "kernel", 1300, 100);
    const EventIdx a4 = b.add(0, 7, "k", "kernel", 21400, 100);
    const EventIdx c = b.add(1, 7, "k", "kernel", 1000, 5000);
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    const std::vector<StepGpuWork> steps = {{0, {a, a2, a3, c}}, {1, {a4}}};
    const ChunkFigures f = computeChunkFigures(*t, *idx, 900, 21600, steps);
    QCOMPARE(f.devices.size(), size_t(2));
    const DeviceChunkFigures& d0 = f.devices[0];
    QCOMPARE(d0.gpuEvents, int64_t(4));
    QCOMPARE(d0.spanSumNs, int64_t((1400 - 1000) + (21500 - 21400)));
    QCOMPARE(d0.busySumNs, int64_t(400));
    QCOMPARE(d0.unionNs, int64_t(350));
    QCOMPARE(d0.windowBusyNs, int64_t(350));
    QCOMPARE(d0.windowNs, int64_t(21600 - 900));
    QCOMPARE(d0.longestGapNs, int64_t(21400 - 1400));
    const DeviceChunkFigures& d1 = f.devices[1];
    QCOMPARE(d1.spanSumNs, int64_t(5000));
    QCOMPARE(d1.unionRatio(), 1.0);
    // The worst device of each column: device 0 for the ratios and the gap.
    QCOMPARE(f.worstUnion()->device, size_t(0));
    QCOMPARE(f.worstWindow()->device, size_t(0));
    QCOMPARE(f.worstGap()->device, size_t(0));
    // Each step's GPU span per device, for drawing.
    QCOMPARE(f.spans.size(), size_t(3));
    QCOMPARE(f.spans[0].beginNs, int64_t(1000));
    QCOMPARE(f.spans[0].endNs, int64_t(1400));
    QCOMPARE(f.spans[2].step, 1);
    // The ratios divide by different intervals: the window counts the idle gap.
    QVERIFY(d0.windowRatio() < d0.unionRatio());
    QVERIFY(d0.unionRatio() < d0.refRatio());
  }

  void anEventReachedTwiceCountsOnce() {
    TraceBuilder b;
    const EventIdx k = b.add(0, 7, "k", "kernel", 1000, 100);
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    const ChunkFigures f = computeChunkFigures(*t, *idx, 0, 2000, {{0, {k}}, {1, {k}}});
    QCOMPARE(f.devices[0].gpuEvents, int64_t(1));
    QCOMPARE(f.devices[0].busySumNs, int64_t(100));
    QCOMPARE(f.devices[0].spanSumNs, int64_t(200));  // each step's span counts, as the reference's sum does
  }

  void bandRowsPerMode() {
    TimelineOverlays ov;
    for (const char* m : {"mixed", "decode_only", "mixed", "generic", "decode_only"}) {
      ChunkBand c;
      c.mode = m;
      ov.chunks.push_back(c);
    }
    QCOMPARE(ov.chunkRowCount(), 3);
    QCOMPARE(ov.chunkRow(0), 0);
    QCOMPARE(ov.chunkRow(1), 1);
    QCOMPARE(ov.chunkRow(2), 0);
    QCOMPARE(ov.chunkRow(3), 2);
    QCOMPARE(ov.chunkRow(4), 1);
    QCOMPARE(ov.chunkRow(5), -1);
  }

  void gpuNamesInsideTheSpans() {
    TraceBuilder b;
    b.add(0, 7, "gemm", "kernel", 100, 50);
    b.add(0, 7, "gemm", "kernel", 200, 30);
    b.add(0, 7, "copy", "gpu_memcpy", 260, 100);
    b.add(0, 7, "gemm", "kernel", 1000, 999);  // outside every span
    b.add(1, 7, "other", "kernel", 100, 10);   // another device
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    const std::vector<GpuSpan> spans = {{100, 230, 0, 0}, {100, 360, 1, 0}};  // overlapping: counted once
    const std::vector<NameStats> s = gpuNameStatsInSpans(*t, *idx, spans);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(t->strings.view(s[0].name), std::string_view("copy"));
    QCOMPARE(s[0].totalNs, int64_t(100));
    QCOMPARE(s[1].count, uint64_t(2));
    QCOMPARE(s[1].totalNs, int64_t(80));
  }

  // Why the three ratios disagree, from hand-built figures (one device, ns).
  void busyRatiosAgreeWithin2x() {
    ChunkFigures f = oneDevice(/*spanSum*/ 800, /*busySum*/ 500, /*union*/ 450, /*windowBusy*/ 400, /*window*/ 1000);
    QCOMPARE(busyRatiosNote(f), std::string());  // 0.625, 0.5625, 0.4: within 2×
    QCOMPARE(busyRatiosNote(ChunkFigures{}), std::string());
  }
  void busyWorkRunsPastTheWindow() {
    // The observed case: busy (ref) 0.499, busy (window) 0.054, GPU time 987 ms over a 523 ms CPU window.
    ChunkFigures f = oneDevice(987'000'000, 492'500'000, 480'000'000, 28'200'000, 523'000'000);
    f.spans = {{0, 0, 100'000'000, 600'000'000}, {1, 0, 500'000'000, 987'000'000}};
    QCOMPARE(busyRatiosNote(f),
             std::string("The steps' GPU work runs 464.0 ms past their CPU window: their GPU spans add up to "
                         "987.0 ms against a 523.0 ms window, and busy (window) counts only the 28.20 ms of GPU work "
                         "inside it."));
  }
  void busyIdleBetweenSteps() {
    ChunkFigures f = oneDevice(200'000, 190'000, 190'000, 190'000, 1'000'000);  // 0.95, 0.95, 0.19
    f.spans = {{0, 0, 0, 100'000}, {1, 0, 500'000, 600'000}};
    QCOMPARE(busyRatiosNote(f), std::string("The GPU idles between the steps: their GPU spans add up to 200.0 µs of "
                                            "the 1.000 ms CPU window, and busy (window) counts the idle time too."));
  }
  void busyOverlapCountedTwice() {
    ChunkFigures f = oneDevice(1000, 2500, 900, 950, 1000);  // 2.5, 0.9, 0.95
    QCOMPARE(busyRatiosNote(f), std::string("The steps' GPU events overlap (on several streams at once) and busy "
                                            "(ref) counts each of them: their plain sum, 2.500 µs, is 2.8× their "
                                            "union, 900 ns."));
  }
  void busyOtherWorkInTheWindow() {
    ChunkFigures f = oneDevice(1000, 300, 300, 900, 1000);  // 0.3, 0.3, 0.9
    QVERIFY(busyRatiosNote(f).starts_with("Inside the CPU window the device also runs work these steps did not "
                                          "launch"));
  }

  void randomAgainstBruteForce() {
    std::mt19937 rng(7);
    for (int round = 0; round < 30; ++round) {
      TraceBuilder b;
      std::vector<std::vector<EventIdx>> perStep(4);
      for (int k = 0; k < 60; ++k) {
        const int dev = int(rng() % 2);
        const int64_t ts = int64_t(rng() % 4000);
        const EventIdx e = b.add(dev, 7 + int(rng() % 2), "k", rng() % 4 ? "kernel" : "gpu_memcpy", ts,
                                 1 + int64_t(rng() % 150));
        if (rng() % 5) perStep[size_t(ts / 1000)].push_back(e);  // some GPU work belongs to no step of the chunk
      }
      TracePtr t = b.finish();
      TimelineIndexPtr idx = buildTimelineIndex(*t);
      std::vector<StepGpuWork> steps;
      for (size_t s = 0; s < perStep.size(); ++s) steps.push_back({int32_t(s), perStep[s]});
      const int64_t w0 = int64_t(rng() % 1000), w1 = 3000 + int64_t(rng() % 1200);
      const ChunkFigures f = computeChunkFigures(*t, *idx, w0, w1, steps);
      const RangeStats rs = computeRangeStats(*t, *idx, w0, w1);
      QCOMPARE(f.devices.size(), rs.devices.size());
      for (size_t d = 0; d < f.devices.size(); ++d) {
        std::vector<EventIdx> mine;
        int64_t spans = 0;
        for (const auto& s : perStep) {
          int64_t lo = INT64_MAX, hi = INT64_MIN;
          for (EventIdx e : s)
            if (t->lanes[t->lane[e]].pid == idx->devices[d].pid) {
              mine.push_back(e);
              lo = std::min(lo, t->tsNs[e]);
              hi = std::max(hi, t->tsNs[e] + t->durNs[e]);
            }
          if (hi >= lo) spans += hi - lo;
        }
        QCOMPARE(f.devices[d].unionNs, bruteUnion(*t, mine));
        QCOMPARE(f.devices[d].spanSumNs, spans);
        QCOMPARE(f.devices[d].windowBusyNs, rs.devices[d].busyNs);
        QCOMPARE(f.devices[d].windowRatio(), rs.devices[d].ratio);
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestChunkFigures)
#include "tst_chunk_figures.moc"
