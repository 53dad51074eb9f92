// The compare area (steadyscope/compare.hpp) and `steadyscope-cli compare`: the launching
// op on hand-built traces (nested ops, a graph launch, missing launches, a launch on another
// thread, memcpy / memset, a HIP runtime category), against a brute-force reference on
// generated traces; the steps (aligned by index, ranges, the steady state, the whole trace);
// the rows against a brute-force sum; the CLI's --json field names, --tsv and its errors.
#include <steadyscope/compare.hpp>
#include <steadyscope/core/io/loader.hpp>

#include "support/load_json.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace steadyscope;

namespace {

// JSON events by hand: cpu_ops and launches on pid 1, GPU work on pid 0 stream 7.
struct TraceText {
  std::string ev;
  void add(const std::string& s) {
    if (!ev.empty()) ev += ",\n";
    ev += s;
  }
  static std::string at(int tid, int64_t ts, int64_t dur) {
    return R"("pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
           std::to_string(dur);
  }
  void step(int k, int64_t ts, int64_t dur) {
    add(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(k) + "\"," + at(1, ts, dur) +
        "}");
  }
  void op(const std::string& name, int tid, int64_t ts, int64_t dur) {
    add(R"({"ph":"X","cat":"cpu_op","name":")" + name + "\"," + at(tid, ts, dur) + "}");
  }
  void launch(const std::string& name, int tid, int64_t ts, int64_t dur, int corr,
              const std::string& cat = "cuda_runtime") {
    add(R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + "\"," + at(tid, ts, dur) +
        R"(,"args":{"correlation":)" + std::to_string(corr) + "}}");
  }
  void gpu(const std::string& name, int64_t ts, int64_t dur, int corr, const std::string& cat = "kernel") {
    const std::string args = corr >= 0 ? R"(,"args":{"correlation":)" + std::to_string(corr) + "}" : "";
    add(R"({"ph":"X","cat":")" + cat + R"(","name":")" + name + R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
        R"(,"dur":)" + std::to_string(dur) + args + "}");
  }
  std::string json() const { return "{\"traceEvents\": [\n" + ev + "\n]}"; }
};

// The launching op's name of the GPU event called `gpuName` ("" when it has none).
std::string opOf(const Trace& t, const compare::Attribution& a, std::string_view gpuName) {
  for (size_t k = 0; k < a.gpu.size(); ++k)
    if (t.nameOf(a.gpu[k]) == gpuName) return a.op[k] == compare::kNoEvent ? "" : std::string(t.nameOf(a.op[k]));
  qFatal("no GPU event %.*s", static_cast<int>(gpuName.size()), gpuName.data());
}

// ---- the brute-force reference: a plain search over every event, sharing nothing with core/src/compare ----

bool launchCategory(const Trace& t, EventIdx i) {
  const std::string_view cat = t.catOf(i);
  return t.classOf(i) == CatClass::Runtime || t.classOf(i) == CatClass::Driver ||
         (t.classOf(i) == CatClass::Other && (cat.find("runtime") != cat.npos || cat.find("driver") != cat.npos));
}
bool withTs(const Trace& t, EventIdx i) { return t.has(i, ev::HasTs) && t.ph[i] != Ph::End; }

struct BruteForce {
  std::map<EventIdx, EventIdx> launch, op;  // per GPU event (absent: none)
};

BruteForce bruteForce(const Trace& t) {
  std::vector<EventIdx> launches, ops, gpu;
  for (EventIdx i = 0; i < t.size(); ++i) {
    if (!withTs(t, i)) continue;
    if (isGpuWork(t.classOf(i))) gpu.push_back(i);
    if (launchCategory(t, i) && t.has(i, ev::HasCorr)) launches.push_back(i);
    if (t.classOf(i) == CatClass::CpuOp && (t.ph[i] == Ph::Complete || t.ph[i] == Ph::Begin) && t.durNs[i] >= 0)
      ops.push_back(i);
  }
  BruteForce r;
  for (EventIdx g : gpu) {
    if (!t.has(g, ev::HasCorr)) continue;
    auto same = [&](EventIdx l) {
      return t.corr[l] == t.corr[g] && t.has(l, ev::CorrIsStr) == t.has(g, ev::CorrIsStr);
    };
    auto it = std::find_if(launches.begin(), launches.end(), same);  // the first in file order
    if (it == launches.end()) continue;
    const EventIdx l = *it;
    r.launch[g] = l;
    const int64_t lEnd = t.tsNs[l] + std::max<int64_t>(t.durNs[l], 0);
    std::optional<EventIdx> best;
    for (EventIdx o : ops) {
      if (t.lane[o] != t.lane[l] || t.tsNs[o] > t.tsNs[l] || t.tsNs[o] + t.durNs[o] < lEnd) continue;
      // Innermost: the latest start, then the earliest end, then the later in file order.
      if (!best || t.tsNs[o] > t.tsNs[*best] || (t.tsNs[o] == t.tsNs[*best] && t.endNs(o) < t.endNs(*best)) ||
          (t.tsNs[o] == t.tsNs[*best] && t.endNs(o) == t.endNs(*best)))
        best = o;
    }
    if (best) r.op[g] = *best;
  }
  return r;
}

struct Run {
  int status = -1;
  QString out, err;
};

Run runTool(const QString& exe, const QStringList& args) {
  QProcess p;
  p.start(exe, args);
  p.waitForFinished(600000);
  Run r;
  r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

TracePtr loadOrDie(const QString& path) {
  auto t = loadTrace(path.toStdString());
  if (!t) qFatal("load failed: %s", t.error().describe().c_str());
  return t.value();
}

// Six steps of 1000 µs from ts 1000; per step an aten::mm launch (kernel `mm_k`, kernelUs) and
// an aten::relu launch (kernel relu_k, 10 µs) whose kernel runs after the step's end.
std::string stepTrace(int steps, const std::vector<int64_t>& kernelUs, bool extraOutside = false) {
  TraceText tt;
  int c = 1;
  for (int k = 0; k < steps; ++k) {
    const int64_t ts = 1000 + 1000LL * k;
    tt.step(k, ts, 900);
    tt.op("aten::mm", 1, ts + 10, 100);
    tt.launch("cudaLaunchKernel", 1, ts + 20, 5, c);
    tt.gpu("mm_k", ts + 30, kernelUs[static_cast<size_t>(k) % kernelUs.size()], c++);
    tt.op("aten::relu", 1, ts + 800, 50);
    tt.launch("cudaLaunchKernel", 1, ts + 810, 5, c);
    tt.gpu("relu_k", ts + 950, 10, c++);
  }
  if (extraOutside) {  // before the first step: only the whole trace sees it
    tt.op("aten::copy_", 1, 100, 50);
    tt.launch("cudaMemcpyAsync", 1, 110, 5, 999);
    tt.gpu("Memcpy HtoD", 120, 40, 999, "gpu_memcpy");
  }
  return tt.json();
}

const compare::OpRow* rowOf(const compare::Comparison& c, std::string_view op) {
  for (const auto& r : c.ops)
    if (r.op == op) return &r;
  return nullptr;
}

// A split by hand: `n` steps of 900 µs every 1000 µs from ts 1000 (no tiles: windows are the
// steps' spans), and when `steady` holds, a steady-state chunk over steps [steady->first, steady->second).
analysis::SplitResult handSplit(size_t n, std::optional<std::pair<size_t, size_t>> steady) {
  analysis::SplitResult s;
  for (size_t k = 0; k < n; ++k) {
    analysis::RootInfo r;
    r.tsUs = 1000.0 + 1000.0 * double(k);
    r.durUs = 900.0;
    s.roots.push_back(r);
  }
  analysis::ChunkPlan iteration;  // a chunk that is not the steady state's: never chosen
  iteration.roots = {0};
  s.chunks.push_back(iteration);
  if (steady) {
    analysis::ChunkPlan c;
    c.kind = analysis::ChunkKind::SteadyState;
    for (size_t k = steady->first; k < steady->second; ++k) c.roots.push_back(k);
    s.chunks.push_back(c);
  }
  return s;
}

}  // namespace

class TstCompare : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  QString generate(const QString& name, const QStringList& extra) {
    const QString path = dir_.path() + "/" + name;
    if (QFile::exists(path)) return path;
    Run r = runTool(STEADYSCOPE_GEN, QStringList{"-o", path, "--quiet"} + extra);
    if (r.status != 0) qFatal("steadyscope-gen failed: %s", qPrintable(r.err));
    return path;
  }

 private slots:
  void nestedOpsInnermostWins() {
    TraceText tt;
    tt.op("aten::linear", 1, 0, 100);
    tt.op("aten::addmm", 1, 10, 40);  // inside linear
    tt.launch("cudaLaunchKernel", 1, 20, 5, 1);
    tt.gpu("gemm_inner", 30, 8, 1);
    tt.launch("cudaLaunchKernel", 1, 60, 5, 2);  // after addmm ended: linear's
    tt.gpu("gemm_outer", 70, 8, 2);
    tt.op("aten::t", 1, 200, 10);  // an op and its launch starting together, same end
    tt.launch("cudaLaunchKernel", 1, 200, 10, 3);
    tt.gpu("transpose_k", 215, 4, 3);
    const TracePtr t = sstest::loadJson(tt.json(), "nested.json");
    const compare::Attribution a = compare::attribute(*t);
    QCOMPARE(a.gpu.size(), size_t(3));
    QCOMPARE(opOf(*t, a, "gemm_inner"), std::string("aten::addmm"));
    QCOMPARE(opOf(*t, a, "gemm_outer"), std::string("aten::linear"));
    QCOMPARE(opOf(*t, a, "transpose_k"), std::string("aten::t"));
    QCOMPARE(a.withoutLaunch, uint64_t(0));
    QCOMPARE(a.launchOutsideOp, uint64_t(0));
  }

  void graphLaunchOneLaunchSeveralKernels() {
    TraceText tt;
    tt.op("graph_replay", 1, 0, 50);
    tt.launch("cudaGraphLaunch", 1, 10, 20, 7);
    for (int k = 0; k < 4; ++k) tt.gpu("graph_k" + std::to_string(k), 40 + 10 * k, 5, 7);
    const TracePtr t = sstest::loadJson(tt.json(), "graph.json");
    const compare::Attribution a = compare::attribute(*t);
    QCOMPARE(a.gpu.size(), size_t(4));
    for (size_t k = 0; k < 4; ++k) {
      QCOMPARE(std::string(t->nameOf(a.op[k])), std::string("graph_replay"));
      QCOMPARE(std::string(t->nameOf(a.launch[k])), std::string("cudaGraphLaunch"));
    }
    QCOMPARE(compare::eventsOfOp(*t, a, "graph_replay").size(), size_t(4));
  }

  void missingLaunchesAreCounted() {
    TraceText tt;
    tt.op("aten::mm", 1, 0, 100);
    tt.launch("cudaLaunchKernel", 1, 10, 5, 1);
    tt.gpu("found_k", 20, 10, 1);
    tt.gpu("no_launch_k", 40, 30, 42);  // no launch carries 42
    tt.gpu("no_corr_k", 80, 20, -1);    // no correlation at all
    const TracePtr t = sstest::loadJson(tt.json(), "missing.json");
    const compare::Attribution a = compare::attribute(*t);
    QCOMPARE(a.withoutLaunch, uint64_t(2));
    QCOMPARE(opOf(*t, a, "no_launch_k"), std::string());
    QCOMPARE(compare::eventsOfOp(*t, a, compare::kNoOp).size(), size_t(2));
    compare::CompareOptions o;
    o.wholeTrace = true;
    auto c = compare::compareTraces(t, t, o);
    QVERIFY(c);
    const compare::OpRow* none = rowOf(*c, compare::kNoOp);
    QVERIFY(none);
    QCOMPARE(none->aCount, uint64_t(2));
    QCOMPARE(none->aGpuUs, 50.0);
    QCOMPARE(c->a.withoutLaunch, uint64_t(2));
    QCOMPARE(c->a.attributedShare, 10.0 / 60.0);
  }

  void launchOnAnotherThread() {
    TraceText tt;
    tt.op("aten::backward_wrapper", 1, 0, 1000);  // thread 1 spans everything
    tt.launch("cudaLaunchKernel", 2, 100, 5, 1);  // thread 2, inside no op of its own
    tt.gpu("orphan_k", 110, 10, 1);
    tt.op("autograd::engine::evaluate_function", 2, 200, 100);  // thread 2's own op
    tt.launch("cudaLaunchKernel", 2, 250, 5, 2);
    tt.gpu("own_k", 260, 10, 2);
    const TracePtr t = sstest::loadJson(tt.json(), "threads.json");
    const compare::Attribution a = compare::attribute(*t);
    QCOMPARE(opOf(*t, a, "orphan_k"), std::string());
    QCOMPARE(opOf(*t, a, "own_k"), std::string("autograd::engine::evaluate_function"));
    QCOMPARE(a.launchOutsideOp, uint64_t(1));
    QCOMPARE(a.withoutLaunch, uint64_t(0));
  }

  void memcpyMemsetAndHipRuntime() {
    TraceText tt;
    tt.op("aten::copy_", 1, 0, 100);
    tt.launch("hipMemcpyWithStream", 1, 10, 5, 1);
    tt.gpu("Memcpy HtoD", 20, 10, 1, "gpu_memcpy");
    tt.op("aten::zero_", 1, 200, 100);
    tt.launch("hipMemsetAsync", 1, 210, 5, 2, "hip_runtime");  // a writer's own category spelling
    tt.gpu("Memset", 220, 10, 2, "gpu_memset");
    tt.op("aten::mm", 1, 400, 100);
    tt.launch("hipExtModuleLaunchKernel", 1, 410, 5, 3);
    tt.gpu("Cijk_gemm", 420, 10, 3);
    tt.launch("cuLaunchKernel", 1, 450, 5, 4, "cuda_driver");
    tt.gpu("driver_k", 460, 10, 4);
    const TracePtr t = sstest::loadJson(tt.json(), "hip.json");
    const compare::Attribution a = compare::attribute(*t);
    QCOMPARE(opOf(*t, a, "Memcpy HtoD"), std::string("aten::copy_"));
    QCOMPARE(opOf(*t, a, "Memset"), std::string("aten::zero_"));
    QCOMPARE(opOf(*t, a, "Cijk_gemm"), std::string("aten::mm"));
    QCOMPARE(opOf(*t, a, "driver_k"), std::string("aten::mm"));
  }

  void parseStepRanges() {
    auto r = compare::parseStepRange("3:10");
    QVERIFY(r && r->begin == size_t(3) && r->end == size_t(10));
    r = compare::parseStepRange("3:");
    QVERIFY(r && r->begin == size_t(3) && !r->end);
    r = compare::parseStepRange(":4");
    QVERIFY(r && !r->begin && r->end == size_t(4));
    r = compare::parseStepRange("7");
    QVERIFY(r && r->begin == size_t(7) && r->end == size_t(8));
    r = compare::parseStepRange("all");
    QVERIFY(r && !r->begin && !r->end);
    for (const char* bad : {"", "x", "-1:3", "3:x", "1:2:3", "3 :4"}) QVERIFY2(!compare::parseStepRange(bad), bad);
  }

  void stepsAlignedByIndex() {
    const TracePtr a = sstest::loadJson(stepTrace(6, {100}), "a.json");
    const TracePtr b = sstest::loadJson(stepTrace(4, {100, 300}), "b.json");
    auto c = compare::compareTraces(a, b, {});
    QVERIFY2(c, c ? "" : c.error().describe().c_str());
    // Both split: the steady-state chunk's steps (here every step), cut to B's four.
    QCOMPARE(c->a.stepSource, std::string("steady_state"));
    QCOMPARE(c->a.steps, size_t(4));
    QCOMPARE(c->b.steps, size_t(4));
    QCOMPARE(c->a.availableSteps, size_t(6));
    QCOMPARE(c->a.stepUs, std::vector<double>(4, 900.0));
    const compare::OpRow* mm = rowOf(*c, "aten::mm");
    QVERIFY(mm);
    QCOMPARE(mm->aCount, uint64_t(4));
    QCOMPARE(mm->aUsPerStep, 100.0);
    QCOMPARE(mm->bUsPerStep, 200.0);
    QCOMPARE(mm->deltaUsPerStep, 100.0);
    QCOMPARE(c->ops.front().op, std::string("aten::mm"));  // the largest change first
    // relu_k runs after its step ends: it still belongs to the step its launch is in.
    const compare::OpRow* relu = rowOf(*c, "aten::relu");
    QVERIFY(relu);
    QCOMPARE(relu->aCount, uint64_t(4));
    QCOMPARE(relu->deltaUsPerStep, 0.0);
    QCOMPARE(c->b.stepGpuUs, (std::vector<double>{110.0, 310.0, 110.0, 310.0}));
    QCOMPARE(c->a.attributedShare, 1.0);
    QCOMPARE(mm->kernels.size(), size_t(1));
    QCOMPARE(mm->kernels[0].name, std::string("mm_k"));
  }

  void stepRangesPicked() {
    const TracePtr a = sstest::loadJson(stepTrace(6, {100, 200, 300}), "a.json");
    const TracePtr b = sstest::loadJson(stepTrace(6, {100}), "b.json");
    compare::CompareOptions o;
    o.stepsA = compare::parseStepRange("1:3");  // kernels of 200 and 300 µs
    o.stepsB = compare::parseStepRange("4:");
    auto c = compare::compareTraces(a, b, o);
    QVERIFY2(c, c ? "" : c.error().describe().c_str());
    QCOMPARE(c->a.stepSource, std::string("range"));
    QCOMPARE(c->a.firstStep, size_t(1));
    QCOMPARE(c->b.firstStep, size_t(4));
    QCOMPARE(c->a.steps, size_t(2));
    const compare::OpRow* mm = rowOf(*c, "aten::mm");
    QVERIFY(mm);
    QCOMPARE(mm->aUsPerStep, 250.0);
    QCOMPARE(mm->bUsPerStep, 100.0);
    QCOMPARE(mm->aCount, uint64_t(2));
    o.stepsB = compare::parseStepRange("5:9");
    auto bad = compare::compareTraces(a, b, o);
    QVERIFY(!bad);
    QVERIFY2(bad.error().describe().starts_with("b.json: steps 5:9 out of range: the trace has 6 steps"),
             bad.error().describe().c_str());
  }

  void wholeTraceTakesEveryGpuEvent() {
    const TracePtr a = sstest::loadJson(stepTrace(6, {100}, true), "a.json");
    compare::CompareOptions o;
    auto stepped = compare::compareTraces(a, a, o);
    QVERIFY2(stepped, stepped ? "" : stepped.error().describe().c_str());
    QVERIFY(!rowOf(*stepped, "aten::copy_"));  // before the first step
    o.wholeTrace = true;
    auto c = compare::compareTraces(a, a, o);
    QVERIFY(c);
    QVERIFY(c->wholeTrace);
    QCOMPARE(c->a.stepSource, std::string("whole_trace"));
    QCOMPARE(c->a.steps, size_t(1));
    QCOMPARE(c->a.gpuEvents, uint64_t(13));
    const compare::OpRow* copy = rowOf(*c, "aten::copy_");
    QVERIFY(copy);
    QCOMPARE(copy->aGpuUs, 40.0);
    QCOMPARE(copy->aUsPerStep, 40.0);
    const compare::OpRow* mm = rowOf(*c, "aten::mm");
    QCOMPARE(mm->aUsPerStep, 600.0);  // the six steps' kernels: one "step", the trace
  }

  // Only one side has a steady-state chunk: neither side's is used, both compare every step,
  // aligned from step 0 and cut to the shorter side; either way round; a side without steps
  // is refused with its file named.
  void oneSideSteadyComparesAllSteps() {
    const TracePtr a = sstest::loadJson(stepTrace(6, {100}), "a.json");
    const TracePtr b = sstest::loadJson(stepTrace(4, {100}), "b.json");
    const analysis::SplitResult steadyA = handSplit(6, std::pair{size_t(2), size_t(5)}), plainB = handSplit(4, {});
    auto steps = compare::chooseSteps(*a, &steadyA, *b, &plainB, {});
    QVERIFY2(steps, steps ? "" : steps.error().describe().c_str());
    const auto& [sa, sb] = *steps;
    QCOMPARE(sa.source, std::string("all_steps"));
    QCOMPARE(sb.source, std::string("all_steps"));
    QCOMPARE(sa.first, size_t(0));
    QCOMPARE(sb.first, size_t(0));
    QCOMPARE(sa.totalSteps, size_t(6));
    QCOMPARE(sa.available, size_t(6));
    QCOMPARE(sb.available, size_t(4));
    QCOMPARE(sa.windows.size(), size_t(4));  // cut to B's four
    QCOMPARE(sb.windows.size(), size_t(4));
    for (size_t k = 0; k < 4; ++k) {
      QCOMPARE(sa.windows[k].beginNs, int64_t(1000000 + 1000000 * int64_t(k)));  // step k, not 2 + k
      QCOMPARE(sa.windows[k].endNs, sa.windows[k].beginNs + 900000);
      QCOMPARE(sb.windows[k].beginNs, sa.windows[k].beginNs);
    }
    // The other way round: B steady, A not.
    const analysis::SplitResult plainA = handSplit(6, {}), steadyB = handSplit(4, std::pair{size_t(1), size_t(3)});
    auto swapped = compare::chooseSteps(*a, &plainA, *b, &steadyB, {});
    QVERIFY(swapped);
    QCOMPARE(swapped->first.source, std::string("all_steps"));
    QCOMPARE(swapped->second.source, std::string("all_steps"));
    QCOMPARE(swapped->second.windows.size(), size_t(4));
    QCOMPARE(swapped->second.first, size_t(0));
    // Both steady: each side's chunk (3 and 2 steps), cut to 2, from the chunks' first steps.
    auto both = compare::chooseSteps(*a, &steadyA, *b, &steadyB, {});
    QVERIFY(both);
    QCOMPARE(both->first.source, std::string("steady_state"));
    QCOMPARE(both->first.first, size_t(2));
    QCOMPARE(both->second.first, size_t(1));
    QCOMPARE(both->first.available, size_t(3));
    QCOMPARE(both->first.windows.size(), size_t(2));
    // A side with no steps at all: refused, naming its file (the window then compares the whole traces).
    const analysis::SplitResult none = handSplit(0, {});
    auto refused = compare::chooseSteps(*a, &steadyA, *b, &none, {});
    QVERIFY(!refused);
    QVERIFY2(refused.error().describe().starts_with("b.json: no steps found"), refused.error().describe().c_str());
    compare::CompareOptions whole;
    whole.wholeTrace = true;
    auto wholeSteps = compare::chooseSteps(*a, nullptr, *b, nullptr, whole);
    QVERIFY(wholeSteps);
    QCOMPARE(wholeSteps->second.source, std::string("whole_trace"));
    // The same through compareSides: the rows are per aligned step of all steps.
    const compare::Comparison c = compare::compareSides(*a, compare::attribute(*a), sa, *b, compare::attribute(*b), sb);
    QCOMPARE(c.a.steps, size_t(4));
    QCOMPARE(c.a.stepSource, std::string("all_steps"));
    QCOMPARE(c.a.stepUs, std::vector<double>(4, 900.0));
    QCOMPARE(rowOf(c, "aten::mm")->aCount, uint64_t(4));
  }

  void noStepsNamesTheFile() {
    TraceText tt;
    tt.op("aten::mm", 1, 0, 100);
    tt.launch("cudaLaunchKernel", 1, 10, 5, 1);
    tt.gpu("k", 20, 10, 1);
    const TracePtr t = sstest::loadJson(tt.json(), "flat.json");
    auto c = compare::compareTraces(t, t, {});
    if (c)
      QCOMPARE(c->a.stepSource, std::string("all_steps"));  // the call tree may find one
    else
      QVERIFY2(c.error().describe().starts_with("flat.json: "), c.error().describe().c_str());
  }

  void attributionMatchesBruteForce_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("args");
    QTest::newRow("training") << "train.json" << QStringList{"--style", "training", "--steps", "12", "--seed", "3"};
    QTest::newRow("training be-pairs unsorted")
        << "train_be.json"
        << QStringList{"--style", "training", "--steps", "12", "--be-pairs", "--unsorted", "--seed", "4"};
    QTest::newRow("training ugly")
        << "train_ugly.json"
        << QStringList{"--style",           "training",           "--steps", "12", "--string-ids", "--bad-dur", "0.05",
                       "--overlap-kernels", "--python-functions", "--seed",  "5"};
    QTest::newRow("vllm graphs") << "vllm.json" << QStringList{"--style", "vllm", "--steps", "40", "--seed", "6"};
  }

  void attributionMatchesBruteForce() {
    QFETCH(QString, name);
    QFETCH(QStringList, args);
    const TracePtr t = loadOrDie(generate(name, args));
    const compare::Attribution a = compare::attribute(*t);
    const BruteForce ref = bruteForce(*t);
    size_t attributed = 0, gpuWork = 0;
    for (EventIdx i = 0; i < t->size(); ++i) gpuWork += isGpuWork(t->classOf(i)) && withTs(*t, i);
    QCOMPARE(a.gpu.size(), gpuWork);
    for (size_t k = 0; k < a.gpu.size(); ++k) {
      const EventIdx g = a.gpu[k];
      auto l = ref.launch.find(g);
      auto o = ref.op.find(g);
      QCOMPARE(a.launch[k], l == ref.launch.end() ? compare::kNoEvent : l->second);
      QCOMPARE(a.op[k], o == ref.op.end() ? compare::kNoEvent : o->second);
      attributed += a.op[k] != compare::kNoEvent;
    }
    QVERIFY(attributed > a.gpu.size() / 2);  // the reference is not vacuous
  }

  // The rows of a steady-state comparison against a plain sum over the brute-force attribution.
  void steadyStateRowsMatchBruteForce() {
    const QString pa = generate("ss_a.json", {"--style", "training", "--steps", "60", "--seed", "1"});
    const QString pb =
        generate("ss_b.json", {"--style", "training", "--steps", "50", "--seed", "2", "--slow-rank-factor", "1.5"});
    const TracePtr a = loadOrDie(pa), b = loadOrDie(pb);
    auto c = compare::compareTraces(a, b, {});
    QVERIFY2(c, c ? "" : c.error().describe().c_str());
    QCOMPARE(c->a.stepSource, std::string("steady_state"));
    QCOMPARE(c->b.stepSource, std::string("steady_state"));
    QCOMPARE(c->a.steps, std::min(c->a.availableSteps, c->b.availableSteps));
    analysis::SplitOptions so;
    so.findSteadyState = true;
    analysis::Splitter sa(a), sb(b);
    const analysis::SplitResult ra = sa.plan(so), rb = sb.plan(so);
    auto steps = compare::chooseSteps(*a, &ra, *b, &rb, {});
    QVERIFY(steps);
    for (const auto& [trace, side, fig, isB] :
         {std::tuple{a, steps->first, c->a, false}, std::tuple{b, steps->second, c->b, true}}) {
      const BruteForce ref = bruteForce(*trace);
      std::map<std::string, double> perOp;
      for (EventIdx g = 0; g < trace->size(); ++g) {
        if (!isGpuWork(trace->classOf(g)) || !withTs(*trace, g)) continue;
        auto l = ref.launch.find(g);
        const int64_t when = trace->tsNs[l != ref.launch.end() ? l->second : g];
        bool in = false;
        for (const auto& w : side.windows) in = in || (w.beginNs <= when && when < w.endNs);
        if (!in) continue;
        auto o = ref.op.find(g);
        perOp[o == ref.op.end() ? std::string(compare::kNoOp) : std::string(trace->nameOf(o->second))] +=
            static_cast<double>(trace->durNs[g]) / 1000.0;
      }
      QCOMPARE(perOp.size() > 3, true);
      for (const auto& [op, us] : perOp) {
        const compare::OpRow* r = rowOf(*c, op);
        QVERIFY2(r, op.c_str());
        QVERIFY2(std::abs((isB ? r->bGpuUs : r->aGpuUs) - us) < 1e-6, op.c_str());
      }
      QCOMPARE(fig.steps, side.windows.size());
    }
  }

  void cliJsonFieldNames() {
    const QString pa = generate("cli_a.json", {"--style", "training", "--steps", "40", "--seed", "1"});
    const QString pb = generate("cli_b.json", {"--style", "training", "--steps", "40", "--seed", "2"});
    const QString tsv = dir_.path() + "/ops.tsv";
    Run r = runTool(STEADYSCOPE_CLI, {"compare", pa, pb, "--json", "--tsv", tsv});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    const QJsonObject root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QStringList top = root.keys();
    top.sort();
    QCOMPARE(top, (QStringList{"a", "b", "kernels", "ops", "whole_trace"}));
    const QStringList opFields = {"op",       "a_count",       "b_count",       "a_gpu_us",
                                  "b_gpu_us", "a_us_per_step", "b_us_per_step", "delta_us_per_step"};
    const QJsonArray ops = root["ops"].toArray();
    QVERIFY(ops.size() > 3);
    for (const auto& v : ops) {
      QStringList keys = v.toObject().keys();
      keys.sort();
      QStringList want = opFields;
      want.sort();
      QCOMPARE(keys, want);
    }
    for (const char* side : {"a", "b"}) {
      const QJsonObject h = root[side].toObject();
      for (const char* k : {"file", "steps", "step_median_us", "gpu_busy_per_step_us", "attributed_share",
                            "step_source", "step_us", "without_launch"})
        QVERIFY2(h.contains(k), k);
      QCOMPARE(h["step_source"].toString(), QString("steady_state"));
    }
    QCOMPARE(root["a"].toObject()["file"].toString(), pa);
    QFile f(tsv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().split('\n');
    QCOMPARE(QString::fromUtf8(lines[0]), opFields.join('\t'));
    QCOMPARE(lines.size() - 2, ops.size());  // header, rows, the final newline
  }

  void cliErrors() {
    const QString pa = generate("cli_a.json", {"--style", "training", "--steps", "40", "--seed", "1"});
    Run r = runTool(STEADYSCOPE_CLI, {"compare", pa, "/nonexistent/b.json"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("/nonexistent/b.json: "), qPrintable(r.err));
    r = runTool(STEADYSCOPE_CLI, {"compare", pa});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("expected two traces"), qPrintable(r.err));
    r = runTool(STEADYSCOPE_CLI, {"compare", pa, pa, "--steps", "3-4"});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("argument --steps: expected A:B"), qPrintable(r.err));
    r = runTool(STEADYSCOPE_CLI, {"compare", pa, pa, "--whole-trace", "--steps", "1:2"});
    QCOMPARE(r.status, 2);
    r = runTool(STEADYSCOPE_CLI, {"compare", pa, pa, "--steps-b", "39:41"});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains(pa + ": steps 39:41 out of range: the trace has 40 steps"), qPrintable(r.err));
    r = runTool(STEADYSCOPE_CLI, {"compare", pa, pa, "--steps", "2:5", "--timings"});
    QCOMPARE(r.status, 0);
    QVERIFY2(r.out.contains("steps 2:5 of 40 (range)"), qPrintable(r.out));
    QVERIFY2(r.err.contains("compare "), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TstCompare)
#include "tst_compare.moc"
