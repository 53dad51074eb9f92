// The chunk table (offscreen): the model passes QAbstractItemModelTester;
// sorting by each ratio orders the rows; the verdict column equals the core
// gate for every case of spec E16 (and an unchecked chunk says so, never a
// plain ✔); empty-step findings put ⚠ beside the verdict; a trace with a
// 20 ms GPU-idle gap between the steps of a chunk shows it in the
// longest-gap column with the window ratio below the union ratio; Ctrl+C on
// two rows copies a header and two TSV lines; choosing a row zooms to it.
#include "../core/gate/gate_fixture.hpp"
#include "../support/load_json.hpp"
#include "app_test_support.hpp"
#include "gate_adapter.hpp"
#include "main_window.hpp"
#include "split_adapter.hpp"

#include "panels/chunks_panel.hpp"
#include "panels/details_panel.hpp"
#include "panels/explanation_panel.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/timeline/timeline_index.hpp>

#include <fmt/format.h>

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::app;
using widgets::ChunkModel;
using widgets::ChunkRow;
using widgets::colors::Verdict;

namespace {
QVector<ChunkRow> threeRows() {
  QVector<ChunkRow> rows(3);
  const char* modes[] = {"mixed", "decode_only", "prefilldecode"};
  const double ref[] = {0.6, 0.02, 0.3}, uni[] = {0.2, 0.5, 0.01}, win[] = {0.05, 0.9, 0.4};
  for (int i = 0; i < 3; ++i) {
    rows[i].mode = QString::fromLatin1(modes[i]);
    rows[i].file = rows[i].mode + QStringLiteral("_steady_state_x.json.gz");
    rows[i].firstStep = 10 * i;
    rows[i].lastStep = 10 * i + 7;
    rows[i].stepCount = 8;
    rows[i].beginNs = 1000000 * (i + 1);
    rows[i].endNs = rows[i].beginNs + 500000;
    rows[i].busyRef = ref[i];
    rows[i].busyUnion = uni[i];
    rows[i].busyWindow = win[i];
    rows[i].longestGapNs = 1000 * (3 - i);
    rows[i].hasVerdict = true;
    rows[i].verdict = Verdict::Accepted;
  }
  return rows;
}

/// Modes of the view's rows, top to bottom.
QStringList viewModes(const QTableView* v) {
  QStringList out;
  for (int r = 0; r < v->model()->rowCount(); ++r)
    out << v->model()->index(r, ChunkModel::ModeColumn).data().toString();
  return out;
}

/// A ProfilerStep trace: `n` steps of 1 ms CPU, each launching one 800 µs kernel; the GPU idles
/// `gapUs` between one step's kernel and the next's.
std::string gapTrace(int n, double gapUs, int emptyEvery = 0) {
  std::string ev;
  double t = 1000.0;
  for (int k = 0; k < n; ++k) {
    const double kernelTs = t + 100.0;
    auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
    if (emptyEvery > 0 && k % emptyEvery == emptyEvery - 1) {  // a step without GPU work
      add(fmt::format(
          R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{:.3f},"dur":1000.0}})",
          k, t));
      t = kernelTs + 800.0 + gapUs - 100.0;
      continue;
    }
    add(fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{:.3f},"dur":1000.0}})", k,
        t));
    add(fmt::format(
        R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{:.3f},"dur":10.0,"args":{{"correlation":{}}}}})",
        t + 20.0, k + 1));
    add(fmt::format(
        R"({{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":{:.3f},"dur":800.0,"args":{{"correlation":{},"device":0,"stream":7}}}})",
        kernelTs, k + 1));
    t = kernelTs + 800.0 + gapUs - 100.0;  // the next kernel starts gapUs after this one ends
  }
  return "{\"traceEvents\":[\n" + ev + "\n]}";
}
}  // namespace

class TstChunkTable : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<QTemporaryDir> tmp_;

 private slots:
  void initTestCase() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
  }

  void modelTesterAndHeaders() {
    ChunkModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setChunks(threeRows());
    m.updateChunks(threeRows());
    m.setChunks({});
    m.setChunks(threeRows());
    for (int c = 0; c < ChunkModel::NUM_COLUMNS; ++c) {
      const QString tip = m.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
      QVERIFY2(tip.endsWith(QLatin1Char('.')) && tip.size() > 20, qPrintable(tip));  // one sentence
      QVERIFY(!m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
    }
    // The CSV field names are in the tooltips, never in the headers.
    QVERIFY(m.headerData(ChunkModel::GpuTimeColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("gpu_duration")));
    // Drawn on two lines so the table fits; copied (TSV) on one.
    QCOMPARE(m.headerData(ChunkModel::GpuTimeColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("GPU\ntime"));
    QCOMPARE(ChunkModel::headerText(ChunkModel::GpuTimeColumn), QStringLiteral("GPU time"));
  }

  void sortingByEachRatio_data() {
    QTest::addColumn<int>("column");
    QTest::addColumn<QStringList>("ascending");
    QTest::newRow("busy (ref)") << int(ChunkModel::BusyRefColumn)
                                << QStringList{"decode_only", "prefilldecode", "mixed"};
    QTest::newRow("busy (union)") << int(ChunkModel::BusyUnionColumn)
                                  << QStringList{"prefilldecode", "mixed", "decode_only"};
    QTest::newRow("busy (window)") << int(ChunkModel::BusyWindowColumn)
                                   << QStringList{"mixed", "prefilldecode", "decode_only"};
    QTest::newRow("longest gap") << int(ChunkModel::LongestGapColumn)
                                 << QStringList{"prefilldecode", "decode_only", "mixed"};
  }
  void sortingByEachRatio() {
    QFETCH(int, column);
    QFETCH(QStringList, ascending);
    widgets::ChunksPanel p;
    p.setChunks(threeRows());
    p.view()->sortByColumn(column, Qt::AscendingOrder);
    QCOMPARE(viewModes(p.view()), ascending);
    p.view()->sortByColumn(column, Qt::DescendingOrder);
    std::reverse(ascending.begin(), ascending.end());
    QCOMPARE(viewModes(p.view()), ascending);
  }

  // Every E16 case: each row's verdict is the core gate's for that row's mode.
  void verdictsEqualTheCoreGate_data() {
    QTest::addColumn<QString>("rows");
    QTest::addColumn<bool>("withCsv");
    QTest::addColumn<double>("threshold");
    const QString pd = "prefilldecode:2790,4538984.0,2723452.0,0.600014";
    QTest::newRow("G1") << "mixed:160,3257719.65,2053.09,0.000630;" + pd << true << 0.05;
    QTest::newRow("G2") << "mixed:1000,1000000,80000,;" + pd << true << 0.05;
    QTest::newRow("G2'") << "mixed:1000,1000000,80000,;" + pd << true << 0.20;
    QTest::newRow("G2''") << "mixed:1000,1000000,80000" << true << 0.20;
    QTest::newRow("G3") << "mixed:160,3257719.65,2053.09,0.000630;prefilldecode:10,1000,0.5,0.0005" << true << 0.05;
    QTest::newRow("G4") << "mixed:0,0,0;decode_only:100,1000,20;prefilldecode:100,1000,600" << true << 0.05;
    QTest::newRow("G5") << "mixed:10,1000,10,0.30" << true << 0.05;
    QTest::newRow("G6") << "mixed:5,0,0;prefilldecode:2790,4538984.0,2723452.0" << true << 0.05;
    QTest::newRow("G7") << "mixed:0,0,0" << false << 0.05;
    QTest::newRow("G8") << "decode_only:100,1000,500" << true << 0.05;
    QTest::newRow("G10") << "generic:100,1000,500" << true << 0.05;
    QTest::newRow("G11") << "mixed:100,1000,50;decode_only:100,1000,900" << true << 0.05;
    QTest::newRow("G12") << "mixed:100,1000,40;decode_only:100,1000,140" << true << 0.05;
    QTest::newRow("G13") << "mixed:100,1000,49;decode_only:100,1000,149" << true << 0.05;
  }
  void verdictsEqualTheCoreGate() {
    QFETCH(QString, rows);
    QFETCH(bool, withCsv);
    QFETCH(double, threshold);
    const QString dir =
        tmp_->filePath(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char('\''), QLatin1Char('p')));
    QVERIFY(gatetest::writeSplitDir(dir, gatetest::parseRows(rows), withCsv, dir));
    GateRequest req;
    req.dir = dir.toStdString();
    req.threshold = threshold;
    req.comboMode = QStringLiteral("auto");
    JobControl control;
    const std::optional<GateReview> review = reviewGate(req, control);
    QVERIFY(review);
    QVERIFY(!review->rows.isEmpty());
    ChunkModel model;
    model.setChunks(review->rows);
    for (int i = 0; i < review->rows.size(); ++i) {
      const ChunkRow& row = review->rows[i];
      gate::ReviewOptions o;
      o.gate.mode = *gate::parseMode(row.mode.toStdString());
      o.gate.threshold = threshold;
      Expected<gate::GateResult> core = gate::reviewSplitDirectory(dir.toStdString(), o);
      QVERIFY(core.ok());
      QVERIFY(row.hasVerdict);
      QCOMPARE(int(row.verdict), int(verdictOf(core.value())));
      const bool unchecked =
          QString::fromStdString(core.value().summary).startsWith(QStringLiteral("passed — not checked"));
      QCOMPARE(row.unchecked, unchecked);
      const QString cell = model.index(i, ChunkModel::VerdictColumn).data().toString();
      if (unchecked) {
        QVERIFY2(cell.contains(QStringLiteral("unchecked")) && cell.contains(QStringLiteral("⚠")), qPrintable(cell));
        QVERIFY(!cell.contains(QStringLiteral("✔")));
        QVERIFY(!row.note.contains(QStringLiteral("§")));
      } else {
        QVERIFY2(cell.contains(widgets::colors::verdictWord(row.verdict)), qPrintable(cell));
      }
    }
    // The requested mode (auto: mixed for LLM directories) is marked.
    for (const ChunkRow& row : review->rows)
      QCOMPARE(row.requested, row.mode == (review->source->llm ? QStringLiteral("mixed") : QStringLiteral("generic")));
  }

  void emptyStepsWarnBesideTheVerdict() {
    auto source = std::make_shared<GateSource>();
    gate::GateInput& in = source->input;
    in.listing.splitDir = "/split";
    in.listing.chunks[gate::modeIndex(gate::Mode::Mixed)] = {"/split/mixed_steady_state_x.json.gz"};
    in.rows[gate::modeIndex(gate::Mode::Mixed)] =
        gate::ChunkRow::fromValues("/split/mixed_steady_state_x.json.gz", 100, 1000.0, 500.0);
    QVector<ChunkRow> rows(1);
    rows[0].mode = QStringLiteral("mixed");
    rows[0].file = QStringLiteral("mixed_steady_state_x.json.gz");
    applyVerdicts(*source, 0.05, gate::Mode::Mixed, rows);
    QVERIFY(rows[0].hasVerdict && rows[0].verdict == Verdict::Accepted);
    QVERIFY(!rows[0].findingsWarn);
    ChunkModel m;
    m.setChunks(rows);
    QVERIFY(!m.index(0, ChunkModel::VerdictColumn).data().toString().contains(QStringLiteral("⚠")));

    gate::ChunkFacts ev;
    ev.steps = 32;
    ev.stepsWithoutGpu = 23;
    ev.emptyStepIndices = {3, 4, 5};
    in.evidence[gate::modeIndex(gate::Mode::Mixed)] = ev;
    applyVerdicts(*source, 0.05, gate::Mode::Mixed, rows);
    QVERIFY(rows[0].verdict == Verdict::Accepted);
    QVERIFY(rows[0].findingsWarn);
    QVERIFY(rows[0].findings >= 1);
    QVERIFY2(rows[0].findingsText.contains(QStringLiteral("23 of 32 steps")), qPrintable(rows[0].findingsText));
    m.setChunks(rows);
    const QString cell = m.index(0, ChunkModel::VerdictColumn).data().toString();
    QVERIFY2(cell.contains(QStringLiteral("accepted")) && cell.contains(QStringLiteral("⚠")), qPrintable(cell));
    QVERIFY(m.index(0, ChunkModel::FindingsColumn).data().toString().startsWith(QStringLiteral("⚠")));
  }

  void idleGapInsideAChunk() {
    const TracePtr trace = sstest::loadJson(gapTrace(40, 20000.0), "gap.json");
    const timeline::TimelineIndexPtr index = timeline::buildTimelineIndex(*trace);
    const std::optional<SplitView> v = planSplitView(trace, index, windowSplitOptions(8));
    QVERIFY(v);
    QVERIFY2(!v->chunks.isEmpty(), qPrintable(v->noChunks));
    bool seen = false;
    for (const ChunkRow& r : v->chunks) {
      if (r.stepCount < 2) continue;
      seen = true;
      QCOMPARE(r.longestGapNs, qint64(20'000'000));
      QVERIFY2(r.busyWindow < r.busyUnion, qPrintable(QStringLiteral("%1 %2").arg(r.busyWindow).arg(r.busyUnion)));
      QVERIFY(std::abs(r.busyUnion - 1.0) < 1e-9);  // each step's GPU span is its one kernel
      QVERIFY(r.gapDevices.contains(QStringLiteral("20")));
    }
    QVERIFY(seen);
    // Without the gap the window ratio is far higher.
    const TracePtr tight = sstest::loadJson(gapTrace(40, 150.0), "tight.json");
    const std::optional<SplitView> w =
        planSplitView(tight, timeline::buildTimelineIndex(*tight), windowSplitOptions(8));
    QVERIFY(w && !w->chunks.isEmpty());
    QVERIFY(w->chunks.first().longestGapNs < 1'000'000);
  }

  // A live split whose chunk has steps without GPU work: the explanation's link marks and selects them.
  void explanationLinkSelectsSteps() {
    const QString path = tmp_->filePath(QStringLiteral("empty_steps.json"));
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(gapTrace(48, 300.0, 4)));
    }
    MainWindow w(testsupport::tempSettings(tmp_->filePath(QStringLiteral("s2.ini"))));
    w.show();
    w.openFile(path);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document());
    w.runSplit();
    STEADYSCOPE_WAIT_IDLE(w);
    QTRY_VERIFY(w.selection()->chunk() >= 0);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().shownGate());
    QVector<int> expected;
    for (const gate::Finding& f : w.document().shownGate()->findings)
      if (f.code == "steps_without_gpu_work")
        for (const JsonValue& v : f.details.find("empty_step_indices")->items()) expected << int(v.asDouble());
    QVERIFY2(!expected.isEmpty(), "the chunk has steps without GPU work");
    const ChunkRow& row = w.panes().chunks->model()->chunks()[w.selection()->chunk()];
    QVERIFY(row.findingsWarn);
    // The first thing the pane says is the verdict, in plain words, without spec references.
    const QString text = w.panes().explanation->text();
    QVERIFY2(text.section(QLatin1Char('\n'), 0, 4).contains(QStringLiteral("Passed")), qPrintable(text.left(300)));
    QVERIFY(!text.contains(QStringLiteral("§")));
    QVERIFY(!text.contains(QStringLiteral("trace_health_warnings")));  // the JSON waits behind Details
    // Click the link where it is drawn.
    QTextBrowser* b = w.panes().explanation->browser();
    QTextCursor link;
    for (QTextBlock blk = b->document()->begin(); blk.isValid() && link.isNull(); blk = blk.next())
      for (auto it = blk.begin(); !it.atEnd(); ++it)
        if (it.fragment().charFormat().anchorHref().startsWith(QStringLiteral("steps:"))) {
          link = QTextCursor(b->document());
          link.setPosition(it.fragment().position() + 1);
          break;
        }
    QVERIFY(!link.isNull());
    b->ensureCursorVisible();
    b->setTextCursor(link);
    b->ensureCursorVisible();
    const QRect r = b->cursorRect(link);
    QTest::mouseClick(b->viewport(), Qt::LeftButton, {}, r.center());
    QTRY_VERIFY(!w.selection()->markedSteps().isEmpty());
    QVector<int> marked;
    for (int pos : w.selection()->markedSteps()) marked << w.document().overlays()->steps[size_t(pos)].index;
    std::sort(expected.begin(), expected.end());
    QCOMPARE(marked, expected);
    QCOMPARE(w.document().overlays()->steps[size_t(w.selection()->step())].index, expected.first());
    // Passing bookkeeping rules are folded until asked for.
    QVERIFY(!w.panes().explanation->bookkeepingShown());
    QVERIFY(!text.contains(QStringLiteral("in-memory row")));
    w.panes().explanation->openLink(QUrl(QStringLiteral("fold:")));
    QVERIFY(w.panes().explanation->text().contains(QStringLiteral("in-memory row")));
  }

  // Selecting a chunk: the band is in its mode's row, its steps' GPU spans are on the overlay, and
  // Details shows its figures and top kernels.
  void selectedChunkDetailsAndSpans() {
    const QString sample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
    if (!QFileInfo::exists(sample)) QSKIP("the bundled sample trace is not there yet");
    MainWindow w(testsupport::tempSettings(tmp_->filePath(QStringLiteral("s3.ini"))));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    QTRY_VERIFY(w.selection()->chunk() >= 0);
    STEADYSCOPE_WAIT_IDLE(w);
    const auto& ov = *w.document().overlays();
    QCOMPARE(ov.chunkRowCount(), int(ov.chunks.size()));  // one mode each: one row each
    const int c = w.selection()->chunk();
    const ChunkRow& row = w.panes().chunks->model()->chunks()[c];
    QCOMPARE(int(ov.chunks[size_t(c)].gpuSpans.size()), row.stepCount);  // one device: one span per step with GPU work
    int64_t spanSum = 0;
    for (const auto& sp : ov.chunks[size_t(c)].gpuSpans) spanSum += sp.endNs - sp.beginNs;
    QVERIFY(std::abs(double(spanSum) / 1000.0 - row.gpuTimeUs) < 1.0 + 1e-6 * row.gpuTimeUs);
    const QString details = w.panes().details->text();
    QVERIFY2(details.contains(QStringLiteral("Top kernels by GPU time")), qPrintable(details));
    QVERIFY(details.contains(QStringLiteral("busy (window)")));
  }

  // A directory the splitter wrote, opened with its source: bands and steps drawn, every column filled
  // from the CSV and the re-planned windows; a fresh split is a second result beside it.
  void directoryReviewAndASplitCoexist() {
    const QString sample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
    if (!QFileInfo::exists(sample)) QSKIP("the bundled sample trace is not there yet");
    const QString out = tmp_->filePath(QStringLiteral("written"));
    {
      auto loaded = loadTrace(sample.toStdString());
      QVERIFY(loaded.ok());
      analysis::Splitter sp(loaded.value());
      analysis::SplitOptions o;
      o.findSteadyState = true;
      o.outputDir = out.toStdString();
      const analysis::SplitResult r = sp.plan(o);
      QVERIFY(sp.write(r).ok());
    }
    MainWindow w(testsupport::tempSettings(tmp_->filePath(QStringLiteral("s4.ini"))));
    w.show();
    w.controllers().review->openSplitDirectory(out, sample);
    STEADYSCOPE_WAIT_IDLE(w);
    QTRY_VERIFY_WITH_TIMEOUT(w.document().overlays() && !w.document().overlays()->chunks.empty(), 60000);
    STEADYSCOPE_WAIT_IDLE(w);
    const QVector<ChunkRow> review = w.panes().chunks->model()->chunks();
    QVERIFY(review.size() >= 3);
    const auto& ov = *w.document().overlays();
    QVERIFY(!ov.steps.empty());
    QCOMPARE(int(ov.chunks.size()), int(review.size()));
    ChunkModel m;
    m.setChunks(review);
    for (int i = 0; i < review.size(); ++i) {
      const ChunkRow& r = review[i];
      QVERIFY2(r.endNs > r.beginNs && r.firstStep >= 0, qPrintable(r.file));
      QCOMPARE(ov.chunks[size_t(i)].beginNs, r.beginNs);
      for (int c = 0; c < ChunkModel::NUM_COLUMNS; ++c)
        if (c != ChunkModel::FindingsColumn || r.hasVerdict)
          QVERIFY2(m.index(i, c).data().toString() != QStringLiteral("–"),
                   qPrintable(r.file + QStringLiteral(" column ") + ChunkModel::headerText(c)));
    }
    QCOMPARE(w.document().results().size(), size_t(1));
    // A fresh split is a second result; the review stays, with its own verdicts.
    w.panes().run->thresholdBox()->setValue(0.7);  // the mixed chunk (0.768) passes, decode_only (0.566) does not
    STEADYSCOPE_WAIT_IDLE(w);
    const QVector<ChunkRow> reviewAt07 = w.panes().chunks->model()->chunks();
    w.runSplit();
    STEADYSCOPE_WAIT_IDLE(w);
    QCOMPARE(w.document().results().size(), size_t(2));
    QCOMPARE(w.document().currentResult(), 1);
    QVERIFY(w.document().gateSource() && w.document().gateSource()->kind == GateSource::Kind::Live);
    QVERIFY(w.panes().results->isEnabled());
    w.controllers().split->showResult(0);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().gateSource() && w.document().gateSource()->kind == GateSource::Kind::Directory);
    const QVector<ChunkRow> back = w.panes().chunks->model()->chunks();
    QCOMPARE(back.size(), reviewAt07.size());
    for (int i = 0; i < back.size(); ++i) {
      QCOMPARE(back[i].file, reviewAt07[i].file);
      QCOMPARE(int(back[i].verdict), int(reviewAt07[i].verdict));
      QCOMPARE(back[i].events, reviewAt07[i].events);
    }
    w.controllers().split->showResult(1);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().gateSource()->kind == GateSource::Kind::Live);
    QCOMPARE(w.panes().chunks->model()->chunks().size(), w.document().results()[1].rows.size());
  }

  void copyTwoRowsAsTsv() {
    widgets::ChunksPanel p;
    QVector<ChunkRow> rows = threeRows();
    rows[0].requested = true;  // drawn "▶ mixed"
    rows[0].findings = 2;
    rows[0].findingsWarn = true;  // "⚠ 2", "✔ accepted  ⚠"
    rows[2].verdict = Verdict::Refused;
    p.setChunks(rows);
    p.show();
    QItemSelectionModel* sel = p.view()->selectionModel();
    sel->select(p.view()->model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    sel->select(p.view()->model()->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QApplication::clipboard()->clear();
    p.view()->setFocus();
    QTest::keySequence(p.view(), QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QStringList header;
    for (int c = 0; c < ChunkModel::NUM_COLUMNS; ++c) header << ChunkModel::headerText(c);
    QCOMPARE(lines[0], header.join(QLatin1Char('\t')));
    QCOMPARE(lines[1].split(QLatin1Char('\t')).size(), int(ChunkModel::NUM_COLUMNS));
    QVERIFY(lines[1].startsWith(QStringLiteral("mixed\t")));
    QVERIFY(lines[2].startsWith(QStringLiteral("prefilldecode\t")));
    // Plain values: the view's marks stay in the view.
    QVERIFY(p.view()->model()->index(0, ChunkModel::ModeColumn).data().toString().startsWith(QStringLiteral("▶")));
    for (const char* glyph : {"▶", "✔", "✓", "✗", "✖", "⚠", "∅"})
      QVERIFY2(!QApplication::clipboard()->text().contains(QString::fromUtf8(glyph)), glyph);
    const QStringList first = lines[1].split(QLatin1Char('\t'));
    QCOMPARE(first[ChunkModel::FindingsColumn], QStringLiteral("2"));
    QCOMPARE(first[ChunkModel::VerdictColumn], QStringLiteral("accepted"));
    QCOMPARE(lines[2].split(QLatin1Char('\t'))[ChunkModel::VerdictColumn], QStringLiteral("refused"));
  }

  void choosingARowZoomsToTheChunk() {
    const QString sample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
    if (!QFileInfo::exists(sample)) QSKIP("the bundled sample trace is not there yet");
    MainWindow w(testsupport::tempSettings(tmp_->filePath(QStringLiteral("s.ini"))));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    QTableView* v = w.panes().chunks->view();
    QVERIFY(v->model()->rowCount() > 1);
    // On open the mode the pipeline asks for (auto: mixed for a serving trace) is marked and selected.
    QTRY_VERIFY(w.selection()->chunk() >= 0);
    STEADYSCOPE_WAIT_IDLE(w);
    const ChunkRow& opened = w.panes().chunks->model()->chunks()[w.selection()->chunk()];
    QCOMPARE(opened.mode, QStringLiteral("mixed"));
    QVERIFY(opened.requested);
    QVERIFY(w.panes()
                .chunks->model()
                ->index(w.selection()->chunk(), ChunkModel::ModeColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("▶")));
    for (int r = v->model()->rowCount() - 1; r >= 0; --r) {
      v->setCurrentIndex(v->model()->index(r, 0));
      const int src = w.selection()->chunk();
      const ChunkRow& c = w.panes().chunks->model()->chunks()[src];
      const timeline::ViewControl& vc = w.panes().timeline->viewControl();
      const double b = double(vc.origin()) + vc.beginRel(), e = double(vc.origin()) + vc.endRel();
      const double span = double(c.endNs - c.beginNs);
      QVERIFY2(b <= double(c.beginNs) && e >= double(c.endNs), qPrintable(c.mode));
      QVERIFY(e - b <= span * 1.05 + 1);  // the chunk fills the view (a 2 % margin each side)
    }
  }
};

QTEST_MAIN(TstChunkTable)
#include "tst_chunk_table.moc"
