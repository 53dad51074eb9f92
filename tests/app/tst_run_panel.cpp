// The Run panel (offscreen): each of its options reaches the split's
// SplitOptions or the gate's GateOptions; the workload kind "auto" picks LLM
// inference on a serving-annotated generated trace and generic on a training
// one; a new split coexists with the previous result, which stays shown until
// the new one is ready; "Copy as command" gives a command line whose run
// reproduces the window's table; a split directory reviewed with its source
// trace gives the gate the trace's evidence, as a live split does.
#include "../support/load_json.hpp"
#include "app_test_support.hpp"
#include "gate_adapter.hpp"
#include "main_window.hpp"
#include "run_panel.hpp"

#include "panels/chunks_panel.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/analysis/workload_kind.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/command_line.hpp>

#include <fmt/format.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace steadyscope;
using namespace steadyscope::app;
using widgets::ChunkRow;
using widgets::colors::Verdict;

namespace {
const QString kSample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);

/// A ProfilerStep trace whose every fourth step has no GPU work (as tst_chunk_table's).
std::string emptyStepTrace(int n) {
  std::string ev;
  double t = 1000.0;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
  for (int k = 0; k < n; ++k) {
    add(fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{:.3f},"dur":1000.0}})", k,
        t));
    if (k % 4 != 3) {
      add(fmt::format(
          R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{:.3f},"dur":10.0,"args":{{"correlation":{}}}}})",
          t + 20.0, k + 1));
      add(fmt::format(
          R"({{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":{:.3f},"dur":800.0,"args":{{"correlation":{},"device":0,"stream":7}}}})",
          t + 100.0, k + 1));
    }
    t += 1200.0;
  }
  return "{\"traceEvents\":[\n" + ev + "\n]}";
}

void writeFile(const QString& path, const std::string& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(QByteArray::fromStdString(text));
}

/// Runs a program; its exit code (-1 when it did not finish).
int run(const QString& program, const QStringList& args, QString* out = nullptr) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  if (!p.waitForFinished(600000)) return -1;
  if (out) *out = QString::fromUtf8(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

std::set<std::string> findingCodes(const gate::GateResult& g) {
  std::set<std::string> codes;
  for (const gate::Finding& f : g.findings) codes.insert(f.code);
  return codes;
}
}  // namespace

class TstRunPanel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<QTemporaryDir> tmp_;
  QString settings(const char* name) { return tmp_->filePath(QString::fromLatin1(name)); }

 private slots:
  void initTestCase() { tmp_ = std::make_unique<QTemporaryDir>(); }

  // Every split option changes SplitOptions and says so; every gate option changes GateOptions and says so.
  void optionsReachSplitAndGateOptions() {
    RunPanel p;
    QSignalSpy split(&p, &RunPanel::splitOptionsChanged), gateSpy(&p, &RunPanel::gateOptionsChanged);
    const analysis::SplitOptions d = p.splitOptions();
    QCOMPARE(d.numSteps, int64_t(32));
    QVERIFY(d.findSteadyState && !d.allowDegraded && !d.conc.conc && !d.maxNumSeq && d.iterations == "all");
    QVERIFY(analysis::enabledFixNames(d.fixes).empty());
    auto find = [&p](const char* name) { return p.findChild<QWidget*>(QString::fromLatin1(name)); };
    int expected = 0;
    auto changed = [&](auto* w, auto value) {
      w->setValue(value);
      QCOMPARE(split.count(), ++expected);
    };
    changed(p.numStepsBox(), 12);
    changed(qobject_cast<QSpinBox*>(find("run.conc")), 64);
    changed(qobject_cast<QDoubleSpinBox*>(find("run.osl")), 256.0);
    changed(qobject_cast<QDoubleSpinBox*>(find("run.r")), 0.5);
    changed(qobject_cast<QSpinBox*>(find("run.maxNumSeq")), 128);
    qobject_cast<QCheckBox*>(find("run.allowDegraded"))->setChecked(true);
    QCOMPARE(split.count(), ++expected);
    auto* iterations = qobject_cast<QLineEdit*>(find("run.iterations"));
    iterations->setText(QStringLiteral("4:40"));
    emit iterations->editingFinished();
    QCOMPARE(split.count(), ++expected);
    qobject_cast<QCheckBox*>(find("run.fix.dedupe-gpu-events"))->setChecked(true);
    QCOMPARE(split.count(), ++expected);
    p.setKind(analysis::WorkloadKind::Generic);
    QCOMPARE(split.count(), ++expected);
    QVERIFY(p.kind() == analysis::WorkloadKind::Generic);
    const analysis::SplitOptions o = p.splitOptions();
    QCOMPARE(o.numSteps, int64_t(12));
    QVERIFY(o.conc.conc == std::optional<int64_t>(64));
    QVERIFY(o.conc.osl == std::optional<double>(256.0));
    QVERIFY(o.conc.r == std::optional<double>(0.5));
    QVERIFY(o.maxNumSeq == std::optional<int64_t>(128));
    QVERIFY(o.allowDegraded);
    QVERIFY(o.iterations == std::string("4:40"));
    QVERIFY(analysis::enabledFixNames(o.fixes) == std::vector<std::string>{"dedupe-gpu-events"});
    // The preset "corrected" turns every fix on, "faithful" every one off.
    auto* preset = qobject_cast<QComboBox*>(find("run.fixes"));
    QVERIFY(preset->currentText().startsWith(QStringLiteral("custom")));
    preset->setCurrentIndex(1);
    emit preset->activated(1);
    QVERIFY(analysis::enabledFixNames(p.splitOptions().fixes) == analysis::fixNames());
    preset->setCurrentIndex(0);
    emit preset->activated(0);
    QVERIFY(analysis::enabledFixNames(p.splitOptions().fixes).empty());
    QCOMPARE(gateSpy.count(), 0);  // none of these re-gates on its own

    p.thresholdBox()->setValue(0.25);
    qobject_cast<QDoubleSpinBox*>(find("run.margin"))->setValue(0.3);
    qobject_cast<QCheckBox*>(find("run.strict"))->setChecked(true);
    p.modeBox()->setCurrentText(QStringLiteral("decode_only"));
    QCOMPARE(gateSpy.count(), 4);
    const gate::GateOptions g = p.gateOptions();
    QCOMPARE(g.threshold, 0.25);
    QCOMPARE(g.margin, 0.3);
    QVERIFY(g.strict);
    QCOMPARE(p.modeText(), QStringLiteral("decode_only"));
  }

  // The window's split and gate get the panel's options (the gate's without re-splitting).
  void windowUsesThePanelsOptions() {
    if (!QFileInfo::exists(kSample)) QSKIP("the bundled sample trace is not there");
    MainWindow w(testsupport::tempSettings(settings("opts.ini")));
    w.panes().run->numStepsBox()->setValue(16);
    w.panes().run->findChild<QCheckBox*>(QStringLiteral("run.allowDegraded"))->setChecked(true);
    w.panes().run->findChild<QCheckBox*>(QStringLiteral("run.fix.fresh-n-roots"))->setChecked(true);
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    QCOMPARE(w.document().results().size(), size_t(1));
    const analysis::SplitOptions& o = *w.document().results()[0].options;
    QCOMPARE(o.numSteps, int64_t(16));
    QVERIFY(o.allowDegraded && o.fixes.freshNRoots && !o.fixes.dedupeGpuEvents);
    QVERIFY(o.llmInference);  // auto, on the serving sample
    const quint64 splitsBefore = w.jobs()->lane(app::JobKind::Split)->generation();
    w.panes().run->findChild<QDoubleSpinBox*>(QStringLiteral("run.margin"))->setValue(0.35);
    w.panes().run->findChild<QCheckBox*>(QStringLiteral("run.strict"))->setChecked(true);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().shownGate());
    QCOMPARE(w.document().shownGate()->options.margin, 0.35);
    QVERIFY(w.document().shownGate()->options.strict);
    QCOMPARE(w.jobs()->lane(app::JobKind::Split)->generation(), splitsBefore);  // re-gated, not re-split
  }

  // auto: LLM inference on a serving-annotated trace, generic on a training one; the kind can be forced.
  void kindAutoFollowsTheAnnotations() {
    const QString vllm = tmp_->filePath(QStringLiteral("vllm.json")),
                  train = tmp_->filePath(QStringLiteral("train.json"));
    QCOMPARE(run(QStringLiteral(STEADYSCOPE_GEN), {QStringLiteral("-o"), vllm, QStringLiteral("--steps"),
                                                   QStringLiteral("300"), QStringLiteral("--quiet")}),
             0);
    QCOMPARE(run(QStringLiteral(STEADYSCOPE_GEN),
                 {QStringLiteral("-o"), train, QStringLiteral("--style"), QStringLiteral("training"),
                  QStringLiteral("--steps"), QStringLiteral("60"), QStringLiteral("--quiet")}),
             0);
    auto vllmTrace = loadTrace(vllm.toStdString());
    auto trainTrace = loadTrace(train.toStdString());
    QVERIFY(vllmTrace.ok() && trainTrace.ok());
    QVERIFY(analysis::hasServingAnnotations(*vllmTrace.value()));
    QVERIFY(!analysis::hasServingAnnotations(*trainTrace.value()));
    QVERIFY(analysis::llmInferenceFor(analysis::WorkloadKind::LlmInference, *trainTrace.value()));
    QVERIFY(!analysis::llmInferenceFor(analysis::WorkloadKind::Generic, *vllmTrace.value()));

    MainWindow w(testsupport::tempSettings(settings("kind.ini")));
    w.show();
    auto splitWith = [&w](const QString& path, analysis::WorkloadKind k) -> std::optional<bool> {
      w.openFile(path);
      if (!w.waitForJobs(testsupport::kJobTimeoutMs)) return std::nullopt;
      w.panes().run->setKind(k);
      w.runSplit();
      if (!w.waitForJobs(testsupport::kJobTimeoutMs)) return std::nullopt;
      return w.document().results().empty() || !w.document().results().back().options
                 ? std::optional<bool>()
                 : w.document().results().back().options->llmInference;
    };
    QVERIFY(splitWith(vllm, analysis::WorkloadKind::Auto) == std::optional<bool>(true));
    QVERIFY(w.document().gateSource() && w.document().gateSource()->llm);
    QVERIFY(splitWith(train, analysis::WorkloadKind::Auto) == std::optional<bool>(false));
    QVERIFY(w.document().gateSource() && !w.document().gateSource()->llm);
    QVERIFY(w.document().shownGate()->options.mode == gate::Mode::Generic);  // the requested "auto" mode follows
    QVERIFY(splitWith(train, analysis::WorkloadKind::LlmInference) == std::optional<bool>(true));
    QVERIFY(splitWith(vllm, analysis::WorkloadKind::Generic) == std::optional<bool>(false));
  }

  // Run split adds a result beside the previous one, which stays shown while the new split runs; a split
  // option changed with "re-run" on replaces the shown split once the user pauses.
  void newSplitCoexistsWithThePrevious() {
    if (!QFileInfo::exists(kSample)) QSKIP("the bundled sample trace is not there");
    MainWindow w(testsupport::tempSettings(settings("coexist.ini")));
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const QVector<ChunkRow> first = w.panes().chunks->model()->chunks();
    QVERIFY(!first.isEmpty());
    testsupport::StageHold hold("figures");
    w.jobs()->lane(app::JobKind::Split)->setStageObserverForTests(hold.observer());
    w.panes().run->numStepsBox()->setValue(8);  // live: re-runs the shown split after a pause
    QTRY_VERIFY(hold.reached());
    QCOMPARE(w.panes().chunks->model()->chunks().size(), first.size());  // the previous result is still shown
    QVERIFY(w.panes().run->findChild<QWidget*>(QStringLiteral("run.cancel"))->isVisible());
    hold.release();
    STEADYSCOPE_WAIT_IDLE(w);
    QCOMPARE(w.document().results().size(), size_t(1));  // replaced in place
    QCOMPARE(w.document().results()[0].options->numSteps, int64_t(8));
    QVERIFY(!w.panes().run->findChild<QWidget*>(QStringLiteral("run.cancel"))->isVisible());
    const QVector<ChunkRow> eight = w.panes().chunks->model()->chunks();
    w.panes().run->findChild<QCheckBox*>(QStringLiteral("run.live"))->setChecked(false);
    w.panes().run->numStepsBox()->setValue(4);
    QTest::qWait(600);  // longer than the pause that starts a re-run
    QVERIFY(w.isIdle());
    w.runSplit();
    STEADYSCOPE_WAIT_IDLE(w);
    QCOMPARE(w.document().results().size(), size_t(2));
    QCOMPARE(w.document().currentResult(), 1);
    QCOMPARE(w.document().results()[1].options->numSteps, int64_t(4));
    w.controllers().split->showResult(0);
    STEADYSCOPE_WAIT_IDLE(w);
    const QVector<ChunkRow> back = w.panes().chunks->model()->chunks();
    QCOMPARE(back.size(), eight.size());
    for (int i = 0; i < back.size(); ++i) {
      QCOMPARE(back[i].file, eight[i].file);
      QCOMPARE(back[i].events, eight[i].events);
      QCOMPARE(int(back[i].verdict), int(eight[i].verdict));
    }
  }

  // The copied command, run with the built CLI, writes the table's chunks and gates them as the window does.
  void copyAsCommandReproducesTheTable() {
    if (!QFileInfo::exists(kSample)) QSKIP("the bundled sample trace is not there");
    MainWindow w(testsupport::tempSettings(settings("cmd.ini")));
    RunPanel* p = w.panes().run;
    p->numStepsBox()->setValue(16);
    p->findChild<QCheckBox*>(QStringLiteral("run.fix.dedupe-gpu-events"))->setChecked(true);
    p->findChild<QSpinBox*>(QStringLiteral("run.conc"))->setValue(64);
    p->thresholdBox()->setValue(0.6);
    p->findChild<QDoubleSpinBox*>(QStringLiteral("run.margin"))->setValue(0.05);
    STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w);
    const QString out = tmp_->filePath(QStringLiteral("cmd out"));  // a space: the path must be quoted
    const QString line = w.controllers().split->commandLine(out);
    QVERIFY2(line.contains(QStringLiteral("--num-steps 16")) && line.contains(QStringLiteral("--CONC 64")) &&
                 line.contains(QStringLiteral("--fix dedupe-gpu-events")) &&
                 line.contains(QStringLiteral("--threshold 0.6")) && line.contains(QStringLiteral("--margin 0.05")) &&
                 line.contains(QStringLiteral("'") + out + QStringLiteral("'")),
             qPrintable(line));
    QProcess sh;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), QFileInfo(QStringLiteral(STEADYSCOPE_CLI)).absolutePath() + QLatin1Char(':') +
                                           env.value(QStringLiteral("PATH")));
    sh.setProcessEnvironment(env);
    sh.setProcessChannelMode(QProcess::MergedChannels);
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), line});
    QVERIFY(sh.waitForFinished(600000));
    const QString log = QString::fromUtf8(sh.readAll());
    // The requested mode's verdict is the gate's exit status.
    const QVector<ChunkRow> rows = w.panes().chunks->model()->chunks();
    const auto requested = std::find_if(rows.begin(), rows.end(), [](const ChunkRow& r) { return r.requested; });
    QVERIFY(requested != rows.end());
    const bool accepted = requested->verdict == Verdict::Accepted || requested->verdict == Verdict::LowQuality;
    QCOMPARE(sh.exitCode(), accepted ? 0 : 1);
    QVERIFY2(log.contains(accepted ? QStringLiteral("ACCEPTED") : QStringLiteral("REFUSED")), qPrintable(log));
    // Same chunk files with the same event counts.
    auto csv = gate::readCsvFile(QDir(out).filePath(QStringLiteral("execution_details.csv")).toStdString());
    QVERIFY2(csv.ok(), qPrintable(log));
    int matched = 0;
    for (const ChunkRow& r : rows) {
      if (r.file.isEmpty()) continue;
      QVERIFY2(QFileInfo::exists(QDir(out).filePath(r.file)), qPrintable(r.file));
      for (const gate::CsvRecord& rec : csv.value().records)
        if (QFileInfo(QString::fromStdString(*csv.value().cell(rec, "output_path"))).fileName() == r.file) {
          QCOMPARE(QString::fromStdString(*csv.value().cell(rec, "event_count")).toLongLong(), r.events);
          QCOMPARE(QString::fromStdString(*csv.value().cell(rec, "num_gpu_events")).toLongLong(), r.gpuEvents);
          ++matched;
        }
    }
    QVERIFY(matched >= 2);
    // Every mode's verdict, as the CLI's gate gives it for that mode.
    for (const ChunkRow& r : rows) {
      if (!r.hasVerdict) continue;
      const std::vector<std::string> words = review::gateCommandArgs(
          [&] {
            gate::GateOptions g = p->gateOptions();
            g.mode = *gate::parseMode(r.mode.toStdString());
            return g;
          }(),
          out.toStdString());
      QStringList args;
      for (size_t k = 1; k < words.size(); ++k) args << QString::fromStdString(words[k]);
      const bool ok = r.verdict == Verdict::Accepted || r.verdict == Verdict::LowQuality;
      QCOMPARE(run(QStringLiteral(STEADYSCOPE_CLI), args), ok ? 0 : 1);
    }
  }

  // A directory written by the splitter, reviewed with its source trace: the gate gets the trace's evidence
  // (here, steps without GPU work) as the live split of the same trace does.
  void directoryReviewGetsTheTracesEvidence() {
    const QString source = tmp_->filePath(QStringLiteral("empty_steps.json"));
    writeFile(source, emptyStepTrace(48));
    const QString dir = tmp_->filePath(QStringLiteral("empty_split"));
    {
      auto loaded = loadTrace(source.toStdString());
      QVERIFY(loaded.ok());
      analysis::Splitter sp(loaded.value());
      analysis::SplitOptions o;
      o.findSteadyState = true;
      o.outputDir = dir.toStdString();
      QVERIFY(sp.write(sp.plan(o)).ok());
    }
    MainWindow live(testsupport::tempSettings(settings("live.ini")));
    live.show();
    live.openFile(source);
    STEADYSCOPE_WAIT_IDLE(live);
    live.runSplit();
    STEADYSCOPE_WAIT_IDLE(live);
    QVERIFY(live.document().shownGate());
    const std::set<std::string> liveCodes = findingCodes(*live.document().shownGate());
    QVERIFY(liveCodes.count("steps_without_gpu_work"));

    MainWindow w(testsupport::tempSettings(settings("dir.ini")));
    w.show();
    w.controllers().review->openSplitDirectory(dir, source);
    QTRY_VERIFY_WITH_TIMEOUT(w.document().gateSource() && w.document().gateSource()->match, testsupport::kJobTimeoutMs);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY(w.document().shownGate());
    const std::set<std::string> codes = findingCodes(*w.document().shownGate());
    for (const std::string& c : liveCodes) QVERIFY2(codes.count(c), c.c_str());
    const int c = w.selection()->chunk();
    QVERIFY(c >= 0);
    QVERIFY(w.panes().chunks->model()->chunks()[c].findingsWarn);
  }
};

QTEST_MAIN(TstRunPanel)
#include "tst_run_panel.moc"
