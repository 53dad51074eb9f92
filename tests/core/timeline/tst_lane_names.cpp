// The timeline's lanes on every real trace of shared/traces/real: each named
// once without repeating its id, no empty lane shown, no thread twice, the
// profiler's own marks collapsed; and the same on a hand-built trace that
// names one thread twice.
#include "support/shared_data.hpp"
#include "trace_builder.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/timeline/track_layout.hpp>

#include <QDirIterator>
#include <QRegularExpression>
#include <QTest>

#include <set>

using namespace steadyscope;
using namespace steadyscope::timeline;

namespace {
const QString kReal = QStringLiteral(STEADYSCOPE_SHARED_DIR "/traces/real");

// "stream 7 (stream 7 )", "thread 5 (thread 5)": the id said twice (as a whole
// word), more often than the trace's own name for it says it ("trainer:0:0").
bool repeatsId(const std::string& label, const std::string& id, const std::string& givenName = {}) {
  if (id.empty()) return false;
  const QRegularExpression word(
      QStringLiteral("(?<![\\w])%1(?![\\w])").arg(QRegularExpression::escape(QString::fromStdString(id))));
  return QString::fromStdString(label).count(word) >
         std::max<qsizetype>(1, QString::fromStdString(givenName).count(word));
}
}  // namespace

class TstLaneNames : public QObject {
  Q_OBJECT
 private slots:
  void realTraces_data();
  void realTraces();
  void sameThreadNamedTwice();
  void profilerSpanCollapsed();
  void filterAndPin();
  void unsignedThreadIds();
  void processLabelsName();
  void bookkeepingHidden();
  void bookkeepingOnRealTrace();
};

void TstLaneNames::realTraces_data() {
  QTest::addColumn<QString>("path");
  QDirIterator it(kReal, {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files,
                  QDirIterator::Subdirectories);
  QStringList paths;
  while (it.hasNext()) paths << it.next();
  paths.sort();
  for (const QString& p : paths) QTest::newRow(qPrintable(p.mid(kReal.size() + 1))) << p;
  if (paths.isEmpty()) QTest::newRow("missing") << kReal;
}

void TstLaneNames::realTraces() {
  QFETCH(QString, path);
  SHARED_OR_SKIP(path);
  auto r = loadTrace(path.toStdString());
  if (!r.ok()) QSKIP("not a loadable trace (the loader's own tests cover it)");
  const Trace& t = *r.value();
  auto ix = buildTimelineIndex(t);
  const auto groups = buildTrackGroups(t, *ix);
  int lanes = 0;
  for (const TrackGroup& g : groups) {
    std::set<std::string> labels, keys;
    for (const LaneView& v : g.lanes) {
      ++lanes;
      QVERIFY2(!v.label.empty(), g.label.c_str());
      QVERIFY2(!repeatsId(v.label, laneKey(t, v.lanes.front())), v.label.c_str());
      QVERIFY2(keys.insert(laneKey(t, v.lanes.front())).second, ("thread twice: " + v.label).c_str());
      QVERIFY2(labels.insert(v.label).second, ("named twice: " + v.label).c_str());
      uint64_t slices = 0;
      for (uint32_t l : v.lanes) {
        slices += ix->lanes[l].sliceCount;
        QCOMPARE(laneKey(t, l), laneKey(t, v.lanes.front()));
        QVERIFY(!(t.keyText(t.lanes[l].pid).empty() && t.keyText(t.lanes[l].tid).empty()));
      }
      QVERIFY2(slices > 0, ("empty lane: " + v.label).c_str());
    }
    // The trace's own words for the process may say its id ("GPU 0", "trainer:0:0"); the label adds it at most once.
    auto pn = t.processNames.find(g.pid);
    auto pl = t.processLabels.find(g.pid);
    const std::string given = (pl == t.processLabels.end() ? std::string() : pl->second) + " " +
                              (pn == t.processNames.end() ? std::string() : pn->second);
    QVERIFY2(!repeatsId(g.label, idText(t, g.pid), given), g.label.c_str());
    QVERIFY2(!g.bookkeeping || (g.device < 0 && (g.lanes.empty() || g.pid.type == JsonKey::Type::Str)),
             g.label.c_str());
    // A signed 32-bit view of an unsigned thread id ("-1107294656") is never shown.
    static const QRegularExpression negativeId(QStringLiteral("-[0-9]{2,}"));
    for (const LaneView& v : g.lanes) QVERIFY2(!QString::fromStdString(v.label).contains(negativeId), v.label.c_str());
  }
  QVERIFY(lanes > 0 || ix->sliceCount == 0);
}

void TstLaneNames::sameThreadNamedTwice() {
  testing::TraceBuilder b;
  b.add(25738, 25738, "aten::mm", "cpu_op", 1000, 500);
  b.add(25738, 25772, "aten::add", "cpu_op", 1000, 500);
  Trace& t = b.trace();
  const EventIdx m = b.add(25738, 0, "[memory]", "", 1200, 0);
  // The same thread as a string tid, the way Kineto writes its [memory] instants' lane.
  const StrId s = t.strings.intern("25738");
  t.lanes[t.lane[m]].tid = {JsonKey::Type::Str, int64_t(s), 0.0};
  t.threadNames[{t.lanes[0].pid, t.lanes[0].tid}] = "thread 25738 (python)";
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const auto groups = buildTrackGroups(*trace, *ix);
  QCOMPARE(groups.size(), size_t(1));
  QCOMPARE(groups[0].lanes.size(), size_t(2));
  QCOMPARE(groups[0].lanes[0].label, std::string("thread 25738 (python)"));
  QCOMPARE(groups[0].lanes[0].lanes.size(), size_t(2));
  QCOMPARE(groups[0].lanes[1].label, std::string("thread 25772"));
}

void TstLaneNames::profilerSpanCollapsed() {
  testing::TraceBuilder b;
  for (int k = 0; k < 50; ++k) b.add(1, 1, "step", "user_annotation", k * 1000, 900);
  b.add(2, 2, "PyTorch Profiler (0)", "Trace", 0, 50'000);
  b.add(3, 3, "Iteration Start", "", 10, 0);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const auto groups = buildTrackGroups(*trace, *ix);
  QCOMPARE(groups.size(), size_t(3));
  QCOMPARE(groups[0].lanes[0].collapsed, false);
  QVERIFY(groups[1].lanes[0].collapsed && groups[1].lanes[0].longSpan);  // the span
  QVERIFY(groups[2].lanes[0].collapsed);                                 // the marker
  const TrackLayout l = layoutTracks(*ix, groups);
  for (const Track& tk : l.tracks)
    if (tk.kind == TrackKind::Slices && tk.group > 0) QCOMPARE(tk.height, LayoutParams{}.collapsedHeight);
}

void TstLaneNames::filterAndPin() {
  testing::TraceBuilder b;
  b.add(1, 1, "a", "cpu_op", 0, 10);
  b.add(1, 2, "b", "cpu_op", 0, 10);
  b.add(0, 7, "k", "kernel", 0, 10);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  auto groups = buildTrackGroups(*trace, *ix);
  LayoutParams p;
  p.filter = "THREAD 2";
  TrackLayout l = layoutTracks(*ix, groups, p);
  int slices = 0;
  for (const Track& tk : l.tracks) slices += tk.kind == TrackKind::Slices;
  QCOMPARE(slices, 1);
  groups[1].lanes[1].pinned = true;  // thread 2 to the top
  l = layoutTracks(*ix, groups);
  QCOMPARE(l.tracks[0].kind, TrackKind::Slices);
  QCOMPARE(groups[l.tracks[0].group].lanes[l.tracks[0].view].label, std::string("thread 2"));
}

void TstLaneNames::unsignedThreadIds() {
  testing::TraceBuilder b;
  b.add(4515, -1107294656, "cudaEventQuery", "cuda_runtime", 0, 10);
  b.add(4515, -1, "Context Sync", "cuda_sync", 0, 10);
  b.add(4515, 25556, "aten::mm", "cpu_op", 0, 10);
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const auto groups = buildTrackGroups(*trace, *ix);
  QCOMPARE(groups.size(), size_t(1));
  std::set<std::string> labels;
  for (const LaneView& v : groups[0].lanes) labels.insert(v.label);
  // Kineto's pthread id through a signed 32-bit int: 3187672640 - 2^32; -1 is a sentinel, not an id.
  QCOMPARE(labels, (std::set<std::string>{"thread 3187672640", "thread -1", "thread 25556"}));
  QCOMPARE(idText(*trace, trace->lanes[0].tid), std::string("3187672640"));
  QCOMPARE(idText(*trace, {JsonKey::Type::Int, INT32_MIN, 0.0}), std::string("2147483648"));
  QCOMPARE(idText(*trace, {JsonKey::Type::Int, int64_t(INT32_MIN) - 1, 0.0}), std::string("-2147483649"));
}

void TstLaneNames::processLabelsName() {
  testing::TraceBuilder b;
  b.add(19392, 19392, "aten::mm", "cpu_op", 0, 10);
  b.add(2, 7, "gemm", "kernel", 0, 10);
  b.add(3, 3, "aten::add", "cpu_op", 0, 10);
  b.add(8, 8, "aten::add", "cpu_op", 0, 10);
  Trace& t = b.trace();
  const JsonKey cpu{JsonKey::Type::Int, 19392, 0.0}, gpu{JsonKey::Type::Int, 2, 0.0}, three{JsonKey::Type::Int, 3, 0.0};
  t.processNames[cpu] = "python3";
  t.processLabels[cpu] = "CPU";
  t.processNames[gpu] = "python3";
  t.processLabels[gpu] = "GPU 2";
  t.processNames[three] = "python3";  // "3" inside "python3" is not the id said
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  std::set<std::string> labels;
  for (const TrackGroup& g : buildTrackGroups(*trace, *ix)) labels.insert(g.label);
  QCOMPARE(labels, (std::set<std::string>{"GPU 2 · python3", "CPU · python3 (19392)", "python3 (3)", "process 8"}));
}

void TstLaneNames::bookkeepingHidden() {
  testing::TraceBuilder b;
  for (int k = 0; k < 50; ++k) b.add(1, 1, "step", "user_annotation", k * 1000, 900);
  const EventIdx span = b.add(2, 2, "PyTorch Profiler (0)", "Trace", 0, 50'000);
  Trace& t = b.trace();
  // Kineto's own process: a string pid ("Spans") holding its span; and a process with a name only.
  t.lanes[t.lane[span]].pid = {JsonKey::Type::Str, int64_t(t.strings.intern("Spans")), 0.0};
  t.processNames[{JsonKey::Type::Int, 5, 0.0}] = "python3";
  auto trace = b.finish();
  auto ix = buildTimelineIndex(*trace);
  const auto groups = buildTrackGroups(*trace, *ix);
  QCOMPARE(groups.size(), size_t(3));
  QVERIFY(!groups[0].bookkeeping);
  QVERIFY(groups[1].bookkeeping && groups[2].bookkeeping);
  auto groupsLaidOut = [&](const LayoutParams& p) {
    std::set<uint32_t> in;
    for (const Track& tk : layoutTracks(*ix, groups, p).tracks) in.insert(tk.group);
    return in;
  };
  QCOMPARE(groupsLaidOut({}), (std::set<uint32_t>{0}));
  LayoutParams all;
  all.showBookkeeping = true;
  QCOMPARE(groupsLaidOut(all), (std::set<uint32_t>{0, 1, 2}));
  // The layout ends with its last lane: nothing laid out below it but the one gap.
  const TrackLayout l = layoutTracks(*ix, groups);
  QCOMPARE(l.totalHeight, l.tracks.back().y + l.tracks.back().height + LayoutParams{}.laneGap);
}

void TstLaneNames::bookkeepingOnRealTrace() {
  const QString path = kReal + QStringLiteral("/hta/negative_queue_length_values_check/rank0.json.gz");
  SHARED_OR_SKIP(path);
  auto r = loadTrace(path.toStdString());
  QVERIFY(r.ok());
  const Trace& t = *r.value();
  QCOMPARE(t.processLabels.at({JsonKey::Type::Int, 4515, 0.0}), std::string("CPU"));
  auto ix = buildTimelineIndex(t);
  std::set<std::string> shown, kept;
  const auto groups = buildTrackGroups(t, *ix);
  for (const TrackGroup& g : groups) (g.bookkeeping ? kept : shown).insert(g.label);
  QCOMPARE(shown, (std::set<std::string>{"GPU 0 · pyper:trainer:0:0", "CPU · pyper:trainer:0:0 (4515)"}));
  QVERIFY(kept.count("Spans") && kept.count("Traces") && kept.count("GPU 7 · pyper:trainer:0:0"));
  std::set<std::string> lanes;
  for (const TrackGroup& g : groups)
    for (const LaneView& v : g.lanes) lanes.insert(v.label);
  QVERIFY(lanes.count("thread 3187672640"));  // written as -1107294656
}

QTEST_GUILESS_MAIN(TstLaneNames)
#include "tst_lane_names.moc"
