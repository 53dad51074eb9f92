// The splitter's stages one at a time (split_stages.hpp, input_dims_vote.hpp),
// cancellation at every stage boundary, and the plan's independence of its
// thread count.
#include "analysis/roots/annotation.hpp"
#include "trace_builder.hpp"

#include <steadyscope/core/io/loader.hpp>
#include "analysis/split_stages.hpp"
#include "analysis/steady_state/input_dims_vote.hpp"
#include "support/load_json.hpp"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::analysis;

namespace {

TracePtr load(const std::string& json, const std::string& name = "foo.pt.trace.json.gz") {
  return sstest::loadJson(json, name);
}

std::string cpuOp(const std::string& name, int64_t ts, int64_t dur, const std::string& dims) {
  return R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"Input Dims":)" + dims + "}}";
}

// A trace of the given cpu_op events (and one kernel, so there is GPU work).
TracePtr opsTrace(const std::vector<std::string>& ops) {
  std::string ev = R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1,"args":{}})";
  for (const auto& o : ops) ev += ",\n" + o;
  return load("{\"traceEvents\": [\n" + ev + "\n]}");
}

std::optional<int64_t> voteOf(const std::vector<std::string>& ops, int64_t a = 0, int64_t b = 1000) {
  auto t = opsTrace(ops);
  EventIndex idx(*t);
  EventText text(*t);
  return voteInputDims(idx, Tile{PyNum::fromInt(a), PyNum::fromInt(b)}, text);
}

std::vector<std::string> keys(const JsonValue& o) {
  std::vector<std::string> out;
  for (const auto& [k, v] : o.members()) out.push_back(k);
  return out;
}

// A serving trace big enough for every side-by-side path: >= 2^18 events
// (the index scan), >= 2^16 kernels (the audit, the groupings), >= 4096
// roots (the tile thread).
std::string biggerServingTrace() {
  std::vector<sstest::StepSpec> steps;
  for (int i = 0; i < 4096; ++i) {
    sstest::StepSpec s;
    s.st = 1000000 + 2000LL * i;
    s.dur = "1900.0";
    s.kernelDurs.assign(16, 40);
    s.kernelDurs[size_t(i % 16)] = 40 + i % 7;
    s.name = (i % 5 == 0) ? sstest::vllmDetailedName(1, 512, 15, 15) : sstest::vllmDetailedName(0, 0, 16 + i % 3, 16);
    steps.push_back(s);
  }
  return sstest::e6Trace(steps);
}

struct PlanText {
  std::string json, csv, manifest;
  std::vector<EventList> events;
};
PlanText textOf(const SplitResult& r) {
  PlanText p{splitResultToJson(r).dump(JsonStyle::pythonFile()),
             r.executionDetailsCsv,
             r.manifest.dump(JsonStyle::pythonFile()),
             {}};
  for (const ChunkPlan& c : r.chunks) p.events.push_back(c.events);
  return p;
}

SplitOptions steadyPhases() {
  SplitOptions o;
  o.outputDir = "out";
  o.findSteadyState = true;
  o.dividePhases = true;
  o.numSteps = 8;
  return o;
}

}  // namespace

class TestSplitStages : public QObject {
  Q_OBJECT
 private slots:
  // ---- the Input-Dims vote (spec §3.7.1, D3)
  void inputDimsVote() {
    QCOMPARE(voteOf({}), std::optional<int64_t>{});
    // the most common first dimension
    QCOMPARE(voteOf({cpuOp("aten::mm", 10, 5, "[[4,2]]"), cpuOp("aten::mm", 20, 5, "[[8,2]]"),
                     cpuOp("aten::addmm", 30, 5, "[[8],[3]]")}),
             std::optional<int64_t>(8));
    // a tie: the value seen first (in ts order, not file order) wins
    QCOMPARE(voteOf({cpuOp("aten::mm", 40, 5, "[[8]]"), cpuOp("aten::mm", 10, 5, "[[4]]")}), std::optional<int64_t>(4));
    QCOMPARE(voteOf({cpuOp("aten::mm", 10, 5, "[[8]]"), cpuOp("aten::mm", 40, 5, "[[4]]")}), std::optional<int64_t>(8));
    // the excluded memory / view operators do not vote
    QCOMPARE(voteOf({cpuOp("aten::view", 10, 5, "[[99]]"), cpuOp("aten::reshape", 11, 5, "[[99]]"),
                     cpuOp("aten::fill_", 12, 5, "[[99]]"), cpuOp("aten::mm", 20, 5, "[[8]]")}),
             std::optional<int64_t>(8));
    QCOMPARE(voteOf({cpuOp("aten::view", 10, 5, "[[99]]")}), std::optional<int64_t>{});
    // outside the window, or longer than it: no vote
    QCOMPARE(voteOf({cpuOp("aten::mm", 10, 5, "[[8]]"), cpuOp("aten::mm", 60, 5, "[[4]]"),
                     cpuOp("aten::mm", 70, 5, "[[4]]"), cpuOp("aten::mm", 5, 500, "[[4]]")},
                    0, 50),
             std::optional<int64_t>(8));
  }
  void inputDimsExclusionList() {
    QCOMPARE(kInputDimsVoteExcluded.size(), size_t(19));
    for (std::string_view n : kInputDimsVoteExcluded) QVERIFY(excludedFromInputDimsVote(n));
    QVERIFY(!excludedFromInputDimsVote("aten::mm"));
    QVERIFY(!excludedFromInputDimsVote("aten::viewx"));
  }

  // ---- the manifest builder
  void manifestFieldsAndOrder() {
    DetectionCandidate det;
    det.status = SplitStatus::Splittable;
    det.method = "annotation:tier";
    det.phaseConfidence = "high";
    det.roots = {1, 2, 3};
    det.diagnostics.set("n_roots", JsonValue::integer(4));  // before a trim
    det.diagnostics.set("_internal", JsonValue::integer(1));
    det.diagnostics.set("root_family", JsonValue::string("execute_#"));
    const std::vector<std::string> noCoverage = {"status",
                                                 "method",
                                                 "phase_confidence",
                                                 "n_roots",
                                                 "attribution_strategy",
                                                 "coverage_selected_roots",
                                                 "coverage_root_spans_only",
                                                 "root_span_share",
                                                 "root_family"};
    JsonValue m = manifestHead(det, {});
    QCOMPARE(keys(m), noCoverage);
    QVERIFY(m.members()[4].second.isNull());
    QCOMPARE(m.members()[0].second.asInt(), int64_t(0));
    QCOMPARE(m.members()[3].second.asInt(), int64_t(4));  // the diagnostics' count
    det.coverage = CoverageReport{};
    det.coverage->strategy = "correlation";
    det.coverage->coveredSelected = 0.123456;
    m = manifestHead(det, {});
    QCOMPARE(keys(m), noCoverage);
    QCOMPARE(m.members()[4].second.asString(), std::string("correlation"));
    QCOMPARE(m.members()[5].second.asReal(), 0.1235);
    SplitFixes fresh;
    fresh.freshNRoots = true;
    QCOMPARE(manifestHead(det, fresh).members()[3].second.asInt(), int64_t(3));

    // the tail: gap fill, overlaps (with roots), GPU events, retention
    auto t = load(sstest::e6Trace(sstest::e6Steps()));
    EventIndex idx(*t);
    SplitResult r;
    r.gapFill = true;
    r.nOverlappingRoots = 2;
    r.roots.resize(1);
    ChunkPlan c;
    c.kind = ChunkKind::Iteration;
    c.stats.numGpuEvents = static_cast<int64_t>(idx.nGpuEventsInTrace) - 10;
    r.chunks.push_back(c);
    SplitOptions o;
    JsonValue tail = JsonValue::object();
    manifestTail(tail, r, idx, o);
    QCOMPARE(keys(tail), (std::vector<std::string>{"gap_fill", "n_overlapping_roots", "n_gpu_events_in_trace"}));
    o.storeSingleIteration = true;
    tail = JsonValue::object();
    manifestTail(tail, r, idx, o);
    QCOMPARE(keys(tail), (std::vector<std::string>{"gap_fill", "n_overlapping_roots", "n_gpu_events_in_trace",
                                                   "n_gpu_events_extracted", "n_gpu_events_outside_iterations",
                                                   "gpu_events_duplicated", "gpu_event_retention"}));
    QCOMPARE(tail.members()[4].second.asInt(), int64_t(10));
  }

  // ---- window choice: the dispatcher's three finders
  void windowChoice() {
    WindowInputs in;
    in.numSteps = 8;
    in.durations.assign(40, 100.0);
    WindowChoice wc;
    QVERIFY(chooseWindow(in, SteadyMode::DecodeOnly, wc));
    QCOMPARE(wc.finder, std::string("duration"));
    QVERIFY(wc.duration.has_value());
    QCOMPARE(wc.window.size(), int64_t(8));

    std::vector<std::optional<int64_t>> shapes(40, 16);
    in.shapes = shapes;
    QVERIFY(chooseWindow(in, SteadyMode::Mixed, wc));
    QCOMPARE(wc.finder, std::string("shapes"));

    std::vector<StepDetails> steps;
    for (int i = 0; i < 40; ++i) steps.push_back(parseAnnotation(sstest::vllmDetailedName(0, 0, 16, 16)));
    in.steps = steps;
    in.servingAnnotations = true;
    QVERIFY(chooseWindow(in, SteadyMode::DecodeOnly, wc));
    QCOMPARE(wc.finder, std::string("concurrency"));
    // --CONC/--OSL/--R apply to the mixed window only: a dividing-by-zero set
    // crashes the mixed finder and leaves the decode-only one alone.
    WindowInputs crash = in;
    crash.concurrency.conc.conc = 0;
    crash.concurrency.conc.osl = 0.0;
    crash.concurrency.conc.r = 0.0;
    WindowChoice d2, m2;
    QVERIFY(chooseWindow(crash, SteadyMode::DecodeOnly, d2));
    QCOMPARE(d2.window.start, wc.window.start);
    QCOMPARE(d2.window.end, wc.window.end);
    QVERIFY(!chooseWindow(crash, SteadyMode::Mixed, m2));
  }

  // ---- cancellation at every stage boundary
  void cancelAtEveryStage() {
    auto t = load(sstest::e6Trace(sstest::e6Steps()));
    const SplitOptions o = steadyPhases();
    const PlanText whole = textOf(Splitter(t).plan(o));
    std::vector<std::string> stages;
    {
      JobControl c;
      c.setStageObserver([&](std::string_view s) { stages.emplace_back(s); });
      Splitter s(t);
      QCOMPARE(textOf(s.plan(o, &c)).json, whole.json);
    }
    QCOMPARE(stages, (std::vector<std::string>{"index", "detection", "roots", "manifest", "tiles", "windows",
                                               "chunk groups", "chunks", "execution details"}));
    for (const std::string& stage : stages) {
      Splitter s(t);
      JobControl c;
      c.setStageObserver([&](std::string_view name) {
        if (name == stage) c.requestCancel();
      });
      const SplitResult r = s.plan(o, &c);
      QCOMPARE(splitOutcomeName(r.outcome), "cancelled");
      QVERIFY2(r.roots.empty() && r.chunks.empty() && r.manifest.isNull() && r.log.empty(), stage.c_str());
      const PlanText again = textOf(s.plan(o));
      QCOMPARE(again.json, whole.json);
      QCOMPARE(again.csv, whole.csv);
    }
  }
  void cancelledWriteLeavesNothing() {
    auto t = load(sstest::e6Trace(sstest::e6Steps()));
    QTemporaryDir tmp;
    SplitOptions o = steadyPhases();
    o.outputDir = (tmp.path() + "/out").toStdString();
    Splitter s(t);
    const SplitResult r = s.plan(o);
    QVERIFY(r.chunks.size() >= 3);
    JobControl c;
    c.setStageObserver([&](std::string_view name) {
      if (name == "write") c.requestCancel();
    });
    auto w = s.write(r, &c);
    QVERIFY(!w.ok());
    QCOMPARE(int(w.error().kind), int(Error::Kind::Cancelled));
    QVERIFY(QDir(tmp.path() + "/out").isEmpty());
    // Cancelled mid-way (here: before any chunk, by hand): no manifest.
    JobControl c2;
    c2.requestCancel();
    QVERIFY(!s.write(r, &c2).ok());
    QVERIFY(!QFile::exists(tmp.path() + "/out/split_manifest.json"));
    QVERIFY(s.write(r).ok());
    QVERIFY(QFile::exists(tmp.path() + "/out/split_manifest.json"));
  }

  // A chunk that cannot be written (its name is taken by a folder) fails the
  // write after the other chunks were made: none of them appears, no temporary file is left.
  void failedWriteLeavesNoChunk() {
    auto t = load(sstest::e6Trace(sstest::e6Steps()));
    QTemporaryDir tmp;
    SplitOptions o = steadyPhases();
    o.outputDir = (tmp.path() + "/out").toStdString();
    o.threads = 1;  // the chunks in order: the blocked last one is reached after the others are made
    Splitter s(t);
    const SplitResult r = s.plan(o);
    QVERIFY(r.chunks.size() >= 3);
    const QString out = tmp.path() + "/out";
    QVERIFY(QDir().mkpath(out + "/" + QString::fromStdString(r.chunks.back().fileName)));
    auto w = s.write(r, nullptr, 1);
    QVERIFY(!w.ok());
    QVERIFY2(w.error().describe().find(r.chunks.back().fileName) != std::string::npos, w.error().describe().c_str());
    const QStringList left = QDir(out).entryList(QDir::Files | QDir::Hidden | QDir::System);
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral(", "))));
  }

  // ---- the thread count changes nothing but speed
  void threadsChangeNothing() {
    auto t = load(biggerServingTrace());
    QVERIFY(t->size() >= (size_t(1) << 18));
    QVERIFY(EventIndex(*t).kernels.size() >= (size_t(1) << 16));
    const SplitOptions base = steadyPhases();
    std::vector<PlanText> texts;
    for (unsigned n : {1u, 2u, 16u}) {
      SplitOptions o = base;
      o.threads = n;
      Splitter s(t);
      const SplitResult r = s.plan(o);
      QCOMPARE(splitOutcomeName(r.outcome), "split");
      QCOMPARE(r.roots.size(), size_t(4096));
      QVERIFY(r.chunks.size() >= 4);
      texts.push_back(textOf(r));
      // and again on the same splitter with another count (cached index and detection)
      o.threads = n == 1 ? 2 : 1;
      QCOMPARE(textOf(s.plan(o)).json, texts.back().json);
    }
    QVERIFY(Splitter(t).plan(base).detection->chosen.coverage.has_value());
    for (size_t k = 1; k < texts.size(); ++k) {
      QCOMPARE(texts[k].manifest, texts[0].manifest);
      QCOMPARE(texts[k].csv, texts[0].csv);
      QCOMPARE(texts[k].json, texts[0].json);
      QCOMPARE(texts[k].events, texts[0].events);
    }
  }
};

QTEST_GUILESS_MAIN(TestSplitStages)
#include "tst_split_stages.moc"
