// The trace cache: a model read back is the model parsed, field by field and
// text by text (plain, gzip through checkpoints, zip); a changed file, a cut,
// corrupt or older-format entry is never used and is written anew; the size
// cap evicts the least recently used; partial loads and a zero cap store nothing.
#include "support/load_tuning.hpp"
#include "model_text.hpp"
#include "test_files.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/io/trace_cache.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace steadyscope;
using namespace testfiles;

namespace {

/// Steps of launches and kernels with string ids, wide durations, inexact
/// timestamps, flows, B/E pairs, metadata and extra top-level keys.
std::string sampleTrace(int steps, const std::string& tag = "a") {
  std::string ev = R"({"ph":"M","name":"process_name","pid":"host","tid":0,"args":{"name":"python"}})";
  ev += R"(,{"ph":"M","name":"thread_name","pid":"host","tid":1,"args":{"name":"main"}})";
  for (int s = 0; s < steps; ++s) {
    const std::string ts = std::to_string(1000000L + 10000L * s), c = std::to_string(s + 1);
    ev += ",{\"ph\":\"B\",\"cat\":\"user_annotation\",\"name\":\"step " + tag + "\",\"pid\":\"host\",\"tid\":1,\"ts\":" +
          ts + "}";
    ev += ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":\"host\",\"tid\":1,\"ts\":" + ts +
          ".0005,\"dur\":8,\"args\":{\"External id\":" + c + "}}";
    ev += ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":\"host\",\"tid\":1,\"ts\":" +
          ts + ",\"dur\":3,\"args\":{\"correlation\":" + (s % 7 ? c : "\"s" + c + "\"") + "}}";
    ev += ",{\"ph\":\"s\",\"id\":" + c + ",\"pid\":\"host\",\"tid\":1,\"ts\":" + ts + ",\"cat\":\"ac2g\",\"name\":\"f\"}";
    ev += ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_" + std::to_string(s % 5) + "\",\"pid\":" +
          std::to_string(s % 2) + ",\"tid\":7,\"ts\":" + ts + ",\"dur\":" + (s % 50 ? "5" : "3000000") +
          ",\"args\":{\"correlation\":" + c + "}}";
    ev += ",{\"ph\":\"E\",\"pid\":\"host\",\"tid\":1,\"ts\":" + std::to_string(1000000L + 10000L * s + 9000) + "}";
  }
  return "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0}],\"traceEvents\":[\n" + ev +
         "\n],\"displayTimeUnit\":\"ms\"}";
}

std::vector<std::string> entriesIn(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 8 && n.compare(n.size() - 8, 8, ".sstrace") == 0 && n[0] != '.') out.push_back(dir + "/" + n);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void setMtime(const std::string& path, int64_t secondsAgo) {
  timespec t[2];
  ::clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= secondsAgo;
  t[1] = t[0];
  QVERIFY(::utimensat(AT_FDCWD, path.c_str(), t, 0) == 0);
}



/// Every stored field. `sameIds`: b was read back from a's entry, so even the
/// ids agree; two parses on several threads may intern strings in another order.
void compareModels(const Trace& a, const Trace& b, bool sameIds) {
  QCOMPARE(a.size(), b.size());
  for (EventIdx i = 0; i < a.size(); ++i) {
    bool same = a.tsNs[i] == b.tsNs[i] && a.durNs[i] == b.durNs[i] && a.offset[i] == b.offset[i] &&
                a.length[i] == b.length[i] && a.nameOf(i) == b.nameOf(i) && a.catOf(i) == b.catOf(i) &&
                a.ph[i] == b.ph[i] && a.flags[i] == b.flags[i] && laneText(a, i) == laneText(b, i) &&
                a.depth[i] == b.depth[i] &&
                idText(a, a.corr[i], a.has(i, ev::CorrIsStr)) == idText(b, b.corr[i], b.has(i, ev::CorrIsStr)) &&
                idText(a, a.extId[i], a.has(i, ev::ExtIsStr)) == idText(b, b.extId[i], b.has(i, ev::ExtIsStr));
    if (sameIds)
      same = same && a.name[i] == b.name[i] && a.cat[i] == b.cat[i] && a.lane[i] == b.lane[i] &&
             a.corr[i] == b.corr[i] && a.extId[i] == b.extId[i];
    if (!same) QFAIL(qPrintable(QString("event %1 differs").arg(i)));
  }
  if (!sameIds) return;  // the dictionaries below are compared id by id
  QCOMPARE(a.strings.size(), b.strings.size());
  for (StrId k = 0; k < a.strings.size(); ++k) QCOMPARE(a.strings.view(k), b.strings.view(k));
  QVERIFY(a.categories == b.categories);
  QVERIFY(a.categoryClass == b.categoryClass);
  QCOMPARE(a.lanes.size(), b.lanes.size());
  for (size_t l = 0; l < a.lanes.size(); ++l) {
    QVERIFY(a.lanes[l].pid == b.lanes[l].pid && a.lanes[l].tid == b.lanes[l].tid);
    QVERIFY(a.lanes[l].events == b.lanes[l].events);
    QCOMPARE(a.lanes[l].gpu, b.lanes[l].gpu);
    QCOMPARE(a.lanes[l].maxDepth, b.lanes[l].maxDepth);
  }
  QVERIFY(a.processNames == b.processNames && a.processLabels == b.processLabels && a.threadNames == b.threadNames);
  QCOMPARE(a.topLevel.size(), b.topLevel.size());
  for (size_t k = 0; k < a.topLevel.size(); ++k)
    QVERIFY(a.topLevel[k].key == b.topLevel[k].key && a.topLevel[k].rawKey == b.topLevel[k].rawKey &&
            a.topLevel[k].rawValue == b.topLevel[k].rawValue);
  QCOMPARE(a.traceEventsPosition, b.traceEventsPosition);
  QCOMPARE(a.gpuBusy.size(), b.gpuBusy.size());
  for (size_t d = 0; d < a.gpuBusy.size(); ++d) {
    QCOMPARE(keyText(a, a.gpuBusy[d].pid), keyText(b, b.gpuBusy[d].pid));
    QVERIFY(a.gpuBusy[d].intervals == b.gpuBusy[d].intervals);
    QCOMPARE(a.gpuBusy[d].busyNs, b.gpuBusy[d].busyNs);
  }
  QCOMPARE(a.anomalies.size(), b.anomalies.size());
  for (size_t k = 0; k < a.anomalies.size(); ++k) {
    QCOMPARE(a.anomalies[k].code, b.anomalies[k].code);
    QCOMPARE(a.anomalies[k].explanation, b.anomalies[k].explanation);
    QCOMPARE(a.anomalies[k].count, b.anomalies[k].count);
    QCOMPARE(a.anomalies[k].firstEvent, b.anomalies[k].firstEvent);
  }
  QVERIFY(a.stats.perPh == b.stats.perPh && a.stats.perCat == b.stats.perCat);
  QCOMPARE(a.stats.fileBytes, b.stats.fileBytes);
  QCOMPARE(a.stats.jsonBytes, b.stats.jsonBytes);
  QCOMPARE(a.stats.compression, b.stats.compression);
  QCOMPARE(a.stats.gpuEvents, b.stats.gpuEvents);
  QVERIFY(a.exactTsUs == b.exactTsUs && a.exactDurUs == b.exactDurUs);
  QCOMPARE(a.path, b.path);
  QCOMPARE(a.baseName, b.baseName);
}

/// Every event's text, through each model's source.
void compareTexts(const Trace& a, const Trace& b) {
  QCOMPARE(a.size(), b.size());
  EventText ta(a), tb(b);
  for (EventIdx i = 0; i < a.size(); ++i) {
    std::string_view va, vb;
    QVERIFY(ta.read(i, va));
    QVERIFY2(tb.read(i, vb), tb.error().c_str());
    if (va != vb) QFAIL(qPrintable(QString("event %1's text differs").arg(i)));
  }
}

struct Fixture {
  QTemporaryDir dir;
  std::string cacheDir() const { return dir.path().toStdString() + "/cache"; }
  std::string file(const std::string& name) const { return dir.path().toStdString() + "/" + name; }
};

TracePtr load(const std::string& path, TraceCache* cache, bool partial = false) {
  LoadOptions o = testsupport::tuned(LoadOptions{}, 64u << 10, 64u << 10);  // many checkpoints
  o.cache = cache;
  o.allowPartial = partial;
  auto r = loadTrace(path, o);
  if (!r) qFatal("load failed: %s", r.error().describe().c_str());
  return r.value();
}

}  // namespace

class TestTraceCache : public QObject {
  Q_OBJECT
 private slots:
  void aModelReadBackIsTheModelParsed_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("plain") << "json";
    QTest::newRow("gzip, read through checkpoints") << "json.gz";
    QTest::newRow("zip") << "zip";
  }
  void aModelReadBackIsTheModelParsed() {
    QFETCH(QString, kind);
    Fixture fx;
    const std::string json = sampleTrace(3000);
    const std::string path = fx.file("run." + kind.toStdString());
    writeFile(path, kind == "json" ? json : kind == "zip" ? zipBytes({{"run.json", json}}) : gzipBytes(json));
    TraceCache cache({.dir = fx.cacheDir()});
    TracePtr parsed = load(path, &cache);
    QVERIFY(!parsed->fromCache);
    cache.flush();
    QCOMPARE(entriesIn(fx.cacheDir()).size(), size_t(1));
    QCOMPARE(cache.counts().written, uint64_t(1));
    TracePtr again = load(path, &cache);
    QVERIFY(again->fromCache);
    QCOMPARE(cache.counts().hits, uint64_t(1));
    compareModels(*parsed, *again, /*sameIds=*/true);
    compareTexts(*parsed, *again);
    // No cache: parsed again, the same.
    TracePtr plain = load(path, nullptr);
    QVERIFY(!plain->fromCache);
    compareModels(*plain, *again, /*sameIds=*/false);
  }

  void aChangedFileIsParsedAgain_data() {
    QTest::addColumn<QString>("change");
    QTest::newRow("same size and mtime, other bytes") << "bytes";
    QTest::newRow("longer") << "append";
    QTest::newRow("touched") << "mtime";
  }
  void aChangedFileIsParsedAgain() {
    QFETCH(QString, change);
    Fixture fx;
    const std::string path = fx.file("run.json");
    writeFile(path, sampleTrace(400, "a"));
    TraceCache cache({.dir = fx.cacheDir()});
    load(path, &cache);
    cache.flush();
    struct stat before {};
    QVERIFY(::stat(path.c_str(), &before) == 0);
    if (change == "bytes") {
      writeFile(path, sampleTrace(400, "b"));  // the names differ in one letter: same size
      timespec t[2] = {before.st_atim, before.st_mtim};
      QVERIFY(::utimensat(AT_FDCWD, path.c_str(), t, 0) == 0);
    } else if (change == "append") {
      writeFile(path, sampleTrace(400, "a") + "\n");
    } else {
      setMtime(path, -5);
    }
    TracePtr t = load(path, &cache);
    QVERIFY(!t->fromCache);
    QCOMPARE(cache.counts().rejected, uint64_t(1));
    if (change == "bytes") QCOMPARE(t->nameOf(2), std::string_view("step b"));
    cache.flush();
    QVERIFY(load(path, &cache)->fromCache);  // written anew for the file as it is now
    QCOMPARE(entriesIn(fx.cacheDir()).size(), size_t(1));
  }

  void aDamagedEntryIsIgnoredAndWrittenAnew_data() {
    QTest::addColumn<QString>("damage");
    QTest::newRow("cut short") << "cut";
    QTest::newRow("a byte of a column") << "column";
    QTest::newRow("a byte of the index") << "index";
    QTest::newRow("another format version") << "version";
    QTest::newRow("not a cache file") << "garbage";
    QTest::newRow("empty") << "empty";
  }
  void aDamagedEntryIsIgnoredAndWrittenAnew() {
    QFETCH(QString, damage);
    Fixture fx;
    const std::string path = fx.file("run.json.gz");
    writeFile(path, gzipBytes(sampleTrace(2000)));
    TraceCache cache({.dir = fx.cacheDir()});
    TracePtr parsed = load(path, &cache);
    cache.flush();
    const std::string entry = entriesIn(fx.cacheDir()).at(0);
    std::string bytes = readAll(entry);
    if (damage == "cut") bytes.resize(bytes.size() * 2 / 3);
    else if (damage == "column") bytes[4096 + 100] = char(bytes[4096 + 100] ^ 0x40);
    else if (damage == "index") bytes[bytes.size() - 3] = char(bytes[bytes.size() - 3] ^ 1);
    else if (damage == "version") bytes[8] = char(bytes[8] + 1);
    else if (damage == "garbage") bytes = std::string(bytes.size(), 'x');
    else bytes.clear();
    writeFile(entry, bytes);
    TracePtr t = load(path, &cache);
    QVERIFY(!t->fromCache);
    QCOMPARE(cache.counts().rejected, uint64_t(1));
    QVERIFY(!cache.lastProblem().empty());
    compareModels(*parsed, *t, /*sameIds=*/false);
    cache.flush();
    TracePtr again = load(path, &cache);
    QVERIFY(again->fromCache);
    compareModels(*t, *again, /*sameIds=*/true);
    compareTexts(*parsed, *again);
  }

  void theLeastRecentlyUsedGoFirst() {
    Fixture fx;
    std::vector<std::string> paths;
    for (int k = 0; k < 3; ++k) {
      paths.push_back(fx.file("r" + std::to_string(k) + ".json"));
      writeFile(paths.back(), sampleTrace(500, std::to_string(k)));
    }
    uint64_t one = 0;
    {
      TraceCache probe({.dir = fx.cacheDir() + "-probe"});
      load(paths[0], &probe);
      probe.flush();
      one = probe.usedBytes();
    }
    QVERIFY(one > 0);
    TraceCache cache({.dir = fx.cacheDir(), .limitBytes = one * 2 + one / 2});  // room for two
    load(paths[0], &cache);
    cache.flush();
    load(paths[1], &cache);
    cache.flush();
    const std::vector<std::string> firstTwo = entriesIn(fx.cacheDir());
    QCOMPARE(firstTwo.size(), size_t(2));
    for (const auto& e : firstTwo) setMtime(e, 60);  // both used a minute ago…
    QVERIFY(load(paths[0], &cache)->fromCache);    // …then r0 again: r1 is now the least recent
    load(paths[2], &cache);
    cache.flush();
    QCOMPARE(cache.counts().evicted, uint64_t(1));
    QCOMPARE(entriesIn(fx.cacheDir()).size(), size_t(2));
    QVERIFY(load(paths[0], &cache)->fromCache);
    QVERIFY(load(paths[2], &cache)->fromCache);
    QVERIFY(!load(paths[1], &cache)->fromCache);
    QVERIFY(cache.usedBytes() <= cache.limitBytes());
  }

  void nothingIsStoredForAPartialLoadOrAZeroCap() {
    Fixture fx;
    const std::string cut = fx.file("cut.json");
    const std::string json = sampleTrace(300);
    writeFile(cut, json.substr(0, json.size() / 2));
    TraceCache cache({.dir = fx.cacheDir()});
    TracePtr t = load(cut, &cache, /*partial=*/true);
    QVERIFY(t->partial.has_value());
    cache.flush();
    QVERIFY(entriesIn(fx.cacheDir()).empty());
    const std::string whole = fx.file("whole.json");
    writeFile(whole, json);
    TraceCache off({.dir = fx.cacheDir(), .limitBytes = 0});
    load(whole, &off);
    off.flush();
    QVERIFY(entriesIn(fx.cacheDir()).empty());
    QVERIFY(!load(whole, &off)->fromCache);
  }

  void aWriterKilledMidwayLeavesNoEntry() {
    Fixture fx;
    const std::string path = fx.file("run.json");
    writeFile(path, sampleTrace(300));
    TraceCache cache({.dir = fx.cacheDir()});
    load(path, &cache);
    cache.flush();
    const std::string entry = entriesIn(fx.cacheDir()).at(0);
    // What a killed writer leaves: a temporary beside the entries, and no entry.
    const std::string temp = fx.cacheDir() + "/." + entry.substr(fx.cacheDir().size() + 1) + ".tmp-0123456789abcdef";
    writeFile(temp, readAll(entry).substr(0, 5000));
    QVERIFY(::unlink(entry.c_str()) == 0);
    setMtime(temp, 2 * 3600);
    QVERIFY(!load(path, &cache)->fromCache);  // the temporary is never read
    cache.flush();
    QVERIFY(::access(temp.c_str(), F_OK) != 0);  // an old one is cleared away
    QVERIFY(load(path, &cache)->fromCache);
  }

  void clearRemovesEveryEntry() {
    Fixture fx;
    const std::string path = fx.file("run.json");
    writeFile(path, sampleTrace(100));
    writeFile(fx.cacheDir() + "-x", "");  // a neighbour that is not ours
    TraceCache cache({.dir = fx.cacheDir()});
    load(path, &cache);
    cache.clear();
    QVERIFY(entriesIn(fx.cacheDir()).empty());
    QCOMPARE(cache.usedBytes(), uint64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestTraceCache)
#include "tst_trace_cache.moc"
