// Each controller of the window driven without the window: a Document, the
// JobSystem, a selection and the Run panel (the options it reads) are all
// they need. Opening (good, missing, truncated, a directory), closing,
// splitting with each workload kind and switching results, the review of a
// split directory (good and not one), compare sides, export's reasons, find,
// the document's signals, and the command line of steadyscope.
#include "app_test_support.hpp"
#include "gui_main.hpp"
#include "report.hpp"

#include "common/selection_model.hpp"
#include "panels/find_panel.hpp"
#include "support/shared_data.hpp"
#include "timeline/timeline_view.hpp"

#include <QComboBox>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::app;
using app::testsupport::kJobTimeoutMs;

namespace {
const QString kSample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);

/// The controllers as the window makes them, without the window.
struct Rig {
  QTemporaryDir tmp;
  std::unique_ptr<AppSettings> settings = app::testsupport::tempSettings(tmp.filePath(QStringLiteral("s.ini")));
  Document doc;
  JobSystem jobs;
  widgets::SelectionModel selection;
  RunPanel run;
  widgets::TimelineView timeline;
  widgets::FindPanel findPanel;
  OpenController open{&doc, &jobs, settings.get(), &selection};
  ReviewController review{&doc, &jobs, &run, &selection};
  SplitController split{&doc, &jobs, &run, &review, &selection};
  CompareController compare{&doc, &jobs, &run, &selection};
  ExportController exporting{&doc, &jobs, &run, &selection, &timeline, settings.get(), nullptr};
  FindController find{&doc, &timeline, &findPanel};
  Rig() {
    timeline.resize(1200, 600);
    QObject::connect(&doc, &Document::traceChanged, &timeline, [this] { timeline.setDocument(doc.view()); });
    QObject::connect(&open, &OpenController::directoryRequested, &review,
                     [this](const QString& d) { review.openSplitDirectory(d); });
    QObject::connect(&review, &ReviewController::sourceTraceRequested, &open, &OpenController::openFile);
  }
  bool idle() { return jobs.waitForIdle(kJobTimeoutMs); }
};

QString truncatedCopy(const QTemporaryDir& dir) {
  QFile in(kSample);
  if (!in.open(QIODevice::ReadOnly)) return {};
  const QByteArray all = in.readAll();
  const QString p = dir.filePath(QStringLiteral("cut.json.gz"));
  QFile out(p);
  if (!out.open(QIODevice::WriteOnly)) return {};
  out.write(all.left(all.size() / 2));
  return p;
}

int runGui(const QStringList& args, QString* err) {
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_GUI_BIN), args);
  if (!p.waitForFinished(60000)) return -1;
  *err = QString::fromLocal8Bit(p.readAllStandardError());
  return p.exitCode();
}
}  // namespace

class TstControllers : public QObject {
  Q_OBJECT
 private slots:
  void open_data();
  void open();
  void failedOpenKeepsTheTrace();
  void closeForgetsEverything();
  void split_data();
  void split();
  void resultsSwitch();
  void review_data();
  void review();
  void compareSides();
  void exportReasons();
  void find_data();
  void find();
  void documentSignals();
  void commandLine_data();
  void commandLine();
  void unknownOptionExitsTwo();
};

void TstControllers::open_data() {
  QTest::addColumn<QString>("what");
  QTest::addColumn<bool>("opens");
  QTest::addColumn<bool>("partialOffered");
  QTest::addColumn<bool>("directory");
  QTest::newRow("sample") << "sample" << true << false << false;
  QTest::newRow("missing") << "missing" << false << false << false;
  QTest::newRow("truncated gzip") << "truncated" << false << true << false;
  QTest::newRow("a directory") << "directory" << false << false << true;
}

void TstControllers::open() {
  QFETCH(QString, what);
  QFETCH(bool, opens);
  QFETCH(bool, partialOffered);
  QFETCH(bool, directory);
  Rig r;
  QString path = kSample;
  if (what == QLatin1String("missing")) path = r.tmp.filePath(QStringLiteral("nothing.json"));
  if (what == QLatin1String("truncated")) path = truncatedCopy(r.tmp);
  if (what == QLatin1String("directory")) path = r.tmp.path();
  QSignalSpy traces(&r.doc, &Document::traceChanged);
  QSignalSpy partial(&r.open, &OpenController::partialOpenOffered);
  QSignalSpy dirs(&r.open, &OpenController::directoryRequested);
  QSignalSpy problems(&r.open, &Controller::problem);
  r.open.openFile(path);
  QVERIFY(r.idle());
  QCOMPARE(bool(r.doc), opens);
  QCOMPARE(traces.count(), opens ? 1 : 0);
  QCOMPARE(partial.count(), partialOffered ? 1 : 0);
  QCOMPARE(dirs.count(), directory ? 1 : 0);
  if (opens) {
    QCOMPARE(r.doc.path(), path);
    QVERIFY(r.doc.lastError().isEmpty());
    QCOMPARE(r.settings->recentFiles().value(0), path);
  } else if (!directory) {
    QVERIFY2(r.doc.lastError().contains(QFileInfo(path).fileName()), qPrintable(r.doc.lastError()));
    QCOMPARE(problems.count(), partialOffered ? 0 : 1);
  }
  if (partialOffered) {
    r.open.openPartially(path);
    QVERIFY(r.idle());
    QVERIFY(r.doc.isPartial());
  }
}

void TstControllers::failedOpenKeepsTheTrace() {
  Rig r;
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  const TracePtr before = r.doc.trace();
  r.open.openFile(r.tmp.filePath(QStringLiteral("nothing.json")));
  QVERIFY(r.idle());
  QCOMPARE(r.doc.trace(), before);
  QCOMPARE(r.doc.path(), kSample);
}

void TstControllers::closeForgetsEverything() {
  Rig r;
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  r.split.runSplit();
  QVERIFY(r.idle());
  QVERIFY(!r.doc.rows().isEmpty());
  r.open.closeTrace();
  QVERIFY(!r.doc);
  QVERIFY(r.doc.path().isEmpty());
  QVERIFY(r.doc.results().empty());
  QVERIFY(r.doc.rows().isEmpty());
  QVERIFY(!r.doc.gateSource());
  QVERIFY(!r.doc.shownGate());
}

void TstControllers::split_data() {
  QTest::addColumn<QString>("kind");
  QTest::addColumn<bool>("llmFlag");  // the split runs with --llm-inference
  // The sample has serving annotations: the gate reads it as LLM inference whichever kind is split.
  QTest::newRow("auto") << QStringLiteral("auto") << true;
  QTest::newRow("llm") << QStringLiteral("llm") << true;
  QTest::newRow("generic") << QStringLiteral("generic") << false;
}

void TstControllers::split() {
  QFETCH(QString, kind);
  QFETCH(bool, llmFlag);
  Rig r;
  r.split.runSplit();  // nothing open: says so, runs nothing
  QVERIFY(r.jobs.isIdle());
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  QVERIFY(r.split.commandLine().isEmpty());
  r.run.setKind(*analysis::parseWorkloadKind(kind.toStdString()));
  r.split.runSplit();
  QVERIFY(r.idle());
  QCOMPARE(r.doc.results().size(), size_t(1));
  QVERIFY2(r.doc.results()[0].title.startsWith(QStringLiteral("split 1 (LLM inference, ")),
           qPrintable(r.doc.results()[0].title));
  QVERIFY(!r.doc.rows().isEmpty());
  QVERIFY(r.doc.overlays() && !r.doc.overlays()->steps.empty());
  QVERIFY(r.doc.gateSource() && r.doc.gateSource()->kind == GateSource::Kind::Live);
  QVERIFY(r.doc.shownGate());  // the review ran on the split's rows
  QVERIFY(std::any_of(r.doc.rows().begin(), r.doc.rows().end(), [](const auto& row) { return row.hasVerdict; }));
  const QString line = r.split.commandLine(QStringLiteral("out"));
  QVERIFY2(line.startsWith(QStringLiteral("steadyscope-cli split ")), qPrintable(line));
  QCOMPARE(line.contains(QStringLiteral("--llm-inference")), llmFlag);
  // The requested mode's chunk is selected once its verdict is in.
  QVERIFY(r.selection.chunk() >= 0);
}

void TstControllers::resultsSwitch() {
  Rig r;
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  r.split.runSplit();
  QVERIFY(r.idle());
  const QVector<widgets::ChunkRow> first = r.doc.rows();
  r.run.numStepsBox()->setValue(r.run.numStepsBox()->value() / 2);
  r.split.runSplit();
  QVERIFY(r.idle());
  QCOMPARE(r.doc.results().size(), size_t(2));
  QCOMPARE(r.doc.currentResult(), 1);
  QSignalSpy reset(&r.doc, &Document::rowsReset);
  r.split.showResult(0);
  QVERIFY(r.idle());
  QCOMPARE(r.doc.currentResult(), 0);
  QCOMPARE(reset.count(), 1);
  QCOMPARE(r.doc.rows().size(), first.size());
  for (qsizetype i = 0; i < first.size(); ++i) QCOMPARE(r.doc.rows()[i].lastStep, first[i].lastStep);
}

void TstControllers::review_data() {
  QTest::addColumn<QString>("what");
  QTest::addColumn<bool>("reviewed");
  QTest::newRow("a split directory") << "split" << true;
  QTest::newRow("an empty directory") << "empty" << false;
  QTest::newRow("no such directory") << "missing" << false;
}

void TstControllers::review() {
  QFETCH(QString, what);
  QFETCH(bool, reviewed);
  Rig r;
  const QString dir = r.tmp.filePath(QStringLiteral("d"));
  if (what == QLatin1String("split")) {
    QProcess p;
    p.start(QStringLiteral(STEADYSCOPE_CLI),
            {QStringLiteral("split"), kSample, QStringLiteral("-o"), dir, QStringLiteral("--find-steady-state"),
             QStringLiteral("--llm-inference")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
  } else if (what == QLatin1String("empty")) {
    QVERIFY(QDir().mkpath(dir));
  }
  QSignalSpy problems(&r.review, &Controller::problem);
  r.review.openSplitDirectory(dir, kSample);
  QVERIFY(r.idle());
  QCOMPARE(problems.count(), reviewed ? 0 : 1);
  QCOMPARE(r.doc.results().size(), size_t(reviewed ? 1 : 0));
  if (!reviewed) {
    QVERIFY(!r.doc.lastError().isEmpty());
    return;
  }
  QVERIFY(r.doc.results()[0].title.startsWith(QStringLiteral("review of")));
  QVERIFY(!r.doc.rows().isEmpty());
  QVERIFY(r.doc.gateSource() && r.doc.gateSource()->kind == GateSource::Kind::Directory);
  // The source opened and the rows were placed on it: a place on the timeline, and evidence for the gate.
  QVERIFY(r.doc);
  QVERIFY(r.doc.overlays());
  QVERIFY(r.doc.gateSource()->match);
  QVERIFY(
      std::any_of(r.doc.rows().begin(), r.doc.rows().end(), [](const auto& row) { return row.endNs > row.beginNs; }));
}

void TstControllers::compareSides() {
  Rig r;
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  QSignalSpy pending(&r.compare, &CompareController::comparisonPending);
  QSignalSpy ready(&r.compare, &CompareController::comparisonReady);
  QVERIFY(!r.compare.useSelectionAs(0));  // nothing picked yet
  r.selection.setStep(1);
  QVERIFY(!r.compare.useSelectionAs(0));  // not split: the step has no window yet
  r.split.runSplit();
  QVERIFY(r.idle());
  QVERIFY(r.doc.rows().size() >= 1);
  r.selection.setStep(2);
  QVERIFY(r.compare.useSelectionAs(0));
  QCOMPARE(pending.count(), 1);  // A alone: the pane asks for B
  r.selection.setStep(3);
  QVERIFY(r.compare.useSelectionAs(1));
  QCOMPARE(ready.count(), 1);
  QVERIFY(r.doc.comparison().side(0) && r.doc.comparison().side(1));
  QVERIFY(!r.compare.compareSelectedRows({0}));
  QSignalSpy cleared(&r.compare, &CompareController::comparisonCleared);
  r.open.closeTrace();
  QVERIFY(!r.doc.comparison().side(0) && !r.doc.comparison().side(1));  // a side keeps its trace alive: closed, they go
  QCOMPARE(cleared.count(), 1);
}

void TstControllers::exportReasons() {
  Rig r;
  QVERIFY(r.exporting.exportBlocker().contains(QStringLiteral("Open a trace")));
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  QVERIFY(r.exporting.exportBlocker().contains(QStringLiteral("Select a chunk")));
  QVERIFY(!r.exporting.reportBlocker().isEmpty());
  r.split.runSplit();
  QVERIFY(r.idle());
  QVERIFY(r.split.selectMode(QStringLiteral("mixed")) || r.split.selectMode(QStringLiteral("decode_only")));
  QCOMPARE(r.exporting.exportBlocker(), QString());
  QCOMPARE(r.exporting.reportBlocker(), QString());
  const QString pdf = r.tmp.filePath(QStringLiteral("r.pdf"));
  QCOMPARE(r.exporting.saveReport(pdf, QSize(800, 500)), QString());
  QVERIFY(QFileInfo(pdf).size() > 0);
  QVERIFY(QFileInfo(pngPathFor(pdf)).size() > 0);
}

void TstControllers::find_data() {
  QTest::addColumn<QString>("pattern");
  QTest::addColumn<bool>("matches");
  QTest::newRow("a kernel name") << "gemm|attention|kernel" << true;
  QTest::newRow("nothing matches") << "zz_no_such_event_zz" << false;
  QTest::newRow("an invalid pattern") << "(" << false;
}

void TstControllers::find() {
  QFETCH(QString, pattern);
  QFETCH(bool, matches);
  Rig r;
  r.open.openFile(kSample);
  QVERIFY(r.idle());
  QSignalSpy messages(&r.find, &FindController::message);
  r.find.setPattern(pattern);
  r.find.findNext();
  QCOMPARE(r.find.matchCount() > 0, matches);
  QVERIFY(messages.count() >= 1);  // the match, or why there is none
  const QString said = messages.first().first().toString();
  if (pattern == QLatin1String("("))
    QVERIFY2(said.startsWith(QStringLiteral("Invalid pattern")), qPrintable(said));
  else
    QVERIFY2(said.contains(matches ? QStringLiteral("Match 1") : QStringLiteral("No event name")), qPrintable(said));
  if (!matches) return;
  const int first = r.find.current();
  r.find.findNext();
  QCOMPARE(r.find.current(), (first + 1) % r.find.matchCount());
  r.find.findPrevious();
  QCOMPARE(r.find.current(), first);
  r.find.setPattern(QString());
  QCOMPARE(r.find.matchCount(), 0);
}

void TstControllers::documentSignals() {
  Document d;
  QSignalSpy reset(&d, &Document::rowsReset), updated(&d, &Document::rowsUpdated),
      results(&d, &Document::resultsChanged);
  QVector<widgets::ChunkRow> rows(2);
  rows[0].mode = QStringLiteral("mixed");
  rows[1].mode = QStringLiteral("generic");
  Result a;
  a.title = QStringLiteral("a");
  d.addResult(a);
  d.setRows(rows);
  const quint64 gen = d.rowsGeneration();
  rows[0].busyRef = 0.5;
  d.updateRows(rows);  // same rows, new figures: not a reset, same generation
  QCOMPARE(updated.count(), 1);
  QCOMPARE(d.rowsGeneration(), gen);
  rows.removeLast();
  d.updateRows(rows);  // a different count is a reset
  QCOMPARE(reset.count(), 2);
  Result b;
  b.title = QStringLiteral("b");
  d.addResult(b);
  d.setRows({});
  d.showResult(0);  // the first result's rows were kept with it
  QCOMPARE(d.rows().size(), 1);
  QCOMPARE(d.rows()[0].busyRef, 0.5);
  QCOMPARE(results.count(), 3);
  d.clearResults();
  QVERIFY(d.results().empty());
  QCOMPARE(d.currentResult(), -1);
}

void TstControllers::commandLine_data() {
  QTest::addColumn<QStringList>("args");
  QTest::addColumn<QString>("error");  // a part of the usage error; empty: none
  QTest::addColumn<QString>("input");
  QTest::newRow("a trace") << QStringList{"t.json"} << ""
                           << "t.json";
  QTest::newRow("Qt's own options pass") << QStringList{"-platform", "offscreen", "t.json", "-style", "Fusion"} << ""
                                         << "t.json";
  QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "frobnicate"
                                  << "";
  QTest::newRow("two files: a job") << QStringList{"a.json", "b.json"} << ""
                                    << "a.json";
  QTest::newRow("a value missing") << QStringList{"t.json", "--select"} << "select"
                                   << "";
  QTest::newRow("bad size") << QStringList{"t.json", "--size", "big"} << "--size wants WxH"
                            << "t.json";
  QTest::newRow("bad range") << QStringList{"t.json", "--range-ms", "5:1"} << "--range-ms"
                             << "t.json";
  QTest::newRow("bad kind") << QStringList{"t.json", "--kind", "sometimes"} << "--kind wants"
                            << "t.json";
  QTest::newRow("every value") << QStringList{"d/",       "--source", "t.json",       "--split",    "--kind", "llm",
                                              "--select", "mixed",    "--screenshot", "o.png",      "--size", "800x600",
                                              "--dark",   "--find",   "gemm",         "--range-ms", "1:2",    "--raise",
                                              "ab"}
                               << ""
                               << "d/";
}

void TstControllers::commandLine() {
  QFETCH(QStringList, args);
  QFETCH(QString, error);
  QFETCH(QString, input);
  std::vector<QByteArray> bytes{QByteArrayLiteral("steadyscope")};
  for (const QString& a : args) bytes.push_back(a.toLocal8Bit());
  std::vector<char*> argv;
  for (QByteArray& b : bytes) argv.push_back(b.data());
  argv.push_back(nullptr);
  const GuiOptions o = parseGuiOptions(int(bytes.size()), argv.data());
  if (error.isEmpty())
    QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
  else
    QVERIFY2(o.error.contains(error), qPrintable(o.error));
  if (error.isEmpty() || !input.isEmpty()) QCOMPARE(o.input, input);
  if (QTest::currentDataTag() == QLatin1String("every value")) {
    QCOMPARE(o.source, QStringLiteral("t.json"));
    QVERIFY(o.split && o.dark);
    QCOMPARE(o.kind, QStringLiteral("llm"));
    QCOMPARE(o.selectMode, QStringLiteral("mixed"));
    QCOMPARE(o.size, QSize(800, 600));
    QCOMPARE(o.rangeFromMs, 1.0);
    QCOMPARE(o.rangeToMs, 2.0);
    QCOMPARE(o.raise, QStringLiteral("ab"));
    QCOMPARE(o.find, QStringLiteral("gemm"));
  }
}

void TstControllers::unknownOptionExitsTwo() {
  QString err;
  QCOMPARE(runGui({QStringLiteral("--frobnicate")}, &err), 2);
  QVERIFY2(err.contains(QStringLiteral("frobnicate")) && err.contains(QStringLiteral("--help")), qPrintable(err));
  QCOMPARE(runGui({QStringLiteral("--help")}, &err), 0);
  // Every option is in the help (and so in the man page, made from it).
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_GUI_BIN), {QStringLiteral("--help")});
  QVERIFY(p.waitForFinished(60000));
  const QString help = QString::fromUtf8(p.readAllStandardOutput());
  for (const char* o : {"--source", "--partial", "--split", "--kind", "--select", "--compare", "--raise",
                        "--screenshot", "--report", "--size", "--dark", "--find", "--range-ms", "--bench-timeline",
                        "--bench-charts", "--bench-export", "--help", "--version"})
    QVERIFY2(help.contains(QLatin1String(o)), o);
}

QTEST_MAIN(TstControllers)
#include "tst_controllers.moc"
