// The per-step charts' figures (timeline/step_series): each step's duration
// and busy ratio against brute force, min/max decimation that keeps every
// step's value in some bucket, and a histogram whose counts sum to the steps.
#include "trace_builder.hpp"

#include <steadyscope/core/timeline/step_series.hpp>

#include <QTest>

#include <numeric>
#include <random>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;

class TestStepSeries : public QObject {
  Q_OBJECT
 private slots:
  void durationsAndBusy() {
    TraceBuilder b;
    b.add(0, 7, "k", "kernel", 1000, 500);   // step 0: half busy
    b.add(1, 7, "k", "kernel", 1000, 1000);  // another device: fully busy in step 0
    b.add(0, 7, "k", "kernel", 2500, 100);   // step 1: 100 of 2000
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    TimelineOverlays ov;
    ov.steps = {{1000, 2000, 4, StepKind::Generic}, {2000, 4000, 5, StepKind::Generic}};
    const std::vector<StepPoint> s = stepSeries(*idx, ov);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s[0].step, 4);
    QCOMPARE(s[0].durationNs, 1000.0);
    QCOMPARE(s[0].busyRatio, 1.0);  // the busiest device
    QCOMPARE(s[1].position, size_t(1));
    QCOMPARE(s[1].busyRatio, 0.05);
  }

  void decimationKeepsEveryValue() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0, 100);
    for (size_t n : {1, 5, 999, 1000, 20000}) {
      std::vector<double> v(n);
      for (double& x : v) x = u(rng);
      v[n / 2] = 1000;  // a peak
      const auto buckets = decimateMinMax(v, 800);
      QCOMPARE(buckets.size(), std::min<size_t>(n, 800));
      size_t next = 0;
      double peak = 0;
      for (const MinMaxBucket& m : buckets) {
        QCOMPARE(m.first, next);  // consecutive, nothing skipped
        for (size_t i = m.first; i <= m.last; ++i) QVERIFY(v[i] >= m.min && v[i] <= m.max);
        next = m.last + 1;
        peak = std::max(peak, m.max);
      }
      QCOMPARE(next, n);
      QCOMPARE(peak, 1000.0);
    }
  }

  void histogramCountsEveryStep() {
    const std::vector<double> v = {1, 2, 2, 3, 10};
    const Histogram h = histogramOf(v, 9);
    QCOMPARE(h.counts.size(), size_t(9));
    QCOMPARE(std::accumulate(h.counts.begin(), h.counts.end(), 0u), 5u);
    QCOMPARE(h.binOf(10), size_t(8));  // the largest value is in the last bin
    QCOMPARE(h.counts[0], 1u);
    QCOMPARE(h.counts[1], 2u);
    const Histogram flat = histogramOf(std::vector<double>{3, 3, 3}, 9);
    QCOMPARE(flat.counts.size(), size_t(1));
    QCOMPARE(flat.counts[0], 3u);
    // A long tail: quartiles 3 and 7 (of 1..8, 100, 1000), so the bins end at 7 + 3 × 4 = 19 and the two
    // outliers are counted in the last bin.
    const std::vector<double> tail = {1, 2, 3, 4, 5, 6, 7, 8, 100, 1000};
    const Histogram t = histogramOf(tail, 9, true);
    QCOMPARE(t.lo + t.binWidth * 9, 19.0);
    QCOMPARE(t.clipped, 2u);
    QCOMPARE(t.counts.back(), 2u);
    QCOMPARE(histogramOf(tail, 9).clipped, 0u);
    QCOMPARE(std::accumulate(t.counts.begin(), t.counts.end(), 0u), 10u);
  }
};

QTEST_GUILESS_MAIN(TestStepSeries)
#include "tst_step_series.moc"
