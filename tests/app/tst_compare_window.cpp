// The window's A/B (Compare menu, A/B pane) and File ▸ Compare with…, offscreen:
// two selected chunk rows become A and B; a step and a range can be sides;
// a second trace's chunks join the chunk table under its name and compare
// with the open trace's (kernels matched by their normalised names: the same
// trace compared with itself has no change); a split directory's chunk files
// are sides too; a file that is no trace is refused with its message and
// changes nothing; closing the trace ends the comparison. A compared trace is
// also set against the open one op by op (the By op tab, B's timeline below
// A's, an op's kernels marked on both); a side without a steady-state chunk or
// without steps falls back to every step or the whole traces, and says which.
#include "app_test_support.hpp"
#include "main_window.hpp"
#include "op_compare.hpp"

#include "panels/ab_panel.hpp"
#include "panels/ab_step_chart.hpp"
#include "panels/by_op_model.hpp"
#include "panels/chunks_panel.hpp"
#include "support/load_json.hpp"
#include "timeline/timeline_view.hpp"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineSeries>
#include <QMessageBox>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTest>

using namespace steadyscope;
using app::MainWindow;
using widgets::ChunkModel;

namespace {

const QString kSample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);

int run(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  return p.waitForFinished(app::testsupport::kJobTimeoutMs) && p.exitStatus() == QProcess::NormalExit ? p.exitCode()
                                                                                                      : -1;
}

/// Selects model rows `rows` of the chunk table (view order follows the model's while unsorted).
void selectRows(MainWindow& w, const QVector<int>& rows) {
  QTableView* v = w.panes().chunks->view();
  v->clearSelection();
  auto* proxy = v->model();
  for (int r : rows) {
    const QModelIndex i = proxy->index(r, 0);
    v->selectionModel()->select(i, QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
}

/// The compared trace's first row whose mode is `mode`, as a model row of the table; -1: none.
int comparedRowOf(const MainWindow& w, const QString& mode) {
  const ChunkModel* m = w.panes().chunks->model();
  for (int r = int(m->chunks().size()); r < m->rowCount(); ++r)
    if (m->rowAt(r).mode == mode) return r;
  return -1;
}

/// `steps` ProfilerStep#k of 900 µs every 1000 µs, each with an aten::mm launching `mm_k` (mmUs) and an
/// aten::relu launching relu_k; steps = 0: the same ops once, with no step around them.
std::string stepsJson(int steps, int64_t mmUs) {
  std::string ev;
  int corr = 1;
  const auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
  const auto x = [](const char* cat, const std::string& name, int pid, int tid, int64_t ts, int64_t dur, int c = -1) {
    return "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
           "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) +
           ",\"dur\":" + std::to_string(dur) +
           (c >= 0 ? ",\"args\":{\"correlation\":" + std::to_string(c) + "}" : std::string()) + "}";
  };
  for (int k = 0; k < std::max(steps, 1); ++k) {
    const int64_t ts = 1000 + 1000LL * k;
    if (steps) add(x("user_annotation", "ProfilerStep#" + std::to_string(k), 1, 1, ts, 900));
    for (const auto& [op, kernel, at, us] :
         {std::tuple{"aten::mm", "mm_k", 10, mmUs}, std::tuple{"aten::relu", "relu_k", 500, int64_t(10)}}) {
      add(x("cpu_op", op, 1, 1, ts + at, 100));
      add(x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts + at + 10, 5, corr));
      add(x("kernel", kernel, 0, 7, ts + at + 20, us, corr++));
    }
  }
  return "{\"traceEvents\": [\n" + ev + "\n]}";
}

app::OpCompareSide sideOf(const std::string& json, const std::string& path) {
  app::OpCompareSide s;
  s.trace = sstest::loadJson(json, path);
  s.index = timeline::buildTimelineIndex(*s.trace);
  s.path = QString::fromStdString(path);
  return s;
}

// A split by hand: `n` steps every 1000 µs from 1000 µs, a steady-state chunk over [from, to) when `to` > 0.
analysis::SplitResult handSplit(size_t n, size_t from = 0, size_t to = 0) {
  analysis::SplitResult s;
  for (size_t k = 0; k < n; ++k) {
    analysis::RootInfo r;
    r.tsUs = 1000.0 + 1000.0 * double(k);
    r.durUs = 900.0;
    s.roots.push_back(r);
  }
  if (to > from) {
    analysis::ChunkPlan c;
    c.kind = analysis::ChunkKind::SteadyState;
    for (size_t k = from; k < to; ++k) c.roots.push_back(k);
    s.chunks.push_back(c);
  }
  return s;
}

std::shared_ptr<const app::OpComparison> byOpOf(const app::OpCompareSide& a, const app::OpCompareSide& b) {
  app::JobContext ctx;
  std::optional<app::OpCompareOutcome> out = app::compareByOp(a, b, ctx);
  if (!out || !out->comparison) qFatal("compareByOp: %s", out ? qPrintable(out->error) : "cancelled");
  return out->comparison;
}

}  // namespace

class TestCompareWindow : public QObject {
  Q_OBJECT
  std::unique_ptr<QTemporaryDir> tmp_;
  QString settings(const char* name) const { return tmp_->filePath(QString::fromLatin1(name)); }

 private slots:
  void initTestCase() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
    if (!QFileInfo::exists(kSample)) QSKIP("the bundled sample trace is not there");
  }

  // Two rows selected: the first is A, the second B; their figures and kernels fill the pane.
  void twoSelectedRowsCompare() {
    MainWindow w(app::testsupport::tempSettings(settings("rows.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const auto& rows = w.panes().chunks->model()->chunks();
    QVERIFY(rows.size() >= 2);
    selectRows(w, {0});
    QVERIFY(
        !w.controllers().compare->compareSelectedRows(w.panes().chunks->selectedModelRows()));  // one row is not a pair
    QVERIFY(w.messageText().contains(QStringLiteral("two chunks")));
    selectRows(w, {0, 1});
    QVERIFY(w.controllers().compare->compareSelectedRows(w.panes().chunks->selectedModelRows()));
    QVERIFY(w.document().comparison().side(0) && w.document().comparison().side(1));
    QVERIFY(QString::fromStdString(w.document().comparison().side(0)->input.label).startsWith(rows[0].mode));
    QVERIFY(QString::fromStdString(w.document().comparison().side(1)->input.label).startsWith(rows[1].mode));
    QCOMPARE(w.document().comparison().side(0)->input.beginNs, rows[0].beginNs);
    QCOMPARE(w.document().comparison().side(1)->input.endNs, rows[1].endNs);
    const auto* figures = w.panes().ab->figuresModel();
    QVERIFY(figures->rowCount() > 0);
    QVERIFY(figures->headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString().contains(rows[0].mode));
    QVERIFY(w.panes().ab->kernelModel()->rowCount() > 0);
    // The chunk table's right-click menu offers the comparison.
    QStringList menu;
    for (QAction* a : w.panes().chunks->view()->actions()) menu << a->text().remove(QLatin1Char('&'));
    QVERIFY2(menu.contains(QStringLiteral("Compare the two selected chunks or ranks")),
             qPrintable(menu.join(QLatin1Char('|'))));
    QVERIFY(menu.contains(QStringLiteral("Use the selection as A")));
  }

  // A step and a range of the open trace as the two sides: each side is its window.
  void stepAndRangeAreSides() {
    MainWindow w(app::testsupport::tempSettings(settings("steps.ini")));
    QVERIFY(!w.controllers().compare->useSelectionAs(0));  // nothing to pick yet
    QVERIFY(w.messageText().contains(QStringLiteral("Select a chunk")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const auto& steps = w.document().overlays()->steps;
    QVERIFY(steps.size() >= 4);
    w.selection()->setStep(2);
    QVERIFY(w.controllers().compare->useSelectionAs(0));
    QVERIFY(!w.document().comparison().side(1));
    QVERIFY(w.panes().ab->figuresModel()->rowCount() == 0);  // waits for B
    const qint64 b = steps[1].beginNs, e = steps[3].endNs;
    w.selection()->setRange(b, e);
    QVERIFY(w.controllers().compare->useSelectionAs(1));
    QCOMPARE(w.document().comparison().side(0)->input.beginNs, steps[2].beginNs);
    QCOMPARE(w.document().comparison().side(0)->input.endNs, steps[2].endNs);
    QCOMPARE(w.document().comparison().side(1)->input.beginNs, b);
    QCOMPARE(w.document().comparison().side(1)->input.endNs, e);
    QVERIFY(QString::fromStdString(w.document().comparison().side(0)->input.label).startsWith(QStringLiteral("step ")));
    QVERIFY(
        QString::fromStdString(w.document().comparison().side(1)->input.label).startsWith(QStringLiteral("range ")));
    QVERIFY(w.panes().ab->figuresModel()->rowCount() > 0);
  }

  // The sample compared with itself: its chunks join the table under its name, and a chunk against its
  // own copy has the same figures and no kernel that changes or is on one side only.
  void comparedTraceJoinsTheTable() {
    MainWindow w(app::testsupport::tempSettings(settings("self.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const int own = int(w.panes().chunks->model()->chunks().size());
    const QString copy = tmp_->filePath(QStringLiteral("copy-") + QFileInfo(kSample).fileName());
    QVERIFY(QFile::copy(kSample, copy));
    w.controllers().compare->compareWith(copy);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().comparison().compared());
    const ChunkModel* m = w.panes().chunks->model();
    QCOMPARE(m->rowCount(), own + int(w.document().comparison().compared()->rows.size()));
    QCOMPARE(int(w.document().comparison().compared()->rows.size()), own);
    QVERIFY(m->data(m->index(own, ChunkModel::ModeColumn), Qt::DisplayRole)
                .toString()
                .contains(QFileInfo(copy).fileName()));
    QCOMPARE(int(m->chunks().size()), own);  // the open trace's rows are still the selection's chunks
    selectRows(w, {0, own});
    QVERIFY(w.controllers().compare->compareSelectedRows(w.panes().chunks->selectedModelRows()));
    QVERIFY(w.document().comparison().side(0)->trace != w.document().comparison().side(1)->trace);
    const auto& deltas = w.panes().ab->kernelModel()->deltas();
    QVERIFY(!deltas.empty());
    for (const auto& d : deltas) {
      QVERIFY2(!d.onlyA() && !d.onlyB(), d.name.c_str());
      QCOMPARE(d.deltaNs(), int64_t(0));
      QCOMPARE(d.countA, d.countB);
    }
    // Picking a compared row selects no chunk of the open trace; it can be a side by itself.
    w.panes().chunks->view()->setCurrentIndex(w.panes().chunks->view()->model()->index(own, 0));
    QCOMPARE(w.selection()->chunk(), -1);
    QVERIFY(w.controllers().compare->useSelectionAs(0));
    QCOMPARE(w.document().comparison().side(0)->trace, w.document().comparison().side(1)->trace);
    // Closing the open trace ends the comparison.
    w.controllers().open->closeTrace();
    QVERIFY(!w.document().comparison().compared());
    QCOMPARE(w.panes().chunks->model()->rowCount(), 0);
    QVERIFY(!w.document().comparison().side(0) && !w.document().comparison().side(1));
  }

  // A split directory's chunk files are sides: each row is one file, read whole.
  void splitDirectoryChunksAreSides() {
    const QString dir = tmp_->filePath(QStringLiteral("split"));
    QCOMPARE(run(QStringLiteral(STEADYSCOPE_CLI),
                 {QStringLiteral("split"), kSample, QStringLiteral("-o"), dir, QStringLiteral("--find-steady-state")}),
             0);
    const QStringList files = QDir(dir).entryList({QStringLiteral("*steady_state*")}, QDir::Files);
    QVERIFY(!files.isEmpty());
    MainWindow w(app::testsupport::tempSettings(settings("dir.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    w.controllers().compare->compareWith(dir);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().comparison().compared());
    QCOMPARE(int(w.document().comparison().compared()->rows.size()), int(files.size()));
    for (const auto& r : w.document().comparison().compared()->rows) {
      QVERIFY(files.contains(r.file));
      QVERIFY(r.events > 0);
      QVERIFY(r.endNs > r.beginNs);
    }
    const QString mode = w.panes().chunks->model()->chunks()[0].mode;
    const int other = comparedRowOf(w, mode);
    QVERIFY(other >= 0);
    selectRows(w, {0, other});
    QVERIFY(w.controllers().compare->compareSelectedRows(w.panes().chunks->selectedModelRows()));
    QVERIFY(w.panes().ab->kernelModel()->rowCount() > 0);
  }

  // A file that is not a trace: its message, no compared rows, the open trace's table as it was.
  void notATraceIsRefused() {
    MainWindow w(app::testsupport::tempSettings(settings("bad.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const int own = w.panes().chunks->model()->rowCount();
    const QString bad = tmp_->filePath(QStringLiteral("notes.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not JSON");
    f.close();
    w.controllers().compare->compareWith(bad);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(!w.document().comparison().compared());
    QVERIFY(w.document().lastError().contains(QStringLiteral("notes.json")));
    QVERIFY(w.errorBox());
    w.errorBox()->close();
    QCOMPARE(w.panes().chunks->model()->rowCount(), own);
  }

  // Compare with… a trace: the By op tab comes to the front with both traces op by op, B's timeline
  // below A's; the sample against its copy changes nothing; choosing an op (or one of its kernels)
  // marks its GPU events on both timelines; stopping the comparison clears both.
  void comparedTraceByOp() {
    MainWindow w(app::testsupport::tempSettings(settings("byop.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const QString copy = tmp_->filePath(QStringLiteral("byop-") + QFileInfo(kSample).fileName());
    QVERIFY(QFile::copy(kSample, copy));
    w.controllers().compare->compareWith(copy);
    STEADYSCOPE_WAIT_IDLE(w);
    const app::OpComparison* c = w.document().comparison().byOp();
    QVERIFY2(c, qPrintable(w.document().comparison().byOpHint()));
    const widgets::ByOpModel* m = w.panes().ab->byOpModel();
    QVERIFY(m->rowCount() > 0);
    QCOMPARE(w.panes().ab->currentTab(), 1);
    for (const widgets::ByOpRow& r : m->comparison().rows) {
      QCOMPARE(r.aCount, r.bCount);
      QCOMPARE(r.deltaUsPerStep, 0.0);
    }
    QCOMPARE(w.panes().ab->stepChart()->seriesA()->count(), int(c->view.a.steps));
    QCOMPARE(w.panes().ab->stepChart()->seriesB()->count(), int(c->view.b.steps));
    QVERIFY(w.panes().timelineB->isVisible());
    QCOMPARE(w.panes().timelineB->document().trace, w.document().comparison().compared()->doc.trace);
    QVERIFY(w.panes().timelineTitleB->text().contains(QFileInfo(copy).fileName()));
    // An op row: its GPU events, the same on both sides here, at least those of the compared steps.
    QTreeView* v = w.panes().ab->byOpView();
    v->setCurrentIndex(v->model()->index(0, 0));
    const auto& fa = w.panes().timeline->findResults();
    const auto& fb = w.panes().timelineB->findResults();
    QVERIFY(fa && fb);
    QCOMPARE(fa->events.size(), fb->events.size());
    QVERIFY(fa->events.size() >= m->comparison().rows[0].aCount);
    QVERIFY(fa->events.size() > 0);
    const TracePtr& ta = w.document().trace();
    for (EventIdx e : fa->events) QVERIFY(isGpuWork(ta->classOf(e)));
    QVERIFY(w.messageText().contains(m->comparison().rows[0].op));
    // A kernel row: only that kernel's events.
    const QModelIndex op0 = v->model()->index(0, 0);
    QVERIFY(v->model()->rowCount(op0) > 0);
    const QString kernel = v->model()->index(0, 0, op0).data().toString();
    v->setCurrentIndex(v->model()->index(0, 0, op0));
    QVERIFY(w.panes().timeline->findResults());
    for (EventIdx e : w.panes().timeline->findResults()->events)
      QCOMPARE(QString::fromStdString(std::string(ta->nameOf(e))), kernel);
    QVERIFY(w.panes().timelineB->findResults()->events.size() > 0);
    w.controllers().compare->stopComparing();
    QVERIFY(!w.document().comparison().byOp());
    QVERIFY(!w.panes().timeline->findResults());
    QVERIFY(!w.panes().timelineB->findResults());
    QVERIFY(!w.panes().timelineB->isVisible());
    QCOMPARE(m->rowCount(), 0);
  }

  // The By op job runs on the Compare lane: held at a stage the window stays responsive, and Esc
  // (cancel) drops it with a message in one line and a pane that says so.
  void byOpCancelled() {
    MainWindow w(app::testsupport::tempSettings(settings("byopcancel.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const QString copy = tmp_->filePath(QStringLiteral("cancel-") + QFileInfo(kSample).fileName());
    QVERIFY(QFile::copy(kSample, copy));
    w.controllers().compare->compareWith(copy);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().comparison().byOp());
    app::testsupport::StageHold hold("Splitting B");
    w.jobs()->lane(app::JobKind::Compare)->setStageObserverForTests(hold.observer());
    w.controllers().compare->compareByOp();
    QVERIFY(!w.document().comparison().byOp());
    QTRY_VERIFY_WITH_TIMEOUT(hold.reached(), app::testsupport::kJobTimeoutMs);
    QVERIFY(w.panes().ab->byOpSummary().contains(QStringLiteral("op by op…")));
    w.jobs()->cancelAll();
    hold.release();
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(!w.document().comparison().byOp());
    QVERIFY(w.panes().ab->byOpSummary().contains(QStringLiteral("cancelled")));
    QVERIFY(w.messageText().contains(QStringLiteral("cancelled")));
    QVERIFY(!w.messageText().contains(QLatin1Char('\n')));
    QCOMPARE(w.panes().ab->byOpModel()->rowCount(), 0);
  }

  // The steps the By op view compares, and its words about a side: both steady: their chunks; a side
  // without steps: the whole traces; names carry the folder when both files are called the same.
  void byOpFallbackNamesTheSide() {
    QCOMPARE(app::sideName(0, QStringLiteral("/t/h100/run.json"), QStringLiteral("/t/mi300/run.json")),
             QStringLiteral("A (h100/run.json)"));
    QCOMPARE(app::sideName(1, QStringLiteral("/t/h100/run.json"), QStringLiteral("/t/mi300/run.json")),
             QStringLiteral("B (mi300/run.json)"));
    QCOMPARE(app::sideName(1, QStringLiteral("/t/a.json"), QStringLiteral("/u/b.json")), QStringLiteral("B (b.json)"));
    const app::OpCompareSide six = sideOf(stepsJson(6, 100), "/t/h100/run.json");
    const app::OpCompareSide four = sideOf(stepsJson(4, 300), "/t/mi300/run.json");
    auto both = byOpOf(six, four);
    QCOMPARE(both->view.a.stepSource, QStringLiteral("steady_state"));
    QCOMPARE(both->view.note, QString());
    QCOMPARE(both->view.a.steps, size_t(4));
    QCOMPARE(both->view.rows.front().op, QStringLiteral("aten::mm"));
    QCOMPARE(both->view.rows.front().deltaUsPerStep, 200.0);
    const app::OpCompareSide flat = sideOf(stepsJson(0, 300), "/t/mi300/flat.json");
    auto whole = byOpOf(six, flat);
    QVERIFY(whole->view.wholeTrace);
    QCOMPARE(whole->view.b.stepSource, QStringLiteral("whole_trace"));
    QCOMPARE(
        whole->view.note,
        QStringLiteral("B (flat.json) has no steps: the whole traces are compared, every GPU event (per step = per "
                       "trace)."));
    QCOMPARE(whole->view.rows.front().aGpuUs, 600.0);  // A's six mm kernels: one "step", the trace
    auto swapped = byOpOf(flat, six);
    QVERIFY(swapped->view.note.startsWith(QStringLiteral("A (flat.json) has no steps")));
    // One side without a steady-state chunk: every step of both, from step 0, and the side is named.
    const analysis::SplitResult steady = handSplit(6, 2, 5), plain = handSplit(4);
    app::ChosenSteps one = app::chooseWithFallback(six, steady, four, plain);
    QVERIFY(one.steps);
    QCOMPARE(one.steps->first.source, std::string("all_steps"));
    QCOMPARE(one.steps->first.first, size_t(0));
    QCOMPARE(one.steps->first.windows.size(), size_t(4));
    QCOMPARE(one.note, QStringLiteral("B (mi300/run.json) has no steady-state chunk: the whole traces are compared, "
                                      "every step of each, aligned by index."));
    QVERIFY(app::chooseWithFallback(six, plain, four, steady)
                .note.startsWith(QStringLiteral("A (h100/run.json) has no steady-state chunk")));
    QVERIFY(app::chooseWithFallback(six, plain, four, plain)
                .note.startsWith(QStringLiteral("Neither trace has a steady-state chunk")));
    QCOMPARE(app::chooseWithFallback(six, steady, four, handSplit(4, 0, 4)).note, QString());
    analysis::SplitResult noGpu = handSplit(4);
    noGpu.outcome = analysis::SplitOutcome::NoGpuWork;
    const app::ChosenSteps refused = app::chooseWithFallback(six, steady, four, noGpu);
    QVERIFY(!refused.steps);
    QVERIFY2(refused.error.startsWith(QStringLiteral("B (mi300/run.json) has no GPU work")), qPrintable(refused.error));
  }

  // A side keeps its trace only while the window shows it: opening another trace drops it.
  void sidesOfAClosedTraceAreDropped() {
    MainWindow w(app::testsupport::tempSettings(settings("stale.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    selectRows(w, {0, 1});
    QVERIFY(w.controllers().compare->compareSelectedRows(w.panes().chunks->selectedModelRows()));
    const QString copy = tmp_->filePath(QStringLiteral("other-") + QFileInfo(kSample).fileName());
    QVERIFY(QFile::copy(kSample, copy));
    STEADYSCOPE_OPEN_AND_WAIT(w, copy);
    QVERIFY(!w.document().comparison().side(0) && !w.document().comparison().side(1));
  }
};

QTEST_MAIN(TestCompareWindow)
#include "tst_compare_window.moc"
