// Evidence from the source trace on hand-built traces (core/analysis, core/review): steps
// without GPU work, the union-based busy ratio with overlapping kernels, one
// dominant kernel, an inflated first iteration, and the findings the gate
// derives from that evidence.
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/split_gate.hpp>
#include "analysis/chunks/extraction.hpp"

#include <QTest>

#include <string>
#include <vector>

using namespace steadyscope;

namespace {

struct K {
  int64_t off = 20;  // kernel start, µs after the step start
  int64_t dur = 40;
  int stream = 7;
  std::string name = "gemm_kernel";
};

// Steps of 1000 µs on pid 1 / tid 1 (user_annotation roots), each kernel
// launched by a cpu_op inside the step (correlation), running on pid 0.
std::string buildTrace(const std::vector<std::vector<K>>& steps) {
  std::string ev;
  auto add = [&](const std::string& s) {
    if (!ev.empty()) ev += ",\n";
    ev += s;
  };
  add(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}})");
  int c = 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    const int64_t st = 100000 + 1000 * static_cast<int64_t>(i);
    add(R"({"ph":"X","cat":"user_annotation","name":"step_)" + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" +
        std::to_string(st) + R"(,"dur":900,"args":{}})");
    for (size_t j = 0; j < steps[i].size(); ++j, ++c) {
      const K& k = steps[i][j];
      const std::string cs = std::to_string(c);
      add(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
          std::to_string(st + 1 + static_cast<int64_t>(j)) + R"(,"dur":1,"args":{"correlation":)" + cs + "}}");
      add(R"({"ph":"X","cat":"kernel","name":")" + k.name + R"(","pid":0,"tid":)" + std::to_string(k.stream) +
          R"(,"ts":)" + std::to_string(st + k.off) + R"(,"dur":)" + std::to_string(k.dur) +
          R"(,"args":{"correlation":)" + cs + "}}");
    }
  }
  return "{\"traceEvents\": [\n" + ev + "\n], \"schemaVersion\": 1}";
}

struct Built {
  TracePtr trace;
  std::unique_ptr<analysis::EventIndex> index;
  EventList roots;
  analysis::TileSet tiles;
};

Built load(const std::vector<std::vector<K>>& steps) {
  Built b;
  auto t = loadTraceFromString(buildTrace(steps), "hand.json");
  if (!t) qFatal("load failed: %s", t.error().describe().c_str());
  b.trace = t.value();
  b.index = std::make_unique<analysis::EventIndex>(*b.trace);
  for (EventIdx e = 0; e < b.trace->size(); ++e)
    if (b.trace->catOf(e) == "user_annotation") b.roots.push_back(e);
  b.tiles = analysis::buildTiles(*b.index, b.roots);
  return b;
}

std::vector<size_t> iota(size_t n) {
  std::vector<size_t> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = k;
  return v;
}

// The gate on one mixed chunk with a full-precision row and the evidence.
gate::GateResult gateWith(const gate::ChunkFacts& ev, double threshold = 0.05) {
  gate::GateInput in;
  const std::string path = "out/mixed_steady_state_x.json.gz";
  in.listing.splitDir = "out";
  in.listing.chunks[gate::modeIndex(gate::Mode::Mixed)] = {path};
  in.rows[gate::modeIndex(gate::Mode::Mixed)] =
      gate::ChunkRow::fromValues(path, *ev.numGpuEvents, *ev.gpuDuration, *ev.gpuBusyDuration);
  in.evidence[gate::modeIndex(gate::Mode::Mixed)] = ev;
  gate::GateOptions o;
  o.threshold = threshold;
  return gate::evaluateGate(in, o);
}

// The analysis's evidence and the gate's view of it.
struct Report {
  analysis::ChunkEvidence measured;
  gate::ChunkFacts evidence;
};
Report evidenceOf(const analysis::EventIndex& index, const EventList& roots, const std::vector<size_t>& rootNumbers,
                  const analysis::TileSet* tiles, const analysis::EvidenceOptions& options = {},
                  const analysis::TransientContext& transient = {}) {
  Report r;
  r.measured = analysis::computeChunkEvidence(index, roots, rootNumbers, tiles, options, transient);
  r.evidence = review::gateFacts(r.measured);
  return r;
}

/// The events' trace split in memory (find steady state) and the gate's input
/// from that split; the trace is kept, as the result's names view its strings.
struct InMemorySplit {
  TracePtr trace;
  analysis::SplitResult result;
  gate::GateInput gateInput;
};
InMemorySplit splitInMemory(const std::string& events, const std::string& name) {
  auto t = loadTraceFromString("{\"traceEvents\": [" + events + "]}", name);
  if (!t.ok()) qFatal("%s: %s", name.c_str(), t.error().describe().c_str());
  InMemorySplit out{t.value(), {}, {}};
  analysis::Splitter s(out.trace);
  analysis::SplitOptions o;
  o.outputDir = "out";
  o.findSteadyState = true;
  out.result = s.plan(o);
  out.gateInput = review::gateInputFromSplit(out.result, o, nullptr);
  return out;
}

const gate::Finding* finding(const gate::GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

}  // namespace

class TstReviewEvidence : public QObject {
  Q_OBJECT
 private slots:
  void thirtyOfThirtyTwoStepsEmpty() {
    std::vector<std::vector<K>> steps(32);
    steps[3] = {K{}, K{.off = 100}};
    steps[17] = {K{}};
    Built b = load(steps);
    auto rep = evidenceOf(*b.index, b.roots, iota(32), &b.tiles);
    const auto& ev = rep.evidence;
    QCOMPARE(*ev.steps, 32);
    QCOMPARE(*ev.stepsWithoutGpu, 30);
    QCOMPARE(ev.emptyStepIndices.size(), size_t(30));
    QVERIFY(std::find(ev.emptyStepIndices.begin(), ev.emptyStepIndices.end(), 3) == ev.emptyStepIndices.end());
    QVERIFY(std::find(ev.emptyStepIndices.begin(), ev.emptyStepIndices.end(), 17) == ev.emptyStepIndices.end());
    QCOMPARE(ev.emptyStepIndices.front(), 0);
    QCOMPARE(*ev.numGpuEvents, int64_t(3));
    QCOMPARE(*ev.gpuBusyDuration, 120.0);
    // Per-root spans: step 3 [20, 140) = 120, step 17 = 40.
    QCOMPARE(*ev.gpuDuration, 160.0);
    // The pipeline passes this chunk (ratio 0.75); the finding says why it is suspicious.
    gate::GateResult g = gateWith(ev);
    QVERIFY(g.accepted);
    const gate::Finding* f = finding(g, "steps_without_gpu_work");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("30 of 32") != std::string::npos, f->sentence.c_str());
    QVERIFY(f->affectsVerdict);
    // Strict refuses on it.
    gate::GateResult gs = g;
    gs.options.strict = true;
    gate::finalizeStrict(gs);
    QVERIFY(!gs.finalAccepted());
  }

  void overlappingKernelsUnionBelowSum() {
    // Two streams: [20, 420) and [100, 500) on streams 7 and 13 -> sum 800,
    // span 480, union 480.
    std::vector<std::vector<K>> steps(
        4, std::vector<K>{K{.off = 20, .dur = 400, .stream = 7}, K{.off = 100, .dur = 400, .stream = 13}});
    Built b = load(steps);
    auto rep = evidenceOf(*b.index, b.roots, iota(4), &b.tiles);
    const auto& ev = rep.evidence;
    const double summed = *ev.gpuBusyDuration / *ev.gpuDuration;
    QCOMPARE(*ev.gpuBusyDuration, 3200.0);
    QCOMPARE(*ev.gpuDuration, 1920.0);
    QVERIFY(summed > 1.0);
    QVERIFY(ev.unionBusyRatio);
    QCOMPARE(*ev.unionBusyRatio, 1.0);
    QVERIFY(*ev.unionBusyRatio < summed);
    QCOMPARE(rep.measured.unionUs, 1920.0);
    QCOMPARE(*ev.stepsWithoutGpu, 0);
    gate::GateResult g = gateWith(ev);
    const gate::Finding* f = finding(g, "busy_ratio_above_one");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("union of its GPU intervals / gpu_duration is 1") != std::string::npos,
             f->sentence.c_str());
    QVERIFY(!finding(g, "dominant_gpu_event"));  // two equal kernels: 50% is not "most"
  }

  void gapsGiveUnionBelowOne() {
    // Kernels [20, 60) and [300, 340) in a step: span 320, union 80.
    std::vector<std::vector<K>> steps(3, std::vector<K>{K{.off = 20}, K{.off = 300}});
    Built b = load(steps);
    auto rep = evidenceOf(*b.index, b.roots, iota(3), &b.tiles);
    QCOMPARE(*rep.evidence.unionBusyRatio, 0.25);
    QCOMPARE(*rep.evidence.gpuBusyDuration / *rep.evidence.gpuDuration, 0.25);
  }

  void dominantKernel() {
    std::vector<std::vector<K>> steps(4, std::vector<K>{K{.off = 20, .dur = 10}, K{.off = 40, .dur = 10}});
    steps[2].push_back(K{.off = 60, .dur = 600, .name = "huge_allreduce"});
    Built b = load(steps);
    auto rep = evidenceOf(*b.index, b.roots, iota(4), &b.tiles);
    const auto& ev = rep.evidence;
    QVERIFY(ev.largestEventShare);
    QCOMPARE(*ev.largestEventName, std::string("huge_allreduce"));
    QCOMPARE(*ev.largestEventShare, 600.0 / 680.0);
    gate::GateResult g = gateWith(ev);
    const gate::Finding* f = finding(g, "dominant_gpu_event");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("huge_allreduce") != std::string::npos, f->sentence.c_str());
    QVERIFY2(f->sentence.find("88%") != std::string::npos, f->sentence.c_str());
  }

  void inflatedFirstIteration() {
    std::vector<std::vector<K>> steps(6, std::vector<K>{K{.dur = 100}});
    steps[0] = {K{.dur = 800}};
    Built b = load(steps);
    analysis::TransientContext tc;
    tc.firstRoot = 0;
    auto in = evidenceOf(*b.index, b.roots, iota(6), &b.tiles, {}, tc);
    QVERIFY(in.evidence.startupTransientInside);
    QVERIFY(*in.evidence.startupTransientInside);
    QVERIFY2(review::transientReason(in.measured).find("first iteration") != std::string::npos,
             review::transientReason(in.measured).c_str());
    QVERIFY(finding(gateWith(in.evidence), "startup_transient_inside"));
    // A window that starts after the first iteration does not hold it.
    EventList later(b.roots.begin() + 1, b.roots.end());
    std::vector<size_t> nums = {1, 2, 3, 4, 5};
    auto out = evidenceOf(*b.index, later, nums, &b.tiles, {}, tc);
    QVERIFY(out.evidence.startupTransientInside);
    QVERIFY(!*out.evidence.startupTransientInside);
    // A trimmed transient is outside every window.
    tc.trim.ran = tc.trim.trimmed = true;
    auto trimmed = evidenceOf(*b.index, b.roots, iota(6), &b.tiles, {}, tc);
    QVERIFY(!*trimmed.evidence.startupTransientInside);
    // Without a transient context the field stays unknown.
    auto unknown = evidenceOf(*b.index, b.roots, iota(6), &b.tiles);
    QVERIFY(!unknown.evidence.startupTransientInside);
  }

  void untrimmedCollectiveTransient() {
    std::vector<std::vector<K>> steps(5, std::vector<K>{K{.dur = 100}});
    Built b = load(steps);
    analysis::TransientContext tc;
    tc.firstRoot = 0;
    tc.trim.ran = true;
    tc.trim.collectiveRatio = 8.0;
    tc.trim.noiseRatio = 4.0;
    tc.trim.kernel = "ncclDevKernel_AllReduce";
    auto rep = evidenceOf(*b.index, b.roots, iota(5), &b.tiles, {}, tc);
    QVERIFY(*rep.evidence.startupTransientInside);
    QVERIFY2(review::transientReason(rep.measured).find("ncclDevKernel_AllReduce") != std::string::npos,
             review::transientReason(rep.measured).c_str());
  }

  // A refused split in memory: the gate's input carries the splitter's words
  // and the review reports them (split_refused), not a missing file.
  void refusedSplitSaysWhy() {
    std::string ev = R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10})";
    for (int i = 0; i < 4; ++i) {  // four steps with one kernel each, and as much GPU work outside them
      const std::string c = std::to_string(10 + i), st = std::to_string(100 * i);
      ev += R"(,{"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(i + 2) +
            R"(","pid":1,"tid":1,"ts":)" + st + R"(,"dur":50})";
      ev += R"(,{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + st +
            R"(,"dur":5,"args":{"correlation":)" + c + "}}";
      ev += R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + st +
            R"(,"dur":10,"args":{"correlation":)" + c + "}}";
      ev += R"(,{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":)" + std::to_string(100 * i + 60) +
            R"(,"dur":10,"args":{}})";
    }
    const auto [trace, r, in] = splitInMemory(ev, "refused.json");
    QCOMPARE(r.outcome, analysis::SplitOutcome::Refused);
    QVERIFY2(in.splitRefusal.rfind("The splitter refused the trace: ", 0) == 0, in.splitRefusal.c_str());
    gate::GateOptions go;
    go.mode = gate::Mode::Generic;
    const gate::GateResult g = gate::evaluateGate(in, go);
    const gate::Finding* f = finding(g, "split_refused");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("cover 50 % of the GPU time; a split needs 95 %") != std::string::npos,
             f->sentence.c_str());
    QVERIFY(!f->affectsVerdict);
  }

  // No GPU work is the splitter's decision too: the review says so, and
  // names the 2021 category names when those are why.
  void noGpuWorkSaysWhy() {
    std::string ev;
    for (int i = 0; i < 4; ++i) {
      const std::string st = std::to_string(100 * i);
      ev += std::string(i ? "," : "") + R"({"ph":"X","cat":"Operator","name":"aten::mm","pid":1,"tid":1,"ts":)" + st +
            R"(,"dur":5})";
      ev += R"(,{"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":7,"ts":)" + st + R"(,"dur":10})";
    }
    const auto [trace, r, in] = splitInMemory(ev, "legacy.json");
    QCOMPARE(r.outcome, analysis::SplitOutcome::NoGpuWork);
    gate::GateOptions go;
    go.mode = gate::Mode::Generic;
    const gate::GateResult g = gate::evaluateGate(in, go);
    const gate::Finding* f = finding(g, "split_refused");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("found no GPU work") != std::string::npos, f->sentence.c_str());
    QVERIFY2(f->sentence.find("4 GPU events use the 2021 category names") != std::string::npos, f->sentence.c_str());
  }

  void statisticsEqualTheSplitter() {
    // The recomputed statistics are the splitter's §4.4 numbers for the same roots.
    std::vector<std::vector<K>> steps(8,
                                      std::vector<K>{K{.off = 20, .dur = 33}, K{.off = 70, .dur = 17, .stream = 13}});
    Built b = load(steps);
    auto sel = analysis::selectChunk(*b.index, b.roots, &b.tiles, {});
    auto rep = evidenceOf(*b.index, b.roots, iota(8), &b.tiles);
    QCOMPARE(*rep.evidence.numGpuEvents, sel.stats.numGpuEvents);
    QCOMPARE(*rep.evidence.gpuDuration, sel.stats.gpuDuration.asDouble());
    QCOMPARE(*rep.evidence.gpuBusyDuration, sel.stats.gpuBusyDuration.asDouble());
    // --no-gap-fill: tiles from the chunk's own roots.
    auto sel2 = analysis::selectChunk(*b.index, b.roots, nullptr, {});
    auto rep2 = evidenceOf(*b.index, b.roots, iota(8), nullptr);
    QCOMPARE(*rep2.evidence.numGpuEvents, sel2.stats.numGpuEvents);
    QCOMPARE(*rep2.evidence.gpuDuration, sel2.stats.gpuDuration.asDouble());
    QCOMPARE(*rep2.evidence.stepsWithoutGpu, 0);
  }

  void statisticsDisagreeWithCsv() {
    std::vector<std::vector<K>> steps(4, std::vector<K>{K{}});
    Built b = load(steps);
    auto rep = evidenceOf(*b.index, b.roots, iota(4), &b.tiles);
    gate::GateInput in;
    const std::string path = "out/mixed_steady_state_x.json.gz";
    in.listing.chunks[0] = {path};
    in.rows[0] = gate::ChunkRow::fromValues(path, 99, *rep.evidence.gpuDuration, *rep.evidence.gpuBusyDuration);
    in.evidence[0] = rep.evidence;
    gate::GateResult g = gate::evaluateGate(in, {});
    const gate::Finding* f = finding(g, "statistics_disagree");
    QVERIFY(f);
    QVERIFY2(f->sentence.find("num_gpu_events 99 in the CSV, 4 in the trace") != std::string::npos,
             f->sentence.c_str());
  }
};

QTEST_APPLESS_MAIN(TstReviewEvidence)
#include "tst_review_evidence.moc"
