// The command line of a split and its gate (review/command_line): default
// options give the short form, every option its flag, paths with spaces and
// quotes survive a POSIX shell, and the workload kind's "auto" follows the
// trace's step names. The window's copy is run end to end in tst_run_panel.
#include "../../support/load_json.hpp"

#include <steadyscope/core/analysis/workload_kind.hpp>
#include <steadyscope/core/review/command_line.hpp>

#include <QProcess>
#include <QTest>

using namespace steadyscope;

namespace {
std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : "|") + w;
  return s;
}
}  // namespace

class TstCommandLine : public QObject {
  Q_OBJECT
 private slots:
  void defaultsAreShort() {
    analysis::SplitOptions o;
    o.findSteadyState = true;
    QCOMPARE(joined(review::splitCommandArgs(o, "t.json", "out")),
             std::string("steadyscope-cli|split|t.json|-o|out|--find-steady-state|--num-steps|32"));
    QCOMPARE(joined(review::gateCommandArgs(gate::GateOptions{}, "out")),
             std::string("steadyscope-cli|gate|out|--mode|mixed|--threshold|0.05"));
  }

  void everyOptionHasItsFlag() {
    analysis::SplitOptions o;
    o.findSteadyState = true;
    o.iterations = "3:40";
    o.numSteps = 16;
    o.conc.conc = 64;
    o.conc.osl = 256.5;
    o.conc.r = 0.25;
    o.allowDegraded = true;
    o.llmInference = true;
    o.maxNumSeq = 128;
    o.fixes.dedupeGpuEvents = true;
    o.fixes.freshNRoots = true;
    QCOMPARE(joined(review::splitCommandArgs(o, "t.json", "out")),
             std::string("steadyscope-cli|split|t.json|-o|out|--iterations|3:40|--find-steady-state|--num-steps|16|"
                         "--CONC|64|--OSL|256.5|--R|0.25|--allow-degraded|--llm-inference|--max-num-seq|128|"
                         "--fix|fresh-n-roots,dedupe-gpu-events"));
    gate::GateOptions g;
    g.mode = gate::Mode::DecodeOnly;
    g.threshold = 0.3;
    g.margin = 0.2;
    g.strict = true;
    QCOMPARE(joined(review::gateCommandArgs(g, "out", "t.json", o)),
             std::string("steadyscope-cli|gate|out|--trace|t.json|--num-steps|16|--llm-inference|--mode|decode_only|"
                         "--threshold|0.3|--margin|0.2|--strict"));
  }

  void quotingSurvivesTheShell() {
    const std::vector<std::string> words = {"printf", "%s\\n", "plain/path.json", "with space", "it's", "$HOME", ""};
    QCOMPARE(review::shellQuote("plain/path.json"), std::string("plain/path.json"));
    QCOMPARE(review::shellQuote("it's"), std::string("'it'\\''s'"));
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(review::shellLine(words))});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()),
             QStringLiteral("plain/path.json\nwith space\nit's\n$HOME\n\n"));
  }

  void autoKindFollowsTheStepNames() {
    const TracePtr serving = sstest::loadJson(
        R"J({"traceEvents":[{"ph":"X","cat":"user_annotation","name":"execute_context_0(0)_generation_4(4)","pid":1,"tid":1,"ts":1,"dur":5}]})J",
        "serving.json");
    const TracePtr training = sstest::loadJson(
        R"J({"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,"dur":5}]})J",
        "training.json");
    QVERIFY(analysis::hasServingAnnotations(*serving));
    QVERIFY(!analysis::hasServingAnnotations(*training));
    QVERIFY(analysis::llmInferenceFor(analysis::WorkloadKind::Auto, *serving));
    QVERIFY(!analysis::llmInferenceFor(analysis::WorkloadKind::Auto, *training));
    QVERIFY(!analysis::llmInferenceFor(analysis::WorkloadKind::Generic, *serving));
    QVERIFY(analysis::llmInferenceFor(analysis::WorkloadKind::LlmInference, *training));
    for (auto k : {analysis::WorkloadKind::Auto, analysis::WorkloadKind::LlmInference, analysis::WorkloadKind::Generic})
      QVERIFY(analysis::parseWorkloadKind(analysis::workloadKindName(k)) == k);
    QVERIFY(!analysis::parseWorkloadKind("sometimes"));
  }
};

QTEST_GUILESS_MAIN(TstCommandLine)
#include "tst_command_line.moc"
