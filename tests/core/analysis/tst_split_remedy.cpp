// What would make a trace splittable (analysis::splitRemedy): too few steps
// (the real one-step H100 Falconsai trace), no GPU work (the categories the
// trace has), no step annotation at all (mark the iteration); nothing when the
// split made chunks.
#include "support/load_json.hpp"
#include "support/shared_data.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/split.hpp>

#include <QTest>

#include <string>

using namespace steadyscope;
using namespace steadyscope::analysis;

namespace {

const QString kFalconsai = QStringLiteral(
    STEADYSCOPE_SHARED_DIR "/traces/real/tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz");

SplitResult planOf(const TracePtr& t) {
  Splitter s(t);
  SplitOptions o;
  o.outputDir = "remedy-out";
  return s.plan(o);
}

std::string cpuOp(const char* cat, const char* name, int ts, int dur, int corr = -1) {
  std::string e = std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
                  std::to_string(ts) + R"(,"dur":)" + std::to_string(dur);
  if (corr >= 0) e += R"(,"args":{"correlation":)" + std::to_string(corr) + "}";
  return e + "}";
}

std::string kernel(const char* name, int ts, int corr) {
  return std::string(R"({"ph":"X","cat":"kernel","name":")") + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":50,"args":{"correlation":)" + std::to_string(corr) +
         R"(,"device":0,"stream":7}})";
}

}  // namespace

class TstSplitRemedy : public QObject {
  Q_OBJECT
 private slots:
  void noGpuWorkNamesTheCategories() {
    const TracePtr t = sstest::loadJson("{\"traceEvents\":[" + cpuOp("cpu_op", "aten::mm", 0, 10) + "," +
                                            cpuOp("cpu_op", "aten::add", 20, 10) + "," +
                                            cpuOp("python_function", "forward", 0, 40) + "]}",
                                        "cpu_only.json");
    const SplitResult r = planOf(t);
    QCOMPARE(r.outcome, SplitOutcome::NoGpuWork);
    const std::string fix = splitRemedy(*t, r);
    QVERIFY2(fix.find("kernel, gpu_memcpy and gpu_memset") != std::string::npos, fix.c_str());
    QVERIFY2(fix.find("categories are cpu_op (2), python_function (1)") != std::string::npos, fix.c_str());
    QVERIFY2(fix.find("ProfilerActivity.CUDA") != std::string::npos, fix.c_str());
  }

  void noAnnotationMarkTheIteration() {
    // Three different ops, each launching one kernel: no step annotation, no repeat in the call tree.
    std::string ev = cpuOp("cpu_op", "a", 0, 30) + "," + cpuOp("cuda_runtime", "cudaLaunchKernel", 5, 5, 1) + "," +
                     kernel("k1", 12, 1) + "," + cpuOp("cpu_op", "b", 100, 30) + "," +
                     cpuOp("cuda_runtime", "cudaMemsetAsync", 105, 5, 2) + "," + kernel("k2", 112, 2) + "," +
                     cpuOp("cpu_op", "c", 200, 30) + "," + cpuOp("cuda_runtime", "cudaFuncGetAttributes", 205, 5, 3) +
                     "," + kernel("k3", 212, 3);
    const TracePtr t = sstest::loadJson("{\"traceEvents\":[" + ev + "]}", "no_steps.json");
    QCOMPARE(countStepAnnotations(*t).found, size_t(0));
    const SplitResult r = planOf(t);
    QCOMPARE(r.outcome, SplitOutcome::Refused);
    const std::string fix = splitRemedy(*t, r);
    QVERIFY2(fix.starts_with("No step annotation marks the iterations"), fix.c_str());
    QVERIFY2(fix.find("torch.profiler.record_function") != std::string::npos, fix.c_str());
    QVERIFY2(fix.find("prof.step()") != std::string::npos, fix.c_str());
  }

  void oneStepRealTrace() {
    // The H100 Falconsai trace holds a single ProfilerStep#6: the splitter falls back to the call tree.
    SHARED_OR_SKIP(kFalconsai);
    auto loaded = loadTrace(kFalconsai.toStdString());
    QVERIFY(loaded.ok());
    const TracePtr t = loaded.value();
    const StepAnnotations sa = countStepAnnotations(*t);
    QCOMPARE(sa.found, size_t(1));
    QCOMPARE(sa.needed, size_t(4));
    QCOMPARE(sa.example, std::string("ProfilerStep#6"));
    const SplitResult r = planOf(t);
    QCOMPARE(r.outcome, SplitOutcome::Refused);
    const std::string fix = splitRemedy(*t, r);
    QVERIFY2(fix.starts_with("The trace holds 1 step (`ProfilerStep#6`); a split by step annotations needs at least 4: "
                             "capture more steps"),
             fix.c_str());
    QVERIFY2(fix.find("torch.profiler.schedule(") != std::string::npos, fix.c_str());
  }
};

QTEST_GUILESS_MAIN(TstSplitRemedy)
#include "tst_split_remedy.moc"
