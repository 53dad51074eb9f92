// The thread count changes nothing: the same trace loads to the same model
// with 1, 2 and 16 threads (every column, the lanes, the GPU unions, the
// anomalies, the string pool), on traces big enough that every parallel path
// runs (many pieces, the multi-threaded remap above 2^18 events, the shared
// depth stage), plain and gzip. Also the GPU busy union's rule on edge cases.
#include "support/load_tuning.hpp"
#include "model_text.hpp"
#include "test_files.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>
#include <string>

using namespace steadyscope;
using namespace testfiles;

namespace {

TracePtr mustLoad(const std::string& json, LoadOptions opt) {
  auto r = loadTraceFromString(json, "mem.json", opt);
  if (!r) qFatal("load failed: %s", r.error().describe().c_str());
  return r.value();
}

/// A trace with `steps` steps on `gpus` devices: launches and kernels linked
/// by correlation and flows, B/E pairs (some longer than the narrow duration
/// column holds, some unmatched), string ids, inexact timestamps, metadata.
std::string mixedTrace(int steps, int gpus, int namesPerStep) {
  std::string ev = R"({"ph":"M","name":"process_name","pid":"host","tid":0,"args":{"name":"python"}})";
  ev += R"(,{"ph":"M","name":"thread_name","pid":"host","tid":1,"args":{"name":"main"}})";
  long corr = 1;
  for (int s = 0; s < steps; ++s) {
    const long t0 = 1000000L + 10000L * s;
    const std::string ts = std::to_string(t0);
    ev += ",{\"ph\":\"B\",\"cat\":\"user_annotation\",\"name\":\"step\",\"pid\":\"host\",\"tid\":1,\"ts\":" + ts + "}";
    for (int j = 0; j < 4; ++j, ++corr) {
      const int gpu = static_cast<int>(corr % gpus);
      const std::string c = std::to_string(corr), at = std::to_string(t0 + 10 * j + 1);
      const std::string name = "op" + std::to_string((s * 4 + j) % namesPerStep);
      ev += ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + name + "\",\"pid\":\"host\",\"tid\":1,\"ts\":" + at +
            ".0005,\"dur\":8,\"args\":{\"External id\":" + c + "}}";
      if (corr % 41 != 0)  // some kernels lose their launch
        ev +=
            ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":\"host\",\"tid\":1,\"ts\":" +
            at + ",\"dur\":3,\"args\":{\"correlation\":" + c + "}}";
      ev += ",{\"ph\":\"s\",\"id\":" + c + ",\"pid\":\"host\",\"tid\":1,\"ts\":" + at +
            ",\"cat\":\"ac2g\",\"name\":\"f\"}";
      // Kernels overlap, touch and leave gaps; every 13th has dur 0.
      const std::string kts = std::to_string(t0 + 5 * j + 20), kdur = corr % 13 == 0 ? "0" : std::to_string(5 + j % 3);
      ev += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k" + std::to_string(j) + "\",\"pid\":" + std::to_string(gpu) +
            ",\"tid\":" + std::to_string(7 + j % 2) + ",\"ts\":" + kts + ",\"dur\":" + kdur +
            ",\"args\":{\"correlation\":" + (corr % 97 == 0 ? "\"s" + c + "\"" : c) + "}}";
      if (corr % 31 != 0)  // some flows lose their end
        ev += ",{\"ph\":\"f\",\"bp\":\"e\",\"id\":" + c + ",\"pid\":" + std::to_string(gpu) +
              ",\"tid\":7,\"ts\":" + kts + ",\"cat\":\"ac2g\",\"name\":\"f\"}";
    }
    // Every 50th step's E comes 3 s later (a wide pair duration); every 71st is missing.
    const long end = s % 50 == 0 ? t0 + 3000000 : t0 + 9000;
    if (s % 71 != 5) ev += ",{\"ph\":\"E\",\"pid\":\"host\",\"tid\":1,\"ts\":" + std::to_string(end) + "}";
  }
  ev += R"(,{"ph":"E","pid":"host","tid":2,"ts":5})";  // unmatched E
  return "{\"schemaVersion\":1,\"traceEvents\":[\n" + ev + "\n],\"displayTimeUnit\":\"ms\"}";
}

/// Many distinct names and lanes: ids too wide for the 16-bit columns.
std::string wideIdsTrace(int events) {
  std::string ev;
  for (int k = 0; k < events; ++k) {
    if (k) ev += ",\n";
    ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"n" + std::to_string(k % 3 ? k : 0) +
          "\",\"pid\":1,\"tid\":" + std::to_string(k % 5 ? k : 0) + ",\"ts\":" + std::to_string(k) +
          ",\"dur\":" + std::to_string(k % 4) + "}";
  }
  return "{\"traceEvents\":[\n" + ev + "\n]}";
}


void compareEvents(const Trace& a, const Trace& b) {
  QCOMPARE(a.size(), b.size());
  for (EventIdx i = 0; i < a.size(); ++i) {
    const bool ok = a.tsNs[i] == b.tsNs[i] && a.durNs[i] == b.durNs[i] && a.offset[i] == b.offset[i] &&
                    a.length[i] == b.length[i] && a.nameOf(i) == b.nameOf(i) && a.catOf(i) == b.catOf(i) &&
                    a.classOf(i) == b.classOf(i) && a.ph[i] == b.ph[i] && a.flags[i] == b.flags[i] &&
                    a.depth[i] == b.depth[i] && laneText(a, i) == laneText(b, i) &&
                    idText(a, a.corr[i], a.has(i, ev::CorrIsStr)) == idText(b, b.corr[i], b.has(i, ev::CorrIsStr)) &&
                    idText(a, a.extId[i], a.has(i, ev::ExtIsStr)) == idText(b, b.extId[i], b.has(i, ev::ExtIsStr));
    if (!ok) QFAIL(qPrintable(QString("event %1 differs").arg(i)));
  }
}

void compareDerived(const Trace& a, const Trace& b) {
  QCOMPARE(a.lanes.size(), b.lanes.size());
  std::map<std::string, const Lane*> byKey;  // lane numbering may differ: compare by key
  for (const Lane& lb : b.lanes) byKey[keyText(b, lb.pid) + "/" + keyText(b, lb.tid)] = &lb;
  for (const Lane& la : a.lanes) {
    auto it = byKey.find(keyText(a, la.pid) + "/" + keyText(a, la.tid));
    QVERIFY(it != byKey.end());
    const Lane& lb = *it->second;
    if (!(la.events == lb.events) || la.maxDepth != lb.maxDepth || la.gpu != lb.gpu)
      QFAIL(qPrintable(QString::fromStdString("lane " + it->first + " differs")));
  }
  QCOMPARE(a.gpuBusy.size(), b.gpuBusy.size());
  for (size_t d = 0; d < a.gpuBusy.size(); ++d) {
    QCOMPARE(keyText(a, a.gpuBusy[d].pid), keyText(b, b.gpuBusy[d].pid));
    QVERIFY(a.gpuBusy[d].intervals == b.gpuBusy[d].intervals);
    QCOMPARE(a.gpuBusy[d].busyNs, b.gpuBusy[d].busyNs);
    QCOMPARE(a.gpuBusy[d].firstNs, b.gpuBusy[d].firstNs);
    QCOMPARE(a.gpuBusy[d].lastNs, b.gpuBusy[d].lastNs);
  }
  QCOMPARE(a.anomalies.size(), b.anomalies.size());
  for (size_t k = 0; k < a.anomalies.size(); ++k) {
    QCOMPARE(a.anomalies[k].code, b.anomalies[k].code);
    QCOMPARE(a.anomalies[k].count, b.anomalies[k].count);
    QCOMPARE(a.anomalies[k].firstEvent, b.anomalies[k].firstEvent);
  }
  QVERIFY(a.stats.perPh == b.stats.perPh);
  QVERIFY(a.stats.perCat == b.stats.perCat);
  QCOMPARE(a.stats.gpuEvents, b.stats.gpuEvents);
  QCOMPARE(a.stats.firstTsNs, b.stats.firstTsNs);
  QCOMPARE(a.stats.lastEndNs, b.stats.lastEndNs);
  QVERIFY(a.exactTsUs == b.exactTsUs);
  QVERIFY(a.exactDurUs == b.exactDurUs);
  QCOMPARE(a.topLevel.size(), b.topLevel.size());
  QCOMPARE(a.traceEventsPosition, b.traceEventsPosition);
}

void compareDictionaries(const Trace& a, const Trace& b) {
  // Interning order follows which worker met a string first: compare contents.
  auto pool = [](const Trace& t) {
    std::set<std::string> s;
    for (StrId k = 0; k < t.strings.size(); ++k) s.emplace(t.strings.view(k));
    return s;
  };
  QCOMPARE(a.strings.size(), b.strings.size());
  QVERIFY(pool(a) == pool(b));
  auto cats = [](const Trace& t) {
    std::set<std::pair<std::string, int>> s;
    for (size_t c = 0; c < t.categories.size(); ++c)
      s.emplace(std::string(t.strings.view(t.categories[c])), int(t.categoryClass[c]));
    return s;
  };
  QVERIFY(cats(a) == cats(b));
  auto procs = [](const Trace& t) {
    std::set<std::string> s;
    for (const auto& [k, v] : t.processNames) s.insert(keyText(t, k) + "=" + v);
    for (const auto& [k, v] : t.threadNames) s.insert(keyText(t, k.first) + "/" + keyText(t, k.second) + "=" + v);
    return s;
  };
  QVERIFY(procs(a) == procs(b));
}

void compareModels(const Trace& a, const Trace& b) {
  compareEvents(a, b);
  if (QTest::currentTestFailed()) return;
  compareDerived(a, b);
  if (QTest::currentTestFailed()) return;
  compareDictionaries(a, b);
}

}  // namespace

class TestLoaderThreads : public QObject {
  Q_OBJECT
 private slots:
  void sameModelForAnyThreadCount_data() {
    QTest::addColumn<QString>("shape");
    QTest::addColumn<bool>("gzip");
    QTest::newRow("mixed, 4 GPUs") << "mixed" << false;
    QTest::newRow("mixed, 4 GPUs, gzip") << "mixed" << true;
    QTest::newRow("wide names and lanes") << "wide" << false;
  }
  void sameModelForAnyThreadCount() {
    QFETCH(QString, shape);
    QFETCH(bool, gzip);
    // Both shapes have more than 2^18 events: the remap runs on several threads.
    const std::string json = shape == "mixed" ? mixedTrace(16000, 4, 300) : wideIdsTrace(280000);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + (gzip ? "/t.json.gz" : "/t.json");
    writeFile(path, gzip ? gzipBytes(json, 1) : json);
    std::vector<TracePtr> models;
    for (unsigned threads : {1u, 2u, 16u}) {
      auto r = loadTrace(path, testsupport::tuned(LoadOptions{.threads = threads}, 256u << 10));
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
      models.push_back(r.value());
    }
    const Trace& ref = *models[0];
    QVERIFY(ref.size() > (1u << 18));
    if (shape == "mixed") {
      QCOMPARE(ref.gpuBusy.size(), size_t(4));
      QVERIFY(ref.durNs.wideCount() > 0);  // wide pair durations
      for (const char* code : {"unmatched_B", "unmatched_E", "flow_without_peer", "kernel_without_launch"})
        QVERIFY2(
            std::any_of(ref.anomalies.begin(), ref.anomalies.end(), [&](const Anomaly& a) { return a.code == code; }),
            code);
    } else {
      QVERIFY(ref.name.wideCount() > 0);
      QVERIFY(ref.lane.wideCount() > 0);
    }
    for (size_t m = 1; m < models.size(); ++m) {
      compareModels(ref, *models[m]);
      if (QTest::currentTestFailed()) return;
    }
    // The default (0: jobThreads()) loads the same model too.
    auto d = loadTrace(path, testsupport::tuned(LoadOptions{}, 256u << 10));
    QVERIFY(d.ok());
    compareModels(ref, *d.value());
  }

  // A correlation written as a string links a kernel to the CPU event with
  // the same string, never to a numeric correlation that happens to equal
  // the string's interned id (which depends on which thread met it first).
  void stringCorrelations() {
    std::string ev;
    for (int c = 0; c < 50; ++c)
      ev += "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":" +
            std::to_string(10 * c) + ",\"dur\":2,\"args\":{\"correlation\":" + std::to_string(c) + "}},";
    ev +=
        R"({"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":600,"dur":2,"args":{"correlation":"a1"}},)";
    ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":610,"dur":5,"args":{"correlation":"a1"}},)";
    ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":620,"dur":5,"args":{"correlation":"nolaunch"}},)";
    ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":630,"dur":5,"args":{"correlation":"1"}})";
    for (unsigned threads : {1u, 2u}) {
      auto t = mustLoad("{\"traceEvents\":[" + ev + "]}", testsupport::tuned(LoadOptions{.threads = threads}, 4096));
      auto it = std::find_if(t->anomalies.begin(), t->anomalies.end(),
                             [](const Anomaly& a) { return a.code == "kernel_without_launch"; });
      QVERIFY(it != t->anomalies.end());
      QCOMPARE(it->count, uint64_t(2));  // "nolaunch", and "1" (a string, not the number 1)
      QCOMPARE(it->firstEvent, int64_t(52));
    }
  }

  // The per-device union: overlapping and touching kernels join, kernels of
  // dur 0 (and negative or missing dur) add nothing, even at either end.
  void gpuBusyUnion() {
    std::string ev;
    auto k = [&](long ts, const std::string& dur, int pid = 0) {
      if (!ev.empty()) ev += ",";
      ev += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":" + std::to_string(pid) +
            ",\"tid\":7,\"ts\":" + std::to_string(ts) + (dur.empty() ? "" : ",\"dur\":" + dur) + "}";
    };
    k(5, "0");       // empty, before everything
    k(10, "10");     // [10, 20)
    k(20, "5");      // touches: [10, 25)
    k(12, "3");      // inside
    k(30, "0");      // empty, in a gap
    k(40, "-3");     // negative
    k(50, "");       // no dur
    k(60, "10");     // [60, 70)
    k(65, "10");     // overlaps: [60, 75)
    k(90, "0");      // empty, after everything
    k(100, "0", 1);  // a device with empty kernels only
    for (unsigned threads : {1u, 2u}) {
      auto t = mustLoad("{\"traceEvents\":[" + ev + "]}", LoadOptions{.threads = threads});
      QCOMPARE(t->gpuBusy.size(), size_t(1));  // no interval: no device entry
      const DeviceBusy& d = t->gpuBusy[0];
      QVERIFY((d.intervals == Column<Interval>{{10000, 25000}, {60000, 75000}}));
      QCOMPARE(d.busyNs, int64_t(30000));
      QCOMPARE(d.firstNs, int64_t(10000));
      QCOMPARE(d.lastNs, int64_t(75000));
    }
  }
};

QTEST_GUILESS_MAIN(TestLoaderThreads)
#include "tst_loader_threads.moc"
