// The window's A/B (Compare menu, A/B pane) and File ▸ Compare with…, offscreen:
// two selected chunk rows become A and B; a step and a range can be sides;
// a second trace's chunks join the chunk table under its name and compare
// with the open trace's (kernels matched by their normalised names: the same
// trace compared with itself has no change); a split directory's chunk files
// are sides too; a file that is no trace is refused with its message and
// changes nothing; closing the trace ends the comparison.
#include "app_test_support.hpp"
#include "main_window.hpp"

#include "panels/ab_panel.hpp"
#include "panels/chunks_panel.hpp"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

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
    QVERIFY2(menu.contains(QStringLiteral("Compare the two selected chunks or ranks")), qPrintable(menu.join(QLatin1Char('|'))));
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
