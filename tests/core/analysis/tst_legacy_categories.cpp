// The 2021 Kineto category names (Kernel, Memcpy, Memset, Runtime, Operator):
// by default the splitter, like the reference, finds no GPU work in such a
// trace and says how many GPU events it did not count; --fix
// legacy-categories counts them.
#include "trace_builder.hpp"

#include <steadyscope/core/analysis/gpu_categories.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include "analysis/event_index.hpp"
#include <steadyscope/core/io/loader.hpp>
#include "support/load_json.hpp"

#include <QTest>

#include <algorithm>
#include <string>

using namespace steadyscope;
using namespace steadyscope::analysis;

namespace {

TracePtr load(const std::string& json) { return sstest::loadJson(json, "legacy.pt.trace.json.gz"); }

// Eight ProfilerStep#N user annotations on pid 1 / tid 1, each enclosing
// `launches` Operator + Runtime launch + Kernel triples linked by correlation;
// step 0 also copies and sets memory (Memcpy, Memset). Only legacy names for
// the GPU work: the steps stay user_annotation, as the splitter needs them.
std::string legacyTrace(int launches, bool copies = true) {
  std::string ev = R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}})";
  auto add = [&](const std::string& s) { ev += ",\n" + s; };
  auto cpu = [](const char* cat, const char* name, int64_t ts, int dur, const std::string& args) {
    return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
           std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
  };
  auto gpu = [](const char* cat, const char* name, int64_t ts, int c) {
    return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":0,"tid":"stream 7","ts":)" +
           std::to_string(ts) + R"(,"dur":20,"args":{"correlation":)" + std::to_string(c) +
           R"(,"device":0,"stream":7}})";
  };
  int c = 1;
  for (int i = 0; i < 8; ++i) {
    const int64_t st = 1000000 + 10000LL * i;
    add(cpu("user_annotation", ("ProfilerStep#" + std::to_string(i + 1)).c_str(), st, 8000, ""));
    for (int j = 0; j < launches; ++j, ++c) {
      const int64_t b = st + 50LL * j;
      const std::string corr = R"("correlation":)" + std::to_string(c);
      add(cpu("Operator", "aten::mm", b, 40, R"("Input Dims":[[16,64],[64,64]])"));
      add(cpu("Runtime", "cudaLaunchKernel", b + 5, 5, corr));
      add(gpu("Kernel", "gemm_kernel", b + 10, c));
    }
    if (i != 0 || !copies) continue;
    add(cpu("Runtime", "cudaMemcpyAsync", st + 7000, 5, R"("correlation":)" + std::to_string(c)));
    add(gpu("Memcpy", "Memcpy HtoD (Pageable -> Device)", st + 7010, c++));
    add(cpu("Runtime", "cudaMemsetAsync", st + 7100, 5, R"("correlation":)" + std::to_string(c)));
    add(gpu("Memset", "Memset (Device)", st + 7110, c++));
  }
  return "{\"traceEvents\": [\n" + ev + "\n], \"schemaVersion\": 1, \"deviceProperties\": [{\"id\":0,\"name\":\"X\"}]}";
}

SplitOptions options(bool legacy) {
  SplitOptions o;
  o.outputDir = "out";
  o.fixes.legacyCategories = legacy;
  return o;
}

bool hasLine(const SplitResult& r, const std::string& line) {
  return std::find(r.log.begin(), r.log.end(), line) != r.log.end();
}

}  // namespace

class TestLegacyCategories : public QObject {
  Q_OBJECT

 private slots:
  void fixIsNamed() {
    SplitFixes f;
    QVERIFY(!parseFixList("legacy-categories", f));
    QVERIFY(f.legacyCategories);
    const auto names = fixNames();
    QVERIFY(std::find(names.begin(), names.end(), "legacy-categories") != names.end());
  }

  // The reference's outcome, and the count said with thousands separators.
  void defaultFindsNoGpuWork() {
    Splitter s(load(legacyTrace(125)));
    const SplitResult r = s.plan(options(false));
    QCOMPARE(r.outcome, SplitOutcome::NoGpuWork);
    QCOMPARE(r.exitStatus, 0);
    QCOMPARE(r.nLegacyGpuEvents, uint64_t(1002));
    QCOMPARE(r.log.size(), size_t(3));
    QCOMPARE(r.log[1], std::string("No GPU work in trace; nothing to split."));
    QCOMPARE(r.log[2], std::string("1,002 GPU events use legacy category names (Kernel, Memcpy, Memset) that the "
                                   "reference does not count; --fix legacy-categories counts them."));
    const EventIndex& idx = s.eventIndex(options(false));
    QVERIFY(idx.noGpuWork);
    QVERIFY(idx.kernels.empty());
    QCOMPARE(idx.nGpuEventsInTrace, uint64_t(0));
    QCOMPARE(idx.nLegacyGpuEvents, uint64_t(1002));
    QCOMPARE(splitResultToJson(r).find("n_legacy_gpu_events")->asInt(), int64_t(1002));
  }

  // With the fix the GPU work counts and the ProfilerStep family splits.
  void fixCountsGpuWork() {
    Splitter s(load(legacyTrace(4)));
    SplitOptions o = options(true);
    o.storeSingleIteration = true;
    const SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(r.exitStatus, 0);
    QCOMPARE(r.nLegacyGpuEvents, uint64_t(34));
    QVERIFY(hasLine(r,
                    "Counting 34 GPU events with legacy category names (Kernel, Memcpy, Memset) as GPU work "
                    "(--fix legacy-categories)."));
    QVERIFY(!hasLine(r, "No GPU work in trace; nothing to split."));
    QCOMPARE(r.detection->chosen.method, std::string("family:unknown_only"));
    QCOMPARE(r.detection->chosen.status, SplitStatus::Splittable);
    QCOMPARE(r.roots.size(), size_t(8));
    QCOMPARE(r.chunks.size(), size_t(8));  // one per step (--store-single-iteration)
    QCOMPARE(r.chunks[0].stats.numGpuEvents, int64_t(6));
    QCOMPARE(r.chunks[1].stats.numGpuEvents, int64_t(4));
    const EventIndex& idx = s.eventIndex(o);
    QVERIFY(!idx.noGpuWork);
    QCOMPARE(idx.kernels.size(), size_t(34));
    QCOMPARE(idx.nGpuEventsInTrace, uint64_t(34));
    QCOMPARE(r.manifest.find("n_gpu_events_in_trace")->asInt(), int64_t(34));
  }

  // Operator and Runtime keep their CPU role; names compared as text read as
  // the newer ones under the fix (the shape vote's "cpu_op", the call tree's).
  void categoryNamesUnderTheFix() {
    TracePtr t = load(legacyTrace(1, false));
    EventIndexOptions plain, legacy;
    legacy.legacyCategories = true;
    const EventIndex a(*t, plain), b(*t, legacy);
    for (EventIdx i = 0; i < t->size(); ++i) {
      const std::string_view cat = t->catOf(i);
      QCOMPARE(a.category(i), cat);
      QCOMPARE(b.category(i), modernCategoryName(cat));
      if (cat == "Operator" || cat == "Runtime") QCOMPARE(b.role(i), CatRole::Cpu);
      if (cat == "Kernel") QCOMPARE(b.role(i), CatRole::Kernel);
      if (cat == "Kernel") QCOMPARE(a.role(i), CatRole::Cpu);
    }
    QCOMPARE(modernCategoryName("Operator"), std::string_view("cpu_op"));
    QCOMPARE(modernCategoryName("Runtime"), std::string_view("cuda_runtime"));
    QCOMPARE(modernCategoryName("kernel"), std::string_view("kernel"));
    QCOMPARE(b.legacyGpuNames, std::string("Kernel"));
    QCOMPARE(legacyCategoryNote(a),
             std::string("8 GPU events use legacy category names (Kernel) that the reference does not count; "
                         "--fix legacy-categories counts them."));
  }

  // A trace in the newer names plans the same with and without the fix.
  void modernTraceUnchanged() {
    Splitter s(load(sstest::e6Trace(sstest::e6Steps())));
    SplitOptions on = options(true), off = options(false);
    on.findSteadyState = off.findSteadyState = true;
    on.numSteps = off.numSteps = 8;
    const SplitResult a = s.plan(off), b = s.plan(on);
    QCOMPARE(a.nLegacyGpuEvents, uint64_t(0));
    QCOMPARE(a.log, b.log);
    QCOMPARE(a.manifest.dump(JsonStyle::pythonFile()), b.manifest.dump(JsonStyle::pythonFile()));
    QCOMPARE(a.executionDetailsCsv, b.executionDetailsCsv);
  }
};

QTEST_GUILESS_MAIN(TestLegacyCategories)
#include "tst_legacy_categories.moc"
