// The gate in the window (offscreen): a live split of the bundled sample gets
// a verdict on every chunk row and an explanation listing the rules with their
// sentences; a hand-made split directory with a low-quality mixed chunk and a
// good prefilldecode chunk shows mixed refused with prefilldecode offered;
// the threshold spin box and the mode combo re-gate without re-splitting; a
// directory without execution_details.csv passes with the gate's finding.
#include "app_test_support.hpp"
#include "main_window.hpp"

#include "panels/chunks_panel.hpp"
#include "panels/explanation_panel.hpp"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::app;
using widgets::colors::Verdict;

namespace {
using testsupport::tempSettings;

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
  f.write(bytes);
}

const QString kMixed =
    QStringLiteral("mixed_steady_state_prefill_0_prefilldecode_8_decode_24_bs448_conc64_tiny.json.gz");
const QString kPd =
    QStringLiteral("prefilldecode_steady_state_prefill_0_prefilldecode_9_decode_0_bs2014_conc64_tiny.json.gz");

/// A split directory: mixed at busy ratio 0.02 (low quality), prefilldecode at
/// 0.6; absolute output_path values, so rows match by path.
QString writeDir(const QString& root, bool withCsv) {
  const QString d = root + QStringLiteral("/out");
  QDir().mkpath(d);
  writeFile(d + QLatin1Char('/') + kMixed, {});
  writeFile(d + QLatin1Char('/') + kPd, {});
  if (withCsv)
    writeFile(d + QStringLiteral("/execution_details.csv"),
              ("idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,num_steps\n"
               "0," +
               d + "/" + kMixed +
               ",4000,100,1000.00,20.00,32\n"
               "0," +
               d + "/" + kPd + ",1800,50,1000.00,600.00,9\n")
                  .toUtf8());
  return d;
}

int rowOf(const MainWindow& w, const QString& mode) {
  const auto& rows = w.panes().chunks->model()->chunks();
  for (int i = 0; i < rows.size(); ++i)
    if (rows[i].mode == mode) return i;
  return -1;
}
}  // namespace

class TstGateView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void liveSplitVerdictsAndExplanation();
  void directoryLowQualityMixedOffersPrefilldecode();
  void directoryWithoutCsvPasses();
  void heldReviewLeavesWindowResponsive();

 private:
  std::unique_ptr<QTemporaryDir> tmp_;
};

void TstGateView::initTestCase() {
  tmp_ = std::make_unique<QTemporaryDir>();
  QVERIFY(tmp_->isValid());
}

void TstGateView::liveSplitVerdictsAndExplanation() {
  const QString sample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);
  if (!QFileInfo::exists(sample)) QSKIP("the bundled sample trace is not there");
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("live.ini"))));
  STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
  QVERIFY(w.document().gateSource());
  const auto& rows = w.panes().chunks->model()->chunks();
  QVERIFY(!rows.isEmpty());
  for (const widgets::ChunkRow& r : rows) QVERIFY2(r.hasVerdict, qPrintable(r.mode));
  // The verdict column shows icon and word.
  const auto* m = w.panes().chunks->model();
  const QString cell = m->data(m->index(0, widgets::ChunkModel::VerdictColumn), Qt::DisplayRole).toString();
  QVERIFY2(cell.contains(QRegularExpression(QStringLiteral("accepted|low quality|refused|missing"))), qPrintable(cell));

  // The explanation: every rule of the record, in order, with its sentence.
  QVERIFY(w.controllers().split->selectMode(rows.first().mode));
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().shownGate());
  const gate::GateResult& g = *w.document().shownGate();
  QCOMPARE(QString::fromUtf8(gate::modeName(g.options.mode)), rows.first().mode);
  // The passing bookkeeping rules are folded; unfolded, the rules section lists every rule in order.
  QVERIFY(!w.panes().explanation->text().contains(QString::fromStdString(g.record.front().sentence)));
  w.panes().explanation->openLink(QUrl(QStringLiteral("fold:")));
  const QString text = w.panes().explanation->text();
  QVERIFY(!g.record.empty());
  qsizetype pos = text.indexOf(QStringLiteral("Rules, in order"));
  QVERIFY(pos >= 0);
  for (const gate::RuleEvaluation& r : g.record) {
    const qsizetype at = text.indexOf(plainSentence(r.sentence), pos);
    QVERIFY2(at >= 0, qPrintable(QString::fromStdString(r.rule + ": " + r.sentence)));
    pos = at;
  }
  QVERIFY(text.contains(QStringLiteral("threshold")));
  QVERIFY(!text.contains(QStringLiteral("trace_health_warnings")));  // behind Details
  w.panes().explanation->openLink(QUrl(QStringLiteral("details:")));
  QVERIFY(w.panes().explanation->text().contains(QStringLiteral("trace_health_warnings")));
  QVERIFY(!w.panes().explanation->warningsJson().isEmpty());

  // Threshold 1: nothing real reaches it; the selected chunk's verdict changes
  // without a new split (same overlays).
  const auto overlays = w.document().overlays();
  const Verdict before = rows.first().verdict;
  w.panes().run->thresholdBox()->setValue(1.0);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().overlays() == overlays);
  QVERIFY(w.document().shownGate());
  QCOMPARE(w.document().shownGate()->options.threshold, 1.0);
  const Verdict after = w.panes().chunks->model()->chunks().first().verdict;
  QVERIFY(after == Verdict::LowQuality || after == Verdict::Refused);
  if (before == Verdict::Accepted) QVERIFY(after != before);
  QCOMPARE(w.selection()->chunk(), 0);  // the re-gate keeps the selection
}

void TstGateView::directoryLowQualityMixedOffersPrefilldecode() {
  QTemporaryDir root;
  const QString d = writeDir(root.path(), true);
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("dir.ini"))));
  w.show();
  w.controllers().review->openSplitDirectory(d);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().gateSource());
  const int mixed = rowOf(w, QStringLiteral("mixed")), pd = rowOf(w, QStringLiteral("prefilldecode"));
  QVERIFY(mixed >= 0 && pd >= 0);
  auto rows = [&] { return w.panes().chunks->model()->chunks(); };
  QVERIFY(rows()[mixed].verdict == Verdict::Refused);
  QVERIFY(rows()[mixed].hasVerdict);
  QVERIFY(rows()[pd].verdict == Verdict::Accepted);
  QCOMPARE(rows()[mixed].gpuEvents, qint64(100));
  QVERIFY(qAbs(rows()[mixed].busyRef - 0.02) < 1e-12);
  QVERIFY(qAbs(rows()[pd].busyRef - 0.6) < 1e-12);

  // Nothing selected: auto = mixed (an LLM split).
  QVERIFY(w.document().shownGate());
  QVERIFY(w.document().shownGate()->options.mode == gate::Mode::Mixed);
  QVERIFY(w.controllers().split->selectMode(QStringLiteral("mixed")));
  STEADYSCOPE_WAIT_IDLE(w);
  QString text = w.panes().explanation->text();
  QVERIFY2(text.contains(QStringLiteral("Refused")), qPrintable(text));
  QVERIFY(!text.contains(QStringLiteral("steady_state_chunk_low_quality")));  // the code waits behind Details
  w.panes().explanation->openLink(QUrl(QStringLiteral("details:")));
  QVERIFY(w.panes().explanation->text().contains(QStringLiteral("steady_state_chunk_low_quality")));
  w.panes().explanation->openLink(QUrl(QStringLiteral("details:")));
  QVERIFY(text.contains(QStringLiteral("prefilldecode 0.6")));  // the qualifying alternate
  QVERIFY(text.contains(QStringLiteral("\u2192 retry prefilldecode")));
  QVERIFY(w.document().shownGate()->nonEmptyModes == std::vector<std::string>{"prefilldecode"});

  // The prefilldecode row shows its own gate.
  w.selection()->setChunk(pd);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().shownGate()->options.mode == gate::Mode::PrefillDecode);
  QVERIFY(w.panes().explanation->text().contains(QStringLiteral("Passed")));

  // Threshold 0.7: prefilldecode no longer qualifies; mixed passes low quality.
  w.panes().run->thresholdBox()->setValue(0.7);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(rows()[mixed].verdict == Verdict::LowQuality);
  QVERIFY(rows()[pd].verdict == Verdict::LowQuality);
  // Threshold 0.01: mixed is accepted.
  w.panes().run->thresholdBox()->setValue(0.01);
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(rows()[mixed].verdict == Verdict::Accepted);
  w.selection()->clear();
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().shownGate()->options.mode == gate::Mode::Mixed);
  QVERIFY(w.document().shownGate()->accepted);

  // The mode combo: prefilldecode requested with nothing selected.
  w.panes().run->thresholdBox()->setValue(0.05);
  w.panes().run->modeBox()->setCurrentText(QStringLiteral("prefilldecode"));
  STEADYSCOPE_WAIT_IDLE(w);
  QVERIFY(w.document().shownGate()->options.mode == gate::Mode::PrefillDecode);
  QVERIFY(w.document().shownGate()->accepted);
}

void TstGateView::directoryWithoutCsvPasses() {
  QTemporaryDir root;
  const QString d = writeDir(root.path(), false);
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("nocsv.ini"))));
  w.show();
  w.controllers().review->openSplitDirectory(d);
  STEADYSCOPE_WAIT_IDLE(w);
  const int mixed = rowOf(w, QStringLiteral("mixed"));
  QVERIFY(mixed >= 0);
  QVERIFY(w.panes().chunks->model()->chunks()[mixed].verdict == Verdict::Accepted);
  QCOMPARE(w.panes().chunks->model()->chunks()[mixed].gpuEvents, qint64(-1));
  QVERIFY(w.document().shownGate());
  QVERIFY(w.document().shownGate()->accepted);
  // The finding in words, and the row says the pipeline passes it unchecked.
  QVERIFY(w.panes().explanation->text().contains(
      QStringLiteral("does not exist; the pipeline passes any chunk unchecked")));
  QVERIFY(w.panes().chunks->model()->chunks()[mixed].unchecked);
}

void TstGateView::heldReviewLeavesWindowResponsive() {
  QTemporaryDir root;
  const QString d = writeDir(root.path(), true);
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("held.ini"))));
  w.show();
  testsupport::StageHold hold("review");
  w.jobs()->lane(app::JobKind::Review)->setStageObserverForTests(hold.observer());
  w.controllers().review->openSplitDirectory(d);
  QTRY_VERIFY(hold.reached());
  // The GUI thread runs (a timer fires, the status bar shows the review with
  // Cancel) while the review is held on its thread.
  bool fired = false;
  QTimer::singleShot(20, &w, [&fired] { fired = true; });
  QTRY_VERIFY(fired);
  auto* cancel = w.findChild<QPushButton*>(QStringLiteral("status.cancel"));
  QTRY_VERIFY(cancel && cancel->isVisible());
  QVERIFY(w.jobs()->lane(app::JobKind::Review)->isRunning());
  QVERIFY(!w.document().gateSource());  // nothing of the held review reached the window

  // A threshold change supersedes it: the new review completes, and the held
  // one, let go afterwards, is dropped.
  w.panes().run->thresholdBox()->setValue(0.01);
  STEADYSCOPE_WAIT_IDLE(w);
  const GateSource* source = w.document().gateSource();
  QVERIFY(source);
  const int mixed = rowOf(w, QStringLiteral("mixed"));
  QVERIFY(mixed >= 0);
  QVERIFY(w.panes().chunks->model()->chunks()[mixed].verdict == Verdict::Accepted);  // at 0.01
  QCOMPARE(w.jobs()->lane(app::JobKind::Review)->inFlight(), 1);
  hold.release();
  QTRY_COMPARE(w.jobs()->lane(app::JobKind::Review)->inFlight(), 0);
  QVERIFY(w.document().gateSource() == source);
  QVERIFY(w.panes().chunks->model()->chunks()[mixed].verdict == Verdict::Accepted);
  QCOMPARE(w.document().shownGate()->options.threshold, 0.01);
}

QTEST_MAIN(TstGateView)
#include "tst_gate_view.moc"
