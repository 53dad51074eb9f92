// Round trip: a split written by us -> gate DIR gives the same verdict as
// gating the in-memory result, except where the CSV-rounding finding fires
// (and then it says so); review of a (moved) split directory with its source
// trace; the CLI's `gate --trace` / `gate --split` exit statuses. Traces come
// from steadyscope-gen (STEADYSCOPE_GEN).
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/split_gate.hpp>
#include <steadyscope/core/review/trace_review.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <optional>
#include <set>
#include <string>

using namespace steadyscope;

namespace {

struct Run {
  int status = -1;
  QString out, err;
};

Run runTool(const QString& exe, const QStringList& args, const QString& cwd = {}) {
  QProcess p;
  if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
  p.start(exe, args);
  p.waitForFinished(300000);
  Run r;
  r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

bool haveTools() { return QFileInfo::exists(STEADYSCOPE_GEN) && QFileInfo::exists(STEADYSCOPE_CLI); }

QString generate(const QString& dir, const QString& name, const QStringList& extra) {
  const QString path = dir + "/" + name;
  Run r = runTool(STEADYSCOPE_GEN, QStringList{"-o", path, "--quiet"} + extra);
  if (r.status != 0) qFatal("steadyscope-gen failed: %s", qPrintable(r.err));
  return path;
}

TracePtr loadOrDie(const QString& path) {
  auto t = loadTrace(path.toStdString());
  if (!t) qFatal("load failed: %s", t.error().describe().c_str());
  return t.value();
}

const gate::Finding* finding(const gate::GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

bool sameVerdict(const gate::GateResult& a, const gate::GateResult& b) {
  return a.accepted == b.accepted && a.refusal == b.refusal && a.lowQuality == b.lowQuality &&
         a.nonEmptyModes == b.nonEmptyModes && a.selectedChunk == b.selectedChunk;
}

}  // namespace

class TstReviewRoundTrip : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;

 private slots:
  void initTestCase() {
    if (!haveTools()) QSKIP("steadyscope-gen / steadyscope-cli not built (build the tools first)");
    QVERIFY(tmp_.isValid());
  }

  void roundTrip_data() {
    QTest::addColumn<QStringList>("gen");
    QTest::addColumn<bool>("busyColumn");
    QTest::newRow("vllm") << QStringList{"--steps", "200"} << false;
    QTest::newRow("vllm-busy-column") << QStringList{"--steps", "200"} << true;
    QTest::newRow("vllm-graph-steps") << QStringList{"--steps", "240", "--graph-steps", "0.9", "--seed", "3"} << true;
    QTest::newRow("sglang-detailed") << QStringList{"--steps", "160", "--style", "sglang", "--annotation", "detailed"}
                                     << true;
    QTest::newRow("training") << QStringList{"--steps", "60", "--style", "training"} << false;
  }

  void roundTrip() {
    QFETCH(QStringList, gen);
    QFETCH(bool, busyColumn);
    const QString dir = tmp_.path() + "/rt_" + QTest::currentDataTag();
    QVERIFY(QDir().mkpath(dir));
    const QString trace = generate(dir, "t.json", gen);
    TracePtr t = loadOrDie(trace);
    analysis::Splitter sp(t);
    analysis::SplitOptions o;
    o.outputDir = (dir + "/out").toStdString();
    o.findSteadyState = true;
    o.busyRatioColumn = busyColumn;
    analysis::SplitResult plan = sp.plan(o);
    QCOMPARE(int(plan.outcome), int(analysis::SplitOutcome::Split));
    QVERIFY(sp.write(plan));

    int compared = 0, roundingFired = 0;
    for (gate::Mode m : gate::kAllModes) {
      std::vector<double> thresholds = {0.05, 0.0, 1.0};
      // Thresholds around the family's ratio, on both sides of the CSV's
      // 2-decimal value: here the rounding can decide.
      for (const auto& c : plan.chunks) {
        if (c.kind != steadyscope::analysis::ChunkKind::SteadyState) continue;
        const double r = c.busyRatio, col = std::round(r * 100.0) / 100.0;
        thresholds.push_back(r);
        if (r != col && std::fabs(r - col) > 1e-9) thresholds.push_back((r + col) / 2.0);
        thresholds.push_back(std::max(0.0, r - 0.003));
      }
      for (double th : thresholds) {
        if (!(th >= 0 && th <= 1)) continue;
        gate::GateOptions go;
        go.mode = m;
        go.threshold = th;
        gate::GateResult mem = gate::evaluateGate(review::gateInputFromSplit(plan, o), go);
        gate::ReviewOptions ro;
        ro.gate = go;
        auto disk = gate::reviewSplitDirectory(o.outputDir, ro);
        QVERIFY(disk);
        ++compared;
        if (sameVerdict(mem, *disk)) continue;
        // The plain review itself must say that the CSV's rounding (of the
        // busy_ratio column, or of the 2-decimal durations) decides.
        const gate::Finding* f = finding(*disk, "csv_rounding_decides");
        {
          // With the source trace the gate also says so, from exact numbers.
          review::TraceReviewOptions tro;
          tro.review.gate = go;
          auto rv = review::reviewSplitDirectoryWithTrace(o.outputDir, t, tro);
          QVERIFY(rv);
          QVERIFY(finding(rv.value().result, "csv_rounding_decides") ||
                  finding(rv.value().result, "recomputed_verdict_differs"));
        }
        QVERIFY2(f, qPrintable(QString("mode %1 threshold %2: in memory '%3', on disk '%4', and no "
                                       "csv_rounding_decides finding")
                                   .arg(QString::fromStdString(std::string(gate::modeName(m))))
                                   .arg(th, 0, 'g', 17)
                                   .arg(QString::fromStdString(mem.summary), QString::fromStdString(disk->summary))));
        QVERIFY2(f->sentence.find("rounding") != std::string::npos, f->sentence.c_str());
        ++roundingFired;
      }
    }
    QVERIFY(compared >= 12);
    if (busyColumn) {
      // The mixed family at a threshold between the column's value and the
      // exact ratio: the rounding must decide and say so.
      for (const auto& c : plan.chunks) {
        if (c.fileName.rfind("mixed_steady_state_", 0) != 0) continue;
        const double r = c.busyRatio, col = std::round(r * 100.0) / 100.0;
        if (std::fabs(r - col) < 1e-6) continue;
        gate::GateOptions go;
        go.threshold = (r + col) / 2.0;
        gate::ReviewOptions ro;
        ro.gate = go;
        auto disk = gate::reviewSplitDirectory(o.outputDir, ro);
        QVERIFY(disk);
        gate::GateResult mem = gate::evaluateGate(review::gateInputFromSplit(plan, o), go);
        QVERIFY(mem.lowQuality != disk->lowQuality);
        QVERIFY(finding(*disk, "csv_rounding_decides"));
        QVERIFY(roundingFired > 0);
      }
    }

    // The same directory with its source trace: every family matched, the
    // evidence equals the in-memory evidence, and the CSV agrees with the trace.
    review::TraceReviewOptions tro;
    auto rv = review::reviewSplitDirectoryWithTrace(o.outputDir, t, tro);
    QVERIFY(rv);
    QCOMPARE(rv->plans, 1);
    analysis::EvidenceContext ctx(sp.eventIndex(o), o);
    gate::GateInput live = review::gateInputFromSplit(plan, o, &ctx);
    for (gate::Mode m : gate::kAllModes) {
      const auto& f = rv->families[gate::modeIndex(m)];
      if (f.chunk.empty()) continue;
      QVERIFY2(f.matched, f.chunk.c_str());
      const gate::ChunkFacts a = review::gateFacts(*f.evidence);
      const auto& b = *live.evidence[gate::modeIndex(m)];
      QCOMPARE(*a.numGpuEvents, *b.numGpuEvents);
      QCOMPARE(*a.gpuDuration, *b.gpuDuration);
      QCOMPARE(*a.stepsWithoutGpu, *b.stepsWithoutGpu);
      QCOMPARE(a.emptyStepIndices, b.emptyStepIndices);
      QCOMPARE(a.unionBusyRatio.has_value(), b.unionBusyRatio.has_value());
    }
    QVERIFY(!finding(rv->result, "statistics_disagree"));
    QVERIFY(!finding(rv->result, "evidence_unavailable"));
    gate::GateResult liveGate = gate::evaluateGate(live, tro.review.gate);
    QVERIFY(sameVerdict(liveGate, rv->result));
    if (gen.contains("--graph-steps")) QVERIFY(finding(rv->result, "steps_without_gpu_work"));
  }

  void movedDirectoryWithTrace() {
    const QString dir = tmp_.path() + "/moved";
    QVERIFY(QDir().mkpath(dir));
    const QString trace = generate(dir, "g.json", {"--steps", "200", "--graph-steps", "0.9", "--seed", "5"});
    Run s = runTool(STEADYSCOPE_CLI, {"split", "g.json", "-o", "out", "--find-steady-state", "--num-steps", "16"}, dir);
    QCOMPARE(s.status, 0);
    QVERIFY(QDir(dir).rename("out", "elsewhere"));
    TracePtr t = loadOrDie(trace);
    review::TraceReviewOptions tro;
    tro.review.workingDirectory = dir.toStdString();
    const std::string moved = (dir + "/elsewhere").toStdString();
    auto rv = review::reviewSplitDirectoryWithTrace(moved, t, tro);
    QVERIFY(rv);
    // Default --num-steps 32 does not reproduce the names; the CSV's num_steps does.
    QVERIFY(rv->plans >= 2);
    const auto& mixed = rv->families[gate::modeIndex(gate::Mode::Mixed)];
    QVERIFY(mixed.matched);
    QCOMPARE(mixed.numSteps, int64_t(16));
    QVERIFY(finding(rv->result, "rows_matched_by_name"));
    QVERIFY(finding(rv->result, "steps_without_gpu_work"));
    // No finding twice.
    std::set<std::string> seen;
    for (const auto& f : rv->result.findings)
      QVERIFY2(seen.insert(f.code + "|" + f.subject + "|" + f.sentence).second, f.sentence.c_str());

    // A tampered CSV: the recomputed statistics disagree.
    QFile csv(QString::fromStdString(moved) + "/execution_details.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = csv.readAll().split('\n');
    csv.close();
    for (auto& line : lines) {
      if (!line.contains("mixed_steady_state_")) continue;
      QList<QByteArray> cells = line.split(',');
      cells[3] = "1";  // num_gpu_events
      line = cells.join(',');
    }
    QVERIFY(csv.open(QIODevice::WriteOnly | QIODevice::Truncate));
    csv.write(lines.join('\n'));
    csv.close();
    auto rv2 = review::reviewSplitDirectoryWithTrace(moved, t, tro);
    QVERIFY(rv2);
    const gate::Finding* f = finding(rv2->result, "statistics_disagree");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("num_gpu_events 1 in the CSV") != std::string::npos, f->sentence.c_str());
  }

  void unmatchedTraceGivesNoEvidence() {
    const QString dir = tmp_.path() + "/other";
    QVERIFY(QDir().mkpath(dir));
    generate(dir, "a.json", {"--steps", "150"});
    const QString b = generate(dir, "b.json", {"--steps", "150", "--seed", "9"});
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"split", "a.json", "-o", "out", "--find-steady-state"}, dir).status, 0);
    auto rv = review::reviewSplitDirectoryWithTrace((dir + "/out").toStdString(), loadOrDie(b), {});
    QVERIFY(rv);
    const gate::Finding* f = finding(rv->result, "evidence_unavailable");
    QVERIFY(f);
    QVERIFY(!f->affectsVerdict);
    QVERIFY(!rv->families[0].matched);
  }

  void cliTraceAndSplit() {
    const QString dir = tmp_.path() + "/cli";
    QVERIFY(QDir().mkpath(dir));
    generate(dir, "t.json", {"--steps", "200"});
    generate(dir, "g.json", {"--steps", "200", "--graph-steps", "0.9", "--seed", "5"});
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"split", "t.json", "-o", "out", "--find-steady-state"}, dir).status, 0);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"split", "g.json", "-o", "gout", "--find-steady-state"}, dir).status, 0);

    Run ok = runTool(STEADYSCOPE_CLI, {"gate", "out", "--trace", "t.json"}, dir);
    QCOMPARE(ok.status, 0);
    QVERIFY2(ok.out.contains("matched a re-run split"), qPrintable(ok.out));
    Run js = runTool(STEADYSCOPE_CLI, {"gate", "out", "--trace=t.json", "--json"}, dir);
    QCOMPARE(js.status, 0);
    QVERIFY(js.out.contains("\"source_trace\""));
    // Findings from the evidence; --strict refuses on them.
    Run g = runTool(STEADYSCOPE_CLI, {"gate", "gout", "--trace", "g.json"}, dir);
    QCOMPARE(g.status, 0);
    QVERIFY2(g.out.contains("steps_without_gpu_work"), qPrintable(g.out));
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "gout", "--trace", "g.json", "--strict"}, dir).status, 1);
    // In-memory split.
    Run sp = runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json"}, dir);
    QCOMPARE(sp.status, 0);
    QVERIFY2(sp.out.contains("split in memory"), qPrintable(sp.out));
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "g.json", "--strict"}, dir).status, 1);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json", "--mode", "generic"}, dir).status, 1);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json", "--num-steps", "16", "--json"}, dir).status, 0);
    // Usage errors and unloadable traces: 2.
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "out", "--trace"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "out", "--trace", "missing.json"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json", "out"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json", "--trace", "t.json"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "out", "--num-steps", "16"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "t.json", "--num-steps", "0"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "nodir", "--trace", "t.json"}, dir).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"gate", "--split", "missing.json"}, dir).status, 2);
  }
};

QTEST_GUILESS_MAIN(TstReviewRoundTrip)
#include "tst_review_roundtrip.moc"
