// A/B of two chunks or ranges (timeline/ab_compare): each side's figures and
// the kernels side by side, matched by the splitter's name rule. Built so that
// one kernel's time doubles from A to B and one kernel is new in B — within
// one trace and across two traces that differ only in that kernel.
#include "trace_builder.hpp"

#include <steadyscope/core/timeline/ab_compare.hpp>

#include <QTest>

#include <cmath>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;

namespace {
/// Ten steps of 100 µs from `t0`: a cpu_op over a gemm (addressed by `addr`,
/// `gemmNs` long) and a 10 µs relu; `extra` adds a 5 µs kernel only this side has.
void addSteps(TraceBuilder& b, int64_t t0, int64_t gemmNs, const std::string& addr, bool extra) {
  for (int s = 0; s < 10; ++s) {
    const int64_t ts = t0 + s * 100000;
    b.add(1, 1, "aten::mm", "cpu_op", ts, 30000);
    b.add(0, 7, "gemm_kernel<" + addr + ">", "kernel", ts + 1000, gemmNs);
    b.add(0, 7, "relu", "kernel", ts + 1000 + gemmNs, 10000);
    if (extra) b.add(0, 7, "only_in_b", "kernel", ts + 90000, 5000);
  }
}

const KernelDelta* find(const std::vector<KernelDelta>& ds, const std::string& key) {
  for (const KernelDelta& d : ds)
    if (d.key == key) return &d;
  return nullptr;
}

void checkDoubledGemm(const std::vector<KernelDelta>& ds) {
  QVERIFY(!ds.empty());
  QCOMPARE(ds.front().key, std::string("gemm_kernel<0xXXXX>"));  // addresses do not break the match
  QCOMPARE(ds.front().nsA, int64_t(10 * 20000));
  QCOMPARE(ds.front().nsB, int64_t(10 * 40000));
  QCOMPARE(ds.front().relative(), 1.0);
  const KernelDelta* relu = find(ds, "relu");
  QVERIFY(relu && relu->deltaNs() == 0 && relu->countA == 10 && relu->countB == 10);
  const KernelDelta* only = find(ds, "only_in_b");
  QVERIFY(only && only->onlyB() && !only->onlyA());
  QCOMPARE(only->nsB, int64_t(10 * 5000));
  QVERIFY(std::isinf(only->relative()));
}
}  // namespace

class TestAbCompare : public QObject {
  Q_OBJECT
 private slots:
  void oneTraceTwoRanges() {
    TraceBuilder b;
    addSteps(b, 0, 20000, "0x7f0010", false);
    addSteps(b, 1000000, 40000, "0x7f00a8", true);
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    const AbSideFigures a = abSideFigures({t.get(), idx.get(), 0, 1000000, {}, "A"});
    const AbSideFigures bb = abSideFigures({t.get(), idx.get(), 1000000, 2000000, {}, "B"});
    QCOMPARE(a.durationNs, int64_t(1000000));
    QCOMPARE(a.gpuEvents, uint64_t(20));
    QCOMPARE(bb.gpuEvents, uint64_t(30));
    QCOMPARE(a.events, uint64_t(30));  // 10 host slices + 20 GPU events
    QCOMPARE(a.gpuUnionNs, int64_t(10 * 30000));
    QCOMPARE(a.unionRatio(), 0.3);
    QCOMPARE(bb.gpuUnionNs, int64_t(10 * 55000));
    QCOMPARE(a.kernels.front().name, std::string("gemm_kernel<0x7f0010>"));  // the name as written
    QCOMPARE(a.categories.size(), size_t(2));
    QCOMPARE(a.categories.front().category, std::string("cpu_op"));
    QCOMPARE(a.categories.front().totalNs, int64_t(10 * 30000));
    checkDoubledGemm(compareKernels(a, bb));
  }

  void twoTraces() {
    TraceBuilder ba, bb;
    addSteps(ba, 0, 20000, "0x55aa", false);
    addSteps(bb, 0, 40000, "0x66bb", true);
    TracePtr ta = ba.finish(), tb = bb.finish();
    TimelineIndexPtr ia = buildTimelineIndex(*ta), ib = buildTimelineIndex(*tb);
    const AbSideFigures a = abSideFigures({ta.get(), ia.get(), 0, 1000000, {}, "A"});
    const AbSideFigures b = abSideFigures({tb.get(), ib.get(), 0, 1000000, {}, "B"});
    checkDoubledGemm(compareKernels(a, b));
  }

  void chunkSpansSelectTheGpuWork() {
    // A chunk's GPU work may lie after its CPU window: its spans say where.
    TraceBuilder b;
    b.add(1, 1, "step", "cpu_op", 0, 1000);
    const EventIdx k = b.add(0, 7, "late", "kernel", 5000, 1000);
    b.add(0, 7, "outside", "kernel", 9000, 1000);
    TracePtr t = b.finish();
    TimelineIndexPtr idx = buildTimelineIndex(*t);
    const AbSideFigures f = abSideFigures({t.get(), idx.get(), 0, 1000, {{4000, 7000, 0, 0}}, "chunk"});
    QCOMPARE(f.gpuEvents, uint64_t(1));
    QCOMPARE(f.kernels.front().name, std::string(t->nameOf(k)));
    QCOMPARE(f.gpuTimeNs, int64_t(3000));
    QCOMPARE(f.gpuUnionNs, int64_t(1000));
    QCOMPARE(f.events, uint64_t(2));
    const AbSideFigures w = abSideFigures({t.get(), idx.get(), 0, 1000, {}, "window"});
    QCOMPARE(w.gpuEvents, uint64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestAbCompare)
#include "tst_ab_compare.moc"
