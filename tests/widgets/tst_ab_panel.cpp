// The A/B panel: its two models pass Qt's model tester, the kernel whose time
// doubles tops the list with +100 %, a kernel of one side says so, sorting by
// a column orders by its value, and Ctrl+C copies the selected rows as TSV.
#include "trace_builder.hpp"

#include "panels/ab_panel.hpp"

#include <steadyscope/core/timeline/ab_compare.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>
#include <QTableView>
#include <QtTest>

using namespace steadyscope;
using namespace steadyscope::timeline;
using steadyscope::testing::TraceBuilder;
using steadyscope::widgets::AbFiguresModel;
using steadyscope::widgets::AbKernelModel;
using steadyscope::widgets::AbPanel;

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
