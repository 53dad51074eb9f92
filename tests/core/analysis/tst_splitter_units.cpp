// Splitter unit tests: spec §7 worked examples (E1–E7, E11, E12, E15, E18),
// bad input, and one test per decision in docs/splitter-decisions.md.
#include "analysis/chunks/extraction.hpp"
#include "analysis/pyfmt.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/roots/detection.hpp"
#include "analysis/steady_state/steady_state.hpp"
#include "trace_builder.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/io/loader.hpp>
#include "support/load_json.hpp"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <zlib.h>

#include <map>
#include <set>

using namespace steadyscope;
using namespace steadyscope::analysis;

namespace {

TracePtr load(const std::string& json, const std::string& name = "foo.pt.trace.json.gz") {
  return sstest::loadJson(json, name);
}

SplitResult planE6(const SplitOptions& o, const std::vector<sstest::StepSpec>& steps = sstest::e6Steps()) {
  Splitter s(load(sstest::e6Trace(steps)));
  return s.plan(o);
}

// Spec E11b: 40 identical decode steps whose first kernel is a 400 µs all-reduce; the trim
// leaves the detection DEGRADED (coverage 0.933), which the splitter refuses by default.
std::vector<sstest::StepSpec> e11bSteps() {
  std::vector<sstest::StepSpec> steps;
  for (int i = 0; i < 40; ++i) {
    sstest::StepSpec s;
    s.st = 1000000 + 20000LL * i;
    s.name = sstest::vllmDetailedName(0, 0, 16, 16);
    if (i == 0) s.kernelDurs[0] = 400;
    steps.push_back(s);
  }
  return steps;
}

SplitOptions steady(int numSteps, const std::string& out = "out") {
  SplitOptions o;
  o.outputDir = out;
  o.findSteadyState = true;
  o.numSteps = numSteps;
  return o;
}

QByteArray readAll(const QString& p) {
  QFile f(p);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString readFile(const QString& p) {
  QFile f(p);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

void writeFile(const QString& p, const std::string& s) {
  QFile f(p);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(s.data(), static_cast<qint64>(s.size()));
}

int runCli(const QString& dir, const QStringList& args, QByteArray* err = nullptr, QByteArray* out = nullptr) {
  QProcess p;
  p.setWorkingDirectory(dir);
  p.start(QStringLiteral(STEADYSCOPE_CLI), QStringList{"split"} + args);
  if (!p.waitForFinished(120000)) return -1;
  if (err) *err = p.readAllStandardError();
  if (out) *out = p.readAllStandardOutput();
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

std::vector<int64_t> ints(std::initializer_list<int64_t> v) { return v; }

// The index's restricted groupings and GPU slots against its full groupings:
// for every key of `probe`, groupingsFor(set of `chosen`) lists exactly the
// full grouping's events when the key is chosen and nothing otherwise; every
// GPU event's id has a slot below gpuSlotCount(), distinct ids distinct slots.
void checkRestrictedGroupings(const EventIndex& idx, const std::vector<CorrKey>& chosen,
                              const std::vector<CorrKey>& probe) {
  CorrKeySet set;
  for (const CorrKey& k : chosen) set.add(k);
  set.finish();
  std::vector<CorrKey> distinct = chosen;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  QCOMPARE(set.size(), distinct.size());
  const CorrGroupings part = idx.groupingsFor(set);
  const CorrGroupings& full = idx.groupings();
  auto events = [](std::span<const EventIdx> sp) { return EventList(sp.begin(), sp.end()); };
  for (const CorrKey& k : probe) {
    const bool in = std::binary_search(distinct.begin(), distinct.end(), k);
    QCOMPARE(set.contains(k), in);
    QCOMPARE(events(part.gpu.eventsOf(k)), in ? events(full.gpu.eventsOf(k)) : EventList{});
    QCOMPARE(events(part.flows.eventsOf(k)), in ? events(full.flows.eventsOf(k)) : EventList{});
  }
  std::map<CorrKey, uint32_t> slotOfKey;
  std::set<uint32_t> seenSlots;
  const size_t n = idx.trace().size();
  for (size_t i = 0; i < n; ++i) {
    const auto e = static_cast<EventIdx>(i);
    if (!idx.hasCorr(e) || !(isGpuKernelRole(idx.role(e)) || idx.role(e) == CatRole::GpuUserAnnotation)) continue;
    if (!idx.hasTs(e) || !idx.hasDur(e)) continue;
    const auto s = idx.gpuSlotOf(idx.corrKey(e));
    QVERIFY(s.has_value());
    QVERIFY(*s < idx.gpuSlotCount());
    auto [it, fresh] = slotOfKey.emplace(idx.corrKey(e), *s);
    if (fresh)
      QVERIFY(seenSlots.insert(*s).second);
    else
      QCOMPARE(it->second, *s);
  }
}

}  // namespace

Q_DECLARE_METATYPE(std::vector<int64_t>)

class TestSplitterUnits : public QObject {
  Q_OBJECT
 private slots:
  // Copies of a root list share its spans until one changes: the others keep theirs.
  void rootListCopiesKeepTheirSpans() {
    RootList a;
    a.reserveSpans(3);
    for (EventIdx e : {4u, 5u, 6u}) a.pushSpan(e, {"step", PyNum::fromInt(e), makeAncestorList({e + 10})});
    const RootList b = a;
    RootList c = a;
    c.eraseFront();
    c.insertSpan(0, 9, {"warmup", PyNum::fromInt(1), {}});
    c.pushSpan(7, {"wrapup", PyNum::fromInt(2), {}});
    QCOMPARE(a.size(), size_t(3));
    QVERIFY(a == b);
    QCOMPARE(a.name(Trace{}, 0), std::string_view("step"));
    QCOMPARE(a.ancestors(0), std::vector<EventIdx>{14});
    QCOMPARE(c.size(), size_t(4));
    QCOMPARE(c.events(), (EventList{9, 5, 6, 7}));
    QCOMPARE(c.name(Trace{}, 0), std::string_view("warmup"));
    QCOMPARE(c.ancestors(1), std::vector<EventIdx>{15});
    QVERIFY(!(a == c));
    RootList d = b;  // and a change to the one left sharing copies nothing into the others
    d.eraseFront();
    QCOMPARE(b.size(), size_t(3));
    QCOMPARE(d.size(), size_t(2));
  }

  void tilesOfRootsSharingATimestamp() {
    // Tiles are looked up by (lane, ts) as the reference's dict is: of two
    // roots with the same ts on one lane, the later-computed tile wins for both.
    auto t = load(R"({"traceEvents": [
      {"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":100,"dur":50},
      {"ph":"X","cat":"user_annotation","name":"b","pid":1,"tid":1,"ts":100,"dur":80},
      {"ph":"X","cat":"user_annotation","name":"c","pid":1,"tid":1,"ts":300,"dur":50},
      {"ph":"X","cat":"user_annotation","name":"d","pid":1,"tid":2,"ts":100,"dur":10}]})");
    EventIndex idx(*t);
    const RootList roots{0, 1, 2, 3};
    TileSet tiles = buildTiles(idx, roots);
    QCOMPARE(tiles.entries.size(), size_t(3));  // (lane 1, 100), (lane 1, 300), (lane 2, 100)
    QCOMPARE(tiles.overlaps, int64_t(1));       // a's end 150 > b's start 100
    for (size_t r : {size_t(0), size_t(1)}) {
      Tile w = windowOf(idx, tiles, roots, r);
      QCOMPARE(w.a.asDouble(), 100.0);
      QCOMPARE(w.b.asDouble(), 300.0);  // b's tile: up to c's start
    }
    Tile c = windowOf(idx, tiles, roots, 2);  // last: ts + median(lengths 50, 200) = 425 > its end 350
    QCOMPARE(c.a.asDouble(), 300.0);
    QCOMPARE(c.b.asDouble(), 425.0);
    Tile d = windowOf(idx, tiles, roots, 3);  // alone on its lane: its own span
    QCOMPARE(d.b.asDouble(), 110.0);
  }

  // The index's two groupings (spec §1.4): kernels and correlated GPU
  // annotations by correlation, flows by id; members in file order, dense
  // integer keys by counting sort, other keys (strings, reals, far-apart ints)
  // sorted. More than 64 flows, so the flow bitmap spans several words.
  // Events by time, equal times by index, on epoch times (their µs are a
  // conversion): the order the reference's sort by (ts, index) gives.
  void sortByTimeKeepsFileOrderOnTies() {
    auto t = load(R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1700000000000000.75,"dur":1},
      {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":1700000000000000.25,"dur":1},
      {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":2,"ts":1700000000000000.5,"dur":1},
      {"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":2,"ts":1700000000000000.25,"dur":1}]})");
    EventIndex idx(*t);
    EventList evs;
    for (EventIdx e = 4; e-- > 0;) evs.push_back(e);
    std::vector<EventIdx> want(evs.begin(), evs.end());
    std::sort(want.begin(), want.end(), [&](EventIdx x, EventIdx y) {
      return idx.tsUs(x) != idx.tsUs(y) ? idx.tsUs(x) < idx.tsUs(y) : x < y;
    });
    QCOMPARE(idx.tsUs(want[0]), idx.tsUs(want[1]));  // b and d tie
    QVERIFY(want[0] < want[1] && idx.tsUs(want[1]) < idx.tsUs(want[2]) && idx.tsUs(want[2]) < idx.tsUs(want[3]));
    idx.sortByTime(evs);
    QCOMPARE(std::vector<EventIdx>(evs.begin(), evs.end()), want);
    idx.sortByTime(evs);  // already in order
    QCOMPARE(std::vector<EventIdx>(evs.begin(), evs.end()), want);
  }
  void indexGroups_data() {
    QTest::addColumn<QString>("flowId3");  // how flow 3's id is written
    QTest::addColumn<bool>("flowsDense");
    QTest::newRow("int ids") << "3" << true;
    QTest::newRow("one string id") << "\"3\"" << false;
    QTest::newRow("one far id") << "90000000000" << false;
  }
  void indexGroups() {
    QFETCH(QString, flowId3);
    QFETCH(bool, flowsDense);
    std::string ev;
    auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
    // File order: GPU annotation (corr 7), kernels (corr 7, 8, 7), a flow pair
    // per id 0..79 (s on the CPU, f on the GPU), a kernel without
    // correlation, a GPU annotation (corr 8), a kernel with a string correlation.
    add(R"({"ph":"X","cat":"gpu_user_annotation","name":"g0","pid":2,"tid":7,"ts":10,"dur":5,"args":{"correlation":7}})");
    add(R"({"ph":"X","cat":"kernel","name":"k0","pid":2,"tid":7,"ts":11,"dur":1,"args":{"correlation":7}})");
    add(R"({"ph":"X","cat":"kernel","name":"k1","pid":2,"tid":7,"ts":12,"dur":1,"args":{"correlation":8.0}})");
    add(R"({"ph":"X","cat":"gpu_memcpy","name":"k2","pid":2,"tid":7,"ts":13,"dur":1,"args":{"correlation":7}})");
    for (int i = 0; i < 80; ++i) {
      std::string id = i == 3 ? flowId3.toStdString() : std::to_string(i);
      add(R"({"ph":"s","cat":"ac2g","name":"f","pid":1,"tid":1,"ts":)" + std::to_string(20 + i) + R"(,"id":)" + id +
          "}");
      add(R"({"ph":"f","cat":"ac2g","name":"f","pid":2,"tid":7,"ts":)" + std::to_string(21 + i) + R"(,"id":)" + id +
          R"(,"bp":"e"})");
    }
    add(R"({"ph":"X","cat":"kernel","name":"k3","pid":2,"tid":7,"ts":200,"dur":1})");
    add(R"({"ph":"X","cat":"gpu_user_annotation","name":"g1","pid":2,"tid":7,"ts":210,"dur":5,"args":{"correlation":8}})");
    add(R"({"ph":"X","cat":"kernel","name":"k4","pid":2,"tid":7,"ts":220,"dur":1,"args":{"correlation":"8"}})");
    auto t = load("{\"traceEvents\": [\n" + ev + "]}");
    EventIndex idx(*t);
    const auto n = static_cast<EventIdx>(t->size());
    QCOMPARE(idx.kernels, (EventList{1, 2, 3, n - 3, n - 1}));
    QCOMPARE(idx.gpuAnnotations, (EventList{0, n - 2}));
    auto events = [](std::span<const EventIdx> s) { return EventList(s.begin(), s.end()); };
    QVERIFY(idx.groupings().gpu.dense() == false);  // the string "8" makes them sorted, not counted
    QCOMPARE(events(idx.groupings().gpu.eventsOf({7, 0})), (EventList{0, 1, 3}));
    QCOMPARE(events(idx.groupings().gpu.eventsOf({8, 0})), (EventList{2, n - 2}));  // 8.0 == 8
    QCOMPARE(events(idx.groupings().gpu.eventsOf(idx.corrKey(n - 1))), (EventList{n - 1}));
    QVERIFY(idx.groupings().gpu.eventsOf({9, 0}).empty());
    QCOMPARE(idx.groupings().flows.dense(), flowsDense);
    for (int i = 0; i < 80; ++i) {
      const EventIdx s = static_cast<EventIdx>(4 + 2 * i);
      QCOMPARE(events(idx.groupings().flows.eventsOf(idx.corrKey(s))), (EventList{s, s + 1}));
    }
    if (flowId3 != "3") QVERIFY(idx.groupings().flows.eventsOf({3, 0}).empty());
    QVERIFY(idx.groupings().flows.eventsOf({80, 0}).empty());
    // Restricted to a few ids (ints, the string "8", flow 3 as written).
    std::vector<CorrKey> probe = {{7, 0}, {8, 0}, {9, 0}, {3, 0}, {80, 0}, {0, 0}, {79, 0}};
    for (size_t e = 0; e < t->size(); ++e)
      if (idx.hasCorr(static_cast<EventIdx>(e)) || t->has(static_cast<EventIdx>(e), ev::HasId))
        probe.push_back(idx.corrKey(static_cast<EventIdx>(e)));
    checkRestrictedGroupings(idx, {{8, 0}, idx.corrKey(n - 1), idx.corrKey(4 + 2 * 3), {79, 0}, {8, 0}}, probe);
    checkRestrictedGroupings(idx, {}, probe);
    // Without the string correlation the GPU keys are dense and give the same groups.
    ev.resize(ev.rfind(",\n"));
    auto t2 = load("{\"traceEvents\": [\n" + ev + "]}");
    EventIndex idx2(*t2);
    QVERIFY(idx2.groupings().gpu.dense());
    QCOMPARE(events(idx2.groupings().gpu.eventsOf({7, 0})), (EventList{0, 1, 3}));
    QCOMPARE(events(idx2.groupings().gpu.eventsOf({8, 0})), (EventList{2, n - 2}));
    QVERIFY(idx2.groupings().gpu.eventsOf({6, 0}).empty());
    checkRestrictedGroupings(idx2, {{7, 0}, {0, 0}, {1, 0}}, probe);
  }

  // The index of a bigger trace (270k events, above the size where its
  // groupings run side by side): the lists whole and in file order, the key
  // range spanning the trace (the smallest correlation id near the end, the
  // largest at the start; one string id near the end makes the grouping
  // sorted rather than counted), metadata from the whole file.
  void indexOfABiggerTrace_data() {
    QTest::addColumn<bool>("stringKeyNearTheEnd");
    QTest::newRow("int keys") << false;
    QTest::newRow("a string key near the end") << true;
  }
  void indexOfABiggerTrace() {
    QFETCH(bool, stringKeyNearTheEnd);
    constexpr int kN = 270000;  // events, 7 kinds in turn
    std::string js = "{\"traceEvents\": [\n";
    EventList kernels, annotations, gpuAnnotations, metadata;
    const int stringAt = kN - 24;  // a kernel near the end (kN - 24 is a multiple of 7)
    for (int i = 0; i < kN; ++i) {
      if (i) js += ",\n";
      const std::string ts = std::to_string(i), corr = std::to_string(kN - i);
      switch (i % 7) {
        case 0:
          kernels.push_back(static_cast<EventIdx>(i));
          js += R"({"ph":"X","cat":"kernel","name":"k","pid":2,"tid":7,"ts":)" + ts +
                R"(,"dur":1,"args":{"correlation":)" +
                (stringKeyNearTheEnd && i == stringAt ? "\"" + corr + "\"" : corr) + "}}";
          break;
        case 1: js += R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":1})"; break;
        case 2:
          js += R"({"ph":"s","cat":"ac2g","name":"f","pid":1,"tid":1,"ts":)" + ts + R"(,"id":)" +
                std::to_string(i / 7) + "}";
          break;
        case 3:
          js += R"({"ph":"f","cat":"ac2g","name":"f","pid":2,"tid":7,"ts":)" + ts + R"(,"id":)" +
                std::to_string(i / 7) + R"(,"bp":"e"})";
          break;
        case 4:
          annotations.push_back(static_cast<EventIdx>(i));
          js += R"({"ph":"X","cat":"user_annotation","name":"a","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":1})";
          break;
        case 5:
          gpuAnnotations.push_back(static_cast<EventIdx>(i));
          js += R"({"ph":"X","cat":"gpu_user_annotation","name":"g","pid":2,"tid":8,"ts":)" + ts +
                R"(,"dur":1,"args":{"correlation":)" + corr + "}}";
          break;
        default:
          if (i % 1000 == 6) {  // a few metadata events (no ts), in both halves
            metadata.push_back(static_cast<EventIdx>(i));
            js += R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}})";
          } else {
            js += R"({"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":)" + ts +
                  R"(,"dur":1,"args":{"correlation":)" + corr + "}}";
          }
      }
    }
    js += "]}";
    auto t = load(js);
    QCOMPARE(t->size(), size_t(kN));
    EventIndex idx(*t);
    QCOMPARE(idx.kernels, kernels);
    QCOMPARE(idx.annotations, annotations);
    QCOMPARE(idx.gpuAnnotations, gpuAnnotations);
    QCOMPARE(idx.metadata, metadata);
    QCOMPARE(idx.nGpuEventsInTrace, uint64_t(kernels.size()));
    QCOMPARE(idx.groupings().gpu.dense(), !stringKeyNearTheEnd);
    // Dense: one slot per id in the range (3 .. kN); sorted: one per distinct key.
    QCOMPARE(idx.groupings().gpu.slotCount(),
             stringKeyNearTheEnd ? kernels.size() + gpuAnnotations.size() : size_t(kN - 3 + 1));
    auto events = [](std::span<const EventIdx> sp) { return EventList(sp.begin(), sp.end()); };
    for (const EventList* list : {&kernels, &gpuAnnotations})
      for (EventIdx e : *list) QCOMPARE(events(idx.groupings().gpu.eventsOf(idx.corrKey(e))), (EventList{e}));
    if (stringKeyNearTheEnd)  // "24" is not 24: the int key has no member
      QVERIFY(idx.groupings().gpu.eventsOf({kN - stringAt, 0}).empty());
    QVERIFY(idx.groupings().flows.dense());
    size_t flowIds = 0;
    for (int i = 2; i < kN; i += 7, ++flowIds) {
      const auto fs = static_cast<EventIdx>(i);
      QCOMPARE(events(idx.groupings().flows.eventsOf(idx.corrKey(fs))),
               i + 1 < kN ? (EventList{fs, fs + 1}) : (EventList{fs}));
    }
    QCOMPARE(idx.groupings().flows.slotCount(), flowIds);
    // Restricted to every fifth GPU id and every third flow id (a dense key
    // set) and to a handful of far-apart ids (a sorted one).
    std::vector<CorrKey> some, few, probe;
    for (EventIdx e : kernels) probe.push_back(idx.corrKey(e));
    for (int i = 2; i < kN; i += 7) probe.push_back(idx.corrKey(static_cast<EventIdx>(i)));
    for (size_t k = 0; k < probe.size(); k += probe.size() / 7) few.push_back(probe[k]);
    for (size_t k = 0; k < kernels.size(); k += 5) some.push_back(idx.corrKey(kernels[k]));
    for (int i = 2; i < kN; i += 21) some.push_back(idx.corrKey(static_cast<EventIdx>(i)));
    checkRestrictedGroupings(idx, some, probe);
    checkRestrictedGroupings(idx, few, probe);
  }

  // A plan groups only its chunks' ids (addChunkKeys + groupingsFor): each
  // chunk's selection with those groupings equals its selection with the
  // full ones, for single roots, runs, scattered roots, several chunks sharing
  // one key set, with tiles and without (--no-gap-fill).
  void chunkSelectionWithRestrictedGroupings_data() {
    QTest::addColumn<bool>("gapFill");
    QTest::newRow("tiles") << true;
    QTest::newRow("no gap fill") << false;
  }
  void chunkSelectionWithRestrictedGroupings() {
    QFETCH(bool, gapFill);
    auto t = load(sstest::e6Trace(sstest::e6Steps()));
    Splitter sp(t);
    const SplitResult r = sp.plan(steady(4));
    QVERIFY(r.roots.size() >= 8);
    EventIndex idx(*t);
    EventList all;
    for (const RootInfo& ri : r.roots) all.push_back(ri.event);
    const TileSet tiles = buildTiles(idx, all);
    const TileSet* global = gapFill ? &tiles : nullptr;
    const size_t n = all.size();
    std::vector<EventList> chunks = {
        {all[0]}, {all[n - 1]}, EventList(all.begin() + 2, all.begin() + 6), {all[1], all[4], all[n - 2]}, all};
    auto same = [&](const EventList& roots, const CorrGroupings& part) {
      const ChunkSelection a = selectChunk(idx, roots, global, {}, &part);
      const ChunkSelection b = selectChunk(idx, roots, global, {});
      QCOMPARE(a.events, b.events);
      QCOMPARE(a.stats.numGpuEvents, b.stats.numGpuEvents);
      QCOMPARE(a.stats.gpuBusyDuration.asDouble(), b.stats.gpuBusyDuration.asDouble());
      QCOMPARE(a.stats.gpuDuration.asDouble(), b.stats.gpuDuration.asDouble());
      QVERIFY(b.stats.numGpuEvents > 0);
    };
    for (const EventList& c : chunks) {
      CorrKeySet keys;
      addChunkKeys(idx, c, global, keys);
      keys.finish();
      QVERIFY(!keys.empty());
      same(c, idx.groupingsFor(keys));
    }
    CorrKeySet keys;  // the first four chunks together
    for (size_t k = 0; k < 4; ++k) addChunkKeys(idx, chunks[k], global, keys);
    keys.finish();
    const CorrGroupings part = idx.groupingsFor(keys);
    for (size_t k = 0; k < 4; ++k) same(chunks[k], part);
    // A set missing one of the chunk's ids does change the selection (the
    // comparison above can fail).
    CorrKeySet fewer;
    addChunkKeys(idx, chunks[0], global, fewer);
    fewer.finish();
    const CorrGroupings partFewer = idx.groupingsFor(fewer);
    QVERIFY(selectChunk(idx, chunks[2], global, {}, &partFewer).stats.numGpuEvents <
            selectChunk(idx, chunks[2], global, {}).stats.numGpuEvents);
  }

  // The coverage audit on one thread and on two (>= 2^16 kernels: its two
  // attributions side by side) decides the same; so does the detection with
  // the splitter's root-list prefault beside it.
  void auditOnOneAndTwoThreads() {
    std::vector<sstest::StepSpec> steps;
    for (int i = 0; i < 20; ++i) {
      sstest::StepSpec st;
      st.name = sstest::vllmDetailedName(0, 0, 16, 16);
      st.st = 1000000 + 400000LL * i;
      st.dur = "390000.0";
      st.kernelDurs.assign(3300, 40);
      steps.push_back(st);
    }
    auto t = load(sstest::e6Trace(steps));
    EventIndex idx(*t);
    QVERIFY(idx.kernels.size() >= (size_t(1) << 16));
    DetectionOptions one, two;
    one.threads = 1;
    two.threads = 2;
    const Detection a = detectRoots(idx, one);
    const Detection b = detectRoots(idx, two);
    QCOMPARE(a.chosen.roots, b.chosen.roots);
    QCOMPARE(a.chosen.roots.size(), size_t(20));
    QVERIFY(a.chosen.coverage && b.chosen.coverage);
    QCOMPARE(a.chosen.coverage->coveredSelected, b.chosen.coverage->coveredSelected);
    QCOMPARE(a.chosen.coverage->coveredSpans, b.chosen.coverage->coveredSpans);
    QCOMPARE(int(a.chosen.status), int(b.chosen.status));
    Splitter s(t);
    SplitOptions o;
    o.threads = 2;
    QCOMPARE(s.plan(o).detection->chosen.roots, a.chosen.roots);
  }

  // ---------------------------------------------------------------- E1
  void e1_parse_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<qlonglong>("bs");
    QTest::addColumn<qlonglong>("req");
    QTest::addColumn<QString>("ctx");
    QTest::addColumn<QString>("gen");
    QTest::addColumn<bool>("sqsk");
    QTest::addColumn<QString>("cls");
    auto row = [](const char* n, const char* k, qlonglong bs, qlonglong req, const char* ctx, const char* gen, bool sq,
                  const char* cls) {
      QTest::newRow(n) << QString(n) << QString(k) << bs << req << QString(ctx) << QString(gen) << sq << QString(cls);
    };
    row("execute_14721_context_2(sq14721sk14721sqsq108745533sqsk108745533)_generation_0(sq0sk0sqsq0sqsk0)",
        "vllm_detailed", 14721, 2, "2/14721", "0/0", true, "prefill");
    row("execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk131072sqsq64sqsk131072)", "vllm_detailed", 64, 64,
        "0/0", "64/64", true, "decode");
    row("execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3(sq3sk6144sqsq3sqsk6144)",
        "vllm_detailed", 6147, 5, "2/6144", "3/3", true, "prefilldecode");
    row("execute_5_context_3(sq128sk256sqsq1sqsk1)_generation_2(sq1sk300sqsq1sqsk1)", "vllm_detailed", 129, 5, "3/128",
        "2/1", true, "prefilldecode");
    row("execute_context_2(6144)_generation_3(3)", "vllm_native", 6147, 5, "2/6144", "3/3", false, "prefilldecode");
    row("step[EXTEND bs=2 toks=14721 c_sq=14721 c_sk=14721 c_sqsq=108745533 c_sqsk=108745533]", "sglang_detailed",
        14721, 2, "2/14721", "0/0", true, "prefill");
    row("step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]", "sglang_detailed", 128, 64, "0/0", "64/128",
        true, "decode");
    row("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]",
        "sglang_detailed", 6, 2, "1/5", "1/1", true, "prefilldecode");
    row("step[DRAFT bs=8 c_sq=56 c_sqsq=392 c_sqsk=5370764 c_sk=767252]", "sglang_detailed", 8, 8, "8/56", "0/0", true,
        "prefill");
    row("step[EXTEND bs=2 toks=14721]", "sglang_native", 14721, 2, "2/14721", "0/0", false, "prefill");
    row("step[DECODE bs=64]", "sglang_native", 64, 64, "0/0", "64/64", false, "decode");
    row("step[MIXED bs=2]", "sglang_native", 2, 2, "2/2", "0/0", false, "prefill");
    row("step[decode bs=1]", "sglang_native", 1, 1, "0/0", "1/1", false, "decode");
    row("step[DECODE bs=36 g_sk=580480]", "none", 1, 1, "0/0", "1/1", false, "decode");
    row("prefill[bs=2 tok=14721 ctx=[7803, 6918]]", "atom_native", 14721, 2, "2/14721", "0/0", false, "prefill");
    row("prefill[bs=2 tok=14721 ctx=[7803, 6918] sqsq=108745533 sqsk=108745533 sk=14721]", "atom_detailed", 14721, 2,
        "2/14721", "0/0", true, "prefill");
    row("decode[bs=117/128 tok=117 d=117]", "atom_native", 117, 117, "0/0", "117/117", false, "decode");
    row("decode[bs=128 tok=384 p=2 d=126 sqsq=132612 sqsk=1114112 sk=258048 tbo=1]", "atom_detailed", 384, 128, "0/0",
        "128/384", true, "decode");
    row("execute_diffusion_1_1024x1024", "diffusion_native", 1, 0, "0/0", "0/0", false, "idle");
    row("ProfilerStep#3", "none", 1, 1, "0/0", "1/1", false, "decode");
    // Counts beyond 2^40 read as 2^40, so their sums cannot overflow (a fuzzed name once did).
    const QString big = QString::number(qlonglong(1) << 40);
    row("execute_context_2(2047555555555555555555555555)_generation_99999999999999999999(1)", "vllm_native",
        (qlonglong(1) << 40) + 1, (qlonglong(1) << 40) + 2, qPrintable("2/" + big), qPrintable(big + "/1"), false,
        "prefilldecode");
    row("step[MIXED bs=2 c=99999999999999999999 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 "
        "g_sqsk=12]",
        "sglang_detailed", 6, (qlonglong(1) << 40) + 1, qPrintable(big + "/5"), "1/1", true, "prefilldecode");
  }
  void e1_parse() {
    QFETCH(QString, name);
    QFETCH(QString, kind);
    QFETCH(qlonglong, bs);
    QFETCH(qlonglong, req);
    QFETCH(QString, ctx);
    QFETCH(QString, gen);
    QFETCH(bool, sqsk);
    QFETCH(QString, cls);
    StepDetails s = parseAnnotation(name.toStdString());
    QCOMPARE(QString(annotationKindName(s.kind)), kind);
    QCOMPARE(s.batchSize, bs);
    QCOMPARE(s.numRequests, req);
    QCOMPARE(QString("%1/%2").arg(s.contextRequests).arg(s.contextSum), ctx);
    QCOMPARE(QString("%1/%2").arg(s.generationRequests).arg(s.generationSum), gen);
    QCOMPARE(s.hasSqsk, sqsk);
    QString c = s.prefillOnly() ? "prefill" : s.prefillDecode() ? "prefilldecode" : s.decodeOnly() ? "decode" : "idle";
    QCOMPARE(c, cls);
  }
  void e1_skeleton_and_tiers() {
    QCOMPARE(QString::fromStdString(nameSkeleton("ProfilerStep#3")), QString("ProfilerStep##"));
    QCOMPARE(QString::fromStdString(
                 nameSkeleton("execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk131072sqsq64sqsk131072)")),
             QString("execute_#_context_#(sq#sk#sqsq#sqsk#)_generation_#(sq#sk#sqsq#sqsk#)"));
    QVERIFY(matchesDetailedPattern("step[decode bs=3 g_sqsq=9]"));  // SGLang detailed is case-insensitive
    QVERIFY(!matchesDetailedPattern("step[DECODE bs=64]"));
    QVERIFY(matchesNativePattern("step[DECODE bs=36 g_sk=580480]"));  // matches, parser fails (E1)
    QVERIFY(!matchesKnownPattern("ProfilerStep#3"));
    QVERIFY(matchesNativePattern("execute_diffusion_2_720x1280"));
    QCOMPARE(QString::fromStdString(sanitizeRootName("a/b(c):d e)")), QString("a_b_cd_e"));
  }

  // ---------------------------------------------------------------- E2–E5, stride
  void regions_data() {
    QTest::addColumn<std::vector<int64_t>>("values");
    QTest::addColumn<int>("numSteps");
    QTest::addColumn<std::vector<int64_t>>("flat");  // start,end,...
    QTest::addColumn<bool>("fallback");
    std::vector<int64_t> e2(4, 2);
    e2.insert(e2.end(), 30, 20);
    QTest::newRow("E2") << e2 << 32 << ints({4, 34}) << false;
    std::vector<int64_t> e3a = {16, 16, 16, 2, 2};
    e3a.insert(e3a.end(), 10, 16);
    e3a.insert(e3a.end(), 7, 2);
    QTest::newRow("E3a") << e3a << 32 << ints({2, 20}) << false;
    QTest::newRow("E3b") << ints({16, 16, 16, 2, 16, 2, 16, 16, 2, 2, 2, 2, 2, 2, 16, 16}) << 32 << ints({2, 13})
                         << false;
    QTest::newRow("E4") << ints({20, 2, 20, 2, 20, 2, 20, 2, 20, 2}) << 12 << ints({4, 6}) << true;
    QTest::newRow("E15-fallback") << ints({16, 16, 16}) << 8 << ints({1, 2}) << true;
  }
  void regions() {
    QFETCH(std::vector<int64_t>, values);
    QFETCH(int, numSteps);
    QFETCH(std::vector<int64_t>, flat);
    QFETCH(bool, fallback);
    RegionScan s = scanRegions(values, numSteps, 5);
    std::vector<int64_t> got;
    for (const Region& g : s.regions) {
      got.push_back(g.start);
      got.push_back(g.end);
    }
    QCOMPARE(got, flat);
    QCOMPARE(s.fellBack, fallback);
  }
  void e5_reference_ratio() {
    std::vector<StepDetails> steps(10);
    for (int i = 0; i < 4; ++i) steps[i].contextRequests = 1;
    std::vector<Region> regions = {{0, 4}, {4, 10}};
    ReferenceRatio r = referenceRatio(steps, regions);
    QCOMPARE(r.largestIndex, size_t(1));
    QCOMPARE(r.largest, 0.0);
    QCOMPARE(r.average, 0.4);
  }
  void stride_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("stride");
    for (auto [n, s] : std::vector<std::pair<int, int>>{
             {1, 1}, {2, 2}, {3, 3}, {4, 2}, {8, 2}, {16, 2}, {20, 2}, {30, 3}, {32, 3}, {64, 6}, {100, 10}})
      QTest::newRow(qPrintable(QString::number(n))) << n << s;
  }
  void stride() {
    QFETCH(int, n);
    QFETCH(int, stride);
    QCOMPARE(candidateStride(n), int64_t(stride));
  }

  // ---------------------------------------------------------------- E9, E10 (shape path, §3.7)
  // Batch sizes as int64 with -1 for "no batch size" (None in the reference).
  static std::vector<std::optional<int64_t>> batchSizes(const std::vector<int64_t>& v) {
    std::vector<std::optional<int64_t>> bs;
    for (int64_t x : v) bs.push_back(x < 0 ? std::nullopt : std::optional<int64_t>(x));
    return bs;
  }
  void e10_classification_data() {
    QTest::addColumn<std::vector<int64_t>>("bs");
    QTest::addColumn<int>("maxNumSeq");   // 0: not given
    QTest::addColumn<QString>("labels");  // D decode, P prefill_bearing
    QTest::newRow("E10-drop-small") << ints({1, 2, 40, 800}) << 0 << "DDDP";
    QTest::newRow("E10-keep-all") << ints({1, 2, 200, 300}) << 0 << "DDPP";
    QTest::newRow("E10-ratio-2") << ints({8, 16}) << 0 << "DP";
    QTest::newRow("E10-no-threshold") << ints({10, 12, 14}) << 0 << "DDD";
    QTest::newRow("E10-max-num-seq") << ints({4, 16, 17, 256}) << 16 << "DDPP";
    QTest::newRow("E10-none-is-decode") << ints({-1, 256, -1}) << 16 << "DPD";
    QTest::newRow("E9-labels") << ints({8, 8, 32, 32, 32, 946, 32, 32, 854, 32, 32, 32, 8, 8}) << 0 << "DDDDDPDDPDDDDD";
  }
  void e10_classification() {
    QFETCH(std::vector<int64_t>, bs);
    QFETCH(int, maxNumSeq);
    QFETCH(QString, labels);
    const auto sizes = batchSizes(bs);
    const std::vector<bool> p =
        classifyPrefillBearing(sizes, maxNumSeq ? std::optional<int64_t>(maxNumSeq) : std::nullopt);
    QString got;
    for (bool b : p) got += b ? 'P' : 'D';
    QCOMPARE(got, labels);
  }
  void e9_shape_finder_data() {
    QTest::addColumn<std::vector<int64_t>>("bs");
    QTest::addColumn<int>("numSteps");
    QTest::addColumn<int>("maxNumSeq");                 // 0: not given
    QTest::addColumn<int>("mode");                      // SteadyMode
    QTest::addColumn<std::vector<int64_t>>("regions");  // start,end,...
    QTest::addColumn<std::vector<int64_t>>("window");   // start,end
    const auto e9 = ints({8, 8, 32, 32, 32, 946, 32, 32, 854, 32, 32, 32, 8, 8});
    const int mixed = int(SteadyMode::Mixed), decode = int(SteadyMode::DecodeOnly),
              pd = int(SteadyMode::MaxPrefillDecode);
    QTest::newRow("E9-mixed") << e9 << 4 << 0 << mixed << ints({2, 13}) << ints({2, 6});
    QTest::newRow("E9-decode_only") << e9 << 4 << 0 << decode << ints({2, 13}) << ints({9, 13});
    QTest::newRow("E9-max_prefilldecode") << e9 << 4 << 0 << pd << ints({2, 13}) << ints({5, 6});
    QTest::newRow("E9-prefill-at-both-ends")
        << ints({900, 32, 32, 32, 32, 32, 900}) << 3 << 64 << mixed << ints({0, 7}) << ints({0, 3});
    QTest::newRow("E9-no-decode-values") << ints({900, 900, 900, 900, 900}) << 3 << 64 << mixed << ints({0, 3})
                                         << std::vector<int64_t>{};
  }
  void e9_shape_finder() {
    QFETCH(std::vector<int64_t>, bs);
    QFETCH(int, numSteps);
    QFETCH(int, maxNumSeq);
    QFETCH(int, mode);
    QFETCH(std::vector<int64_t>, regions);
    QFETCH(std::vector<int64_t>, window);
    const auto sizes = batchSizes(bs);
    const ModeSelection m =
        shapeFinder(sizes, SteadyMode(mode), numSteps, maxNumSeq ? std::optional<int64_t>(maxNumSeq) : std::nullopt);
    std::vector<int64_t> got;
    for (const Region& g : m.scan.regions) {
      got.push_back(g.start);
      got.push_back(g.end);
    }
    QCOMPARE(got, regions);
    if (!window.empty()) QCOMPARE(m.window, (Region{window[0], window[1]}));
  }

  // ---------------------------------------------------------------- E6
  void e6_end_to_end() {
    SplitResult r = planE6(steady(8));
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(QString::fromStdString(r.executionDetailsCsv),
             QString("idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,phase_num_prefill,"
                     "phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc,num_steps\n"
                     "0,out/"
                     "mixed_steady_state_prefill_0_prefilldecode_2_decode_6_bs143_conc16_foo.json.gz,209,40,3520,1600,"
                     "0,2,6,143,16,8\n"
                     "0,out/"
                     "decode_only_steady_state_prefill_0_prefilldecode_0_decode_7_bs8_conc8_foo.json.gz,183,35,3080,"
                     "1400,0,0,7,8,8,7\n"
                     "0,out/"
                     "prefilldecode_steady_state_prefill_0_prefilldecode_1_decode_0_bs527_conc16_foo.json.gz,27,5,440,"
                     "200,0,1,0,527,16,1\n"));
    const std::string manifest =
        "{\n  \"status\": 0,\n  \"method\": \"annotation:tier\",\n  \"phase_confidence\": \"high\",\n  \"n_roots\": "
        "48,\n"
        "  \"attribution_strategy\": \"correlation\",\n  \"coverage_selected_roots\": 1.0,\n  "
        "\"coverage_root_spans_only\": 1.0,\n"
        "  \"root_span_share\": 1.0,\n  \"root_family\": "
        "\"execute_#_context_#(sq#sk#sqsq#sqsk#)_generation_#(sq#sk#sqsq#sqsk#)\",\n"
        "  \"root_family_known\": true,\n  \"suspiciously_few_roots\": false,\n  \"startup_transient_trimmed\": "
        "false,\n"
        "  \"gap_fill\": true,\n  \"n_overlapping_roots\": 0,\n  \"n_gpu_events_in_trace\": 240\n}";
    QCOMPARE(QString::fromStdString(r.manifest.dump(JsonStyle::pythonFile())), QString::fromStdString(manifest));
    QCOMPARE(r.windows.size(), size_t(3));
    QCOMPARE(r.windows[0].window, (Region{4, 12}));
    QCOMPARE(r.windows[1].window, (Region{41, 48}));
    QCOMPARE(r.windows[2].window, (Region{4, 5}));
    QCOMPARE(r.windows[0].selection.scan.regions, (std::vector<Region>{{4, 48}}));
    QCOMPARE(r.windows[0].selection.target, 10.0 / 44.0);
    QCOMPARE(r.windows[0].selection.candidates.size(), size_t(19));  // starts 4, 6, ..., 40
    // tiles: [st, st+10000), last root median-extended
    QCOMPARE(r.roots[47].tile->b.asDouble(), 1000000.0 + 10000.0 * 47 + 10000.0);
  }

  // ---------------------------------------------------------------- E7
  void e7_conc_osl_r_data() {
    QTest::addColumn<qlonglong>("conc");
    QTest::addColumn<double>("osl");
    QTest::addColumn<double>("r");
    QTest::addColumn<double>("ideal");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("ws");
    QTest::addColumn<int>("we");
    QTest::newRow("16,1024,1") << 16LL << 1024.0 << 1.0 << 32.0 / 2048.0 << 64 << 6 << 4 << 48;
    QTest::newRow("16,60,1") << 16LL << 60.0 << 1.0 << 32.0 / 120.0 << 8 << 2 << 4 << 12;
    QTest::newRow("16,64,0") << 16LL << 64.0 << 0.0 << 0.5 << 8 << 2 << 4 << 12;
  }
  void e7_conc_osl_r() {
    QFETCH(qlonglong, conc);
    QFETCH(double, osl);
    QFETCH(double, r);
    QFETCH(double, ideal);
    QFETCH(int, n);
    QFETCH(int, stride);
    QFETCH(int, ws);
    QFETCH(int, we);
    SplitOptions o = steady(8);
    o.conc = {conc, osl, r};
    SplitResult res = planE6(o);
    const ModeSelection& m = res.windows[0].selection;
    QCOMPARE(m.target, ideal);
    QCOMPARE(m.numStepsUsed, int64_t(n));
    QCOMPARE(m.stride, int64_t(stride));
    QCOMPARE(m.window, (Region{ws, we}));
    QVERIFY(m.warnings.empty());  // peak 16 == CONC
    QCOMPARE(res.windows[1].window, (Region{41, 48}));
    QCOMPARE(res.windows[2].window, (Region{4, 5}));
  }

  // ---------------------------------------------------------------- E11
  void e11b_trim_refuses() {
    auto steps = std::vector<sstest::StepSpec>();
    for (int i = 0; i < 40; ++i) {
      sstest::StepSpec s;
      s.st = 1000000 + 20000LL * i;
      s.name = sstest::vllmDetailedName(0, 0, 16, 16);
      if (i == 0) s.kernelDurs[0] = 400;
      steps.push_back(s);
    }
    SplitResult r = planE6(steady(32), steps);
    QCOMPARE(r.outcome, SplitOutcome::Refused);
    const JsonValue& m = r.manifest;
    QCOMPARE(m.find("status")->asInt(), int64_t(1));
    QCOMPARE(m.find("coverage_selected_roots")->asReal(), 0.933);
    QCOMPARE(m.find("n_roots")->asInt(), int64_t(40));  // stale (B3)
    QCOMPARE(QString::fromStdString(m.find("startup_transient_kernel")->asString()),
             QString("ncclDevKernel_AllReduce"));
    QCOMPARE(m.find("startup_transient_collective_ratio")->asReal(), 10.0);
    QCOMPARE(m.find("startup_transient_noise_ratio")->asReal(), 1.0);
    QVERIFY(m.find("aborted")->asBool());
    // --allow-degraded splits the 39 remaining roots (no PD step: no prefilldecode file).
    SplitOptions o = steady(32);
    o.allowDegraded = true;
    SplitResult r2 = planE6(o, steps);
    QCOMPARE(r2.outcome, SplitOutcome::Split);
    QCOMPARE(r2.roots.size(), size_t(39));
    QCOMPARE(r2.chunks.size(), size_t(2));
    // 4000 instead of 400: NOT_SPLITTABLE at 0.6522.
    steps[0].kernelDurs[0] = 4000;
    SplitResult r3 = planE6(steady(32), steps);
    QCOMPARE(r3.manifest.find("status")->asInt(), int64_t(2));
    QCOMPARE(r3.manifest.find("coverage_selected_roots")->asReal(), 0.6522);
    QCOMPARE(r3.manifest.find("startup_transient_collective_ratio")->asReal(), 100.0);
  }
  // Many roots: the startup-transient check totals two halves of them side
  // by side. The later roots' all-reduce times differ between the halves, so
  // the median (25 µs: ratio 16) is neither half's alone (20 and 100 µs).
  void trimOnManyRootsSameOnOneAndTwoThreads() {
    std::vector<sstest::StepSpec> steps;
    const int n = 6001;
    for (int i = 0; i < n; ++i) {
      sstest::StepSpec s;
      s.st = 1000000 + 20000LL * i;
      s.name = sstest::vllmDetailedName(0, 0, 16, 16);
      s.kernelDurs[0] = i == 0 ? 400 : i <= n / 2 ? 20 : (i % 3 == 0 ? 30 : 100);
      steps.push_back(s);
    }
    for (unsigned threads : {1u, 2u}) {
      SplitOptions o = steady(32);
      o.threads = threads;
      const SplitResult r = planE6(o, steps);
      QVERIFY(r.detection->trim.ran);
      QCOMPARE(r.detection->trim.collectiveRatio, std::optional<double>(16.0));
      QVERIFY(r.detection->trim.trimmed);
    }
  }

  void decision_B2_trim_keeps_status() {
    auto steps = std::vector<sstest::StepSpec>();
    for (int i = 0; i < 40; ++i) {
      sstest::StepSpec s;
      s.st = 1000000 + 20000LL * i;
      s.name = sstest::vllmDetailedName(0, 0, 16, 16);
      if (i == 0) s.kernelDurs[0] = 400;
      steps.push_back(s);
    }
    SplitOptions o = steady(32);
    o.fixes.trimKeepsStatus = true;
    o.fixes.freshNRoots = true;  // B3
    SplitResult r = planE6(o, steps);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(r.manifest.find("status")->asInt(), int64_t(0));
    QCOMPARE(r.manifest.find("n_roots")->asInt(), int64_t(39));
  }

  // ---------------------------------------------------------------- E12
  void e12_extraction_statistics() {
    std::vector<std::string> parts;
    for (int i = 0; i < 16; ++i) {
      const int64_t base = 1000 + 1000LL * i;
      parts.push_back(R"({"ph":"X","cat":"user_annotation","name":"execute_)" + std::to_string(i) +
                      R"x(_context_3(sq128sk256sqsq1sqsk1)_generation_2(sq1sk300sqsq1sqsk1)","pid":1,"tid":10,"ts":)x" +
                      std::to_string(base) + R"(,"dur":100,"args":{}})");
      for (int j = 0; j < 3; ++j) {
        const int64_t corr = 1000 + 3LL * i + j;
        parts.push_back(R"({"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":10,"ts":)" +
                        std::to_string(base + 1 + 5 * j) + R"(,"dur":3,"args":{"correlation":)" + std::to_string(corr) +
                        "}}");
        if (j < 2)
          parts.push_back(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":99,"ts":)" +
                          std::to_string(base + 200 + 5 * j) + R"(,"dur":8,"args":{"correlation":)" +
                          std::to_string(corr) + "}}");
      }
    }
    std::string json = "{\"traceEvents\": [";
    for (size_t k = 0; k < parts.size(); ++k) json += (k ? ",\n" : "") + parts[k];
    json += "], \"schemaVersion\": 1}";
    Splitter s(load(json, "e12.json"));
    SplitOptions o;
    o.outputDir = "out";
    o.iterations = "7";
    o.storeSingleIteration = true;
    SplitResult r = s.plan(o);
    QCOMPARE(r.chunks.size(), size_t(1));
    QCOMPARE(r.chunks[0].stats.eventCount, int64_t(6));
    QCOMPARE(r.chunks[0].stats.numGpuEvents, int64_t(2));
    QCOMPARE(r.chunks[0].stats.gpuDuration.i, int64_t(13));
    QCOMPARE(r.chunks[0].stats.gpuBusyDuration.i, int64_t(16));
    QVERIFY(r.chunks[0].stats.gpuDuration.isInt);
    QCOMPARE(r.roots[15].tile->b.asDouble(), 17000.0);
    o.storeSingleIteration = false;
    o.iterations = "0:4";
    SplitResult r2 = s.plan(o);
    QCOMPARE(r2.chunks.size(), size_t(1));
    QCOMPARE(QString::fromStdString(r2.chunks[0].idx.asString()), QString("0:4"));
    QCOMPARE(QString::fromStdString(r2.chunks[0].fileName), QString("e12_iteration_0:4.json.gz"));
    QCOMPARE(r2.chunks[0].stats.eventCount, int64_t(24));
    QCOMPARE(r2.chunks[0].stats.numGpuEvents, int64_t(8));
    QCOMPARE(r2.chunks[0].stats.gpuDuration.i, int64_t(52));
    QCOMPARE(r2.chunks[0].stats.gpuBusyDuration.i, int64_t(64));
  }

  // ---------------------------------------------------------------- E15
  void e15_range_single_phases() {
    SplitOptions o;
    o.outputDir = "out";
    o.iterations = "4:7";
    o.storeSingleIteration = true;
    o.dividePhases = true;
    o.numSteps = 8;
    SplitResult r = planE6(o);
    QCOMPARE(r.chunks.size(), size_t(4));
    QCOMPARE(QString::fromStdString(r.chunks[0].fileName),
             QString("foo_iteration_4_execute_527_context_1_sq512sk512sqsq262144sqsk262144_generation_15_"
                     "sq15sk1500sqsq15sqsk1500.json.gz"));
    QCOMPARE(
        QString::fromStdString(r.chunks[3].fileName),
        QString("decode_only/"
                "decode_only_chunk0_steps1_bs16_conc16_prefill_0_prefilldecode_0_decode_1_bs16_conc16_foo.json.gz"));
    QCOMPARE(r.chunks[3].stats.eventCount, int64_t(27));
  }

  // ---------------------------------------------------------------- E18
  void e18a_csv_formatting() {
    std::vector<std::vector<std::pair<std::string, CsvCell>>> rows = {{{"idx", CsvCell::integer(0)},
                                                                       {"a", CsvCell::integer(3520)},
                                                                       {"b", CsvCell::real(1600.0)},
                                                                       {"c", CsvCell::real(1.005)},
                                                                       {"d", CsvCell::real(2.675)},
                                                                       {"e", CsvCell::real(1e-7)},
                                                                       {"f", CsvCell::real(123456789.125)}}};
    QCOMPARE(QString::fromStdString(formatPandasCsv(rows)),
             QString("idx,a,b,c,d,e,f\n0,3520,1600.00,1.00,2.67,0.00,123456789.12\n"));
  }
  void e18b_range_row_first() {
    SplitOptions o = steady(4, "out7");
    o.iterations = "4:12";
    SplitResult r = planE6(o);
    QCOMPARE(QString::fromStdString(r.executionDetailsCsv),
             QString("idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,num_steps,phase_num_"
                     "prefill,phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc\n"
                     "4:12,out7/foo_iteration_4:12.json.gz,209,40,3520,1600,0,,,,,\n"
                     "0,out7/"
                     "mixed_steady_state_prefill_0_prefilldecode_1_decode_3_bs143_conc16_foo.json.gz,105,20,1760,800,4,"
                     "0.00,1.00,3.00,143.00,16.00\n"
                     "0,out7/"
                     "decode_only_steady_state_prefill_0_prefilldecode_0_decode_3_bs16_conc16_foo.json.gz,79,15,1320,"
                     "600,3,0.00,0.00,3.00,16.00,16.00\n"
                     "0,out7/"
                     "prefilldecode_steady_state_prefill_0_prefilldecode_1_decode_0_bs527_conc16_foo.json.gz,27,5,440,"
                     "200,1,0.00,1.00,0.00,527.00,16.00\n"));
  }

  // ---------------------------------------------------------------- python helpers
  void cpython_set_order() {
    // Orders printed by CPython 3.11 for list(set([...])).
    QCOMPARE(cpythonSetOrder({5, 3, 9, 1}), (std::vector<int64_t>{9, 3, 5, 1}));
    QCOMPARE(cpythonSetOrder({16, 8, 0}), (std::vector<int64_t>{16, 8, 0}));
    QCOMPARE(cpythonSetOrder({1988, 1152, 1178, 1614, 1322}), (std::vector<int64_t>{1152, 1988, 1322, 1614, 1178}));
    QCOMPARE(cpythonSetOrder({-1, -2}), (std::vector<int64_t>{-1, -2}));
  }
  void cpython_set_order_vs_python3() {
    QProcess py;
    py.start("python3", {"-c",
                         "import random\nrandom.seed(7)\nfor n in (3,6,20,200,3000,70000):\n"
                         "  ks=[random.randrange(50000,50000+4*n) for _ in range(n)]\n"
                         "  print(' '.join(map(str,ks)))\n  print(' '.join(map(str,list(set(ks)))))\n"});
    if (!py.waitForFinished(60000) || py.exitCode() != 0) QSKIP("python3 not available");
    const QList<QByteArray> lines = py.readAllStandardOutput().trimmed().split('\n');
    for (int k = 0; k + 1 < lines.size(); k += 2) {
      std::vector<int64_t> in, want;
      for (const QByteArray& t : lines[k].split(' ')) in.push_back(t.toLongLong());
      for (const QByteArray& t : lines[k + 1].split(' ')) want.push_back(t.toLongLong());
      QCOMPARE(cpythonSetOrder(in), want);
    }
  }
  void python_json_and_round() {
    JsonValue o = JsonValue::object();
    o.set("a", JsonValue::real(0.1 + 0.2));
    o.set("b", JsonValue::array());
    o.set("c", JsonValue::string("é\"\n"));
    o.set("a", JsonValue::integer(2));  // replaced in place
    QCOMPARE(QString::fromStdString(o.dump(JsonStyle::pythonFile())),
             QString("{\n  \"a\": 2,\n  \"b\": [],\n  \"c\": \"\\u00e9\\\"\\n\"\n}"));
    QCOMPARE(pyRound(0.93301435, 4), 0.933);
    QCOMPARE(pyRound(2.675, 2), 2.67);
    QCOMPARE(QString::fromStdString(pyReprDouble(16423.002000000015)), QString("16423.002000000015"));
  }

  // ---------------------------------------------------------------- bad input
  void bad_one_root() {
    std::vector<sstest::StepSpec> steps(1);
    steps[0].st = 1000000;
    steps[0].name = sstest::vllmDetailedName(0, 0, 32, 32);
    SplitResult r = planE6(steady(32), steps);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(r.detection->chosen.diagnostics.find("suspiciously_few_roots")->asBool(), true);
    QCOMPARE(r.chunks.size(), size_t(2));  // mixed + decode_only; no prefill run
    QCOMPARE(r.windows[0].window, (Region{0, 1}));
    QVERIFY(r.windows[0].selection.scan.fellBack);
    QCOMPARE(r.windows[2].chunk, -1);
    // single root: own span, event count = 26 + metadata
    QCOMPARE(r.chunks[0].stats.eventCount, int64_t(27));
  }
  void bad_all_steps_identical() {
    std::vector<sstest::StepSpec> steps;
    for (int i = 0; i < 10; ++i) {
      sstest::StepSpec s;
      s.st = 1000000 + 10000LL * i;
      s.name = sstest::vllmDetailedName(0, 0, 16, 16);
      steps.push_back(s);
    }
    SplitResult r = planE6(steady(32), steps);
    // n=10 < 32: tolerance 0.2, every step near the peak -> region starts at 0 and stays open.
    QCOMPARE(r.windows[0].selection.scan.regions, (std::vector<Region>{{0, 10}}));
    QCOMPARE(r.windows[0].window, (Region{0, 10}));
    QCOMPARE(r.windows[1].window, (Region{0, 10}));
    QCOMPARE(r.windows[2].chunk, -1);
  }
  void bad_zero_gpu_events_cli() {
    QTemporaryDir dir;
    std::vector<sstest::StepSpec> steps = sstest::e6Steps();
    for (auto& s : steps) s.launches = false;
    writeFile(dir.filePath("nogpu.json"), sstest::e6Trace(steps));
    QByteArray out;
    QCOMPARE(runCli(dir.path(), {"nogpu.json", "-o", "out", "--find-steady-state"}, nullptr, &out), 0);
    QVERIFY(out.contains("No GPU work in trace; nothing to split."));
    QVERIFY(!QDir(dir.filePath("out")).exists());
  }
  void bad_conflicting_flags_cli() {
    QTemporaryDir dir;
    writeFile(dir.filePath("foo.json"), sstest::e6Trace(sstest::e6Steps()));
    QByteArray err;
    // B6: OSL 0 with CONC and R: the reference raises ZeroDivisionError (exit 1).
    QCOMPARE(runCli(dir.path(),
                    {"foo.json", "-o", "out", "--find-steady-state", "--CONC", "16", "--OSL", "0", "--R", "1"}, &err),
             1);
    QVERIFY(!QDir(dir.filePath("out")).exists());
    QVERIFY(err.contains("ZeroDivisionError"));
    // argparse errors: exit 2.
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "out", "-i", "-3:48"}, &err), 2);
    QVERIFY(err.contains("argument -i/--iterations: expected one argument"));
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "out", "--bogus"}, &err), 2);
    QVERIFY(err.contains("unrecognized arguments: --bogus"));
    QCOMPARE(runCli(dir.path(), {"foo.json", "--find-steady-state"}, &err), 2);
    QVERIFY(err.contains("the following arguments are required: -o/--output-dir"));
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "out", "--num-steps=x"}, &err), 2);
    QVERIFY(err.contains("invalid int value: 'x'"));
    // --iterations=-3: -> int('') raises ValueError in the reference: exit 1, nothing written.
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "out", "--iterations=-3:"}, &err), 1);
    QVERIFY(!QDir(dir.filePath("out")).exists());
    QVERIFY(!QDir(dir.filePath("out")).exists());
  }
  void bad_out_of_range_iterations_cli() {
    QTemporaryDir dir;
    writeFile(dir.filePath("foo.json"), sstest::e6Trace(sstest::e6Steps()));
    // B9: -i 100 on 48 roots writes the whole input as foo_iteration_100, idx 100:48, zero statistics.
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "out", "-i", "100"}), 0);
    QCOMPARE(readFile(dir.filePath("out/execution_details.csv")),
             QString("idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,num_steps\n"
                     "100:48,out/foo_iteration_100.json.gz,1249,0,0,0,0\n"));
    QVERIFY(QFile::exists(dir.filePath("out/foo_iteration_100.json.gz")));
    // --iterations=-3:48 slices the last 3 roots, numbered -3..-1.
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "neg", "--iterations=-3:48", "--store-single-iteration"}), 0);
    QVERIFY(readFile(dir.filePath("neg/execution_details.csv")).contains("\n-1,neg/foo_iteration_-1_execute_"));
    // fix strict-iterations: refuse, exit 1, nothing written.
    QCOMPARE(runCli(dir.path(), {"foo.json", "-o", "strict", "-i", "100", "--fix", "strict-iterations"}), 1);
    QVERIFY(!QDir(dir.filePath("strict")).exists());
  }

  // ---------------------------------------------------------------- §5.1 flag audit
  // Every flag of the reference's command line, through steadyscope-cli split: the run with the
  // flag must show `marker` (in its files, CSV, manifest or log) and the run without it must not,
  // so a flag the parser or the splitter ignored fails its row. docs/splitter.md lists flag -> row.
  void cli_flag_audit_data() {
    QTest::addColumn<QString>("trace");  // e6 (foo.json), e11b (trim.json: DEGRADED), e8 (xdit.json)
    QTest::addColumn<QStringList>("base");
    QTest::addColumn<QStringList>("flag");
    QTest::addColumn<QString>("marker");
    const QStringList steady = {"--find-steady-state"};
    QTest::newRow("-o") << "e6" << QStringList{} << QStringList{"-o", "elsewhere"}
                        << "== elsewhere/split_manifest.json";
    QTest::newRow("-i") << "e6" << QStringList{} << QStringList{"-i", "2:6"}
                        << "2:6,out/e6_iteration_2:6.json.gz,105,20,1760,800,0\n";
    QTest::newRow("--iterations") << "e6" << QStringList{} << QStringList{"--iterations=5"}
                                  << "5:6,out/e6_iteration_5.json.gz,27,5,440,200,0\n";
    QTest::newRow("--store-single-iteration")
        << "e6" << QStringList{"-i", "2:4"} << QStringList{"--store-single-iteration"}
        << "3,out/e6_iteration_3_execute_5_context_0";
    QTest::newRow("--find-steady-state")
        << "e6" << QStringList{} << steady
        << "0,out/mixed_steady_state_prefill_0_prefilldecode_7_decode_25_bs127_conc15_e6.json.gz,833,";
    QTest::newRow("--num-steps")
        << "e6" << steady << QStringList{"--num-steps", "4"}
        << "0,out/mixed_steady_state_prefill_0_prefilldecode_1_decode_3_bs143_conc16_e6.json.gz,105,";
    QTest::newRow("--CONC") << "e6" << steady << QStringList{"--CONC", "64"}
                            << "Warning: [mixed] CONC=64 differs from the observed global max concurrency 16";
    // Spec E7's first row: the ideal ratio needs CONC, OSL and R, and makes the window the whole region [4, 48).
    const QStringList e7 = steady + QStringList{"--num-steps", "8", "--CONC", "16"};
    const QString kWholeRegion =
        "0,out/mixed_steady_state_prefill_0_prefilldecode_10_decode_34_bs130_conc14_e6.json.gz,1145,";
    QTest::newRow("--OSL") << "e6" << e7 + QStringList{"--R", "1"} << QStringList{"--OSL", "1024"} << kWholeRegion;
    QTest::newRow("--R") << "e6" << e7 + QStringList{"--OSL", "1024"} << QStringList{"--R", "1"} << kWholeRegion;
    QTest::newRow("--divide-phases") << "e6" << steady << QStringList{"--divide-phases"}
                                     << "== out/decode_only/decode_only_chunk0_steps3_bs16_conc16_";
    QTest::newRow("--no-gap-fill")
        << "e6" << steady << QStringList{"--no-gap-fill"}
        << "0,out/mixed_steady_state_prefill_0_prefilldecode_7_decode_25_bs127_conc15_e6.json.gz,838,161,23680,6440,";
    QTest::newRow("--allow-degraded")
        << "e11b" << steady << QStringList{"--allow-degraded"}
        << "0,out/mixed_steady_state_prefill_0_prefilldecode_0_decode_32_bs16_conc16_e11b.json.gz,833,";
    QTest::newRow("--llm-inference")
        << "e8" << steady + QStringList{"--num-steps", "4"} << QStringList{"--llm-inference"}
        << "0,out/mixed_steady_state_prefill_0_prefilldecode_0_decode_4_bs1_conc1_e8.json.gz,68,";
    QTest::newRow("--max-num-seq")
        << "e8" << steady + QStringList{"--num-steps", "4", "--llm-inference"} << QStringList{"--max-num-seq", "16"}
        << "0,out/prefilldecode_steady_state_prefill_0_prefilldecode_0_decode_4_bs1_conc1_e8.json.gz,68,";
  }
  void cli_flag_audit() {
    QFETCH(QString, trace);
    QFETCH(QStringList, base);
    QFETCH(QStringList, flag);
    QFETCH(QString, marker);
    QTemporaryDir dir;
    const QString file = trace + ".json";
    writeFile(dir.filePath(file), trace == "e6"   ? sstest::e6Trace(sstest::e6Steps())
                                  : trace == "e8" ? sstest::e8Trace()
                                                  : sstest::e6Trace(e11bSteps()));
    auto run = [&](const QString& sub, const QStringList& extra) {
      QDir(dir.path()).mkpath(sub);
      QByteArray out, err;
      const QStringList outArg = extra.contains("-o") ? QStringList{} : QStringList{"-o", "out"};
      const int rc = runCli(dir.filePath(sub), QStringList{"../" + file} + outArg + base + extra, &err, &out);
      QString text = QString("exit %1\n").arg(rc) + QString::fromUtf8(out + err);
      QDirIterator it(dir.filePath(sub), QDir::Files, QDirIterator::Subdirectories);
      QStringList files;
      while (it.hasNext()) files << QDir(dir.filePath(sub)).relativeFilePath(it.next());
      files.sort();
      for (const QString& f : files)
        text += "\n== " + f + "\n" + (f.endsWith(".gz") ? QString() : readFile(dir.filePath(sub + "/" + f)));
      return text;
    };
    const QString without = run("without", {});
    const QString with = run("with", flag);
    QVERIFY2(with.contains(marker), qPrintable(with));
    QVERIFY2(!without.contains(marker), qPrintable(without));
  }

  // ---------------------------------------------------------------- decisions
  void decision_B1_zip_input() {
    QTemporaryDir dir;
    writeFile(dir.filePath("foo.json"), sstest::e6Trace(sstest::e6Steps()));
    QProcess zip;
    zip.setWorkingDirectory(dir.path());
    zip.start(
        "python3",
        {"-c", "import zipfile; z=zipfile.ZipFile('t.zip','w'); z.write('foo.json','inner/foo.json'); z.close()"});
    QVERIFY(zip.waitForFinished(30000));
    QFile::remove(dir.filePath("foo.json"));  // the reference would need this file on disk (B1)
    QCOMPARE(runCli(dir.path(), {"t.zip", "-o", "out", "--find-steady-state", "--num-steps", "8"}), 0);
    QVERIFY(
        readFile(dir.filePath("out/execution_details.csv"))
            .contains(
                "0,out/"
                "mixed_steady_state_prefill_0_prefilldecode_2_decode_6_bs143_conc16_t.zip.json.gz,209,40,3520,1600"));
  }
  void decision_B4_metadata_all_m() {
    auto extra =
        std::vector<std::string>{R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":5,"args":{"name":"main"}})"};
    Splitter s(load(sstest::e6Trace(sstest::e6Steps(), extra)));
    SplitResult a = s.plan(steady(8));
    QCOMPARE(a.chunks[2].stats.eventCount, int64_t(27));  // the M event with ts is dropped (reference)
    SplitOptions o = steady(8);
    o.fixes.metadataAllM = true;
    SplitResult b = s.plan(o);
    QCOMPARE(b.chunks[2].stats.eventCount, int64_t(28));
  }
  void decision_D1_largest_region_ratio() {
    SplitOptions o = steady(8);
    o.fixes.largestRegionRatio = true;
    SplitResult r = planE6(o);
    QCOMPARE(r.windows[0].selection.target, r.windows[0].selection.ratio.largest);
  }
  void decision_B18_idle_breaks_runs() {
    std::vector<StepDetails> steps(10);
    for (auto& s : steps) s = parseAnnotation("execute_diffusion_1_1024x1024");
    ConcurrencyOptions co;
    co.numSteps = 4;
    QCOMPARE(concurrencyFinder(steps, SteadyMode::DecodeOnly, co).window, (Region{0, 4}));  // idle counts as decode
    co.idleBreaksRuns = true;
    QCOMPARE(concurrencyFinder(steps, SteadyMode::DecodeOnly, co).window.size(), int64_t(0));
  }
  void decision_B25_B15_B13_B10_options() {
    // A GPU annotation with a correlation id, reachable from the prefill window.
    auto extra = std::vector<std::string>{
        R"({"ph":"X","cat":"gpu_user_annotation","name":"g","pid":0,"tid":8,"ts":1040020,"dur":10,"args":{"correlation":21}})",
        R"({"ph":"s","id":21,"pid":1,"tid":1,"ts":1040010,"cat":"fwdbwd","name":"fwdbwd"})"};
    Splitter s(load(sstest::e6Trace(sstest::e6Steps(), extra)));
    SplitResult a = s.plan(steady(8));
    const ChunkPlan& pd = a.chunks[2];  // [4,5): correlations 21..25
    QCOMPARE(pd.stats.numGpuEvents, int64_t(6));
    QCOMPARE(pd.stats.gpuBusyDuration.i, int64_t(210));
    QCOMPARE(pd.stats.eventCount, int64_t(29));
    SplitOptions o = steady(8);
    o.fixes.gpuAnnotationsNotWork = true;
    o.fixes.flowsAc2gOnly = true;
    o.fixes.dedupeGpuEvents = true;
    o.fixes.noBatchOverride = true;
    SplitResult b = s.plan(o);
    QCOMPARE(b.chunks[2].stats.numGpuEvents, int64_t(5));
    QCOMPARE(b.chunks[2].stats.gpuBusyDuration.i, int64_t(200));
    QCOMPARE(b.chunks[2].stats.eventCount, int64_t(28));
  }
  void decision_B7_shape_misalignment() {
    // Spec §8 B7: batch sizes [none, 32, 32, 32, 900], --max-num-seq 64, num_steps 2 -> region (0, 3);
    // max_prefilldecode finds no window.
    std::vector<std::optional<int64_t>> bs = {std::nullopt, 32, 32, 32, 900};
    ModeSelection m = shapeFinder(bs, SteadyMode::Mixed, 2, 64);
    QCOMPARE(m.scan.regions, (std::vector<Region>{{0, 3}}));
    QCOMPARE(shapeFinder(bs, SteadyMode::MaxPrefillDecode, 2, 64).window.size(), int64_t(0));
  }
  void decision_busy_ratio_column() {
    SplitOptions o = steady(8);
    o.busyRatioColumn = true;
    SplitResult r = planE6(o);
    QVERIFY(QString::fromStdString(r.executionDetailsCsv)
                .startsWith("idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,busy_ratio,"
                            "phase_num_prefill"));
    QVERIFY(QString::fromStdString(r.executionDetailsCsv).contains(",3520,1600,0.45,0,2,6,143,16,8\n"));
  }
  void structured_result_json_and_write() {
    QTemporaryDir dir;
    Splitter s(load(sstest::e6Trace(sstest::e6Steps())));
    SplitOptions o = steady(8, dir.filePath("out").toStdString());
    SplitResult r = s.plan(o);
    JsonValue j = splitResultToJson(r);
    QCOMPARE(QString::fromStdString(j.find("outcome")->asString()), QString("split"));
    QCOMPARE(j.find("roots")->items().size(), size_t(48));
    QCOMPARE(j.find("windows")->items()[0].find("candidates")->items().size(), size_t(19));
    QVERIFY(s.write(r).ok());
    QVERIFY(QFile::exists(dir.filePath("out/split_manifest.json")));
    // chunk file: gzip JSON with the top-level keys in order and the events verbatim
    gzFile gz = gzopen(
        dir.filePath("out/prefilldecode_steady_state_prefill_0_prefilldecode_1_decode_0_bs527_conc16_foo.json.gz")
            .toLocal8Bit()
            .constData(),
        "rb");
    QVERIFY(gz);
    std::string text;
    char buf[65536];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
    gzclose(gz);
    QVERIFY(text.rfind("{\"traceEvents\": [", 0) == 0);
    QVERIFY(text.find("\"schemaVersion\": 1, \"deviceProperties\"") != std::string::npos);
    auto re = loadTraceFromString(text, "chunk.json");
    QVERIFY(re.ok());
    QCOMPARE(re.value()->size(), size_t(27));
    // re-planning with other parameters reuses the loaded model
    SplitResult r2 = s.plan(steady(4, "x"));
    QCOMPARE(r2.windows[0].window.size(), int64_t(4));
  }

  // Without shapes every LLM mode falls back to the one duration window: its
  // file is made once and copied to the others' names. Each is its own file
  // (not a link) with the same bytes; a copy that cannot be written names its file.
  void chunksWithTheSameEventsAreMadeOnce() {
    QTemporaryDir dir;
    Splitter s(load(sstest::e14Trace()));
    SplitOptions o = steady(4, dir.filePath("out").toStdString());
    o.llmInference = true;
    SplitResult r = s.plan(o);
    QCOMPARE(r.chunks.size(), size_t(3));
    QVERIFY(r.chunks[0].events == r.chunks[1].events && r.chunks[0].events == r.chunks[2].events);
    QVERIFY(s.write(r).ok());
    const QString first = dir.filePath("out/" + QString::fromStdString(r.chunks[0].fileName));
    QVERIFY(!readAll(first).isEmpty());
    struct stat st0 {};
    QCOMPARE(::stat(first.toLocal8Bit().constData(), &st0), 0);
    for (size_t k = 1; k < r.chunks.size(); ++k) {
      const QString f = dir.filePath("out/" + QString::fromStdString(r.chunks[k].fileName));
      QFile in(f);
      QVERIFY(in.open(QIODevice::ReadOnly));
      QCOMPARE(in.readAll(), readAll(first));
      struct stat st {};
      QCOMPARE(::stat(f.toLocal8Bit().constData(), &st), 0);
      QVERIFY(st.st_ino != st0.st_ino);
      QCOMPARE(st.st_nlink, nlink_t(1));
    }
    // A folder where the last copy goes: the split fails naming that file and leaves the folder as it was.
    QTemporaryDir dir2;
    o.outputDir = dir2.filePath("out").toStdString();
    SplitResult r2 = s.plan(o);
    QVERIFY(QDir().mkpath(dir2.filePath("out/" + QString::fromStdString(r2.chunks[2].fileName))));
    auto w = s.write(r2);
    QVERIFY(!w.ok());
    QVERIFY2(QString::fromStdString(w.error().describe()).contains(QString::fromStdString(r2.chunks[2].fileName)),
             w.error().describe().c_str());
    QVERIFY(!QFile::exists(dir2.filePath("out/split_manifest.json")));
  }

  // Chunks are written two at a time: when one cannot be written, the error
  // names that file, every other chunk is whole or absent, no temporary file
  // is left, and neither the manifest nor the details are written.
  void write_failure_of_one_chunk() {
    QTemporaryDir dir;
    Splitter s(load(sstest::e6Trace(sstest::e6Steps())));
    SplitOptions o;
    o.outputDir = dir.filePath("out").toStdString();
    o.storeSingleIteration = true;  // one chunk per iteration: 48 files
    SplitResult r = s.plan(o);
    QVERIFY(r.chunks.size() > 8);
    const std::string blocked = r.chunks[5].fileName;
    QVERIFY(QDir().mkpath(dir.filePath("out/" + QString::fromStdString(blocked))));  // a folder where the file goes
    auto w = s.write(r);
    QVERIFY(!w.ok());
    const QString msg = QString::fromStdString(w.error().describe());
    QVERIFY2(msg.contains(QString::fromStdString(blocked)), qPrintable(msg));
    QVERIFY(!QFile::exists(dir.filePath("out/split_manifest.json")));
    QVERIFY(!QFile::exists(dir.filePath("out/execution_details.csv")));
    QVERIFY(!QFile::exists(dir.filePath("out/execution_details.json")));
    const QStringList left = QDir(dir.filePath("out")).entryList(QDir::Files);
    for (const QString& f : left) {
      QVERIFY2(!f.contains(".tmp-"), qPrintable(f));
      auto re = loadTrace(dir.filePath("out/" + f).toStdString(), {});
      QVERIFY2(re.ok(), qPrintable(f));
    }
    // With the obstacle gone the same result writes completely.
    QVERIFY(QDir(dir.filePath("out/" + QString::fromStdString(blocked))).removeRecursively());
    QVERIFY(s.write(r).ok());
    QCOMPARE(QDir(dir.filePath("out")).entryList(QDir::Files).size(), qsizetype(r.chunks.size() + 3));
  }
};

QTEST_GUILESS_MAIN(TestSplitterUnits)
#include "tst_splitter_units.moc"
