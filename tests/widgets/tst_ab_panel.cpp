// The A/B panel: its two models pass Qt's model tester, the kernel whose time
// doubles tops the list with +100 %, a kernel of one side says so, sorting by
// a column orders by its value, and Ctrl+C copies the selected rows as TSV.
// The By op tab: its tree model passes the tester (ops, kernels under them),
// sorts by value, copies plain values, says which op a chosen row is; the
// step chart's points are each side's aligned steps.
#include "trace_builder.hpp"

#include "panels/ab_panel.hpp"
#include "panels/ab_step_chart.hpp"
#include "panels/by_op_model.hpp"

#include <steadyscope/core/timeline/ab_compare.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeView>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;
using steadyscope::widgets::AbFiguresModel;
using steadyscope::widgets::AbKernelModel;
using steadyscope::widgets::AbPanel;
using steadyscope::widgets::ByOpData;
using steadyscope::widgets::ByOpModel;

namespace {
struct Sides {
  TracePtr trace;
  TimelineIndexPtr index;
  AbSideFigures a, b;
};

/// Ten steps on each side; B's gemm takes twice as long and B has one kernel more.
Sides doubledGemm() {
  TraceBuilder tb;
  for (int side = 0; side < 2; ++side)
    for (int s = 0; s < 10; ++s) {
      const int64_t ts = side * 1000000 + s * 100000;
      tb.add(1, 1, "aten::mm", "cpu_op", ts, 30000);
      tb.add(0, 7, side ? "gemm<0x7f00a8>" : "gemm<0x7f0010>", "kernel", ts + 1000, side ? 40000 : 20000);
      tb.add(0, 7, "relu", "kernel", ts + 60000, 10000);
      if (side) tb.add(0, 7, "only_in_b", "kernel", ts + 90000, 5000);
    }
  Sides s;
  s.trace = tb.finish();
  s.index = buildTimelineIndex(*s.trace);
  s.a = abSideFigures({s.trace.get(), s.index.get(), 0, 1000000, {}, "steps 0–9"});
  s.b = abSideFigures({s.trace.get(), s.index.get(), 1000000, 2000000, {}, "steps 10–19"});
  return s;
}

QString cell(const QTableView* v, int row, int column) { return v->model()->index(row, column).data().toString(); }

/// Three ops over 4 aligned steps (A had 6, B 4): bmm faster in B (two vendors' kernels), addmm
/// slower, one GPU event without a launching op on B only.
ByOpData byOpData() {
  ByOpData d;
  d.a = {
      QStringLiteral("A (h100/run.json)"), QStringLiteral("steady_state"), 6, 2, 4, 6, 1200.0, 4000.0, 900.0, 1.0, 40,
      {1000.0, 1100.0, 1300.0, 1200.0}};
  d.b = {
      QStringLiteral("B (mi300/run.json)"), QStringLiteral("steady_state"), 4, 0, 4, 4, 800.0, 2400.0, 580.0, 0.99, 41,
      {800.0, 790.0, 810.0, 800.0}};
  d.rows = {
      {QStringLiteral("aten::bmm"),
       8,
       8,
       2000.0,
       400.0,
       500.0,
       100.0,
       -400.0,
       {{QStringLiteral("cutlass_gemm"), 8, 0, 2000.0, 0.0}, {QStringLiteral("Cijk_gemm"), 0, 8, 0.0, 400.0}}},
      {QStringLiteral("aten::addmm"),
       20,
       20,
       800.0,
       1200.0,
       200.0,
       300.0,
       100.0,
       {{QStringLiteral("gemm_splitk"), 20, 20, 800.0, 1200.0}}},
      {QStringLiteral("(no launching op)"),
       0,
       1,
       0.0,
       20.0,
       0.0,
       5.0,
       5.0,
       {{QStringLiteral("Memset"), 0, 1, 0.0, 20.0}}},
  };
  return d;
}
}  // namespace

class TestAbPanel : public QObject {
  Q_OBJECT
 private slots:
  void modelsPassTheTester() {
    AbPanel p;
    QAbstractItemModelTester t1(p.figuresModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(p.kernelModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const Sides s = doubledGemm();
    p.setComparison(s.a, s.b);
    p.clear();
    QCOMPARE(p.figuresModel()->rowCount(), 0);  // nothing compared: no rows of zeros
    QCOMPARE(p.kernelModel()->rowCount(), 0);
    p.setComparison(s.a, s.b);
  }

  void doubledKernelTopsTheList() {
    AbPanel p;
    const Sides s = doubledGemm();
    p.setComparison(s.a, s.b);
    const QTableView* v = p.kernelView();
    QCOMPARE(v->model()->rowCount(), 3);
    QCOMPARE(cell(v, 0, AbKernelModel::KernelColumn), QStringLiteral("gemm<0x7f0010>"));
    QCOMPARE(cell(v, 0, AbKernelModel::RelativeColumn), QStringLiteral("+100.0 %"));
    QCOMPARE(cell(v, 0, AbKernelModel::ACountColumn), QStringLiteral("10"));
    QCOMPARE(cell(v, 1, AbKernelModel::RelativeColumn), QStringLiteral("only in B"));
    QCOMPARE(cell(v, 2, AbKernelModel::KernelColumn), QStringLiteral("relu"));
    QCOMPARE(cell(v, 2, AbKernelModel::DeltaColumn), QStringLiteral("0"));
    // The figures: B's GPU busy is longer, its events more.
    const QTableView* f = p.figuresView();
    QCOMPARE(cell(f, 5, AbFiguresModel::FigureColumn), QStringLiteral("GPU events"));
    QCOMPARE(cell(f, 5, AbFiguresModel::AColumn), QStringLiteral("20"));
    QCOMPARE(cell(f, 5, AbFiguresModel::BColumn), QStringLiteral("30"));
    QCOMPARE(cell(f, 5, AbFiguresModel::RelativeColumn), QStringLiteral("+50.0 %"));
  }

  void sortingOrdersByValue() {
    AbPanel p;
    const Sides s = doubledGemm();
    p.setComparison(s.a, s.b);
    QTableView* v = p.kernelView();
    v->sortByColumn(AbKernelModel::ATimeColumn, Qt::AscendingOrder);
    QCOMPARE(cell(v, 0, AbKernelModel::KernelColumn), QStringLiteral("only_in_b"));  // no time in A
    QCOMPARE(cell(v, 2, AbKernelModel::KernelColumn), QStringLiteral("gemm<0x7f0010>"));
    v->sortByColumn(AbKernelModel::BCountColumn, Qt::DescendingOrder);
    QCOMPARE(v->model()->index(0, AbKernelModel::BCountColumn).data().toString(), QStringLiteral("10"));
  }

  void byOpModelPassesTheTester() {
    ByOpModel m;
    QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setComparison(byOpData());
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.columnCount(), int(ByOpModel::NUM_COLUMNS));
    const QModelIndex bmm = m.index(0, 0);
    QCOMPARE(m.rowCount(bmm), 2);
    QCOMPARE(m.rowCount(m.index(0, 1)), 0);  // only the first column has children
    const QModelIndex cutlass = m.index(0, 0, bmm);
    QCOMPARE(cutlass.parent(), bmm);
    QCOMPARE(cutlass.data().toString(), QStringLiteral("cutlass_gemm"));
    QCOMPARE(cutlass.data(ByOpModel::OpRole).toString(), QStringLiteral("aten::bmm"));
    QCOMPARE(cutlass.data(ByOpModel::KernelRole).toString(), QStringLiteral("cutlass_gemm"));
    QCOMPARE(bmm.data(ByOpModel::KernelRole).toString(), QString());
    // The kernel's own per step: its time over its side's steps; "–" where a side has none.
    QCOMPARE(cutlass.siblingAtColumn(ByOpModel::APerStepColumn).data(ByOpModel::SortRole).toDouble(), 500.0);
    QCOMPARE(cutlass.siblingAtColumn(ByOpModel::BGpuColumn).data().toString(), QStringLiteral("–"));
    QCOMPARE(m.index(0, ByOpModel::DeltaColumn).data().toString(), QStringLiteral("−400.0 µs"));
    QCOMPARE(m.index(1, ByOpModel::DeltaColumn).data().toString(), QStringLiteral("+100.0 µs"));
    QCOMPARE(m.index(0, ByOpModel::ACountColumn).data().toString(), QStringLiteral("8"));
    // Headers in words, no field names.
    QStringList headers;
    for (int c = 0; c < m.columnCount(); ++c) headers << m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QCOMPARE(headers, (QStringList{"Launching op", "A GPU events", "B GPU events", "A GPU time", "B GPU time",
                                   "A per step", "B per step", "Δ per step"}));
    QVERIFY(m.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("2 kernel names")));
    QVERIFY(m.index(2, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("1 GPU event in B; 1 kernel name")));
    m.clear();
    QCOMPARE(m.rowCount(), 0);
  }

  void byOpSortsAndCopiesPlainValues() {
    AbPanel p;
    p.show();
    p.setByOp(byOpData());
    p.showTab(1);
    QTreeView* v = p.byOpView();
    QAbstractItemModelTester t(v->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(v->model()->index(0, 0).data().toString(), QStringLiteral("aten::bmm"));  // the largest |Δ| first
    v->sortByColumn(ByOpModel::DeltaColumn, Qt::DescendingOrder);
    QCOMPARE(v->model()->index(0, 0).data().toString(), QStringLiteral("aten::addmm"));
    v->sortByColumn(ByOpModel::BGpuColumn, Qt::DescendingOrder);
    QCOMPARE(v->model()->index(0, 0).data().toString(), QStringLiteral("aten::addmm"));  // 1.2 ms
    v->sortByColumn(-1, Qt::AscendingOrder);
    const QModelIndex bmm = v->model()->index(0, 0);
    v->expand(bmm);
    v->setFocus();
    auto* sel = v->selectionModel();
    sel->select(v->model()->index(1, 0, bmm), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    sel->select(bmm, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTest::keySequence(v, QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QStringLiteral("Launching op\tKernel\tA GPU events\tB GPU events\tA GPU time (µs)\t"
                                      "B GPU time (µs)\tA per step (µs)\tB per step (µs)\tΔ per step (µs)"));
    QCOMPARE(lines[1], QStringLiteral("aten::bmm\t\t8\t8\t2000.000\t400.000\t500.000\t100.000\t-400.000"));
    QCOMPARE(lines[2], QStringLiteral("aten::bmm\tCijk_gemm\t0\t8\t0.000\t400.000\t0.000\t100.000\t100.000"));
    // The summary: each side's steps, median, GPU busy per step, the share attributed.
    const QString summary = p.byOpSummary();
    QVERIFY2(summary.contains(QStringLiteral("4 steps (2–5 of 6, the steady-state chunk), 2 left out to align")),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("step median 1.200 ms")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("GPU busy per step 900.0 µs")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("99.0 % of 2.400 ms GPU time attributed")), qPrintable(summary));
  }

  void choosingARowSaysWhichOp() {
    AbPanel p;
    p.setByOp(byOpData());
    QSignalSpy spy(&p, &AbPanel::opChosen);
    QTreeView* v = p.byOpView();
    v->setCurrentIndex(v->model()->index(1, 0));
    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy[0][0].toString(), QStringLiteral("aten::addmm"));
    QCOMPARE(spy[0][1].toString(), QString());
    const QModelIndex bmm = v->model()->index(0, 0);
    v->setCurrentIndex(v->model()->index(0, 3, bmm));  // any column of a kernel row
    QCOMPARE(spy.size(), 2);
    QCOMPARE(spy[1][0].toString(), QStringLiteral("aten::bmm"));
    QCOMPARE(spy[1][1].toString(), QStringLiteral("cutlass_gemm"));
    p.clearByOp(QStringLiteral("nothing"));  // the rows go: the op chosen is none
    QCOMPARE(spy.last()[0].toString(), QString());
  }

  void stepChartHasBothSidesAligned() {
    const ByOpData d = byOpData();
    const auto pts = widgets::stepChartPoints(d);
    QCOMPARE(pts.a.size(), 4);
    QCOMPARE(pts.b.size(), 4);
    QCOMPARE(pts.a[0], QPointF(0, 1.0));  // x: aligned step; y: ms
    QCOMPARE(pts.a[2], QPointF(2, 1.3));
    QCOMPARE(pts.b[3], QPointF(3, 0.8));
    AbPanel p;
    p.setByOp(d);
    QVERIFY(p.stepChart()->seriesA() && p.stepChart()->seriesB());
    QCOMPARE(p.stepChart()->seriesA()->points(), pts.a);
    QCOMPARE(p.stepChart()->seriesB()->points(), pts.b);
    QCOMPARE(p.stepChart()->seriesA()->name(), QStringLiteral("A (h100/run.json)"));
    QCOMPARE(p.stepChart()->chart()->series().size(), 2);
    p.clearByOp({});
    QCOMPARE(p.stepChart()->seriesA()->count(), 0);
  }

  void copyTwoRows() {
    AbPanel p;
    p.show();
    const Sides s = doubledGemm();
    p.setComparison(s.a, s.b);
    QTableView* v = p.kernelView();
    v->setFocus();
    v->selectionModel()->select(v->model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    v->selectionModel()->select(v->model()->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTest::keySequence(v, QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("Kernel\tA time\tB time")));
    QVERIFY(lines[1].startsWith(QStringLiteral("gemm<0x7f0010>\t")));
    QVERIFY(lines[2].startsWith(QStringLiteral("relu\t")));
    if (qEnvironmentVariableIsSet("STEADYSCOPE_SHOT")) {
      p.resize(900, 600);
      p.grab().save(qEnvironmentVariable("STEADYSCOPE_SHOT"));
    }
  }
};

QTEST_MAIN(TestAbPanel)
#include "tst_ab_panel.moc"
