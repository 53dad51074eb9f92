// The Job view, offscreen: its table model (a model tester, the headers in a
// user's words, sort order, TSV without glyphs), a many-rank split's
// summary.tsv read back (a small one and 1,000 ranks, no trace loaded), and
// generated rank traces opened at once, as a folder and from the command line:
// the straggler and the rank of another job marked, a broken file's row kept
// with its reason, a rank's timeline opened with Enter, two ranks compared.
#include "app_test_support.hpp"
#include "job_adapter.hpp"
#include "job_controller.hpp"
#include "main_window.hpp"
#include "settings_dialog.hpp"

#include "panels/job_heatmap.hpp"
#include "panels/job_table_model.hpp"
#include "panels/job_view.hpp"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;
using app::MainWindow;
using widgets::JobRank;
using widgets::JobTableModel;

namespace {

int run(const QString& program, const QStringList& args, QString* out = nullptr) {
  QProcess p;
  p.start(program, args);
  const bool done = p.waitForFinished(app::testsupport::kJobTimeoutMs) && p.exitStatus() == QProcess::NormalExit;
  if (out) *out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
  return done ? p.exitCode() : -1;
}

JobRank rank(qint64 r, double medianUs, const QString& verdict) {
  JobRank k;
  k.rank = r;
  k.file = QStringLiteral("/runs/rank%1.json").arg(r);
  k.loaded = true;
  k.steps = 10;
  k.stepMedianUs = medianUs;
  k.stepP90Us = medianUs * 1.1;
  k.skewUs = double(r) * 37;
  k.gpuBusyUs = 9000;
  k.commBusyUs = 2000;
  k.computeBusyUs = 8000;
  k.overlapUs = 500;
  k.splitStatus = QStringLiteral("split");
  k.chunkMode = QStringLiteral("generic");
  k.verdict = verdict;
  k.busyRatio = 0.9;
  k.numGpuEvents = 1234;
  k.stepDurationsUs = QVector<double>(10, medianUs);
  return k;
}

widgets::JobOverview threeRanks() {
  widgets::JobOverview j;
  j.title = QStringLiteral("3 traces");
  j.ranks << rank(0, 1000, QStringLiteral("accepted")) << rank(1, 1500, QStringLiteral("low_quality"));
  JobRank failed;
  failed.rank = 2;
  failed.file = QStringLiteral("/runs/rank2.json");
  failed.splitStatus = QStringLiteral("error");
  failed.reason = QStringLiteral("/runs/rank2.json: at byte 17: the file ends early");
  j.ranks << failed;
  j.ranks[1].straggler = true;
  j.stragglerRank = 1;
  j.failedRanks = 1;
  return j;
}

// The header summary.tsv of `split RANK… -o DIR` writes (docs/cluster.md).
const char* kSummaryHeader =
    "trace\toutput_dir\toutcome\tgate\tchunk\tnum_gpu_events\tbusy_ratio\tchunk_verdict\tmessage\trank\tevents\t"
    "gpu_events\tsteps\tstep_median_us\tstep_p90_us\tfirst_step_ts_us\tgpu_busy_us\tcomm_busy_us\tcompute_busy_us\t"
    "overlap_us\tsplit_status\tchunk_mode\tselected_busy_ratio\tselected_num_gpu_events\tverdict\treason\n";

QString summaryLine(int r, double medianUs, double firstTsUs, const QString& chunk) {
  return QStringLiteral(
             "r%1.json\tr%1\tsplit\taccepted\t%2\t100\t0.9\tselected\t\t%1\t5000\t900\t40\t%3\t%4\t%5\t9000.000\t"
             "2000.000\t8000.000\t500.000\tsplit\tgeneric\t0.9000\t100\taccepted\t\n")
      .arg(r)
      .arg(chunk)
      .arg(medianUs, 0, 'f', 3)
      .arg(medianUs * 1.2, 0, 'f', 3)
      .arg(firstTsUs, 0, 'f', 3);
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

}  // namespace

class TstJobView : public QObject {
  Q_OBJECT
 private slots:
  void tableModel();
  void tableSortAndCopy();
  void smallSummary();
  void thousandRankSummary();
  void generatedRanks();
  void cancelRanks();
  void memoryBudgetSetting();

 private:
  QTemporaryDir ranksDir_;
};

void TstJobView::tableModel() {
  JobTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setJob(threeRanks());
  QCOMPARE(model.rowCount(), 3);
  const QStringList expected = {"Rank",       "Steps",        "Median step",
                                "p90 step",   "Start skew",   "GPU busy",
                                "Comm busy",  "Compute busy", "Comm/compute overlap",
                                "Split",      "Chunk",        "Busy ratio",
                                "GPU events", "Verdict",      "Reason",
                                "Trace"};
  QStringList headers;
  for (int c = 0; c < model.columnCount(); ++c) {
    headers << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QVERIFY2(!model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(), qPrintable(headers.last()));
  }
  QCOMPARE(headers, expected);
  auto cell = [&](int row, int col, int role = Qt::DisplayRole) { return model.index(row, col).data(role).toString(); };
  QCOMPARE(cell(0, JobTableModel::MedianStepColumn), QStringLiteral("1.000 ms"));
  QCOMPARE(cell(0, JobTableModel::VerdictColumn), QStringLiteral("\u2714 accepted"));
  QCOMPARE(cell(1, JobTableModel::VerdictColumn, JobTableModel::PlainRole), QStringLiteral("low quality"));
  QCOMPARE(cell(1, JobTableModel::RankColumn), QStringLiteral("1 · straggler"));
  QCOMPARE(cell(1, JobTableModel::RankColumn, JobTableModel::PlainRole), QStringLiteral("1"));
  QCOMPARE(cell(0, JobTableModel::OverlapColumn), QStringLiteral("25.0 %"));  // 0.5 of 2 ms of communication
  QCOMPARE(cell(2, JobTableModel::SplitColumn), QStringLiteral("failed"));
  QCOMPARE(cell(2, JobTableModel::VerdictColumn, JobTableModel::PlainRole), QStringLiteral("failed"));
  QCOMPARE(cell(2, JobTableModel::ReasonColumn), QStringLiteral("at byte 17: the file ends early"));
  QCOMPARE(cell(2, JobTableModel::TraceColumn), QStringLiteral("rank2.json"));
  QVERIFY(cell(2, JobTableModel::MedianStepColumn).isEmpty());  // no figure for a rank that did not load
  model.setJob({});
  QCOMPARE(model.rowCount(), 0);
}

void TstJobView::tableSortAndCopy() {
  widgets::JobView view;
  view.setJob(threeRanks());
  QTableView* table = view.view();
  table->sortByColumn(JobTableModel::MedianStepColumn, Qt::DescendingOrder);
  auto rankAt = [&](int row) {
    return view.proxy()->index(row, JobTableModel::RankColumn).data(JobTableModel::PlainRole).toString();
  };
  QCOMPARE(QStringList({rankAt(0), rankAt(1), rankAt(2)}), QStringList({"1", "0", "2"}));  // unknown last
  table->sortByColumn(JobTableModel::MedianStepColumn, Qt::AscendingOrder);
  QCOMPARE(QStringList({rankAt(0), rankAt(1), rankAt(2)}), QStringList({"2", "0", "1"}));
  const QString tsv = view.selectedRowsTsv();  // nothing selected: every row
  const QStringList lines = tsv.trimmed().split(QLatin1Char('\n'));
  QCOMPARE(lines.size(), 4);
  QVERIFY(lines[0].startsWith(QStringLiteral("Rank\tSteps\tMedian step")));
  for (const char* glyph : {"\u2714", "\u26A0", "\u2716", "·"})
    QVERIFY2(!tsv.contains(QString::fromUtf8(glyph)), glyph);
  QVERIFY(tsv.contains(QStringLiteral("\tlow quality\t")));
  view.selectPositions({1});
  QCOMPARE(view.selectedPositions(), QVector<int>{1});
  QCOMPARE(view.selectedRowsTsv().trimmed().split(QLatin1Char('\n')).size(), 2);
}

void TstJobView::smallSummary() {
  QTemporaryDir dir;
  const QString tsv = dir.filePath(QStringLiteral("summary.tsv"));
  QByteArray text = kSummaryHeader;
  text += summaryLine(0, 1000, 500, QStringLiteral("r0_generic.json")).toUtf8();
  text += summaryLine(0, 1000, 500, QStringLiteral("r0_other.json")).toUtf8();  // a second chunk of rank 0
  text += summaryLine(1, 1800, 2500, QStringLiteral("r1_generic.json")).toUtf8();
  text +=
      "r2.json\tr2\terror\t\t\t\t\t\tr2.json: at byte 9: the file ends early\t2\t\t\t\t\t\t\t\t\t\t\terror\t\t\t\t\t"
      "r2.json: at byte 9: the file ends early\n";
  QVERIFY(writeFile(tsv, text));
  const app::JobOutcome out = app::readJobSummary(tsv);
  QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
  const auto& r = out.job.ranks;
  QCOMPARE(r.size(), 3);
  QVERIFY(out.job.fromSummary);
  QCOMPARE(r[0].rank, 0);
  QCOMPARE(*r[0].stepMedianUs, 1000.0);
  QCOMPARE(*r[1].skewUs, 2000.0);  // first_step_ts_us against the earliest rank's
  QVERIFY(r[1].skewed);            // 2 ms late, more than a tenth of the median step and 1 ms
  QVERIFY(r[1].straggler && !r[0].straggler);
  QCOMPARE(*out.job.stragglerRank, 1);
  QVERIFY(!r[2].loaded);
  QCOMPARE(r[2].splitStatus, QStringLiteral("error"));
  QVERIFY(r[2].reason.contains(QStringLiteral("ends early")));
  QCOMPARE(out.job.failedRanks, 1);
  QVERIFY(r[1].file.endsWith(QStringLiteral("r1.json")) && QFileInfo(r[1].file).isAbsolute());

  QVERIFY(writeFile(tsv, "trace\toutcome\nx.json\tsplit\n"));  // a one-trace table without the job columns
  const app::JobOutcome old = app::readJobSummary(tsv);
  QVERIFY(old.error.contains(tsv) && old.error.contains(QStringLiteral("rank")));
}

void TstJobView::thousandRankSummary() {
  QTemporaryDir dir;
  QByteArray text = kSummaryHeader;
  for (int r = 0; r < 1000; ++r)
    text += summaryLine(r, 1000 + (r == 613 ? 400 : r % 7), 100 + r % 3, QStringLiteral("c.json")).toUtf8();
  QVERIFY(writeFile(dir.filePath(QStringLiteral("summary.tsv")), text));
  MainWindow w(app::testsupport::tempSettings(dir.filePath(QStringLiteral("s.ini"))));
  w.resize(1600, 1000);
  w.show();
  w.openFile(dir.path());  // a many-rank split directory: the Job view, no trace loaded
  QTRY_VERIFY_WITH_TIMEOUT(w.isJobViewShown(), app::testsupport::kJobTimeoutMs);
  QCOMPARE(w.document().job().ranks.size(), 1000);
  QVERIFY(!w.document());  // nothing loaded
  QCOMPARE(*w.document().job().stragglerRank, 613);
  QCOMPARE(w.panes().job->model()->rowCount(), 1000);
  QVERIFY(w.windowTitle().contains(QStringLiteral("summary.tsv")));
  QVERIFY(w.grab().width() > 0);  // paints 1,000 rows of bars and the heatmap's note
}

void TstJobView::generatedRanks() {
  QVERIFY(ranksDir_.isValid());
  QStringList files;
  // Four ranks of a job of four, rank 2 the slow one, and a rank of a job of eight.
  for (auto [r, w, factor] : {std::tuple{0, 4, 1.0}, {1, 4, 1.0}, {2, 4, 1.6}, {3, 4, 1.0}, {5, 8, 1.0}}) {
    const QString f = ranksDir_.filePath(QStringLiteral("rank%1.json").arg(r));
    QCOMPARE(run(QStringLiteral(STEADYSCOPE_GEN),
                 {QStringLiteral("-o"), f, QStringLiteral("--style"), QStringLiteral("training"),
                  QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--rank"), QString::number(r),
                  QStringLiteral("--world-size"), QString::number(w), QStringLiteral("--slow-rank-factor"),
                  QString::number(factor), QStringLiteral("--quiet")}),
             0);
    files << f;
  }
  const QString broken = ranksDir_.filePath(QStringLiteral("rank9.json"));
  QVERIFY(writeFile(broken, R"({"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 2)"));
  files << broken;

  MainWindow w(app::testsupport::tempSettings(ranksDir_.filePath(QStringLiteral("s.ini"))));
  w.resize(1600, 1000);
  w.show();
  w.openPaths(files);
  QTRY_VERIFY_WITH_TIMEOUT(w.isJobViewShown(), app::testsupport::kJobTimeoutMs);
  STEADYSCOPE_WAIT_IDLE(w);
  const widgets::JobOverview& job = w.document().job();
  QCOMPARE(job.ranks.size(), 6);
  QCOMPARE(*job.stragglerRank, 2);
  QVERIFY(job.ranks[2].straggler);
  QCOMPARE(job.ranks[2].stepDurationsUs.size(), qsizetype(job.ranks[2].steps));
  QVERIFY(job.worldSizeMismatch);
  QVERIFY(job.ranks[4].otherJob && !job.ranks[0].otherJob);  // rank 5, world size 8
  QCOMPARE(job.failedRanks, 1);
  const JobRank& bad = job.ranks[5];
  QVERIFY(!bad.loaded);
  QVERIFY2(bad.reason.contains(broken), qPrintable(bad.reason));
  widgets::JobView* view = w.panes().job;
  QVERIFY(view->summaryText().contains(QStringLiteral("straggler <b>rank 2</b>")));
  QVERIFY(view->summaryText().contains(QStringLiteral("world size (4, 8)")));
  QVERIFY(view->heatmap()->referenceUs() > 0);
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) QVERIFY2(!d->isVisible(), qPrintable(d->objectName()));

  // Enter on a row opens that rank's timeline (loaded now, through the open path).
  view->selectPositions({1});
  view->view()->setFocus();
  QTest::keyClick(view->view(), Qt::Key_Return);
  QTRY_VERIFY_WITH_TIMEOUT(w.document() && w.document().path() == files[1], app::testsupport::kJobTimeoutMs);
  QVERIFY(!w.isJobViewShown());
  w.showJobView();
  QVERIFY(w.isJobViewShown());

  // Two ranks compared: the first opened and split, the second loaded beside it, their chunks as A and B.
  view->selectPositions({0, 2});
  QCOMPARE(view->selectedPositions().size(), 2);
  w.controllers().job->compareRanks(0, 2);
  QTRY_VERIFY_WITH_TIMEOUT(!w.controllers().job->isComparing(), app::testsupport::kJobTimeoutMs);
  STEADYSCOPE_WAIT_IDLE(w);
  QCOMPARE(w.document().path(), files[0]);
  QVERIFY(w.document().comparison().side(0).has_value() && w.document().comparison().side(1).has_value());

  // The folder of rank traces opens as the same job.
  MainWindow w2(app::testsupport::tempSettings(ranksDir_.filePath(QStringLiteral("s2.ini"))));
  w2.openFile(ranksDir_.path());
  QTRY_VERIFY_WITH_TIMEOUT(w2.isJobViewShown(), app::testsupport::kJobTimeoutMs);
  QCOMPARE(w2.document().job().ranks.size(), 6);

  // And from the command line, rendered offscreen.
  const QString png = ranksDir_.filePath(QStringLiteral("job.png"));
  QString out;
  QStringList args = files;
  args << QStringLiteral("--screenshot") << png << QStringLiteral("--size") << QStringLiteral("1280x800");
  QCOMPARE(run(QStringLiteral(STEADYSCOPE_GUI_BIN), args, &out), 0);
  QVERIFY2(out.contains(QStringLiteral("job: 6 ranks, 1 did not load, straggler rank 2")), qPrintable(out));
  QCOMPARE(QImage(png).size(), QSize(1280, 800));
}

void TstJobView::cancelRanks() {
  // Esc while the ranks are read: nothing is shown, the lane's job stops, the window says so.
  MainWindow w(app::testsupport::tempSettings(ranksDir_.filePath(QStringLiteral("s3.ini"))));
  const QStringList files = {ranksDir_.filePath(QStringLiteral("rank0.json")),
                             ranksDir_.filePath(QStringLiteral("rank1.json"))};
  QVERIFY(QFileInfo::exists(files[0]));
  app::JobLane* lane = w.jobs()->lane(app::JobKind::Job);
  app::testsupport::StageHold hold("ranks");
  lane->setStageObserverForTests(hold.observer());
  w.openPaths(files);
  QTRY_VERIFY_WITH_TIMEOUT(hold.reached(), app::testsupport::kJobTimeoutMs);
  QVERIFY(!w.isIdle());
  w.jobs()->cancelAll();
  hold.release();
  QTRY_COMPARE_WITH_TIMEOUT(lane->stoppedJobs(), quint64(1), app::testsupport::kJobTimeoutMs);
  QVERIFY(w.document().job().empty());
  QVERIFY(!w.isJobViewShown());
  QVERIFY2(w.messageText().contains(QStringLiteral("cancelled")), qPrintable(w.messageText()));
}

void TstJobView::memoryBudgetSetting() {
  // File ▸ Settings writes the budget; a budget below one rank's estimate reads the ranks one at a time.
  auto settings = app::testsupport::tempSettings(ranksDir_.filePath(QStringLiteral("s4.ini")));
  {
    app::SettingsDialog d(settings.get(), 8ull << 30);
    QCOMPARE(d.jobMemoryBudget(), quint64(0));
    d.setJobMemoryBudget(4ull << 30);
    d.save();
    QCOMPARE(settings->jobMemoryBudget(), quint64(4ull << 30));
  }
  settings->setJobMemoryBudget(1);
  MainWindow w(std::move(settings));
  auto* action = w.findChild<QAction*>(QStringLiteral("action.settings"));
  QVERIFY(action);
  QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Comma));
  const QStringList files = {ranksDir_.filePath(QStringLiteral("rank0.json")),
                             ranksDir_.filePath(QStringLiteral("rank1.json"))};
  w.openPaths(files);
  QTRY_VERIFY_WITH_TIMEOUT(w.isJobViewShown(), app::testsupport::kJobTimeoutMs);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY2(w.messageText().contains(QStringLiteral("1 at a time")), qPrintable(w.messageText()));
  QVERIFY2(w.messageText().contains(QStringLiteral("memory budget")), qPrintable(w.messageText()));
}

QTEST_MAIN(TstJobView)
#include "tst_job_view.moc"
