// The call-tree tiers (spec §2.6) one at a time, each on a small hand-built
// trace that only it can solve: the name normaliser, period detection, the
// tree build and its failures, branch descent (E13), sibling roots, frame
// families, the low-GPU filter, worker-thread reattachment and bookends; and
// a refused trace's manifest.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/io/loader.hpp>
#include "util/name_normaliser.hpp"
#include "analysis/pyfmt.hpp"
#include "analysis/roots/call_tree.hpp"
#include "analysis/roots/detection.hpp"
#include "analysis/roots/tree_tiers.hpp"
#include "support/load_json.hpp"

#include <cstring>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cctype>

using namespace steadyscope;
using namespace steadyscope::analysis;
using steadyscope::names::normalizeNameForComparison;

namespace {

TracePtr load(const std::string& json, const std::string& name = "train.json") { return sstest::loadJson(json, name); }

/// Events of a hand-built trace, as JSON objects.
class Events {
 public:
  void frame(const char* cat, const std::string& name, int64_t ts, int64_t dur, int tid = 1) {
    add(R"({"ph":"X","cat":")" + std::string(cat) + R"(","name":")" + name + R"(","pid":1,"tid":)" +
        std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{}})");
  }
  /// A cpu_op with its ts and dur as written (reals).
  void frameText(const std::string& name, const std::string& ts, const std::string& dur, int tid) {
    add(R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" + ts +
        R"(,"dur":)" + dur + R"(,"args":{}})");
  }
  /// A launch at ts (dur 5) on pid 1 / `tid` and its kernel at kts on pid 0 / tid 7, linked by an ac2g pair.
  void launch(int64_t ts, int64_t kts, int64_t kdur, const std::string& kernel = "k", int tid = 1) {
    const std::string c = std::to_string(corr_++);
    const std::string t = std::to_string(tid);
    add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":)" + t + R"(,"ts":)" +
        std::to_string(ts) + R"(,"dur":5,"args":{"correlation":)" + c + "}}");
    add(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":)" + c + R"(,"pid":1,"tid":)" + t + R"(,"ts":)" +
        std::to_string(ts) + "}");
    add(R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" + std::to_string(kts) +
        R"(,"dur":)" + std::to_string(kdur) + R"(,"args":{"correlation":)" + c + "}}");
    add(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":)" + c + R"(,"pid":0,"tid":7,"ts":)" + std::to_string(kts) +
        R"(,"bp":"e"})");
  }
  void add(const std::string& e) { ev_.push_back(e); }
  std::string json() const {
    std::string s = "{\"traceEvents\": [\n";
    for (size_t i = 0; i < ev_.size(); ++i) s += (i ? ",\n" : "") + ev_[i];
    return s + "\n]}";
  }

 private:
  std::vector<std::string> ev_;
  int corr_ = 400;
};

/// E13's trace: one training_loop frame, eight iterations of fwd / bwd, each
/// with one launch and its kernel.
Events e13(int iterations = 8, const std::string& bwdKernel = "iter_bwd_kernel") {
  Events ev;
  ev.frame("cpu_op", "training_loop", 0, std::max<int64_t>(20000, 2000LL * iterations + 1000));
  for (int it = 0; it < iterations; ++it) {
    const int64_t base = 100 + 2000 * it;
    ev.frame("cpu_op", "iter_fwd", base, 300);
    ev.launch(base + 10, base + 50, 20, "iter_fwd_kernel");
    ev.frame("cpu_op", "iter_bwd", base + 400, 300);
    ev.launch(base + 410, base + 450, 20, bwdKernel);
  }
  return ev;
}

Detection detect(const TracePtr& t) {
  EventIndex idx(*t);
  return detectRoots(idx);
}

/// Plans `t` (find steady state) on each thread count, calls check(result)
/// and compares the manifest and details text with the first count's.
template <typename Check>
void samePlanOnThreads(const TracePtr& t, std::initializer_list<unsigned> threadCounts, Check&& check) {
  std::string first;
  for (unsigned threads : threadCounts) {
    Splitter s(t);
    SplitOptions o;
    o.outputDir = "out";
    o.findSteadyState = true;
    o.threads = threads;
    const SplitResult r = s.plan(o);
    check(r);
    const std::string m = r.manifest.dump(JsonStyle::pythonFile()) + r.executionDetailsCsv;
    if (first.empty())
      first = m;
    else
      QCOMPARE(m, first);
  }
}

QString readText(const QString& p) {
  QFile f(p);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class TestCallTree : public QObject {
  Q_OBJECT
 private slots:
  void normaliser_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("normalised");
    QTest::newRow("line number") << "train.py(57): train_step"
                                 << "train.py: train_step";
    QTest::newRow("hex address") << "<built-in method 0x7f3a1c2b>"
                                 << "<built-in method 0xXXXX>";
    QTest::newRow("two addresses") << "a 0xdead b 0xBEEF"
                                   << "a 0xXXXX b 0xXXXX";
    QTest::newRow("0x without hex digit") << "0xg 0x"
                                          << "0xg 0x";
    QTest::newRow("no colon after the line") << "a.py(12) b"
                                             << "a.py(12) b";
    QTest::newRow("empty parentheses") << "a.py(): f"
                                       << "a.py(): f";
    QTest::newRow("launch equivalents") << "hipModuleLaunchKernel"
                                        << "__kernel_launch__";
    QTest::newRow("cuLaunchKernel") << "cuLaunchKernel"
                                    << "__kernel_launch__";
    QTest::newRow("launch name only as a whole") << "cuLaunchKernelEx"
                                                 << "cuLaunchKernelEx";
    QTest::newRow("plain") << "aten::mm"
                           << "aten::mm";
  }
  void normaliser() {
    QFETCH(QString, name);
    QFETCH(QString, normalised);
    QCOMPARE(QString::fromStdString(normalizeNameForComparison(name.toStdString())), normalised);
  }

  void periodDetection() {
    // [a b] x 8: period 2 from the start.
    std::vector<uint32_t> ab;
    for (int i = 0; i < 8; ++i) ab.insert(ab.end(), {5, 9});
    auto p = findRepeatingPeriod(ab);
    QVERIFY(p);
    QCOMPARE(p->length, size_t(2));
    QCOMPARE(p->start, size_t(0));
    QCOMPARE(p->pattern, (std::vector<uint32_t>{5, 9}));
    // A warm-up prefix is skipped: the longest run starts after it.
    std::vector<uint32_t> warm = {1, 2, 3};
    for (int i = 0; i < 6; ++i) warm.insert(warm.end(), {7, 8, 9});
    p = findRepeatingPeriod(warm);
    QVERIFY(p);
    QCOMPARE(p->length, size_t(3));
    QCOMPARE(p->start, size_t(3));
    // Three repeats covering exactly half: not a period (more than half needed).
    QVERIFY(!findRepeatingPeriod({1, 2, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8}));
    // Fewer than three repeats: none.
    QVERIFY(!findRepeatingPeriod({1, 2, 1, 2}));
    // A multiple of a kept period is dropped unless it explains 5 % more.
    std::vector<uint32_t> abab;
    for (int i = 0; i < 6; ++i) abab.insert(abab.end(), {1, 2, 1, 3});
    p = findRepeatingPeriod(abab);
    QVERIFY(p);
    QCOMPARE(p->length, size_t(4));  // the anchor (3) recurs every 4
  }

  // E13: the only loop is the children of training_loop; periods of two.
  void branchDescentE13() {
    auto t = load(e13().json());
    const Detection d = detect(t);
    QVERIFY(d.usedCallTree);
    QCOMPARE(d.chosen.method, std::string("generic:branch_descent"));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);
    QCOMPARE(d.chosen.roots.size(), size_t(8));
    for (size_t k = 0; k < 8; ++k) {
      QCOMPARE(d.chosen.roots.name(*t, k), std::string_view("training_loop"));
      QCOMPARE(t->tsUs(d.chosen.roots[k]), 100.0 + 2000.0 * double(k));
      QCOMPARE(d.chosen.roots.durUs(EventIndex(*t), k), 700.0);
    }
    const TreeEvidence& ev = *d.chosen.tree;
    QCOMPARE(ev.period, std::optional<int64_t>(2));
    QCOMPARE(ev.depth, int64_t(0));
    QCOMPARE(ev.source, std::string("period"));
    QCOMPARE(ev.coverage, 1.0);
    QCOMPARE(ev.iterGpuTime, 320.0);
    QCOMPARE(ev.rootGpuTimes, std::vector<double>(8, 40.0));
    QVERIFY(ev.before.empty() && ev.after.empty());
    QCOMPARE(d.steps.size(), size_t(3));  // known, unknown (nothing), branch descent
    QCOMPARE(d.steps[2].name, std::string("branch descent"));
  }

  // E13 end to end with single iterations: the reference's rows.
  void branchDescentE13Files() {
    auto t = load(e13().json(), "train.json");
    QTemporaryDir dir;
    Splitter s(t);
    SplitOptions o;
    o.outputDir = (dir.path() + "/out").toStdString();
    o.findSteadyState = true;
    o.numSteps = 4;
    o.storeSingleIteration = true;
    SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QVERIFY(s.write(r));
    const QStringList rows = readText(dir.path() + "/out/execution_details.csv").split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 10);  // header, 8 iterations, the steady state
    const QString out = dir.path() + "/out/";
    for (int i = 0; i < 8; ++i)
      QCOMPARE(rows[1 + i], QString("%1,%2train_iteration_%1.json.gz,10,2,420,40,0,0,1,1,1,1").arg(i).arg(out));
    QCOMPARE(rows[9], QString("0,%1steady_state_train.json.gz,40,8,1680,160,0,0,4,1,1,4").arg(out));
    const QString m = readText(out + "split_manifest.json");
    for (const char* k : {"\"n_gpu_events_extracted\": 16", "\"n_gpu_events_outside_iterations\": 0",
                          "\"gpu_events_duplicated\": false", "\"gpu_event_retention\": 1.0", "\"period\": 2",
                          "\"branch_source\": \"period\"", "\"iter_gpu_time\": 320.0"})
      QVERIFY2(m.contains(QLatin1String(k)), k);
  }

  // Big traces build the tree on two cores (the links and the page faults
  // beside the host stacks): the plan is the same on 1, 2 and 16 threads.
  void threadsDoNotChangeTheTree() {
    // Also when the direct links fall back to the pairs (a kernel with two launches at the end).
    for (bool fallBack : {false, true}) {
      Events ev = e13(27000);  // 270,001 events: above the side-by-side threshold
      if (fallBack)
        for (
            const char* e :
            {R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":60000000,"dur":5,"args":{"correlation":60000}})",
             R"({"ph":"s","cat":"ac2g","name":"ac2g","id":60000,"pid":1,"tid":1,"ts":60000000})",
             R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":60000100,"dur":5,"args":{"correlation":60000}})",
             R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":60000500,"dur":9,"args":{"correlation":60000}})",
             R"({"ph":"f","cat":"ac2g","name":"ac2g","id":60000,"pid":0,"tid":7,"ts":60000500,"bp":"e"})"})
          ev.add(e);
      auto t = load(ev.json());
      QVERIFY(t->size() >= (size_t(1) << 18));
      EventIndex idx(*t);
      QCOMPARE(std::get<CallTree>(CallTree::build(idx, 2)).hasSharedNodes(), fallBack);
      samePlanOnThreads(t, {1u, 2u, 16u}, [](const SplitResult& r) {
        QCOMPARE(r.outcome, SplitOutcome::Split);
        QCOMPARE(r.detection->chosen.roots.size(), size_t(27000));
      });
    }
  }

  // With collectives, the startup-transient check runs after the tree tiers;
  // on a big trace its kernel list is made beside them: the same plan on 1 and 2 threads.
  void trimAfterTreeTiersSameOnOneAndTwoThreads() {
    auto t = load(e13(33000, "ncclDevKernel_AllReduce").json());  // 66,000 kernels: the list is made aside
    samePlanOnThreads(t, {1u, 2u}, [](const SplitResult& r) {
      QVERIFY(r.detection->usedCallTree);
      QVERIFY(r.detection->trim.ran);
      QCOMPARE(r.detection->trim.kernel, std::string("ncclDevKernel_AllReduce"));
    });
  }

  // Many siblings are walked on two threads: their GPU times are the same
  // doubles, bit for bit, as one thread's walk gives. The durations are
  // fractional, so the order of the additions shows in the last bits.
  void twoThreadWalkAddsInOneWalksOrder() {
    Events ev;
    const int n = 6000;  // above the siblings a walk shares out
    ev.frame("cpu_op", "loop", 0, 1000LL * n + 1000);
    for (int i = 0; i < n; ++i) {
      const int64_t base = 100 + 1000LL * i;
      ev.frame("cpu_op", "body", base, 500);
      for (int k = 0; k < 2; ++k) {
        const std::string c = std::to_string(10000 + 2 * i + k), ts = std::to_string(base + 10 + 100 * k);
        const std::string dur = std::to_string(0.1 + 0.013 * ((i * 7 + k * 3) % 11));
        ev.add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
               R"(,"dur":5,"args":{"correlation":)" + c + "}}");
        ev.add(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":)" + c + R"(,"pid":1,"tid":1,"ts":)" + ts + "}");
        ev.add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + ts + R"(,"dur":)" + dur +
               R"(,"args":{"correlation":)" + c + "}}");
        ev.add(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":)" + c + R"(,"pid":0,"tid":7,"ts":)" + ts +
               R"(,"bp":"e"})");
      }
    }
    auto t = load(ev.json());
    EventIndex idx(*t);
    std::vector<CallTree::GpuTimes> got;
    for (unsigned threads : {1u, 2u}) {
      auto built = CallTree::build(idx, threads);
      QVERIFY(std::holds_alternative<CallTree>(built));
      const CallTree& tree = std::get<CallTree>(built);
      const std::vector<EventIdx> bodies = tree.children(0);
      QCOMPARE(bodies.size(), size_t(n));
      got.push_back(tree.descendantGpuTimes(bodies));
    }
    QVERIFY(std::memcmp(&got[0].total, &got[1].total, sizeof(double)) == 0);
    QVERIFY(got[0].each == got[1].each);
    double otherOrder = 0.0;  // the same times added first sibling first: another double
    for (double g : got[0].each) otherOrder += g;
    QVERIFY(otherOrder != got[0].total);
  }

  // An explicit range of call-tree roots carries their enclosing frames
  // (here training_loop, longer than any window), once.
  void explicitRangeCarriesAncestors() {
    auto t = load(e13().json(), "train.json");
    Splitter s(t);
    SplitOptions o;
    o.outputDir = "out";
    o.iterations = "2:5";
    SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(r.chunks.size(), size_t(1));
    const ChunkPlan& c = r.chunks.front();
    QCOMPARE(c.kind, ChunkKind::Range);
    QCOMPARE(std::count(c.events.begin(), c.events.end(), EventIdx(0)), std::ptrdiff_t(1));  // training_loop
    QCOMPARE(c.stats.eventCount, int64_t(3 * 10 + 1));  // 3 steps of 10 events, and the ancestor
  }

  // No enclosing frame: the iterations are top-level frames, found among
  // the entry roots.
  void siblingRoots() {
    Events ev;
    for (int it = 0; it < 6; ++it) {
      const int64_t base = 100 + 1000 * it;
      ev.frame("cpu_op", "step_a", base, 200);
      ev.launch(base + 10, base + 20, 30);
      ev.frame("cpu_op", "step_b", base + 300, 200);
      ev.launch(base + 310, base + 320, 30);
    }
    auto t = load(ev.json());
    const Detection d = detect(t);
    QCOMPARE(d.chosen.method, std::string("generic:sibling_roots"));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);
    QCOMPARE(d.chosen.roots.size(), size_t(6));
    QCOMPARE(d.chosen.roots.name(*t, 0), std::string_view("step_a"));  // sibling roots keep their names
    QCOMPARE(d.chosen.tree->tier, std::string("sibling_roots"));
    QCOMPARE(d.chosen.diagnostics.find("period_label_tier")->asString(), std::string("sibling_roots"));
  }

  // A conditional loop body: the GPU frame recurs between other frames with
  // no contiguous period; the frame family is the candidate.
  void frameFamily() {
    Events ev;
    ev.frame("cpu_op", "loop", 0, 100000);
    int64_t ts = 100;
    for (int it = 0; it < 6; ++it) {
      ev.frame("cpu_op", "body", ts, 200);
      ev.launch(ts + 10, ts + 20, 30);
      ts += 300;
      for (int j = 0; j < it % 3; ++j, ts += 100) ev.frame("cpu_op", "log", ts, 50);
    }
    auto t = load(ev.json());
    const Detection d = detect(t);
    QCOMPARE(d.chosen.method, std::string("generic:branch_descent"));
    QCOMPARE(d.chosen.tree->source, std::string("frame_family"));
    QVERIFY(!d.chosen.tree->period.has_value());
    QCOMPARE(d.chosen.roots.size(), size_t(6));
    QCOMPARE(d.chosen.roots.name(*t, 0), std::string_view("body"));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);
  }

  // Roots with far less GPU time than the others (a gap of 10x between
  // sorted neighbours) are dropped when four or more remain.
  void lowGpuRootsDropped() {
    Events ev;
    ev.frame("cpu_op", "loop", 0, 100000);
    for (int it = 0; it < 6; ++it) {
      const int64_t base = 100 + 1000 * it;
      ev.frame("cpu_op", "body", base, 500);
      ev.launch(base + 10, base + 20, it == 5 ? 2 : 100);
    }
    auto t = load(ev.json());
    const Detection d = detect(t);
    QCOMPARE(d.chosen.roots.size(), size_t(5));
    QCOMPARE(d.chosen.tree->droppedLowGpuRoots, std::optional<int64_t>(1));
    QCOMPARE(d.chosen.tree->iterGpuTime, 500.0);
    QCOMPARE(d.chosen.tree->coverage, pyRound(500.0 / 502.0, 4));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);  // 0.996
  }

  // The autograd thread's roots sit inside the host thread's python frames
  // in time only; reattached, the steps' frames carry their GPU work.
  void workerThreadsReattached() {
    Events ev;
    ev.frame("python_function", "train.py(10): main", 0, 100000);
    for (int it = 0; it < 5; ++it) {
      const int64_t base = 100 + 2000 * it;
      ev.frame("python_function", std::string("train.py(") + (it % 2 ? "20" : "21") + "): step", base, 1500);
      ev.frame("cpu_op", "aten::add", base + 10, 100);
      ev.launch(base + 20, base + 30, 10);
      ev.frame("python_function", "torch/autograd.py(5): backward", base + 200, 1000);
      ev.frame("cpu_op", "autograd::engine::evaluate_function: MmBackward0", base + 300, 500, 2);
      ev.launch(base + 310, base + 320, 90, "k", 2);
    }
    auto t = load(ev.json());
    {
      EventIndex idx(*t);
      auto built = CallTree::build(idx);
      QVERIFY(std::holds_alternative<CallTree>(built));
      CallTree& tree = std::get<CallTree>(built);
      QCOMPARE(tree.entryRoots().size(), size_t(6));  // main + five worker roots
      tree.reattachWorkerThreads();
      QCOMPARE(tree.entryRoots().size(), size_t(1));  // everything under main
    }
    const Detection d = detect(t);
    QCOMPARE(d.chosen.method, std::string("generic:branch_descent"));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);  // 100 of 100 GPU µs per step: the normaliser joins 20 and 21
    QCOMPARE(d.chosen.roots.size(), size_t(5));
    QCOMPARE(d.chosen.tree->coverage, 1.0);
  }

  // Half the GPU work in the loop, the rest before and after it: bookends
  // make it SPLITTABLE; warmup first, wrapup last.
  void bookends() {
    Events ev;
    ev.frame("cpu_op", "loop", 0, 100000);
    ev.frame("cpu_op", "setup", 50, 40);
    ev.launch(55, 60, 300);
    for (int it = 0; it < 4; ++it) {
      const int64_t base = 1000 + 1000 * it;
      ev.frame("cpu_op", "body", base, 500);
      ev.launch(base + 10, base + 20, 100);
    }
    ev.frame("cpu_op", "teardown", 9000, 40);
    ev.launch(9005, 9010, 100);
    auto t = load(ev.json());
    const Detection d = detect(t);
    QCOMPARE(d.steps.back().name, std::string("bookend enhancement"));
    QCOMPARE(d.chosen.status, SplitStatus::Splittable);
    QCOMPARE(d.chosen.roots.size(), size_t(6));
    QCOMPARE(d.chosen.roots.name(*t, 0), std::string_view("warmup"));
    QCOMPARE(d.chosen.roots.name(*t, 5), std::string_view("wrapup"));
    QCOMPARE(d.chosen.tree->warmupGpuPct, std::optional<double>(37.5));
    QCOMPARE(d.chosen.tree->wrapupGpuPct, std::optional<double>(12.5));
    QVERIFY(d.chosen.coverage);  // the bookend candidate is audited
    QVERIFY(d.chosen.diagnostics.find("bookend_enhancement"));
  }

  // Links the reference cannot build without looping (a flow that ends on
  // its own launch or on a frame enclosing it) are left out: no hang, and
  // walks count shared events once.
  void loopingAndSharedLinks() {
    Events ev = e13(4);
    // A flow pair whose end sits on the CPU thread: it points back at its own launch.
    ev.add(
        R"({"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":20000,"dur":100,"args":{"correlation":900}})");
    ev.add(
        R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":20010,"dur":5,"args":{"correlation":900}})");
    ev.add(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":900,"pid":1,"tid":1,"ts":20010})");
    ev.add(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":900,"pid":1,"tid":1,"ts":20010,"bp":"e"})");
    // Two graph launches with one id: their kernels have two parents each.
    for (int g = 0; g < 2; ++g)
      ev.add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":)" +
             std::to_string(21000 + 100 * g) + R"(,"dur":5,"args":{"correlation":901}})");
    ev.add(R"({"ph":"X","cat":"kernel","name":"g","pid":0,"tid":7,"ts":21500,"dur":7,"args":{"correlation":901}})");
    auto t = load(ev.json());
    EventIndex idx(*t);
    auto built = CallTree::build(idx);
    QVERIFY(std::holds_alternative<CallTree>(built));
    const CallTree& tree = std::get<CallTree>(built);
    const EventIdx launch = 1 + 4 * 10 + 1;  // after e13(4)'s 41 events and "outer"
    QCOMPARE(t->nameOf(launch), std::string_view("hipLaunchKernel"));
    QVERIFY(tree.children(launch).empty());  // its own flow's end is itself: no link
    const EventIdx graph0 = launch + 3, graph1 = launch + 4, kernel = launch + 5;
    QCOMPARE(tree.children(graph0), std::vector<EventIdx>{kernel});
    QCOMPARE(tree.children(graph1), std::vector<EventIdx>{kernel});
    const std::vector<EventIdx> both{graph0, graph1};
    QCOMPARE(tree.descendantGpuTime(both), 7.0);  // the shared kernel once
    const auto times = tree.descendantGpuTimes(both);
    QCOMPARE(times.total, 7.0);
    QCOMPARE(times.each, (std::vector<double>{7.0, 7.0}));
    const Detection d = detect(t);  // and the cascade finishes
    QVERIFY(d.usedCallTree);
  }

  // Launches are linked straight to their GPU events while the host stacks
  // are built, unless some event would get two launches or a flow points
  // at a host frame: then as the reference links them, from the pairs.
  void directLinksFallBackToPairs() {
    enum Case { TwoLaunches, HostFrame, HostFrameWithChild };
    for (Case c : {TwoLaunches, HostFrame, HostFrameWithChild}) {
      Events ev = e13(4);
      const EventIdx first = 1 + 4 * 10;  // after e13(4)'s 41 events
      if (c == TwoLaunches) {             // one id, two launches, one kernel
        for (int k = 0; k < 2; ++k) {
          const std::string ts = std::to_string(20000 + 100 * k);
          ev.add(R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
                 R"(,"dur":5,"args":{"correlation":950}})");
          ev.add(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":950,"pid":1,"tid":1,"ts":)" + ts + "}");
        }
        ev.add(
            R"({"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":20500,"dur":9,"args":{"correlation":950}})");
        ev.add(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":950,"pid":0,"tid":7,"ts":20500,"bp":"e"})");
      } else {  // the flow ends on the launch's own thread, where a later frame has its id
        ev.add(
            R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":20010,"dur":5,"args":{"correlation":900}})");
        ev.add(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":900,"pid":1,"tid":1,"ts":20010})");
        ev.add(R"({"ph":"f","cat":"ac2g","name":"ac2g","id":900,"pid":1,"tid":1,"ts":20010,"bp":"e"})");
        ev.add(
            R"({"ph":"X","cat":"cpu_op","name":"later","pid":1,"tid":1,"ts":20100,"dur":50,"args":{"correlation":900}})");
        if (c == HostFrameWithChild) ev.frame("cpu_op", "inner", 20110, 5);
      }
      const auto t = load(ev.json());
      EventIndex idx(*t);
      const auto built = CallTree::build(idx);
      QVERIFY(std::holds_alternative<CallTree>(built));
      const CallTree& tree = std::get<CallTree>(built);
      size_t linked = 0;
      for (EventIdx e = 0; e < first; ++e) linked += tree.children(e).size() == 1 && t->nameOf(e) == "hipLaunchKernel";
      QCOMPARE(linked, size_t(8));  // e13's launches keep their kernels
      if (c == TwoLaunches) {
        const EventIdx a = first, b = first + 2, kernel = first + 4;
        QCOMPARE(tree.children(a), std::vector<EventIdx>{kernel});
        QCOMPARE(tree.children(b), std::vector<EventIdx>{kernel});
        QCOMPARE(tree.parent(kernel), b);  // the later link's
        const std::vector<EventIdx> both{a, b};
        QCOMPARE(tree.descendantGpuTime(both), 9.0);  // the shared kernel once
        QVERIFY(tree.hasSharedNodes());
        continue;
      }
      const EventIdx later = first + 3;
      QCOMPARE(tree.children(first), std::vector<EventIdx>{later});  // a host frame under a launch
      QCOMPARE(tree.parent(later), first);
      // A frame with children of its own is then in the tree twice over; the
      // direct links made before the fallback are undone, so nothing else is.
      QCOMPARE(tree.hasSharedNodes(), c == HostFrameWithChild);
    }
  }

  // Frames that start together are stacked in file order (the thread's own
  // list puts the longer first), whether the thread's frames are streamed
  // from its list (every ts exact to the ns) or listed and sorted (some ts
  // finer than 1 ns, here on another thread).
  void framesWithOneTsStackInFileOrder() {
    for (bool fineTs : {false, true}) {
      Events ev;
      ev.frame("cpu_op", "b", 10, 20);  // first in the file, shorter
      ev.frame("cpu_op", "a", 10, 50);  // bleeds 20 µs past b: dropped
      ev.frame("cpu_op", "c", 12, 5);
      if (fineTs) ev.add(R"({"ph":"X","cat":"cpu_op","name":"z","pid":2,"tid":2,"ts":1000.0001,"dur":1})");
      const auto t = load(ev.json());
      QCOMPARE(t->exactTsUs.empty(), !fineTs);
      EventIndex idx(*t);
      const auto built = CallTree::build(idx);
      QVERIFY(std::holds_alternative<CallTree>(built));
      const CallTree& tree = std::get<CallTree>(built);
      QCOMPARE(tree.parent(0), CallTree::kNone);
      QCOMPARE(tree.parent(1), CallTree::kNone);
      QVERIFY(tree.children(1).empty());
      QCOMPARE(tree.parent(2), EventIdx(0));
      QCOMPARE(tree.children(0), std::vector<EventIdx>{2});
    }
  }

  // Where ts and dur meet exactly, the frames compare as the reference's
  // floats do, not as the exact times: 0.1 + 0.2 ends after 0.3, so a frame
  // at 0.3 is still inside; 0.002 + 1.001 - 0.003 is under 1.0, so a frame
  // bleeding exactly 1 µs past its parent replaces it instead of being dropped.
  void framesCompareAsFloatsWhereTimesMeet() {
    Events ev;
    ev.frameText("a", "0.1", "0.2", 1);
    ev.frameText("b", "0.3", "0.0", 1);
    ev.frameText("g", "0.0", "100.0", 2);
    ev.frameText("t", "0.002", "1.001", 2);
    ev.frameText("e", "0.003", "5.0", 2);
    const auto t = load(ev.json());
    EventIndex idx(*t);
    const auto built = CallTree::build(idx);
    QVERIFY(std::holds_alternative<CallTree>(built));
    const CallTree& tree = std::get<CallTree>(built);
    QCOMPARE(tree.parent(1), EventIdx(0));  // b inside a
    QCOMPARE(tree.parent(3), EventIdx(2));  // t inside g
    QCOMPARE(tree.parent(4), EventIdx(2));  // e replaced t under g
    QCOMPARE(tree.children(2), (std::vector<EventIdx>{3, 4}));
  }

  // Flow ids close together get a slot each, others are grouped: the same
  // launches get the same GPU events either way, strings included.
  void flowIdsFarApartOrStringsLinkTheSame() {
    const std::string dense = e13(6).json();
    auto remap = [&](bool asStrings) {  // every id i becomes i * 1e9 + 7, or "idi"
      std::string out;
      size_t at = 0;
      while (at < dense.size()) {
        size_t hit = std::string::npos, len = 0;
        for (const std::string_view key : {"\"correlation\":", "\"id\":"})
          if (const size_t k = dense.find(key, at); k < hit) {
            hit = k;
            len = key.size();
          }
        if (hit == std::string::npos) break;
        size_t end = hit + len;
        while (end < dense.size() && std::isdigit(static_cast<unsigned char>(dense[end]))) ++end;
        const std::string v = dense.substr(hit + len, end - hit - len);
        out += dense.substr(at, hit + len - at);
        out += asStrings ? "\"id" + v + "\"" : std::to_string(std::stoll(v) * 1000000000LL + 7);
        at = end;
      }
      return out + dense.substr(at);
    };
    const auto base = load(dense);
    EventIndex baseIdx(*base);
    const CallTree baseTree = std::get<CallTree>(CallTree::build(baseIdx));
    size_t linked = 0;
    for (EventIdx e = 0; e < base->size(); ++e)
      linked += !baseTree.children(e).empty() && base->nameOf(e) == "hipLaunchKernel";
    QCOMPARE(linked, size_t(12));
    for (bool asStrings : {false, true}) {
      const auto t = load(remap(asStrings));
      EventIndex idx(*t);
      const auto built = CallTree::build(idx);
      QVERIFY(std::holds_alternative<CallTree>(built));
      for (EventIdx e = 0; e < t->size(); ++e) QCOMPARE(std::get<CallTree>(built).children(e), baseTree.children(e));
    }
  }

  // The reference's tree build reads every metadata event's value: an
  // unknown metadata name makes it fail, and the cascade keeps the best
  // annotation family — or reports that nothing is left.
  void treeBuildFailure() {
    Events ev = e13();
    ev.add(R"({"ph":"M","name":"process_uptime","pid":1,"args":{"value":1}})");
    const Detection d = detect(load(ev.json()));
    QVERIFY(!d.treeFailure.empty());
    QCOMPARE(d.chosen.method, std::string("none"));
    QCOMPARE(d.reason, std::string("tree build failed and no annotations"));
  }

  // A host frame without ts or one nested without dur fails the build too;
  // the missing ts is found first, as the reference checks every frame's ts
  // before it stacks any.
  void treeBuildFailureOrder() {
    for (int variant = 0; variant < 3; ++variant) {
      Events ev = e13();
      const size_t n = 1 + 8 * 10;  // e13's events
      if (variant != 1)             // a frame with ts, without dur, inside training_loop
        ev.add(R"({"ph":"X","cat":"cpu_op","name":"nodur","pid":1,"tid":1,"ts":150,"args":{}})");
      if (variant != 0)  // a frame without ts
        ev.add(R"({"ph":"X","cat":"python_function","name":"nots","pid":1,"tid":1,"dur":3,"args":{}})");
      const Detection d = detect(load(ev.json()));
      const std::string expected = variant == 0   ? "call-tree event " + std::to_string(n) + " has no dur"
                                   : variant == 1 ? "call-tree event " + std::to_string(n) + " has no ts"
                                                  : "call-tree event " + std::to_string(n + 1) + " has no ts";
      QCOMPARE(d.treeFailure, expected);
    }
  }

  // A loop that explains too little GPU work is refused; the manifest says
  // so the way the reference writes it, and nothing else is written.
  void refusedManifest() {
    Events ev = e13();
    ev.frame("cpu_op", "eval", 30000, 2000);
    ev.launch(30010, 30020, 2000, "eval_kernel");
    auto t = load(ev.json());
    QTemporaryDir dir;
    Splitter s(t);
    SplitOptions o;
    o.outputDir = (dir.path() + "/out").toStdString();
    o.findSteadyState = true;
    SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Refused);
    QVERIFY(s.write(r));
    const QString m = readText(dir.path() + "/out/split_manifest.json");
    QVERIFY(m.startsWith("{\n  \"status\": 2,\n  \"method\": \"generic:branch_descent\""));
    QVERIFY(m.contains("\"aborted\": true"));
    QVERIFY(m.contains("\"coverage_selected_roots\": null"));
    QVERIFY(!QFile::exists(dir.path() + "/out/execution_details.csv"));
    QCOMPARE(r.detection->fallback, std::string("last resort"));
  }
};

QTEST_APPLESS_MAIN(TestCallTree)
#include "tst_call_tree.moc"
