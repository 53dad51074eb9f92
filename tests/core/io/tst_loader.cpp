// Loader behaviour on generated inputs: awkward shapes, anomalies, exact
// timestamps, compression formats, the bad-input corpus, cancellation.
#include "model/column_fill.hpp"
#include "support/load_tuning.hpp"
#include "test_files.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#ifdef STEADYSCOPE_TEST_ZSTD
#include <zstd.h>
#endif
#include <QTest>

#include "io/numbers.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <random>
#include <thread>

#include <unistd.h>

using namespace steadyscope;
using namespace testfiles;

namespace {

std::string wrap(const std::string& events, const std::string& extraBefore = "", const std::string& extraAfter = "") {
  return "{" + extraBefore + "\"traceEvents\": [" + events + "]" + extraAfter + "}";
}

TracePtr mustLoad(const std::string& json, LoadOptions opt = {}) {
  auto r = loadTraceFromString(json, "mem.json", opt);
  if (!r) qFatal("load failed: %s", r.error().describe().c_str());
  return r.value();
}

uint64_t anomaly(const Trace& t, const std::string& code) {
  for (const auto& a : t.anomalies)
    if (a.code == code) return a.count;
  return 0;
}

/// A libkineto-layout trace with `steps` steps (multi-line events), optionally
/// with args holding a list of objects (to trap heuristic event cuts).
std::string kinetoTrace(int steps, bool nestedObjects) {
  std::string ev;
  int corr = 1;
  auto add = [&](const std::string& e) {
    if (!ev.empty()) ev += ",\n";
    ev += e;
  };
  add("  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\n      \"name\": \"python\"\n    "
      "}\n  }");
  for (int s = 0; s < steps; ++s) {
    long st = 1000000 + 10000L * s;
    add("  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"step_" + std::to_string(s) +
        "\", \"pid\": 1, \"tid\": 1,\n    \"ts\": " + std::to_string(st) +
        ".500, \"dur\": 8000.250,\n    \"args\": {\n      \"External id\": " + std::to_string(s) +
        (nestedObjects ? ",\n      \"list\": [\n        {\n          \"a\": 1\n        },\n        {\n          \"b\": "
                         "\"},\\n{\"\n        }\n      ]"
                       : "") +
        "\n    }\n  }");
    for (int j = 0; j < 3; ++j, ++corr) {
      add("  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": "
          "1,\n    \"ts\": " +
          std::to_string(st + 100 * j + 10) +
          ", \"dur\": 5,\n    \"args\": {\n      \"correlation\": " + std::to_string(corr) + "\n    }\n  }");
      add("  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7,\n    \"ts\": " +
          std::to_string(st + 100 * j + 20) + ", \"dur\": 40,\n    \"args\": {\n      \"correlation\": " +
          std::to_string(corr) + ", \"stream\": 7, \"device\": 0\n    }\n  }");
      add("  {\n    \"ph\": \"s\", \"id\": " + std::to_string(corr) + ", \"pid\": 1, \"tid\": 1, \"ts\": " +
          std::to_string(st + 100 * j + 10) + ", \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }");
      add("  {\n    \"ph\": \"f\", \"id\": " + std::to_string(corr) + ", \"pid\": 0, \"tid\": 7, \"ts\": " +
          std::to_string(st + 100 * j + 20) + ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }");
    }
  }
  return "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0\n    },\n    {\n      \"id\": "
         "1\n    }\n  ],\n  \"traceEvents\": [\n" +
         ev + "\n  ],\n  \"traceName\": \"t\",\n  \"displayTimeUnit\": \"ms\"\n}\n";
}

void compareTraces(const Trace& a, const Trace& b) {
  QCOMPARE(a.size(), b.size());
  for (EventIdx i = 0; i < a.size(); ++i) {
    QCOMPARE(a.tsNs[i], b.tsNs[i]);
    QCOMPARE(a.durNs[i], b.durNs[i]);
    QCOMPARE(a.offset[i], b.offset[i]);
    QCOMPARE(a.length[i], b.length[i]);
    QCOMPARE(a.nameOf(i), b.nameOf(i));
    QCOMPARE(a.catOf(i), b.catOf(i));
    QCOMPARE(a.flags[i], b.flags[i]);
    QCOMPARE(a.corr[i], b.corr[i]);
    QCOMPARE(a.extId[i], b.extId[i]);
    QCOMPARE(a.ph[i], b.ph[i]);
    QCOMPARE(a.depth[i], b.depth[i]);
    QVERIFY(a.lanes[a.lane[i]].pid == b.lanes[b.lane[i]].pid);
    QVERIFY(a.lanes[a.lane[i]].tid == b.lanes[b.lane[i]].tid);
  }
  QCOMPARE(a.lanes.size(), b.lanes.size());
  for (size_t l = 0; l < a.lanes.size(); ++l) {
    // Lane numbering may differ between thread counts; compare by key.
    size_t m = 0;
    while (m < b.lanes.size() && !(b.lanes[m].pid == a.lanes[l].pid && b.lanes[m].tid == a.lanes[l].tid)) ++m;
    QVERIFY(m < b.lanes.size());
    QVERIFY(a.lanes[l].events == b.lanes[m].events);
    QCOMPARE(a.lanes[l].maxDepth, b.lanes[m].maxDepth);
    QCOMPARE(a.lanes[l].gpu, b.lanes[m].gpu);
  }
  QCOMPARE(a.gpuBusy.size(), b.gpuBusy.size());
  for (size_t d = 0; d < a.gpuBusy.size(); ++d) {
    QCOMPARE(a.gpuBusy[d].busyNs, b.gpuBusy[d].busyNs);
    QCOMPARE(a.gpuBusy[d].intervals.size(), b.gpuBusy[d].intervals.size());
  }
  QCOMPARE(a.anomalies.size(), b.anomalies.size());
  for (size_t k = 0; k < a.anomalies.size(); ++k) {
    QCOMPARE(a.anomalies[k].code, b.anomalies[k].code);
    QCOMPARE(a.anomalies[k].count, b.anomalies[k].count);
    QCOMPARE(a.anomalies[k].firstEvent, b.anomalies[k].firstEvent);
  }
  QVERIFY(a.exactTsUs == b.exactTsUs);
  QVERIFY(a.exactDurUs == b.exactDurUs);
  QVERIFY(a.processNames == b.processNames);
  QVERIFY(a.threadNames == b.threadNames);
}

}  // namespace

class TestLoader : public QObject {
  Q_OBJECT
 private slots:
  void basicColumnsAndRawText() {
    auto t = mustLoad(kinetoTrace(5, false));
    QCOMPARE(t->size(), size_t(1 + 5 * (1 + 3 * 4)));
    QCOMPARE(t->stats.gpuEvents, uint64_t(15));
    QCOMPARE(t->stats.perPh.at("X"), uint64_t(5 + 30));
    QCOMPARE(t->stats.perPh.at("M"), uint64_t(1));
    QCOMPARE(t->stats.perCat.at("ac2g"), uint64_t(30));
    EventText text(*t);
    for (EventIdx i = 0; i < t->size(); ++i) {
      auto raw = text(i);
      QVERIFY(raw.size() > 2);
      QCOMPARE(raw.front(), '{');
      QCOMPARE(raw.back(), '}');
    }
    // Each event's text is exactly one whole JSON object, also with nested
    // objects in args (a length cut at an inner '}' would not parse).
    for (bool nested : {false, true}) {
      auto tn = mustLoad(kinetoTrace(40, nested), testsupport::tuned(LoadOptions{}, 4096));
      EventText tt(*tn);
      for (EventIdx i = 0; i < tn->size(); ++i) {
        const std::string_view raw = tt(i);
        QJsonParseError perr{};
        const QJsonDocument jd = QJsonDocument::fromJson(QByteArray(raw.data(), qsizetype(raw.size())), &perr);
        QVERIFY2(perr.error == QJsonParseError::NoError && jd.isObject(), std::string(raw).c_str());
        QCOMPARE(jd.object().value("name").toString().toStdString(), std::string(tn->nameOf(i)));
      }
    }
    // top-level keys kept in order, raw
    QCOMPARE(t->topLevel.size(), size_t(4));
    QCOMPARE(QString::fromStdString(t->topLevel[0].key), QString("schemaVersion"));
    QCOMPARE(QString::fromStdString(t->topLevel[1].key), QString("deviceProperties"));
    QCOMPARE(t->traceEventsPosition, size_t(2));
    QCOMPARE(QString::fromStdString(t->topLevel[2].key), QString("traceName"));
    QCOMPARE(QString::fromStdString(t->topLevel[3].rawValue), QString("\"ms\""));
    // process names from M events
    QCOMPARE(QString::fromStdString(t->processNames.begin()->second), QString("python"));
    // lanes, busy union
    QCOMPARE(t->gpuBusy.size(), size_t(1));
    QCOMPARE(t->gpuBusy[0].busyNs, int64_t(15 * 40000));
    QVERIFY(t->anomalies.empty());
  }

  void piecesAndThreadsAgree_data() {
    QTest::addColumn<bool>("nested");
    QTest::newRow("plain") << false;
    QTest::newRow("nested objects in args (heuristic cut trap)") << true;
  }
  void piecesAndThreadsAgree() {
    QFETCH(bool, nested);
    std::string json = kinetoTrace(200, nested);
    auto ref = mustLoad(json, testsupport::tuned(LoadOptions{.threads = 1}, 1u << 30));
    for (unsigned threads : {1u, 2u, 3u}) {
      for (size_t piece : {size_t(4096), size_t(10000), size_t(77777)}) {
        auto t = mustLoad(json, testsupport::tuned(LoadOptions{.threads = threads}, piece));
        compareTraces(*ref, *t);
      }
    }
  }

  void cutsReadFromTheFile() {
    // A file's heuristic cuts read small windows with pread (widened for long
    // events): the same model as cutting the text in memory, for events far
    // longer than the first window and pieces of several sizes.
    QTemporaryDir dir;
    std::string events;
    for (int i = 0; i < 400; ++i) {
      if (i) events += ",\n";
      const std::string pad(i % 7 == 0 ? 40000 + 997 * i : 30, 'x');
      events += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op" + std::to_string(i % 5) +
                "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(1000 + 10 * i) + ",\"dur\":5,\"args\":{\"pad\":\"" +
                pad + "\"}}";
    }
    const std::string json = "{\"traceEvents\": [\n" + events + "\n], \"traceName\": \"x\"}";
    const std::string path = dir.path().toStdString() + "/long.json";
    writeFile(path, json);
    auto ref = mustLoad(json, testsupport::tuned(LoadOptions{.threads = 1}, 1u << 30));
    for (size_t piece : {size_t(4096), size_t(50000), size_t(300000)}) {
      auto r = loadTrace(path, testsupport::tuned(LoadOptions{}, piece));
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
      compareTraces(*ref, *r.value());
    }
  }

  void unrepresentativeFirstPiece() {
    // The first piece holds a few very long events, the rest many tiny ones:
    // the column reservation made from the first piece is far too small, so
    // the columns grow while other pieces are parked or being copied.
    std::string ev;
    for (int i = 0; i < 4; ++i) {
      if (i) ev += ",\n";
      ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + std::string(6000, 'a' + i) +
            "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i) + ",\"dur\":1}";
    }
    for (int i = 0; i < 40000; ++i)
      ev += ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":" + std::to_string(i % 3) +
            ",\"ts\":" + std::to_string(100 + (i * 7919) % 50000) + ",\"dur\":" + std::to_string(i % 5) +
            ",\"args\":{\"correlation\":" + std::to_string(i) + "}}";
    auto ref = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = 1}, 1u << 30));
    for (unsigned threads : {2u, 3u}) {
      auto t = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = threads}, 4096));
      compareTraces(*ref, *t);
    }
    QCOMPARE(ref->size(), size_t(40004));
  }

  void laneOrderIsTheStableSort_data() {
    QTest::addColumn<int>("outOfOrderPercent");
    QTest::newRow("in file order") << 0;
    QTest::newRow("a few set aside") << 5;
    QTest::newRow("mostly shuffled (plain sort)") << 60;
  }
  void laneOrderIsTheStableSort() {
    // Per lane: (ts ascending, longer first, file order), with many ties.
    QFETCH(int, outOfOrderPercent);
    std::mt19937 rng(42);
    std::string ev;
    long ts = 0;
    for (int i = 0; i < 20000; ++i) {
      ts += rng() % 3;  // ties on ts
      long t = ts;
      if (static_cast<int>(rng() % 100) < outOfOrderPercent) t = std::max<long>(0, ts - static_cast<long>(rng() % 500));
      if (i) ev += ",";
      ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":" + std::to_string(rng() % 2) +
            ",\"ts\":" + std::to_string(t) + ",\"dur\":" + std::to_string(rng() % 3) + "}";
    }
    auto tr = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = 2}, 8192));
    for (const Lane& lane : tr->lanes) {
      EventList expect;
      for (EventIdx i = 0; i < tr->size(); ++i)
        if (tr->lanes[tr->lane[i]].tid == lane.tid && tr->lanes[tr->lane[i]].pid == lane.pid) expect.push_back(i);
      std::stable_sort(expect.begin(), expect.end(), [&](EventIdx a, EventIdx b) {
        if (tr->tsNs[a] != tr->tsNs[b]) return tr->tsNs[a] < tr->tsNs[b];
        return tr->durNs[a] > tr->durNs[b];
      });
      QVERIFY(std::equal(expect.begin(), expect.end(), lane.events.begin(), lane.events.end()));
    }
  }

  void minifiedSingleLine() {
    std::string ev;
    for (int i = 0; i < 3000; ++i) {
      if (i) ev += ",";
      ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op},{\\\"x\",\"pid\":1,\"tid\":1,\"ts\":" +
            std::to_string(i * 10) + ",\"dur\":5,\"args\":{\"l\":[{\"a\":1},{\"b\":2}]}}";
    }
    auto ref = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = 1}, 1u << 30));
    auto t = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = 2}, 4096));
    compareTraces(*ref, *t);
    QCOMPARE(t->size(), size_t(3000));
    QCOMPARE(t->nameOf(0), std::string_view("op},{\"x"));
  }

  // Every event gets its nesting depth, whichever thread computes its lane's
  // (depth is shared between finalize's two threads) and also the events in no
  // lane (metadata, no ts), with the allocator's memory dirty beforehand so
  // that an event left unwritten would not read as 0 by luck.
  void depthOfEveryEvent() {
    for (int round = 0; round < 3; ++round) {
      {
        std::vector<std::unique_ptr<char[]>> dirty;
        for (size_t sz : {size_t(200), size_t(4096), size_t(70000)}) {
          dirty.emplace_back(new char[sz]);
          std::memset(dirty.back().get(), 0x5a, sz);
        }
      }
      std::string ev = R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":5,"args":{"name":"t"}},)"
                       R"({"ph":"X","name":"nots","pid":1,"tid":1,"dur":5},)"
                       R"({"ph":"X","name":"outer","pid":1,"tid":1,"ts":100,"dur":100},)"
                       R"({"ph":"X","name":"inner","pid":1,"tid":1,"ts":110,"dur":40},)"
                       R"({"ph":"i","name":"instant","pid":1,"tid":1,"ts":120},)"
                       R"({"ph":"X","name":"innermost","pid":1,"tid":1,"ts":120,"dur":10},)"
                       R"({"ph":"X","name":"sibling","pid":1,"tid":1,"ts":160,"dur":10},)"
                       R"({"ph":"X","name":"after","pid":1,"tid":1,"ts":300,"dur":10},)"
                       R"({"ph":"B","name":"span","pid":1,"tid":2,"ts":100},)"
                       R"({"ph":"X","name":"inspan","pid":1,"tid":2,"ts":110,"dur":10},)"
                       R"({"ph":"E","name":"spanend","pid":1,"tid":2,"ts":200},)"
                       R"({"ph":"X","name":"k","cat":"kernel","pid":0,"tid":7,"ts":100,"dur":10})";
      auto t = mustLoad(wrap(ev));
      const std::map<std::string, uint16_t> want = {{"thread_name", 0}, {"nots", 0},      {"outer", 0},   {"inner", 1},
                                                    {"instant", 0},     {"innermost", 2}, {"sibling", 1}, {"after", 0},
                                                    {"span", 0},        {"inspan", 1},    {"spanend", 0}, {"k", 0}};
      QCOMPARE(t->size(), want.size());
      for (EventIdx i = 0; i < t->size(); ++i) {
        const std::string nm(t->nameOf(i));
        QVERIFY2(want.count(nm), nm.c_str());
        QCOMPARE(t->depth[i], want.at(nm));
      }
      QCOMPARE(t->lanes[t->lane[2]].maxDepth, uint16_t(2));
      QCOMPARE(t->lanes[t->lane[8]].maxDepth, uint16_t(1));
    }
  }

  void awkwardShapes() {
    std::string ev =
        // B/E pairs on a string tid, unsorted, one unmatched B and one unmatched E
        R"({"ph":"B","name":"outer","pid":"proc A","tid":"Spans","ts":100},)"
        R"({"ph":"E","pid":"proc A","tid":"Spans","ts":200},)"
        R"({"ph":"B","name":"inner","pid":"proc A","tid":"Spans","ts":120},)"
        R"({"ph":"E","pid":"proc A","tid":"Spans","ts":150},)"
        R"({"ph":"B","name":"open","pid":"proc A","tid":"Spans","ts":300},)"
        // a B with a dur of its own keeps it (the reference reads the field)
        R"({"ph":"B","name":"own","pid":1,"tid":9,"ts":500,"dur":5},)"
        R"({"ph":"E","pid":1,"tid":9,"ts":600},)"
        R"({"ph":"E","pid":"proc A","tid":"other","ts":400},)"
        // negative and missing dur, old categories
        R"({"ph":"X","cat":"Kernel","name":"k1","pid":0,"tid":"stream 7","ts":10,"dur":-5,"args":{"correlation":9}},)"
        R"({"ph":"X","cat":"Memcpy","name":"m1","pid":0,"tid":"stream 7","ts":20},)"
        R"({"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1.0,"tid":1,"ts":5,"dur":1,"args":{"correlation":9}},)"
        R"({"ph":"X","cat":"Operator","name":"aten::mm","pid":1,"tid":1,"ts":4,"dur":3},)"
        // NaN (Python's json accepts it), string ts, unknown ph, flow without peer
        R"({"ph":"X","cat":"cpu_op","name":"nan","pid":1,"tid":1,"ts":NaN,"dur":1},)"
        R"({"ph":"X","cat":"cpu_op","name":"strts","pid":1,"tid":1,"ts":"12","dur":1},)"
        R"({"ph":"Q","name":"weird","pid":1,"tid":1,"ts":1},)"
        R"({"ph":"s","id":77,"pid":1,"tid":1,"ts":1,"cat":"ac2g","name":"ac2g"})";
    auto t = mustLoad(wrap(ev));
    QCOMPARE(t->size(), size_t(16));
    QCOMPARE(anomaly(*t, "unmatched_B"), uint64_t(1));
    QCOMPARE(anomaly(*t, "unmatched_E"), uint64_t(1));
    QCOMPARE(anomaly(*t, "dur_negative"), uint64_t(1));
    QCOMPARE(anomaly(*t, "dur_missing"), uint64_t(1));
    QCOMPARE(anomaly(*t, "number_non_finite"), uint64_t(1));
    QCOMPARE(anomaly(*t, "ts_not_number"), uint64_t(1));
    QCOMPARE(anomaly(*t, "ph_unknown"), uint64_t(1));
    QCOMPARE(anomaly(*t, "flow_without_peer"), uint64_t(1));
    QCOMPARE(anomaly(*t, "gpu_without_correlation"), uint64_t(1));
    QCOMPARE(anomaly(*t, "kernel_without_launch"), uint64_t(0));  // corr 9 launched by Runtime
    QCOMPARE(t->stats.gpuEvents, uint64_t(2));                    // old spellings count as GPU work
    // B/E paired: outer 100..200, inner nested at depth 1
    EventIdx outer = 0, inner = 2;
    QVERIFY(t->has(outer, ev::DurFromPair));
    QVERIFY(!t->has(outer, ev::HasDur));
    QCOMPARE(t->durNs[outer], int64_t(100000));
    QCOMPARE(t->durNs[inner], int64_t(30000));
    QCOMPARE(t->depth[inner], uint16_t(1));
    const EventIdx own = 5;
    QCOMPARE(t->nameOf(own), std::string_view("own"));
    QCOMPARE(t->durNs[own], int64_t(5000));
    QVERIFY(t->has(own, ev::HasDur));
    QVERIFY(!t->has(own, ev::DurFromPair));
    // pid 1.0 and 1 are one lane (JSON value equality); "proc A" is a string key
    QCOMPARE(t->lane[10], t->lane[11]);
    QCOMPARE(QString::fromStdString(t->keyText(t->lanes[t->lane[0]].pid)), QString("proc A"));
    // lanes are time-sorted even though the file is not
    for (const auto& lane : t->lanes)
      for (size_t k = 1; k < lane.events.size(); ++k) QVERIFY(t->tsNs[lane.events[k - 1]] <= t->tsNs[lane.events[k]]);
  }

  // Ids live in 32 bits with a side table for the rest (IdColumn): values at
  // and beyond int32's ends, negative ones and string ids must read back as
  // written, link kernels to launches and pair flows, on any piece layout.
  void wideIds_data() {
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<qulonglong>("pieceBytes");
    QTest::newRow("one piece") << 1u << qulonglong(1u << 30);
    QTest::newRow("small pieces, 2 threads") << 2u << qulonglong(4096);
  }
  void wideIds() {
    QFETCH(unsigned, threads);
    QFETCH(qulonglong, pieceBytes);
    const std::vector<std::string> ids = {"5000000000",  "-7", "-2147483648",         "2147483647",
                                          "-2147483649", "0",  "9223372036854775807", "-9223372036854775808"};
    std::string ev;
    for (size_t k = 0; k < ids.size(); ++k) {
      const std::string ts = std::to_string(10 * k + 1);
      for (int pad = 0; pad < 40; ++pad)  // spread the ids over pieces
        ev += R"({"ph":"X","cat":"cpu_op","name":"pad","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":1},)";
      ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
            R"(,"dur":2,"args":{"correlation":)" + ids[k] + R"(,"External id":)" + ids[k] + "}},";
      ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + ts + R"(,"dur":3,"args":{"correlation":)" +
            ids[k] + "}},";
      ev += R"({"ph":"s","id":)" + ids[k] + R"(,"pid":1,"tid":1,"ts":)" + ts + R"(,"cat":"ac2g","name":"ac2g"},)";
      ev += R"({"ph":"f","id":)" + ids[k] + R"(,"pid":0,"tid":7,"ts":)" + ts +
            R"(,"cat":"ac2g","name":"ac2g","bp":"e"},)";
    }
    ev +=
        R"({"ph":"X","cat":"cuda_runtime","name":"s","pid":1,"tid":1,"ts":99,"dur":1,"args":{"correlation":"c-1","External id":"e-1"}})";
    auto t = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = threads}, static_cast<size_t>(pieceBytes)));
    QCOMPARE(anomaly(*t, "kernel_without_launch"), uint64_t(0));
    QCOMPARE(anomaly(*t, "flow_without_peer"), uint64_t(0));
    size_t k = 0, wide = 0;
    for (EventIdx i = 0; i < t->size(); ++i) {
      if (t->nameOf(i) == "pad") continue;
      if (t->nameOf(i) == "s") {
        QVERIFY(t->has(i, ev::CorrIsStr));
        QCOMPARE(t->strings.view(static_cast<StrId>(t->corr[i])), std::string_view("c-1"));
        QCOMPARE(t->strings.view(static_cast<StrId>(t->extId[i])), std::string_view("e-1"));
        continue;
      }
      const int64_t want = std::stoll(ids[k / 4]);
      QCOMPARE(t->corr[i], want);
      if (t->nameOf(i) == "cudaLaunchKernel") QCOMPARE(t->extId[i], want);
      if (!IdColumn::fitsNarrow(want)) ++wide;
      ++k;
    }
    QCOMPARE(k, ids.size() * 4);
    QCOMPARE(t->corr.wideCount(), wide);
    QCOMPARE(wide, size_t(5 * 4));  // 5e9, INT32_MIN, -2^31-1, INT64_MAX, INT64_MIN; 4 events each
    QCOMPARE(t->extId.wideCount(), size_t(5));
  }

  // parseMicros' fast path (plain decimals of up to 19 digits, eight at a
  // time) must give exactly what the general parser gives, for every shape:
  // random decimals of 1..22 digits with and without fraction, sign, leading
  // zeros and trailing whitespace, and hand-picked edges (19/20 digits, the
  // int64 ns limit, sub-ns fractions, exponents, junk, NaN).
  void parseMicrosFastPath() {
    std::vector<std::string> toks = {"0",
                                     "-0",
                                     "0.0",
                                     "1",
                                     "-1",
                                     "1.",
                                     ".5",
                                     "-",
                                     "",
                                     " ",
                                     "1e3",
                                     "1E-3",
                                     "1.5e2",
                                     "NaN",
                                     "Infinity",
                                     "-Infinity",
                                     "12a",
                                     "1.2.3",
                                     "1..2",
                                     "00012.5000",
                                     "9223372036854775",
                                     "9223372036854775.807",
                                     "9223372036854775.808",
                                     "-9223372036854775.808",
                                     "9999999999999999999",
                                     "99999999999999999999",
                                     "1234567890123456789",
                                     "12345678901234567890",
                                     "0.0000000000000000001",
                                     "1.0000000000000000001",
                                     "6520488434380.778",
                                     "6520488434380.7781",
                                     "1700000000000000.123",
                                     "1700000000000000.1234",
                                     "7.485\n",
                                     "11.470  ",
                                     "5\t"};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    auto next = [&] {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    for (int k = 0; k < 200000; ++k) {
      std::string t;
      if (next() % 4 == 0) t += '-';
      const int intDigits = 1 + static_cast<int>(next() % 20);
      for (int d = 0; d < intDigits; ++d)
        t += static_cast<char>('0' + (d == 0 && next() % 3 ? 1 + next() % 9 : next() % 10));
      if (next() % 3) {
        t += '.';
        const int fracDigits = 1 + static_cast<int>(next() % 12);
        const bool nsOnly = next() % 2;  // digits past the third zero: whole ns, the fast path's domain
        for (int d = 0; d < fracDigits; ++d) t += static_cast<char>('0' + (nsOnly && d >= 3 ? 0 : next() % 10));
      }
      if (next() % 8 == 0) t += " \n";
      toks.push_back(std::move(t));
    }
    for (const std::string& t : toks) {
      const io::ParsedNumber a = io::parseMicros(t), b = io::parseMicrosGeneral(t);
      const bool same = a.status == b.status && a.isInt == b.isInt && a.inexact == b.inexact && a.ns == b.ns &&
                        std::memcmp(&a.exact, &b.exact, sizeof(double)) == 0;
      QVERIFY2(same,
               qPrintable(QString("'%1': fast ns %2 st %3 int %4 inexact %5, general ns %6 st %7 int %8 inexact %9")
                              .arg(QString::fromStdString(t))
                              .arg(a.ns)
                              .arg(int(a.status))
                              .arg(a.isInt)
                              .arg(a.inexact)
                              .arg(b.ns)
                              .arg(int(b.status))
                              .arg(b.isInt)
                              .arg(b.inexact)));
    }
    QCOMPARE(io::parseMicros("6520488434380.778").ns, int64_t(6520488434380778));
    QCOMPARE(io::parseMicros("-12345678.9").ns, int64_t(-12345678900));
    // The range ends below 2^62 ns, so ts + dur and time differences fit an int64_t.
    using St = io::ParsedNumber::Status;
    QCOMPARE(io::parseMicros("4611686018427387.903").ns, (int64_t(1) << 62) - 1);
    QCOMPARE(io::parseMicros("-4611686018427387.903").ns, -(int64_t(1) << 62) + 1);
    QCOMPARE(io::parseMicros("4611686018427387.904").status, St::OutOfRange);
    QCOMPARE(io::parseMicros("4611686018427388").status, St::OutOfRange);
    QCOMPARE(io::parseMicros("9.2e15").status, St::OutOfRange);
    QCOMPARE(io::parseMicros("1700000000000000").ns, int64_t(1700000000000000000));  // epoch µs of 2023
  }

  // Names and lanes are 16-bit ids with side tables (NameColumn,
  // LaneColumn): ~68,600 (or ~231,000) distinct names and as many (pid, tid) lanes read back
  // exactly, whether a worker's local id or the global id is the one beyond
  // 16 bits (one piece; 64 KiB pieces on 2 threads, whose local ids differ
  // from the global ones), and each lane lists its own events.
  void wideNamesAndLanes_data() {
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<qulonglong>("pieceBytes");
    QTest::addColumn<int>("events");
    QTest::newRow("one piece") << 1u << qulonglong(1u << 30) << 80000;
    QTest::newRow("64 KiB pieces, 2 threads") << 2u << qulonglong(64u << 10) << 80000;
    // Above 2^18 events the remap itself runs on two threads; each worker then
    // sees > 65,535 names, so names first met late by one worker are wide
    // locally while their global id (from the other worker) may be narrow.
    QTest::newRow("270k events, 2 threads, two-thread remap") << 2u << qulonglong(1u << 20) << 270000;
  }
  void wideNamesAndLanes() {
    QFETCH(unsigned, threads);
    QFETCH(qulonglong, pieceBytes);
    QFETCH(int, events);
    const int kN = events;
    auto nameOfEvent = [&](int k) {
      if (k % 7 == 0) return std::string("common");  // every 7th event: a common name on a common lane
      if (k < 100 || k >= kN - 100)
        return "edge" + std::to_string(k < 100 ? k : kN - 1 - k);  // first and last 100 share names
      return "n" + std::to_string(k);
    };
    std::string ev;
    for (int k = 0; k < kN; ++k) {
      if (k) ev += ",";
      const bool common = k % 7 == 0;
      ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" + nameOfEvent(k) +
            "\",\"pid\":1,\"tid\":" + std::to_string(common ? 0 : k) + ",\"ts\":" + std::to_string(k) + ",\"dur\":1}";
    }
    auto t = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = threads}, static_cast<size_t>(pieceBytes)));
    QCOMPARE(t->size(), size_t(kN));
    QVERIFY(t->name.wideCount() > 0);
    QVERIFY(t->lane.wideCount() > 0);
    for (int k = 0; k < kN; ++k) {
      const auto i = static_cast<EventIdx>(k);
      const bool common = k % 7 == 0;
      const std::string want = nameOfEvent(k);
      if (t->nameOf(i) != want)
        QFAIL(qPrintable(
            QString("event %1: name %2").arg(k).arg(QString::fromUtf8(t->nameOf(i).data(), int(t->nameOf(i).size())))));
      const Lane& lane = t->lanes[t->lane[i]];
      if (lane.tid.type != JsonKey::Type::Int || lane.tid.i != (common ? 0 : k))
        QFAIL(qPrintable(QString("event %1: wrong lane").arg(k)));
      if (!common && !(lane.events.size() == 1 && lane.events[0] == i))
        QFAIL(qPrintable(QString("event %1: lane events").arg(k)));
    }
    QCOMPARE(t->lanes.size(), size_t(kN - (kN + 6) / 7 + 1));
    QVERIFY(t->name[1] == t->name[static_cast<EventIdx>(kN - 2)]);  // edge1 at both ends: one id
  }

  // Categories are 16-bit ids: 65,535 distinct values load, one more is a
  // clear error (not a silent wrap), whether one worker sees them all or the
  // workers' union is what exceeds the limit.
  void categoryLimit_data() {
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<qulonglong>("pieceBytes");
    QTest::newRow("one piece") << 1u << qulonglong(1u << 30);
    QTest::newRow("pieces on 2 threads") << 2u << qulonglong(256u << 10);
  }
  void categoryLimit() {
    QFETCH(unsigned, threads);
    QFETCH(qulonglong, pieceBytes);
    auto make = [](size_t cats) {
      std::string ev;
      for (size_t k = 0; k < cats; ++k) {
        if (k) ev += ",";
        ev += "{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"cat\":\"c" + std::to_string(k) +
              "\"}";  // plain literals: moc misreads some raw strings
      }
      return wrap(ev);
    };
    const LoadOptions opt = testsupport::tuned(LoadOptions{.threads = threads}, static_cast<size_t>(pieceBytes));
    auto ok = loadTraceFromString(make(kMaxCategories), "cats.json", opt);
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().describe().c_str());
    QCOMPARE(ok.value()->categories.size(), kMaxCategories);
    QCOMPARE(ok.value()->catOf(static_cast<EventIdx>(kMaxCategories - 1)), std::string_view("c65534"));
    auto bad = loadTraceFromString(make(kMaxCategories + 1), "cats.json", opt);
    QVERIFY(!bad.ok());
    const QString msg = QString::fromStdString(bad.error().describe());
    QVERIFY2(msg.contains("more than 65535 distinct event categories"), qPrintable(msg));
    QVERIFY2(msg.contains("cats.json"), qPrintable(msg));
  }

  // Durations live in 32 bits of ns and text lengths in 16 bits, with side
  // tables for the rest (NarrowColumn): durations at and beyond int32's ends,
  // B/E spans longer than 2.1 s (set during finalize, while the other thread
  // reads the column), and event texts at and beyond 64 KiB must read back
  // exactly, order lanes (longer first at equal ts) and nest by depth.
  void wideDurationsAndLengths_data() { wideIds_data(); }
  void wideDurationsAndLengths() {
    QFETCH(unsigned, threads);
    QFETCH(qulonglong, pieceBytes);
    struct Dur {
      const char* text;
      int64_t ns;
    };
    const std::vector<Dur> durs = {{"2147483.647", 2147483647LL},
                                   {"2147483.648", 2147483648LL},
                                   {"-2147483.648", -2147483648LL},
                                   {"-2147483.647", -2147483647LL},
                                   {"3600000000", 3600000000000LL},
                                   {"0", 0},
                                   {"1.5", 1500}};
    std::string ev;
    auto pad = [&](int ts) {
      for (int p = 0; p < 30; ++p)  // spread the values over pieces
        ev += R"({"ph":"X","cat":"cpu_op","name":"pad","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":1},)";
    };
    for (size_t k = 0; k < durs.size(); ++k) {
      pad(static_cast<int>(k));
      // (plain literals: moc misreads a raw string that starts with a quote)
      ev += "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"d" + std::to_string(k) +
            "\",\"ts\":" + std::to_string(100 + k) + ",\"dur\":" + durs[k].text + "},";
    }
    // Lane 9: a 3 s B/E span and, at the same ts, a 1 s X and a nested short
    // pair; a B with its own dur keeps it.
    ev += R"({"ph":"X","cat":"cpu_op","name":"x1s","pid":1,"tid":9,"ts":1000,"dur":1000000},)";
    ev += R"({"ph":"B","cat":"cpu_op","name":"long","pid":1,"tid":9,"ts":1000},)";
    pad(2000);
    ev += R"({"ph":"B","cat":"cpu_op","name":"short","pid":1,"tid":9,"ts":2000},)";
    ev += R"({"ph":"E","pid":1,"tid":9,"ts":2500},)";
    ev += R"({"ph":"E","pid":1,"tid":9,"ts":3001000},)";
    ev += R"({"ph":"B","cat":"cpu_op","name":"own","pid":1,"tid":9,"ts":4000000,"dur":5},)";
    ev += R"({"ph":"E","pid":1,"tid":9,"ts":4000100},)";
    // Texts of 65534, 65535 and 70000 bytes (the 16-bit marker is 65535).
    const std::string head = "{\"ph\":\"i\",\"name\":\"big\",\"pid\":1,\"tid\":1,\"ts\":5,\"args\":{\"s\":\"";
    const std::string tail = "\"}}";
    for (size_t want : {size_t(65534), size_t(65535), size_t(70000)}) {
      pad(5);
      ev += head + std::string(want - head.size() - tail.size(), 'x') + tail + ",";
    }
    ev += R"({"ph":"X","cat":"cpu_op","name":"last","pid":1,"tid":1,"ts":6,"dur":1})";
    auto t = mustLoad(wrap(ev), testsupport::tuned(LoadOptions{.threads = threads}, static_cast<size_t>(pieceBytes)));
    std::map<std::string, EventIdx> byName;
    std::vector<EventIdx> big;
    for (EventIdx i = 0; i < t->size(); ++i) {
      if (t->nameOf(i) == "big")
        big.push_back(i);
      else if (t->nameOf(i) != "pad")
        byName[std::string(t->nameOf(i))] = i;
    }
    size_t wide = 0;
    for (size_t k = 0; k < durs.size(); ++k) {
      const EventIdx i = byName.at("d" + std::to_string(k));
      QCOMPARE(t->durNs[i], durs[k].ns);
      QCOMPARE(t->durUs(i), static_cast<double>(durs[k].ns) / 1000.0);
      if (!DurColumn::fitsNarrow(durs[k].ns)) ++wide;
    }
    QCOMPARE(wide, size_t(3));  // 2^31 ns, INT32_MIN ns (the marker), one hour
    const EventIdx lg = byName.at("long"), sh = byName.at("short"), own = byName.at("own"), x1 = byName.at("x1s");
    QCOMPARE(t->durNs[lg], int64_t(3000000000LL));
    QVERIFY(t->has(lg, ev::DurFromPair));
    QCOMPARE(t->durNs[sh], int64_t(500000));
    QCOMPARE(t->durNs[own], int64_t(5000));  // its own dur, not the pair's 100 us
    QVERIFY(!t->has(own, ev::DurFromPair));
    QCOMPARE(t->durNs.wideCount(), wide + 1);
    // Lane order at ts 1000: the 3 s span before the 1 s X; depths follow.
    const Lane& lane = t->lanes[t->lane[lg]];
    auto pos = [&](EventIdx e) { return std::find(lane.events.begin(), lane.events.end(), e) - lane.events.begin(); };
    QVERIFY(pos(lg) < pos(x1));
    QCOMPARE(t->depth[lg], uint16_t(0));
    QCOMPARE(t->depth[x1], uint16_t(1));
    QCOMPARE(t->depth[sh], uint16_t(2));
    // Texts read back whole, whatever their length's width.
    QCOMPARE(big.size(), size_t(3));
    EventText text(*t);
    const size_t lens[] = {65534, 65535, 70000};
    for (size_t k = 0; k < 3; ++k) {
      QCOMPARE(size_t(t->length[big[k]]), lens[k]);
      auto raw = text(big[k]);
      QCOMPARE(raw.size(), lens[k]);
      QVERIFY(raw.starts_with(head));
      QVERIFY(raw.ends_with(tail));
    }
    QCOMPARE(t->length.wideCount(), size_t(2));
  }

  // Offsets above 4 GiB (OffsetColumn): the bulk fill of pieces in any order
  // gives what appending one by one gives, across epochs inside and between pieces.
  void offsetEpochs() {
    const uint64_t G4 = uint64_t(1) << 32;
    std::vector<uint64_t> offs;
    for (uint64_t o = G4 - 5000; o < 3 * G4 + 5000; o += 997) {
      offs.push_back(o);
      if (offs.size() % 1000 == 0) o += G4 / 3;  // long jumps too
    }
    offs.insert(offs.begin(), {0, 1, 2});
    OffsetColumn ref;
    for (uint64_t o : offs) ref.push_back(o);
    OffsetColumn bulk;
    ColumnFill::low(bulk).resize(offs.size());
    std::vector<std::pair<uint32_t, uint32_t>> changes;
    std::vector<std::pair<size_t, size_t>> pieces;
    for (size_t b = 0; b < offs.size(); b += 777) pieces.emplace_back(b, std::min(offs.size(), b + 777));
    std::reverse(pieces.begin(), pieces.end());
    for (auto [b, e] : pieces)
      ColumnFill::splitOffsets(offs.data() + b, e - b, static_cast<uint32_t>(b), ColumnFill::low(bulk).data() + b, changes);
    ColumnFill::adoptChanges(bulk, changes);
    for (size_t i = 0; i < offs.size(); ++i) {
      QCOMPARE(ref[i], offs[i]);
      QCOMPARE(bulk[i], offs[i]);
    }
    QVERIFY(bulk.bytes() < offs.size() * 4 + 1024);  // a few change points, not one per event
    // IdColumn::set moves values in and out of the side table.
    IdColumn ids;
    for (int64_t v : {int64_t(1), int64_t(1) << 40, int64_t(-3), int64_t(INT32_MIN)}) ids.push_back(v);
    QCOMPARE(ids.wideCount(), size_t(2));
    ids.set(1, 5);
    ids.set(0, int64_t(1) << 50);
    QCOMPARE(ids[0], int64_t(1) << 50);
    QCOMPARE(ids[1], int64_t(5));
    QCOMPARE(ids[2], int64_t(-3));
    QCOMPARE(ids[3], int64_t(INT32_MIN));
    QCOMPARE(ids.wideCount(), size_t(2));
  }

  void timestampExactness_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<bool>("isInt");
    QTest::newRow("epoch real") << "1773709742341309.550" << qint64(1773709742341309550LL) << false;
    QTest::newRow("epoch real 3") << "1773709742341309.551" << qint64(1773709742341309551LL) << false;
    QTest::newRow("epoch int") << "1773709742341309" << qint64(1773709742341309000LL) << true;
    QTest::newRow("relative real") << "1234.567" << qint64(1234567) << false;
    QTest::newRow("real .0") << "8000.0" << qint64(8000000) << false;
    QTest::newRow("exponent") << "1.5e3" << qint64(1500000) << false;
    QTest::newRow("negative") << "-12.5" << qint64(-12500) << false;
    QTest::newRow("sub-ns digits") << "10.1234567" << qint64(10123) << false;
  }
  void timestampExactness() {
    QFETCH(QString, text);
    QFETCH(qint64, ns);
    QFETCH(bool, isInt);
    std::string t = text.toStdString();
    auto tr =
        mustLoad(wrap(R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":)" + t + R"(,"dur":)" + t + "}"));
    QCOMPARE(tr->tsNs[0], int64_t(ns));
    QCOMPARE(tr->has(0, ev::TsIsInt), isInt);
    QCOMPARE(tr->has(0, ev::DurIsInt), isInt);
    double expected = 0;
    std::from_chars(t.data(), t.data() + t.size(), expected);
    QCOMPARE(tr->tsUs(0), expected);  // exactly Python's float(text)
    QCOMPARE(tr->durUs(0), expected);
    PyNum p = tr->tsPy(0);
    QCOMPARE(p.isInt, isInt);
    if (isInt)
      QCOMPARE(p.i, int64_t(ns / 1000));
    else
      QCOMPARE(p.d, expected);
  }

  // Beyond 2^53 ns the µs double is rounded from the exact quotient: it must
  // be the double Python's float() gives for the decimal text, every time.
  void nsToUsMatchesDecimalText() {
    auto viaText = [](int64_t ns) {
      const bool neg = ns < 0;
      const uint64_t u = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
      const std::string frac = std::to_string(u % 1000);
      const std::string text =
          (neg ? "-" : "") + std::to_string(u / 1000) + "." + std::string(3 - frac.size(), '0') + frac;
      double d = 0;
      std::from_chars(text.data(), text.data() + text.size(), d);
      return d;
    };
    std::mt19937_64 rng(7);
    std::vector<int64_t> values = {int64_t(1) << 53,     (int64_t(1) << 53) + 1, INT64_MAX,
                                   INT64_MIN + 1,        1773709742341309550LL,  1773709742341309551LL,
                                   4503599627370496500LL};
    for (int p = 54; p < 63; ++p)  // around the powers of two, where the ulp changes
      for (int64_t off = -1500; off <= 1500; ++off) values.push_back((int64_t(1) << p) + off);
    for (int p = 44; p < 53; ++p)  // quotients at powers of two, with fractions that are exact eighths
      for (int64_t r = 0; r < 1000; r += 125)
        for (int64_t d : {-2, -1, 0, 1}) values.push_back(((int64_t(1) << p) + d) * 1000 + r);
    for (int64_t off = -3000; off <= 3000; ++off)  // where the quotient itself stops being exact
      values.push_back((int64_t(1) << 53) * 1000 + off);
    for (int k = 0; k < 200000; ++k) {
      int64_t v = static_cast<int64_t>(rng() >> (1 + rng() % 10));
      if (v < (int64_t(1) << 53)) v += int64_t(1) << 53;
      values.push_back(k % 2 ? -v : v);
    }
    for (int64_t ns : values)
      if (nsToUsExact(ns) != viaText(ns)) QFAIL(qPrintable(QStringLiteral("ns %1").arg(ns)));
  }

  void compressedFormats() {
    QTemporaryDir dir;
    std::string json = kinetoTrace(50, false);
    auto ref = mustLoad(json);
    std::string base = dir.path().toStdString();
    writeFile(base + "/a.json.gz", gzipBytes(json));
    writeFile(base + "/b.bin", gzipBytes(json));  // magic bytes, not the suffix
    writeFile(base + "/c.zip", zipBytes({{"readme.txt", "hello", true}, {"dir/trace.json", json, true}}));
    writeFile(base + "/d.zip", zipBytes({{"trace.json", json, false}}));
    writeFile(base + "/e.json.gz", gzipBytes(json.substr(0, 1000)) + gzipBytes(json.substr(1000)));  // multi-member
    writeFile(base + "/g.zip", zipBytes({{"readme.txt", "hello", false}, {"trace.json", json, true}}, /*zip64=*/true));
    writeFile(base + "/h.zip", zipBytes({{"trace.json", json, false}}, /*zip64=*/true));
    std::vector<std::string> files = {"/a.json.gz", "/b.bin", "/c.zip", "/d.zip", "/e.json.gz", "/g.zip", "/h.zip"};
#ifdef STEADYSCOPE_TEST_ZSTD
    {
      std::string z(ZSTD_compressBound(json.size()), '\0');
      z.resize(ZSTD_compress(z.data(), z.size(), json.data(), json.size(), 3));
      writeFile(base + "/f.json.zst", z);
      files.push_back("/f.json.zst");
    }
#endif
    for (const std::string& f : files) {
      auto r = loadTrace(base + f, LoadOptions{.cacheDir = base + "/cache"});
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
      compareTraces(*ref, *r.value());
      EventText a(*r.value()), b(*ref);
      for (EventIdx i = 0; i < ref->size(); ++i) QCOMPARE(a(i), b(i));
    }
    // the decompressed text lives in an unlinked temporary file: nothing left in the cache dir
    QDir cache(dir.path() + "/cache");
    QCOMPARE(cache.entryList(QDir::Files).size(), 0);
  }

  void gzipIndexedEqualsPlain_data() {
    QTest::addColumn<bool>("nested");
    QTest::addColumn<int>("level");
    QTest::addColumn<int>("members");
    QTest::addColumn<bool>("minified");
    QTest::newRow("plain events, level 6") << false << 6 << 1 << false;
    QTest::newRow("nested objects (heuristic trap while streaming)") << true << 6 << 1 << false;
    QTest::newRow("stored blocks (level 0)") << false << 0 << 1 << false;
    QTest::newRow("level 1, 7 members") << false << 1 << 7 << false;
    QTest::newRow("level 9, 2 members") << true << 9 << 2 << false;
    QTest::newRow("minified (exact cuts while streaming)") << false << 6 << 1 << true;
    QTest::newRow("minified nested objects") << true << 6 << 1 << true;
  }
  void gzipIndexedEqualsPlain() {
    // Several MB of text so that pieces are cut and parsed while the inflating
    // thread runs, and checkpoints land all over the stream (members, blocks).
    QFETCH(bool, nested);
    QFETCH(int, level);
    QFETCH(int, members);
    QFETCH(bool, minified);
    QTemporaryDir dir;
    std::string json = kinetoTrace(6000, nested);
    if (minified)
      json.erase(std::remove(json.begin(), json.end(), '\n'), json.end());  // no raw newline is inside a string
    QVERIFY(json.size() > (4u << 20));
    std::string base = dir.path().toStdString();
    writeFile(base + "/s.json", json);
    std::string gz;
    for (int m = 0; m < members; ++m) {
      const size_t a = json.size() * size_t(m) / size_t(members), b = json.size() * size_t(m + 1) / size_t(members);
      gz += gzipBytes(json.substr(a, b - a), level);
    }
    writeFile(base + "/s.json.gz", gz);
    auto plain = loadTrace(base + "/s.json", testsupport::tuned(LoadOptions{.threads = 1}, 1u << 30));
    QVERIFY(plain.ok());
    const Trace& p = *plain.value();
    for (size_t piece : {size_t(16384), size_t(200000)}) {
      auto gzr = loadTrace(base + "/s.json.gz", testsupport::tuned(LoadOptions{.cacheDir = base}, piece, 100000));
      QVERIFY2(gzr.ok(), gzr.ok() ? "" : gzr.error().describe().c_str());
      const Trace& g = *gzr.value();
      compareTraces(p, g);
      QCOMPARE(g.topLevel.size(), p.topLevel.size());
      for (size_t k = 0; k < p.topLevel.size(); ++k) QCOMPARE(g.topLevel[k].rawValue, p.topLevel[k].rawValue);
      QCOMPARE(g.stats.compression, std::string("gzip"));
      // Not kept: read through checkpoints. A heuristic cut inside a nested
      // object makes the loader start over on the plain path (temporary file).
      QCOMPARE(g.source->text().empty(), !nested || minified);
      QCOMPARE(g.source->size(), uint64_t(json.size()));
      // Every event's text, in file order and then backwards (cache misses).
      EventText a(g), b(p);
      for (EventIdx i = 0; i < p.size(); ++i) QCOMPARE(a(i), b(i));
      for (EventIdx i = EventIdx(p.size()); i-- > 0;) {
        if (i % 7) continue;
        QCOMPARE(a(i), b(i));
      }
      // Arbitrary ranges, across checkpoints, up to the very end.
      auto reader = g.source->reader();
      std::mt19937 rng{static_cast<unsigned>(piece)};
      for (int k = 0; k < 200; ++k) {
        const uint64_t off = rng() % json.size();
        const size_t len = std::min<size_t>(json.size() - off, rng() % 400000);
        std::string_view v;
        QVERIFY2(reader->read(off, len, v), reader->error().c_str());
        QVERIFY(v == std::string_view(json).substr(off, len));
      }
      // Readers on several threads at once share the re-inflated spans (one
      // thread may wait for a span another inflates): each still reads right.
      std::atomic<int> wrong{0};
      std::vector<std::thread> readers;
      for (unsigned t = 0; t < 4; ++t)
        readers.emplace_back([&, t] {
          auto r = g.source->reader();
          std::mt19937 tr{t};
          for (int k = 0; k < 300; ++k) {
            const uint64_t off = (k % 3 ? json.size() / 2 : 0) + tr() % (json.size() / 2);
            const size_t len = std::min<size_t>(json.size() - off, tr() % 5000);
            std::string_view tv;
            if (!r->read(off, len, tv) || tv != std::string_view(json).substr(off, len)) ++wrong;
          }
        });
      for (auto& th : readers) th.join();
      QCOMPARE(wrong.load(), 0);
      std::string_view v;
      QVERIFY(reader->read(json.size() - 10, 10, v));
      QVERIFY(v == std::string_view(json).substr(json.size() - 10));
      QVERIFY(!reader->read(json.size() - 10, 11, v));  // past the end: refused, with a reason
      QVERIFY(!reader->error().empty());
    }
    // nothing written to the cache directory
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
  }

  void gzipLargeObjectWithoutTraceEvents() {
    // 40 MB of another tool's JSON before any traceEvents: the streaming path
    // gives up past 32 MB (a bound on its memory, not observable here) and the
    // plain path refuses the file with the right code.
    QTemporaryDir dir;
    std::string json = "{\"kernel_dispatch\": [";
    for (int i = 0; json.size() < (40u << 20); ++i)
      json += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) + "}";
    json += "]}";
    const std::string path = dir.path().toStdString() + "/rocprof.json.gz";
    writeFile(path, gzipBytes(json, 1));
    auto r = loadTrace(path, LoadOptions{.cacheDir = dir.path().toStdString()});
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, std::string("no_trace_events"));
  }

  void gzipFileChangedAfterLoad() {
    // The text of a .json.gz is re-read from the file on demand: if the file is
    // rewritten in place afterwards, reads fail with a clear message (no crash,
    // no wrong bytes).
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/c.json.gz";
    std::string json = kinetoTrace(300, false);
    writeFile(path, gzipBytes(json));
    auto r = loadTrace(path, testsupport::tuned(LoadOptions{}, io::LoadTuning{}.pieceBytes, 65536));
    QVERIFY(r.ok());
    const Trace& t = *r.value();
    EventText before(t);
    QVERIFY(!before(5).empty());
    std::string other = gzipBytes(kinetoTrace(280, true));
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);  // same inode, new bytes
      f.write(other.data(), std::streamsize(other.size()));
    }
    ::truncate(path.c_str(), off_t(other.size()));
    EventText after(t);
    std::string_view v;
    QVERIFY(!after.read(t.size() - 1, v));
    QVERIFY2(after.error().find("modified after it was loaded") != std::string::npos, after.error().c_str());
  }

  void badInput_data() {
    QTest::addColumn<QByteArray>("content");  // empty name = special
    QTest::addColumn<QString>("special");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("fragment");
    std::string good = kinetoTrace(20, false);
    QTest::newRow("not json") << QByteArray("hello world") << ""
                              << "not_json"
                              << "not JSON";
    QTest::newRow("top-level array") << QByteArray("[{\"ph\":\"X\"}]") << ""
                                     << "toplevel_array"
                                     << "array";
    QTest::newRow("no traceEvents (rocprofv3-like)") << QByteArray("{\"kernel_dispatch\": []}") << ""
                                                     << "no_trace_events"
                                                     << "traceEvents";
    QTest::newRow("empty file") << QByteArray() << ""
                                << "empty_file"
                                << "empty";
    QTest::newRow("whitespace only") << QByteArray("  \n ") << ""
                                     << "empty_file"
                                     << "no JSON";
    QTest::newRow("truncated json (mid event)") << QByteArray::fromStdString(good.substr(0, good.size() / 2)) << ""
                                                << "truncated_json"
                                                << "truncated";
    QTest::newRow("truncated json (after array)")
        << QByteArray::fromStdString(good.substr(0, good.rfind(']') + 1)) << ""
        << "truncated_json"
        << "not closed";
    QTest::newRow("broken event") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": }]}") << ""
                                  << "bad_json"
                                  << "malformed";
    QTest::newRow("traceEvents not array") << QByteArray("{\"traceEvents\": 5}") << ""
                                           << "trace_events_not_array"
                                           << "not an array";
    std::string gz = gzipBytes(good);
    QTest::newRow("truncated gzip") << QByteArray::fromStdString(gz.substr(0, gz.size() / 2)) << ""
                                    << "gzip_truncated"
                                    << "truncated";
    std::string bad = gz;
    bad[bad.size() - 6] ^= 0x55;  // CRC trailer
    QTest::newRow("gzip crc mismatch") << QByteArray::fromStdString(bad) << ""
                                       << "gzip_corrupt"
                                       << "CRC";
    std::string garbage = gz;
    for (size_t i = 20; i < 60; ++i) garbage[i] = char(0xff);
    QTest::newRow("corrupt gzip data") << QByteArray::fromStdString(garbage) << ""
                                       << "gzip_corrupt"
                                       << "corrupt";
    QTest::newRow("zip without json") << QByteArray::fromStdString(zipBytes({{"a.txt", "x", true}})) << ""
                                      << "zip_no_json"
                                      << ".json";
    std::string z64 = zipBytes({{"trace.json", good, false}}, /*zip64=*/true);
    for (int i = 0; i < 8; ++i) z64[z64.size() - 22 - 20 + 8 + i] = char(0x7f);  // the locator's record offset
    QTest::newRow("ZIP64 end record outside the file") << QByteArray::fromStdString(z64) << ""
                                                       << "zip_corrupt"
                                                       << "ZIP64";
    std::string noRecord = zipBytes({{"trace.json", good, false}}, /*zip64=*/true);
    noRecord.erase(noRecord.size() - 22 - 20 - 56, 56 + 20);  // saturated end record, no ZIP64 record
    QTest::newRow("ZIP64 without its end record") << QByteArray::fromStdString(noRecord) << ""
                                                  << "zip_corrupt"
                                                  << "ZIP64";
    std::string encrypted = zipBytes({{"trace.json", good, false}});
    encrypted[encrypted.find("PK\x01\x02") + 8] |= 1;  // the central entry's "encrypted" flag
    QTest::newRow("encrypted zip member") << QByteArray::fromStdString(encrypted) << ""
                                          << "zip_encrypted"
                                          << "encrypted";
    QTest::newRow("missing file") << QByteArray() << "missing"
                                  << "not_found"
                                  << "No such file";
    QTest::newRow("directory") << QByteArray() << "directory"
                               << "is_directory"
                               << "directory";
  }
  void badInput() {
    QFETCH(QByteArray, content);
    QFETCH(QString, special);
    QFETCH(QString, code);
    QFETCH(QString, fragment);
    QTemporaryDir dir;
    std::string path = dir.path().toStdString() + "/input.json";
    if (special == "missing")
      path = dir.path().toStdString() + "/nope.json";
    else if (special == "directory")
      path = dir.path().toStdString();
    else
      writeFile(path, content.toStdString());
    auto r = loadTrace(path, LoadOptions{.cacheDir = dir.path().toStdString() + "/cache"});
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QString msg = QString::fromStdString(r.error().describe());
    QVERIFY2(msg.contains(QString::fromStdString(path)), qPrintable(msg));
    QVERIFY2(msg.contains(fragment, Qt::CaseInsensitive), qPrintable(msg));
  }

  void truncationEverywhereNeverCrashes() {
    std::string good = kinetoTrace(3, true);
    std::mt19937 rng(7);
    for (int k = 0; k < 300; ++k) {
      size_t cut = rng() % good.size();
      auto r = loadTraceFromString(good.substr(0, cut), "cut.json", testsupport::tuned(LoadOptions{}, 512));
      QVERIFY(!r.ok());
      QVERIFY(!r.error().message.empty());
    }
  }

  void cancellation() {
    QTemporaryDir dir;
    std::string path = dir.path().toStdString() + "/big.json.gz";
    writeFile(path, gzipBytes(kinetoTrace(3000, false)));
    // cancelled up front
    {
      JobControl jc;
      jc.requestCancel();
      auto r = loadTrace(path, LoadOptions{.cacheDir = dir.path().toStdString(), .control = &jc});
      QVERIFY(!r.ok());
      QCOMPARE(r.error().kind, Error::Kind::Cancelled);
    }
    // cancelled at random moments: either a whole model or a Cancelled error
    std::mt19937 rng(3);
    for (int k = 0; k < 8; ++k) {
      JobControl jc;
      int delayUs = static_cast<int>(rng() % 20000);
      std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
        jc.requestCancel();
      });
      auto r =
          loadTrace(path, testsupport::tuned(LoadOptions{.cacheDir = dir.path().toStdString(), .control = &jc}, 8192));
      canceller.join();
      if (r.ok())
        QCOMPARE(r.value()->size(), size_t(1 + 3000 * 13));
      else
        QCOMPARE(r.error().kind, Error::Kind::Cancelled);
    }
  }

  void progressReportsBytes() {
    JobControl jc;
    auto r =
        loadTraceFromString(kinetoTrace(100, false), "p.json", testsupport::tuned(LoadOptions{.control = &jc}, 4096));
    QVERIFY(r.ok());
    QCOMPARE(jc.stage(), int(StageDone));
    QVERIFY(jc.doneBytes() > 0);
    QCOMPARE(jc.events(), uint64_t(r.value()->size()));
  }

  void baseName_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("base");
    QTest::newRow("pt.trace.json.gz") << "/x/rank0.pt.trace.json.gz"
                                      << "rank0";
    QTest::newRow("json") << "foo.json"
                          << "foo";
    QTest::newRow("twice") << "a.json.backup.json"
                           << "a.backup";
    QTest::newRow("zip") << "t.zip"
                         << "t.zip";
  }
  void baseName() {
    QFETCH(QString, path);
    QFETCH(QString, base);
    QCOMPARE(QString::fromStdString(referenceBaseName(path.toStdString())), base);
  }
};

QTEST_APPLESS_MAIN(TestLoader)
#include "tst_loader.moc"
