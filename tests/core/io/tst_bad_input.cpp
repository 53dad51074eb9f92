// The bad-input corpus: one file per class. Fatal classes end in a specific
// message naming the file (and the byte offset where one applies), a non-zero
// exit of the CLI and nothing written; tolerated classes load with their named
// anomaly counted. Complements tst_loader's badInput rows, which check the
// error codes of the first corpus.
#include "support/bad_inputs.hpp"
#include "support/load_tuning.hpp"
#include "support/rss.hpp"
#include "test_files.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/util/memory.hpp>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <climits>
#include <fstream>
#include <random>
#include <string>
#include <thread>

using namespace steadyscope;
using namespace testfiles;

namespace {

std::string eventJson(const std::string& fields) { return "{\"pid\": 1, \"tid\": 1, \"name\": \"e\", " + fields + "}"; }

std::string wrapEvents(const std::string& events) { return "{\"traceEvents\": [" + events + "]}"; }

uint64_t anomaly(const Trace& t, const std::string& code) {
  for (const auto& a : t.anomalies)
    if (a.code == code) return a.count;
  return 0;
}

struct CliRun {
  int exitCode = -1;
  QString output;
};

CliRun runCli(const QStringList& args) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QStringLiteral(STEADYSCOPE_CLI), args);
  if (!p.waitForFinished(120000)) return {};
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

/// A generated trace of `steps` steps (several MB), gzip, in `dir`.
QString generated(const QTemporaryDir& dir, int steps) {
  const QString path = dir.filePath("gen.json.gz");
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_GEN), {"-o", path, "--steps", QString::number(steps), "--quiet"});
  p.waitForFinished(120000);
  return path;
}

}  // namespace

class TestBadInput : public QObject {
  Q_OBJECT
 private slots:
  void fatal_data() {
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("content");  // a directory when fileName ends in '/'
    QTest::addColumn<QString>("code");
    QTest::addColumn<bool>("hasOffset");
    for (const auto& f : sstest::fatalCorpus())
      QTest::newRow(f.what.c_str()) << QString::fromStdString(f.fileName) << QByteArray::fromStdString(f.bytes)
                                    << QString::fromStdString(f.code) << f.hasOffset;
  }
  void fatal() {
    QFETCH(QString, fileName);
    QFETCH(QByteArray, content);
    QFETCH(QString, code);
    QFETCH(bool, hasOffset);
    QTemporaryDir dir;
    const QString path = dir.filePath(fileName.endsWith('/') ? fileName.chopped(1) : fileName);
    if (fileName.endsWith('/'))
      QVERIFY(QDir().mkpath(path));
    else
      writeFile(path.toStdString(), content.toStdString());
    auto r = loadTrace(path.toStdString(), LoadOptions{.cacheDir = dir.filePath("cache").toStdString()});
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    const QString message = QString::fromStdString(r.error().describe());
    QVERIFY2(message.contains(path), qPrintable(message));
    if (hasOffset) QVERIFY2(r.error().byteOffset && message.contains("at byte"), qPrintable(message));

    // The CLI: a non-zero exit naming the file; a split writes nothing (a JSON
    // object without traceEvents is the reference's "No GPU work", exit 0).
    const CliRun info = runCli({"info", path});
    QVERIFY2(info.exitCode == 1 && info.output.contains(path), qPrintable(info.output));
    const QString out = dir.filePath("out");
    const CliRun split = runCli({"split", path, "-o", out, "--find-steady-state"});
    QVERIFY2(split.exitCode == (code == "no_trace_events" ? 0 : 1), qPrintable(split.output));
    QVERIFY2(!QFileInfo::exists(out), "the split wrote its output directory");
    QVERIFY(QFileInfo(path).exists());
  }

  void tolerated_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("anomalyCode");  // empty: loads without one
    QTest::addColumn<int>("events");
    auto bytes = [](const std::string& s) { return QByteArray::fromStdString(s); };
    const std::string x = "\"ph\": \"X\", \"ts\": 1, \"dur\": 2";
    std::string deep = "1";
    for (int k = 0; k < 100000; ++k) deep = "[" + deep;  // then as many ']'
    deep += std::string(100000, ']');
    QTest::newRow("deeply nested args (1e5 levels)")
        << bytes(wrapEvents(eventJson(x + ", \"args\": {\"a\": " + deep + "}"))) << "" << 1;
    QTest::newRow("huge string (16 MB name)")
        << bytes(wrapEvents("{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1, \"name\": \"" +
                            std::string(16 << 20, 'n') + "\"}"))
        << "" << 1;
    QTest::newRow("NaN and Infinity tokens")
        << bytes(wrapEvents(eventJson("\"ph\": \"X\", \"ts\": NaN, \"dur\": Infinity"))) << "number_non_finite" << 1;
    QTest::newRow("duplicated keys") << bytes(wrapEvents(eventJson(x + ", \"ts\": 5, \"dur\": 7"))) << "" << 1;
    // A string id then a number under the same key: a stale "is a string" flag
    // would index the string table with the number (docs/ROBUSTNESS.md's findings).
    QTest::newRow("repeated ids, a string then a number")
        << bytes(wrapEvents(eventJson(x + ", \"id\": \"f\", \"id\": 900001, \"args\": {\"External id\": \"e\", "
                                          "\"External id\": 900002, \"correlation\": \"c\", \"correlation\": 900003}")))
        << "" << 1;
    QTest::newRow("ts of absurd magnitude")
        << bytes(wrapEvents(eventJson("\"ph\": \"X\", \"ts\": 1e300, \"dur\": 2"))) << "number_out_of_range" << 1;
    QTest::newRow("dur of absurd magnitude")
        << bytes(wrapEvents(eventJson("\"ph\": \"X\", \"ts\": 1, \"dur\": -1e300"))) << "number_out_of_range" << 1;
    QTest::newRow("ts + dur beyond int64 ns")
        << bytes(wrapEvents(eventJson("\"ph\": \"X\", \"ts\": 9.2e15, \"dur\": 9.0e15"))) << "number_out_of_range" << 1;
    QTest::newRow("negative dur") << bytes(wrapEvents(eventJson("\"ph\": \"X\", \"ts\": 1, \"dur\": -5")))
                                  << "dur_negative" << 1;
    QTest::newRow("missing ph") << bytes(wrapEvents(eventJson("\"ts\": 1, \"dur\": 2"))) << "ph_missing" << 1;
    QTest::newRow("unknown ph") << bytes(wrapEvents(eventJson("\"ph\": \"Q\", \"ts\": 1"))) << "ph_unknown" << 1;
    QTest::newRow("unmatched B") << bytes(wrapEvents(eventJson("\"ph\": \"B\", \"ts\": 1"))) << "unmatched_B" << 1;
    QTest::newRow("unmatched E") << bytes(wrapEvents(eventJson("\"ph\": \"E\", \"ts\": 1"))) << "unmatched_E" << 1;
    QTest::newRow("flow without a peer") << bytes(wrapEvents(
                                                eventJson("\"ph\": \"s\", \"cat\": \"ac2g\", \"id\": 9, \"ts\": 1")))
                                         << "flow_without_peer" << 1;
  }
  void tolerated() {
    QFETCH(QByteArray, json);
    QFETCH(QString, anomalyCode);
    QFETCH(int, events);
    auto r = loadTraceFromString(json.toStdString(), "tolerated.json");
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Trace& t = *r.value();
    QCOMPARE(int(t.size()), events);
    if (!anomalyCode.isEmpty()) QVERIFY2(anomaly(t, anomalyCode.toStdString()) >= 1, qPrintable(anomalyCode));
  }

  // ---- partial traces ----

  void partialKeepsTheCompleteEvents_data() {
    QTest::addColumn<QString>("cutAt");  // where the text ends
    QTest::addColumn<bool>("gzip");
    for (bool gz : {false, true}) {
      const char* suffix = gz ? " (.json.gz)" : " (.json)";
      QTest::newRow(qPrintable(QString("inside an event") + suffix)) << "mid-event" << gz;
      QTest::newRow(qPrintable(QString("after an event's comma") + suffix)) << "after-comma" << gz;
      QTest::newRow(qPrintable(QString("after the array") + suffix)) << "after-array" << gz;
    }
    QTest::newRow("inside the gzip stream") << "gzip-stream" << true;
  }
  void partialKeepsTheCompleteEvents() {
    QFETCH(QString, cutAt);
    QFETCH(bool, gzip);
    const std::string whole = sstest::smallTrace();
    auto full = loadTraceFromString(whole, "whole.json");
    QVERIFY(full.ok());
    const Trace& ref = *full.value();
    std::string text = whole;
    size_t expected = ref.size();
    const size_t lastEvent = whole.rfind("{\"ph\"");
    if (cutAt == "mid-event") text = whole.substr(0, lastEvent + 10), expected = ref.size() - 1;
    if (cutAt == "after-comma") text = whole.substr(0, lastEvent), expected = ref.size() - 1;
    if (cutAt == "after-array") text = whole.substr(0, whole.rfind(']') + 1);
    std::string bytes = gzip ? testfiles::gzipBytes(text) : text;
    if (cutAt == "gzip-stream") bytes = bytes.substr(0, bytes.size() - 12), expected = 0;  // the trailer and a bit
    QTemporaryDir dir;
    const std::string path = dir.filePath(gzip ? "cut.json.gz" : "cut.json").toStdString();
    writeFile(path, bytes);
    QVERIFY(!loadTrace(path, LoadOptions{.cacheDir = dir.filePath("c").toStdString()}).ok());

    auto r = loadTrace(path, LoadOptions{.cacheDir = dir.filePath("c").toStdString(), .allowPartial = true});
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Trace& t = *r.value();
    QVERIFY(t.partial);
    QVERIFY2(QString::fromStdString(t.partial->reason).contains("truncated"), t.partial->reason.c_str());
    if (expected) QCOMPARE(t.size(), expected);
    QVERIFY(t.size() > 0 && t.size() <= ref.size());
    EventText a(t), b(ref);
    for (EventIdx e = 0; e < t.size(); ++e) QCOMPARE(a(e), b(e));  // the same events, byte for byte

    analysis::Splitter splitter(r.value());
    analysis::SplitOptions o;
    o.outputDir = dir.filePath("out").toStdString();
    const auto plan = splitter.plan(o);
    QCOMPARE(plan.outcome, analysis::SplitOutcome::Error);
    QVERIFY2(QString::fromStdString(plan.error).contains("read only in part"), plan.error.c_str());
    exporting::ExportRequest req;
    req.targetDir = dir.filePath("export").toStdString();
    const auto preview = exporting::previewExport(t, plan, req);
    QVERIFY2(QString::fromStdString(preview.refusal).contains("read only in part"), preview.refusal.c_str());

    const CliRun info = runCli({"info", "--partial", QString::fromStdString(path)});
    QVERIFY2(info.exitCode == 0 && info.output.contains("partial: the file ends early"), qPrintable(info.output));
  }

  void partialNeedsOneCompleteEvent() {
    auto r =
        loadTraceFromString("{\"traceEvents\": [{\"ph\": \"X\", \"ts\"", "cut.json", LoadOptions{.allowPartial = true});
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, std::string("truncated_json"));
  }

  // ---- resources ----

  void memoryGuardRefusesBeforeLoading() {
    QTemporaryDir dir;
    const QString path = generated(dir, 200);
    for (const char* file : {"plain", "gzip"}) {
      std::string target = path.toStdString();
      if (std::string(file) == "plain") {  // the same trace as plain JSON
        auto t = loadTrace(target);
        QVERIFY(t.ok());
        target = dir.filePath("gen.json").toStdString();
        EventText text(*t.value());
        std::string json = "{\"traceEvents\": [";
        for (EventIdx e = 0; e < t.value()->size(); ++e) json += (e ? ",\n" : "") + std::string(text(e));
        writeFile(target, json + "]}");
      }
      const long before = sstest::rssAnonKiB();
      auto r = loadTrace(target,
                         LoadOptions{.cacheDir = dir.filePath("cache").toStdString(), .assumeAvailableBytes = 1 << 20});
      QVERIFY(!r.ok());
      QCOMPARE(r.error().code, std::string("out_of_memory"));
      const QString message = QString::fromStdString(r.error().describe());
      QVERIFY2(message.contains(QString::fromStdString(target)) && message.contains("not enough memory for this trace (needs about"),
               qPrintable(message));
      QVERIFY2(sstest::rssAnonKiB() - before < 8 * 1024, "refused only after allocating");  // the model is ~10 MiB
      QVERIFY(loadTrace(target, LoadOptions{.assumeAvailableBytes = uint64_t(1) << 40}).ok());
    }
  }

  void fiftyLoadsDoNotGrow() {
    QTemporaryDir dir;
    const std::string path = generated(dir, 300).toStdString();
    // What a load's threads leave in their heaps moves RssAnon by a few MiB,
    // and on a busy machine it may step up once and stay: a leak raises the
    // lowest reading of every stretch, so the quieter of two steps must stay flat.
    constexpr int kStretches = 3, kStretch = 5, kApart = 20;  // loads 6-10, 26-30, 46-50
    std::vector<long> lowest(kStretches, LONG_MAX);
    for (int k = 0; k < 50; ++k) {
      QVERIFY(loadTrace(path, LoadOptions{.cacheDir = dir.filePath("cache").toStdString()}).ok());
      const int s = (k - 5) / kApart;  // allocator caches are warm after 5 loads
      if (k < 5 || s >= kStretches || (k - 5) % kApart >= kStretch) continue;
      releaseFreedMemory();
      lowest[s] = std::min(lowest[s], sstest::rssAnonKiB());
    }
    long quietest = LONG_MAX;
    for (int s = 1; s < kStretches; ++s) quietest = std::min(quietest, lowest[s] - lowest[s - 1]);
    qInfo("RssAnon, lowest of each stretch: %ld, %ld, %ld KiB", lowest[0], lowest[1], lowest[2]);
    QVERIFY2(quietest < 1536,
             qPrintable(QStringLiteral("RssAnon grew by at least %1 KiB in every 20 loads").arg(quietest)));
    QVERIFY(QDir(dir.filePath("cache")).entryList(QDir::Files | QDir::NoDotAndDotDot).isEmpty());
  }

  void cancelAtTwentyPoints() {
    QTemporaryDir dir;
    const std::string path = generated(dir, 400).toStdString();
    std::mt19937 rng(11);
    int cancelled = 0;
    for (int k = 0; k < 20; ++k) {
      JobControl jc;
      const auto delay = std::chrono::microseconds(rng() % 60000);
      std::thread canceller([&] {
        std::this_thread::sleep_for(delay);
        jc.requestCancel();
      });
      auto r =
          loadTrace(path, testsupport::tuned(LoadOptions{.cacheDir = dir.path().toStdString(), .control = &jc}, 16384));
      canceller.join();
      if (!r.ok()) {
        QCOMPARE(r.error().kind, Error::Kind::Cancelled);
        ++cancelled;
      }
    }
    QVERIFY2(cancelled > 0, "no load was cancelled: the delays are too long for this trace");
  }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_bad_input.moc"
