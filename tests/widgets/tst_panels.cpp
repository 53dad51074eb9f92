// Panes: item models pass QAbstractItemModelTester, the details pane's range
// statistics equal the core's, the welcome screen lists recent files and
// disables a missing sample.
#include "trace_builder.hpp"

#include "common/rich_text.hpp"
#include "common/table_tsv.hpp"
#include "common/text.hpp"
#include "panels/anomalies_panel.hpp"
#include "panels/chunks_panel.hpp"
#include "panels/details_panel.hpp"
#include "panels/explanation_panel.hpp"
#include "panels/welcome_widget.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QListWidget>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTreeView>
#include <QUrl>
#include <QSignalSpy>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::widgets;

class TstPanels : public QObject {
  Q_OBJECT
 private slots:
  void plainCellsAndCounts();
  void anomalyModel();
  void anomaliesOnlyExpected();
  void detailsChunkSaysWhyBusyDiffers();
  void chunkModel();
  void detailsRangeStats();
  void detailsEvent();
  void detailsSourceTextOfGzip();
  void welcome();
  void explanation();
  void codeSpans();
};

namespace {
// A details panel showing `t`, driven by its own selection model.
struct DetailsFixture {
  explicit DetailsFixture(TracePtr t) {
    doc.trace = std::move(t);
    doc.index = timeline::buildTimelineIndex(*doc.trace);
    panel.setDocument(doc);
    panel.setSelectionModel(&sel);
  }
  TraceDocument doc;
  DetailsPanel panel;
  SelectionModel sel;
};
}  // namespace

void TstPanels::plainCellsAndCounts() {
  QCOMPARE(plainCellText(QStringLiteral("▶ mixed")), QStringLiteral("mixed"));
  QCOMPARE(plainCellText(QStringLiteral("✔ accepted  ⚠")), QStringLiteral("accepted"));
  QCOMPARE(plainCellText(QStringLiteral("∅ missing")), QStringLiteral("missing"));
  QCOMPARE(plainCellText(QStringLiteral("✓ ok\t✗ no")), QStringLiteral("ok no"));
  QCOMPARE(plainCellText(QStringLiteral("−3.0 %")), QStringLiteral("−3.0 %"));  // a value's own signs stay
  QCOMPARE(plainCellText(QStringLiteral("10–17")), QStringLiteral("10–17"));
  QStandardItemModel m(1, 2);
  m.setHorizontalHeaderLabels({QStringLiteral("mode"), QStringLiteral("verdict")});
  m.setItem(0, 0, new QStandardItem(QStringLiteral("▶ decode_only")));
  m.setItem(0, 1, new QStandardItem(QStringLiteral("✖ refused")));
  QCOMPARE(tableRowsTsv(m, {0}), QStringLiteral("mode\tverdict\ndecode_only\trefused\n"));
  QCOMPARE(countOf(1, QStringLiteral("step"), QStringLiteral("steps")), QStringLiteral("1 step"));
  QCOMPARE(countOf(0, QStringLiteral("step"), QStringLiteral("steps")), QStringLiteral("0 steps"));
  QCOMPARE(countOf(2, QStringLiteral("step"), QStringLiteral("steps")), QStringLiteral("2 steps"));
  QCOMPARE(countOf(12345, QStringLiteral("event"), QStringLiteral("events")), QStringLiteral("12,345 events"));
}

void TstPanels::anomalyModel() {
  // Suspicious kinds first, then the expected ones, each largest first, with the core's words.
  testing::TraceBuilder b;
  b.add(0, 7, "k", "kernel", 0, 10);
  b.trace().anomalies.push_back({"flow_without_peer", "cut flow", 9234, 0});
  b.trace().anomalies.push_back({"dur_negative", "negative dur", 12, 0});
  b.trace().anomalies.push_back({"unmatched_E", "an E without a B", 30, -1});
  AnomaliesPanel panel;
  QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  panel.setTrace(b.finish());
  QStandardItemModel* m = panel.model();
  QCOMPARE(m->rowCount(), 2);
  const QModelIndex suspicious = m->index(0, 0), expected = m->index(1, 0);
  QVERIFY(suspicious.data().toString().startsWith(QStringLiteral("Suspicious")));
  QVERIFY(expected.data().toString().startsWith(QStringLiteral("Expected")));
  QCOMPARE(m->rowCount(suspicious), 2);
  QCOMPARE(m->index(0, AnomaliesPanel::CodeColumn, suspicious).data().toString(), QStringLiteral("unmatched_E"));
  QCOMPARE(m->index(1, AnomaliesPanel::CountColumn, suspicious).data(AnomaliesPanel::CountRole).toULongLong(), 12ull);
  QCOMPARE(m->index(1, AnomaliesPanel::KindColumn, suspicious).data().toString(), QStringLiteral("negative durations"));
  QCOMPARE(m->index(1, AnomaliesPanel::AffectsColumn, suspicious).data().toString(),
           QString::fromUtf8(findAnomalyKind("dur_negative")->affects.data(),
                             qsizetype(findAnomalyKind("dur_negative")->affects.size())));
  QCOMPARE(m->rowCount(expected), 1);
  QCOMPARE(m->index(0, AnomaliesPanel::CodeColumn, expected).data().toString(), QStringLiteral("flow_without_peer"));
  QVERIFY(m->index(0, AnomaliesPanel::ExampleColumn, expected).data().toString().startsWith(QStringLiteral("event 0")));
  QVERIFY2(panel.summaryText().contains(QStringLiteral("end ('E') events without a begin (30)")),
           qPrintable(panel.summaryText()));
  QVERIFY(!panel.summaryText().contains(QStringLiteral("flows")));
  // A double-click on a row with an example shows it; the example-less row does nothing.
  QSignalSpy spy(&panel, &AnomaliesPanel::eventActivated);
  emit panel.view()->activated(m->index(1, AnomaliesPanel::KindColumn, suspicious));
  emit panel.view()->activated(m->index(0, AnomaliesPanel::KindColumn, suspicious));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.first().first().toLongLong(), 0);
  panel.setTrace(nullptr);
  QCOMPARE(m->rowCount(), 0);
}

void TstPanels::anomaliesOnlyExpected() {
  testing::TraceBuilder b;
  b.add(0, 7, "k", "kernel", 0, 10);
  b.trace().anomalies.push_back({"kernel_without_launch", "no launch", 4, 0});
  AnomaliesPanel panel;
  panel.setTrace(b.finish());
  QCOMPARE(panel.model()->rowCount(), 1);
  QVERIFY(panel.model()->index(0, 0).data().toString().startsWith(QStringLiteral("Expected")));
  QVERIFY2(panel.summaryText().startsWith(QStringLiteral("Nothing suspicious")), qPrintable(panel.summaryText()));
}

void TstPanels::chunkModel() {
  ChunksPanel panel;
  SelectionModel sel;
  panel.setSelectionModel(&sel);
  QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  ChunkRow a;
  a.mode = QStringLiteral("mixed");
  a.firstStep = 141;
  a.lastStep = 173;
  a.beginNs = 0;
  a.endNs = 20'000'000;
  a.events = 4276;
  a.busyRef = 0.031;
  a.hasVerdict = true;
  a.verdict = colors::Verdict::Refused;
  ChunkRow d = a;
  d.mode = QStringLiteral("decode_only");
  d.busyRef = 0.41;
  d.verdict = colors::Verdict::Accepted;
  panel.setChunks({a, d});
  QCOMPARE(panel.model()->rowCount(), 2);
  QVERIFY(panel.model()->index(0, ChunkModel::VerdictColumn).data().toString().contains(QStringLiteral("refused")));
  QCOMPARE(panel.model()->index(0, ChunkModel::BusyRefColumn).data().toString(), QStringLiteral("0.031"));
  QCOMPARE(panel.model()->index(0, ChunkModel::EventsColumn).data().toString(), QStringLiteral("4,276"));
  sel.setChunk(1);
  QCOMPARE(panel.view()->selectionModel()->selectedRows().size(), 1);
}

void TstPanels::detailsRangeStats() {
  auto t = testing::makeRegularTrace(1000, 1000, 600, true);
  DetailsFixture f(t);
  DetailsPanel& panel = f.panel;
  SelectionModel& sel = f.sel;
  sel.setRange(t->tsNs[0] + 10'000, t->tsNs[0] + 250'000);
  const timeline::RangeStats want =
      timeline::computeRangeStats(*t, *f.doc.index, t->tsNs[0] + 10'000, t->tsNs[0] + 250'000);
  QCOMPARE(panel.rangeStats().sliceCount, want.sliceCount);
  QCOMPARE(panel.rangeStats().perName.size(), want.perName.size());
  QCOMPARE(panel.rangeTable()->rowCount(), int(want.perName.size()));
  QVERIFY(panel.text().contains(QStringLiteral("busy ratio")));
  QCOMPARE(panel.rangeStats().devices.at(0).ratio, want.devices.at(0).ratio);
}

void TstPanels::detailsChunkSaysWhyBusyDiffers() {
  auto t = testing::makeRegularTrace(10, 1000, 600, true);
  DetailsFixture f(t);
  ChunkRow r;
  r.mode = QStringLiteral("generic");
  r.busyRef = 0.499;
  r.busyWindow = 0.054;
  r.busyNote = QStringLiteral("The steps' GPU work runs 464 ms past their CPU window: …");
  ChunkRow agree = r;
  agree.busyNote.clear();
  f.panel.setChunks({r, agree});
  f.sel.setChunk(0);
  QVERIFY2(f.panel.text().contains(QStringLiteral("Why the busy figures differ: The steps' GPU work runs 464 ms")),
           qPrintable(f.panel.text()));
  f.sel.setChunk(1);
  QVERIFY(!f.panel.text().contains(QStringLiteral("Why the busy figures differ")));
}

void TstPanels::detailsEvent() {
  auto t = testing::makeRegularTrace(10, 1000, 600, true);
  DetailsFixture f(t);
  DetailsPanel& panel = f.panel;
  SelectionModel& sel = f.sel;
  sel.setEvent(1);
  QVERIFY(panel.text().contains(QStringLiteral("elementwise_kernel")));
  QVERIFY(panel.text().contains(QStringLiteral("launched by")));
}

// The bundled sample is a .json.gz: its text is not kept but re-inflated from
// checkpoints when an event is shown.
void TstPanels::detailsSourceTextOfGzip() {
  auto r = loadTrace(STEADYSCOPE_SOURCE_DIR "/resources/sample/vllm_sample.json.gz");
  QVERIFY(r.ok());
  TracePtr t = r.value();
  QVERIFY(t->source->text().empty());
  DetailsFixture f(t);
  DetailsPanel& panel = f.panel;
  SelectionModel& sel = f.sel;
  const EventIdx last = EventIdx(t->size() - 1);
  sel.setEvent(last);
  const QString text = panel.text();
  QVERIFY2(text.contains(QStringLiteral("Source text")), qPrintable(text.left(400)));
  QVERIFY2(text.contains(QStringLiteral("\"ph\"")), qPrintable(text.right(400)));
  QVERIFY(text.contains(QString::fromStdString(std::string(t->nameOf(last))).left(20)));
}

void TstPanels::welcome() {
  WelcomeWidget w;
  w.setRecentFiles({QStringLiteral("/tmp/a.json.gz"), QStringLiteral("/tmp/b.json")});
  QCOMPARE(w.recentList()->count(), 2);
  QSignalSpy spy(&w, &WelcomeWidget::openRecentRequested);
  emit w.recentList()->itemActivated(w.recentList()->item(1));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("/tmp/b.json"));
  w.setSamplePath(QStringLiteral("/nonexistent/sample.json.gz"));
  QVERIFY(!w.openSampleButton()->isEnabled());
  QVERIFY(w.openSampleButton()->toolTip().contains(QStringLiteral("not installed")));
}

void TstPanels::explanation() {
  ExplanationPanel p;
  GateExplanation e;
  e.title = QStringLiteral("mixed_steady_state_x_foo.json.gz");
  e.verdict = colors::Verdict::Refused;
  e.reason = QStringLiteral("steady_state_chunk_low_quality");
  GateRule rule;
  rule.name = QStringLiteral("threshold");
  rule.subject = QStringLiteral("mixed");
  rule.outcome = QStringLiteral("failed");
  rule.sentence = QStringLiteral("mixed: busy ratio 0.031 < threshold 0.05");
  rule.value = QStringLiteral("ratio=0.031, threshold=0.05");
  e.rules.push_back(rule);
  e.alternates << QStringLiteral("decode_only 0.41");
  e.retry = QStringLiteral("retry decode_only");
  e.findings << QStringLiteral("steps_without_gpu_work (mixed): 30 of 32 steps have no GPU work")
             << QStringLiteral(
                    "4 GPU events use legacy names; `steadyscope-cli split --fix legacy-categories` counts them.");
  e.warningsJson = QStringLiteral("{\"status\": \"error\"}");
  p.setExplanation(e);
  const QString t = p.text();
  QVERIFY(t.contains(QStringLiteral("refused")));  // the word, not only the colour
  QVERIFY(t.contains(QStringLiteral("threshold")));
  QVERIFY(t.contains(QStringLiteral("\u2716 fail")));
  QVERIFY(t.contains(rule.sentence));
  QVERIFY(t.contains(QStringLiteral("decode_only 0.41")));
  QVERIFY(t.contains(QStringLiteral("\u2192 retry decode_only")));
  QVERIFY(t.contains(QStringLiteral("steps_without_gpu_work")));
  QVERIFY2(t.contains(QStringLiteral("legacy names; steadyscope-cli split --fix legacy-categories counts")),
           qPrintable(t));  // the command shown as code, without its backticks
  // The codes and the JSON wait behind "Details".
  QVERIFY(!t.contains(QStringLiteral("\"status\"")));
  QVERIFY(t.contains(QStringLiteral("Details: codes and the pipeline's JSON")));
  p.openLink(QUrl(QStringLiteral("details:")));
  QVERIFY(p.detailsShown());
  QVERIFY(p.text().contains(QStringLiteral("verdict code: steady_state_chunk_low_quality")));
  QVERIFY(p.text().contains(QStringLiteral("\"status\": \"error\"")));
  QVERIFY(p.copyButton()->isEnabled());
  p.copyWarnings();
  QCOMPARE(QApplication::clipboard()->text(), e.warningsJson);
  p.clear();
  QVERIFY(!p.copyButton()->isEnabled());
}

void TstPanels::codeSpans() {
  QCOMPARE(codeSpansHtml(QStringLiteral("a `b<c` d")), QStringLiteral("a <code>b&lt;c</code> d"));
  QCOMPARE(codeSpansHtml(QStringLiteral("no names & more")), QStringLiteral("no names &amp; more"));
  QCOMPARE(codeSpansHtml(QStringLiteral("`x`")), QStringLiteral("<code>x</code>"));
  // An unmatched backtick: the rest is code, and the HTML stays well formed.
  QCOMPARE(codeSpansHtml(QStringLiteral("a `b")), QStringLiteral("a <code>b</code>"));
}

QTEST_MAIN(TstPanels)
#include "tst_panels.moc"
