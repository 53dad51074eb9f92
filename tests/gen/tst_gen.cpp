// Tests of steadyscope-gen: determinism, validity of every style and awkward
// option (parsed with simdjson's DOM API, counts equal the printed ground
// truth), gzip output and atomic writing, pinned bytes of existing styles and
// the call-tree-only training variant (--annotation none --python-functions).
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

struct RunResult {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
};

RunResult runGen(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_GEN), args);
  RunResult r;
  if (!p.waitForFinished(60000)) return r;
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray gunzip(const QString& path) {
  QByteArray out;
  gzFile gz = gzopen(QFile::encodeName(path).constData(), "rb");
  if (!gz) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(gz);
  return out;
}

// What a splitter's name parser derives (spec §2.4): (context, generation).
std::pair<long, long> parsedCounts(const QString& name) {
  static const QRegularExpression vllmDetailed(QStringLiteral(
      R"(^execute_\d+_context_(\d+)\(sq\d+sk\d+sqsq\d+sqsk\d+\)_generation_(\d+)\(sq\d+sk\d+sqsq\d+sqsk\d+\))"));
  static const QRegularExpression vllmNative(
      QStringLiteral(R"(^execute_context_(\d+)\(\d+\)_generation_(\d+)\(\d+\))"));
  static const QRegularExpression kv(QStringLiteral(R"((\w+)=(\d+))"));
  static const QRegularExpression atom(QStringLiteral(R"(^(prefill|decode)\[bs=(\d+))"));
  if (auto m = vllmDetailed.match(name); m.hasMatch()) return {m.captured(1).toLong(), m.captured(2).toLong()};
  if (auto m = vllmNative.match(name); m.hasMatch()) return {m.captured(1).toLong(), m.captured(2).toLong()};
  if (name.startsWith(QLatin1String("step["))) {
    const QString mode = name.mid(5).section(QLatin1Char(' '), 0, 0).toUpper();
    std::map<QString, long> v;
    for (auto it = kv.globalMatch(name); it.hasNext();) {
      const auto m = it.next();
      v[m.captured(1)] = m.captured(2).toLong();
    }
    if (mode == QLatin1String("DECODE")) return {0, v["bs"]};
    if (mode == QLatin1String("MIXED") && v.count(QStringLiteral("c"))) return {v["c"], v["g"]};
    return {v["bs"], 0};
  }
  if (auto m = atom.match(name); m.hasMatch())
    return m.captured(1) == QLatin1String("prefill") ? std::pair{m.captured(2).toLong(), 0L}
                                                     : std::pair{0L, m.captured(2).toLong()};
  if (name.startsWith(QLatin1String("execute_diffusion_"))) return {0, 0};
  return {0, 1};  // unparsed: one-request decode step
}

// The §2.3 pattern each style's roots must prefix-match.
QRegularExpression rootPattern(const QString& style, const QString& annotation) {
  const bool det = annotation == QLatin1String("detailed");
  QString re;
  if (style == QLatin1String("vllm"))
    re = det ? R"(^execute_\d+_context_\d+\(sq\d+sk\d+sqsq\d+sqsk\d+\)_generation_\d+\(sq\d+sk\d+sqsq\d+sqsk\d+\))"
             : R"(^execute_context_\d+\(\d+\)_generation_\d+\(\d+\))";
  else if (style == QLatin1String("sglang"))
    re = det ? R"(^step\[(?:EXTEND|DECODE|MIXED)\b[^\]]*sqsq=\d+[^\]]*\])"
             : R"(^step\[(\w+)\s+bs=(\d+)(?:\s+toks=(\d+))?\])";
  else if (style == QLatin1String("atom"))
    re = det ? R"(^(prefill|decode)\[.*sqsq=\d+.*\])" : R"(^(prefill|decode)\[(.*)\])";
  else if (style == QLatin1String("diffusion"))
    re = R"(^execute_diffusion_(\d+)_(\d+x\d+))";
  else
    re = R"(^ProfilerStep#\d+$)";
  return QRegularExpression(re, QRegularExpression::CaseInsensitiveOption);
}

// Everything the test recounts from the trace itself.
struct Recount {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> byPh, byCat;
  std::uint64_t gpu = 0, metaNoTs = 0, missingDur = 0, negativeDur = 0;
  std::uint64_t roots = 0, mirrors = 0, overlaps = 0, graphOnlyLaunches = 0;
  std::uint64_t prefillOnly = 0, prefillDecode = 0, decodeOnly = 0, idle = 0;
  std::uint64_t unmatchedFlows = 0, orphanGpu = 0, rootsNotMatching = 0;
  std::vector<std::string> minified;
  double firstCollective = 0, otherCollectiveSum = 0;
  std::uint64_t collectives = 0;
};

bool isGpuCat(std::string_view c) {
  return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset";
}

std::string idKey(simdjson::dom::element e) {
  if (e.is_string()) return "s:" + std::string(std::string_view(e));
  return "i:" + std::to_string(int64_t(e));
}

struct GpuSpan {
  double ts, end;
};

class Counter {
 public:
  Recount r;
  QRegularExpression pattern;
  bool keepMinified = false;

  void event(simdjson::dom::object ev) {
    ++r.total;
    const std::string ph{std::string_view(ev["ph"])};
    ++r.byPh[ph];
    std::string_view cat;
    if (ev["cat"].get(cat) == simdjson::SUCCESS) ++r.byCat[std::string(cat)];
    if (keepMinified) r.minified.push_back(simdjson::minify(ev));
    if (ph == "M" && ev["ts"].error()) ++r.metaNoTs;
    if (ph == "s") flowsS.insert(int64_t(ev["id"]));
    if (ph == "f") flowsF.insert(int64_t(ev["id"]));
    if (ph == "X") complete(ev, cat);
  }

  void finish() {
    for (auto& [track, spans] : gpuByTrack) {
      std::stable_sort(spans.begin(), spans.end(), [](const GpuSpan& a, const GpuSpan& b) { return a.ts < b.ts; });
      double maxEnd = -1e300;
      for (const auto& s : spans) {
        r.overlaps += s.ts < maxEnd ? 1 : 0;
        maxEnd = std::max(maxEnd, s.end);
      }
    }
    for (auto id : flowsS) r.unmatchedFlows += flowsF.count(id) ? 0 : 1;
    for (auto id : flowsF) r.unmatchedFlows += flowsS.count(id) ? 0 : 1;
    for (auto c : gpuCorr) r.orphanGpu += runtimeCorr.count(c) ? 0 : 1;
    for (auto c : graphLaunchCorr) r.graphOnlyLaunches += gpuCorr.count(c) ? 0 : 1;
  }

 private:
  void complete(simdjson::dom::object ev, std::string_view cat) {
    double dur = 0;
    const bool hasDur = ev["dur"].get(dur) == simdjson::SUCCESS;
    r.missingDur += hasDur ? 0 : 1;
    r.negativeDur += hasDur && dur < 0 ? 1 : 0;
    const std::string_view name(ev["name"]);
    if (cat == "user_annotation") root(QString::fromUtf8(name.data(), int(name.size())));
    if (cat == "gpu_user_annotation") ++r.mirrors;
    int64_t corr = 0;
    const bool hasCorr = ev["args"]["correlation"].get(corr) == simdjson::SUCCESS;
    if (isGpuCat(cat)) {
      ++r.gpu;
      const double ts = double(ev["ts"]);
      gpuByTrack[idKey(ev["pid"]) + "/" + idKey(ev["tid"])].push_back({ts, ts + dur});
      if (hasCorr) gpuCorr.insert(corr);
      if (name.find("AllReduce") != std::string_view::npos) collective(dur);
    } else if ((cat == "cuda_runtime" || cat == "Runtime") && hasCorr) {
      runtimeCorr.insert(corr);
      if (name == "cudaGraphLaunch") graphLaunchCorr.insert(corr);
    }
  }

  void collective(double dur) {
    if (r.collectives++ == 0)
      r.firstCollective = dur;
    else
      r.otherCollectiveSum += dur;
  }

  void root(const QString& name) {
    ++r.roots;
    r.rootsNotMatching += pattern.match(name).hasMatch() ? 0 : 1;
    const auto [c, g] = parsedCounts(name);
    if (c > 0)
      ++(g > 0 ? r.prefillDecode : r.prefillOnly);
    else
      ++(g > 0 ? r.decodeOnly : r.idle);
  }

  std::set<int64_t> flowsS, flowsF, gpuCorr, runtimeCorr, graphLaunchCorr;
  std::map<std::string, std::vector<GpuSpan>> gpuByTrack;
};

std::uint64_t u(simdjson::dom::element e) { return uint64_t(e); }

// One X event of the call-tree check, with what the check needs of its args.
struct Span {
  std::string cat, name, track;
  double ts = 0, end = 0;
  int64_t pyId = -1, pyParent = -1;  // python_function; parent 0 = null
  int64_t corr = -1;
  bool contains(const Span& o) const { return track == o.track && ts <= o.ts && o.end <= end; }
};

struct Flow {
  std::string track, cat;
  double ts = 0;
  bool bindEnclosing = false;  // "bp": "e"
};

// The events of a trace that the call-tree checks look at.
struct CallTreeScan {
  std::vector<Span> python, cpuOps, runtime, kernels;
  std::map<int64_t, Flow> flowS, flowF;
  std::uint64_t annotations = 0, profilerStepNames = 0;

  void read(const QByteArray& trace) {
    simdjson::dom::parser parser;
    for (simdjson::dom::element e : parser.parse(trace.constData(), size_t(trace.size()))["traceEvents"].get_array())
      event(e.get_object());
  }

 private:
  void event(simdjson::dom::object ev) {
    const std::string_view ph(ev["ph"]);
    std::string_view cat, name;
    if (ev["cat"].get(cat) != simdjson::SUCCESS) cat = {};  // M, E and i events have none
    if (ev["name"].get(name) != simdjson::SUCCESS) name = {};
    if (cat == "user_annotation" || cat == "gpu_user_annotation") ++annotations;
    if (name.find("ProfilerStep") != std::string_view::npos) ++profilerStepNames;
    const std::string track = idKey(ev["pid"]) + "/" + idKey(ev["tid"]);
    if (ph == "s" || ph == "f") {
      std::string_view bp;
      const bool enclosing = ev["bp"].get(bp) == simdjson::SUCCESS && bp == "e";
      (ph == "s" ? flowS : flowF)[int64_t(ev["id"])] = {track, std::string(cat), double(ev["ts"]), enclosing};
    }
    if (ph != "X") return;
    Span sp{std::string(cat), std::string(name), track, double(ev["ts"]), 0};
    sp.end = sp.ts + double(ev["dur"]);
    const auto args = ev["args"];
    if (args["correlation"].get(sp.corr) != simdjson::SUCCESS) sp.corr = -1;
    if (cat == "python_function") {
      sp.pyId = int64_t(args["Python id"]);
      sp.pyParent = args["Python parent id"].is_null() ? 0 : int64_t(args["Python parent id"]);
      python.push_back(sp);
    } else if (cat == "cpu_op") {
      cpuOps.push_back(sp);
    } else if (cat == "cuda_runtime") {
      runtime.push_back(sp);
    } else if (cat == "kernel") {
      kernels.push_back(sp);
    }
  }
};

// Index of the span in `frames` (sorted by ts, disjoint) that contains `e`, or -1.
int enclosing(const std::vector<Span>& frames, const Span& e) {
  auto it = std::upper_bound(frames.begin(), frames.end(), e.ts, [](double ts, const Span& f) { return ts < f.ts; });
  if (it == frames.begin()) return -1;
  --it;
  return it->contains(e) ? int(it - frames.begin()) : -1;
}

QString stripLine(const std::string& name) {
  static const QRegularExpression line(QStringLiteral(R"(\(\d+\): )"));
  return QString::fromStdString(name).replace(line, QStringLiteral(": "));
}

}  // namespace

class TestGen : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  QString path(const QString& name) const { return dir_.filePath(name); }

  // Runs the generator; returns the trace text and the truth document text.
  bool generate(const QStringList& extra, const QString& out, QByteArray& trace, std::string& truth) {
    const QString truthPath = out + QStringLiteral(".truth.json");
    const auto r = runGen(QStringList{QStringLiteral("-o"), out, QStringLiteral("--truth"), truthPath} + extra);
    if (r.exitCode != 0) {
      qWarning("generator failed: %s", r.err.constData());
      return false;
    }
    trace = out.endsWith(QLatin1String(".gz")) ? gunzip(out) : readAll(out);
    const QByteArray t = readAll(truthPath);
    truth.assign(t.constData(), size_t(t.size()));
    // stdout carries the same ground truth unless --quiet
    return extra.contains(QStringLiteral("--quiet")) ? r.out.isEmpty() : r.out == t;
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void help() {
    const auto r = runGen({QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("--target-bytes"));
    QVERIFY(r.out.contains("--python-functions"));
    // The call-tree-only variant exists for training alone.
    for (const char* bad : {"--annotation=none", "--python-functions"})
      QCOMPARE(runGen({QStringLiteral("-o"), path("x.json"), QString::fromLatin1(bad)}).exitCode, 2);
    QCOMPARE(runGen({QStringLiteral("--no-such-option")}).exitCode, 2);
    QCOMPARE(
        runGen({QStringLiteral("-o"), path("x.json"), QStringLiteral("--style"), QStringLiteral("bogus")}).exitCode, 2);
    QVERIFY(!QFile::exists(path("x.json")));
  }

  void determinism() {
    const QStringList args{QStringLiteral("--steps"), QStringLiteral("40"), QStringLiteral("--quiet")};
    auto seeded = [&](const QString& name, const QString& seed) {
      const auto r = runGen(QStringList{QStringLiteral("-o"), path(name), QStringLiteral("--seed"), seed} + args);
      return r.exitCode == 0 ? readAll(path(name)) : QByteArray();
    };
    const QByteArray a = seeded(QStringLiteral("d1.json"), QStringLiteral("7"));
    const QByteArray b = seeded(QStringLiteral("d2.json"), QStringLiteral("7"));
    const QByteArray c = seeded(QStringLiteral("d3.json"), QStringLiteral("8"));
    QVERIFY(!a.isEmpty());
    QCOMPARE(a, b);
    QVERIFY(a != c);
  }

  void matchesTruth_data() {
    QTest::addColumn<QString>("style");
    QTest::addColumn<QString>("annotation");
    QTest::addColumn<QStringList>("extra");
    const QString n = QStringLiteral("native"), d = QStringLiteral("detailed");
    for (const char* s : {"vllm", "sglang", "atom"}) {
      QTest::addRow("%s-native", s) << QString::fromLatin1(s) << n << QStringList{};
      QTest::addRow("%s-detailed", s) << QString::fromLatin1(s) << d << QStringList{};
    }
    QTest::newRow("diffusion") << QStringLiteral("diffusion") << n << QStringList{};
    QTest::newRow("training") << QStringLiteral("training") << n
                              << QStringList{QStringLiteral("--first-collective-factor"), QStringLiteral("6")};
    QTest::newRow("graph-steps") << QStringLiteral("vllm") << n
                                 << QStringList{QStringLiteral("--graph-steps"), QStringLiteral("0.5")};
    const QString none = QStringLiteral("none"), py = QStringLiteral("--python-functions");
    QTest::newRow("training-none") << QStringLiteral("training") << none << QStringList{};
    QTest::newRow("training-none-python") << QStringLiteral("training") << none << QStringList{py};
    QTest::newRow("training-python") << QStringLiteral("training") << n << QStringList{py};
    QTest::newRow("training-none-python-awkward")
        << QStringLiteral("training") << none
        << QStringList{py, QStringLiteral("--graph-steps"), QStringLiteral("0.3"), QStringLiteral("--be-pairs"),
                       QStringLiteral("--unsorted")};
    QTest::newRow("graph-training") << QStringLiteral("training") << n
                                    << QStringList{QStringLiteral("--graph-steps"), QStringLiteral("0.3")};
    QTest::newRow("be-pairs") << QStringLiteral("vllm") << n << QStringList{QStringLiteral("--be-pairs")};
    QTest::newRow("bad-dur") << QStringLiteral("sglang") << d
                             << QStringList{QStringLiteral("--bad-dur"), QStringLiteral("0.2")};
    QTest::newRow("string-ids") << QStringLiteral("atom") << n << QStringList{QStringLiteral("--string-ids")};
    QTest::newRow("old-categories") << QStringLiteral("training") << n
                                    << QStringList{QStringLiteral("--old-categories")};
    QTest::newRow("unsorted") << QStringLiteral("vllm") << d << QStringList{QStringLiteral("--unsorted")};
    QTest::newRow("overlap") << QStringLiteral("vllm") << n << QStringList{QStringLiteral("--overlap-kernels")};
    QTest::newRow("epoch") << QStringLiteral("diffusion") << n << QStringList{QStringLiteral("--epoch")};
    QTest::newRow("everything")
        << QStringLiteral("sglang") << n
        << QStringList{
               QStringLiteral("--be-pairs"),        QStringLiteral("--bad-dur"),        QStringLiteral("0.1"),
               QStringLiteral("--string-ids"),      QStringLiteral("--old-categories"), QStringLiteral("--unsorted"),
               QStringLiteral("--overlap-kernels"), QStringLiteral("--graph-steps"),    QStringLiteral("0.3")};
  }

  void matchesTruth() {
    QFETCH(QString, style);
    QFETCH(QString, annotation);
    QFETCH(QStringList, extra);
    const QString out = path(QStringLiteral("t_%1.json").arg(QString::fromLatin1(QTest::currentDataTag())));
    QByteArray trace;
    std::string truthText;
    QVERIFY(generate(
        QStringList{QStringLiteral("--style"), style, QStringLiteral("--annotation"), annotation,
                    QStringLiteral("--steps"), QStringLiteral("60"), QStringLiteral("--seed"), QStringLiteral("3")} +
            extra,
        out, trace, truthText));

    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    QCOMPARE(parser.parse(trace.constData(), size_t(trace.size())).get(doc), simdjson::SUCCESS);
    Counter counter;
    counter.pattern = rootPattern(style, annotation);
    for (simdjson::dom::element e : doc["traceEvents"].get_array()) counter.event(e.get_object());
    counter.finish();
    Recount& r = counter.r;
    QCOMPARE(std::string_view(doc["displayTimeUnit"]), std::string_view("ms"));

    simdjson::dom::parser truthParser;
    simdjson::dom::element t;
    QCOMPARE(truthParser.parse(truthText).get(t), simdjson::SUCCESS);
    QCOMPARE(u(t["bytes"]["json"]), uint64_t(trace.size()));
    QCOMPARE(u(t["events"]["total"]), r.total);
    for (auto [ph, n] : t["events"]["by_ph"].get_object()) QCOMPARE(u(n), r.byPh[std::string(ph)]);
    QCOMPARE(t["events"]["by_ph"].get_object().size(), r.byPh.size());
    for (auto [cat, n] : t["events"]["by_cat"].get_object()) QCOMPARE(u(n), r.byCat[std::string(cat)]);
    QCOMPARE(t["events"]["by_cat"].get_object().size(), r.byCat.size());
    QCOMPARE(u(t["events"]["gpu"]), r.gpu);
    QCOMPARE(u(t["events"]["metadata_without_ts"]), r.metaNoTs);
    QVERIFY(r.metaNoTs >= 1);

    const auto steps = t["steps"];
    const bool annotated = annotation != QLatin1String("none");
    if (annotated) {
      QCOMPARE(u(steps["total"]), r.roots);
      QCOMPARE(u(steps["prefill_only"]), r.prefillOnly);
      QCOMPARE(u(steps["prefill_decode"]), r.prefillDecode);
      QCOMPARE(u(steps["decode_only"]), r.decodeOnly);
      QCOMPARE(u(steps["idle"]), r.idle);
      QVERIFY(r.roots > 0 && r.roots <= 60);
    } else {
      // No roots to recount: the truth still counts the planned steps.
      QCOMPARE(u(steps["total"]), 60u);
      QCOMPARE(u(steps["decode_only"]), 60u);
      QCOMPARE(r.roots + r.mirrors, 0u);
    }
    QCOMPARE(u(steps["graph"]), r.graphOnlyLaunches);
    QCOMPARE(u(t["annotations"]["user_annotation"]), r.roots);
    QCOMPARE(u(t["annotations"]["gpu_user_annotation"]), r.mirrors);
    QCOMPARE(r.rootsNotMatching, 0u);

    const auto an = t["anomalies"];
    QCOMPARE(u(an["missing_dur"]), r.missingDur);
    QCOMPARE(u(an["negative_dur"]), r.negativeDur);
    QCOMPARE(u(an["be_pairs"]), r.byPh["B"]);
    QCOMPARE(u(an["be_pairs"]), r.byPh["E"]);
    if (!extra.contains(QStringLiteral("--epoch")))  // epoch-scale doubles lose the ns digits
      QCOMPARE(u(an["overlapping_gpu_events"]), r.overlaps);
    QCOMPARE(r.unmatchedFlows, 0u);
    QCOMPARE(r.orphanGpu, 0u);

    for (const auto& opt : extra) {
      if (opt == QLatin1String("--be-pairs")) QVERIFY(r.byPh.at("B") > 0);
      if (opt == QLatin1String("--bad-dur")) QVERIFY(r.missingDur > 0 && r.negativeDur > 0);
      if (opt == QLatin1String("--overlap-kernels")) QVERIFY(r.overlaps > 0);
      if (opt == QLatin1String("--graph-steps")) QVERIFY(r.graphOnlyLaunches > 0);
      if (opt == QLatin1String("--old-categories"))
        QVERIFY(r.byCat.count("Kernel") && !r.byCat.count("kernel") && r.byCat.count("Operator"));
      if (opt == QLatin1String("--string-ids")) QVERIFY(trace.contains("\"tid\": \"stream 7\""));
      if (opt == QLatin1String("--epoch")) QVERIFY(trace.contains("\"ts\": 17671893"));
      if (opt == QLatin1String("--python-functions"))
        QVERIFY(r.byCat["python_function"] > 0 && trace.contains("\"with_stack\": 1"));
    }
    checkRegions(t, u(steps["total"]));
    if (style == QLatin1String("training") && r.collectives > 1 &&
        extra.contains(QStringLiteral("--first-collective-factor"))) {
      const double mean = r.otherCollectiveSum / double(r.collectives - 1);
      QVERIFY(r.firstCollective > 5.0 * mean);
      QVERIFY(std::abs(double(t["collective"]["first_us"]) - r.firstCollective) < 0.01);
    }
  }

  void checkRegions(simdjson::dom::element t, std::uint64_t steps) {
    const auto steady = t["steady_region"];
    QVERIFY(steady.is_object());
    const auto first = int64_t(steady["first_step"]), last = int64_t(steady["last_step"]);
    QVERIFY(first >= 0 && first <= last && uint64_t(last) < steps);
    int64_t prev = -1;
    for (auto reg : t["regions"].get_array()) {
      QCOMPARE(int64_t(reg["first_step"]), prev + 1);
      prev = int64_t(reg["last_step"]);
    }
    QCOMPARE(uint64_t(prev + 1), steps);
  }

  // --unsorted only permutes events; gzip output decompresses to the same text.
  void unsortedIsPermutationAndGzipMatches() {
    const QStringList base{QStringLiteral("--steps"), QStringLiteral("30"), QStringLiteral("--seed"),
                           QStringLiteral("5")};
    QByteArray plain, shuffled, gz;
    std::string truth;
    QVERIFY(generate(base, path(QStringLiteral("p.json")), plain, truth));
    QVERIFY(
        generate(base + QStringList{QStringLiteral("--unsorted")}, path(QStringLiteral("u.json")), shuffled, truth));
    QVERIFY(generate(base, path(QStringLiteral("p.json.gz")), gz, truth));
    QCOMPARE(gz, plain);
    QVERIFY(readAll(path(QStringLiteral("p.json.gz"))).size() < plain.size() / 4);
    QVERIFY(shuffled != plain);
    auto minifiedSorted = [](const QByteArray& text) {
      simdjson::dom::parser parser;
      Counter c;
      c.keepMinified = true;
      for (simdjson::dom::element e : parser.parse(text.constData(), size_t(text.size()))["traceEvents"].get_array())
        c.event(e.get_object());
      std::sort(c.r.minified.begin(), c.r.minified.end());
      return c.r.minified;
    };
    QVERIFY(minifiedSorted(plain) == minifiedSorted(shuffled));
  }

  // Pinned SHA-256 of existing outputs: adding a variant must not move a byte
  // of them (the training rows guard the shared training code path). Update a
  // hash only when an output changes on purpose.
  void oldOutputsUnchanged_data() {
    QTest::addColumn<QString>("args");
    QTest::addColumn<QByteArray>("sha256");
    QTest::newRow("training") << QStringLiteral("--style training --steps 40 --seed 3")
                              << QByteArray("ab0e254951f901e1362d38c4c049e980514272196e7ce5f8bd512e52c818a7a7");
    QTest::newRow("training-awkward")
        << QStringLiteral(
               "--style training --steps 30 --seed 2 --graph-steps 0.3 --first-collective-factor 6 --be-pairs "
               "--bad-dur 0.1 --string-ids --old-categories --unsorted --overlap-kernels --epoch")
        << QByteArray("c68dc02abf790e01ba49ab42ecbd20522ded71b39b52dd485568372e08a52dab");
    QTest::newRow("sglang-detailed") << QStringLiteral("--style sglang --annotation detailed --steps 40 --seed 3")
                                     << QByteArray("4b5ceaeffe1affec3f01cdf76869d585b7c9f91ae394d33c6444d744df9625d3");
    QTest::newRow("diffusion") << QStringLiteral("--style diffusion --steps 20 --seed 3")
                               << QByteArray("08c47f872bb461f93cae5f56fb6b95d6f8515e26996302dd72005d9861fed2c3");
    // The default style and atom, pinned before --rank / --world-size existed.
    QTest::newRow("vllm") << QStringLiteral("--steps 40 --seed 3")
                          << QByteArray("48335c79659ad88e3c858bc4f5290a130b83f359028f8cd9660d42b31b46958f");
    QTest::newRow("atom") << QStringLiteral("--style atom --steps 30 --seed 5 --gzip-level 0")
                          << QByteArray("8f3ee3cad5d5156f02382648b0953b879421b90acbab7df89b4fe77b3663320f");
  }

  void oldOutputsUnchanged() {
    QFETCH(QString, args);
    QFETCH(QByteArray, sha256);
    const QString out = path(QStringLiteral("pin_%1.json").arg(QString::fromLatin1(QTest::currentDataTag())));
    const auto r = runGen(QStringList{QStringLiteral("-o"), out, QStringLiteral("--quiet")} +
                          args.split(QLatin1Char(' '), Qt::SkipEmptyParts));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(QCryptographicHash::hash(readAll(out), QCryptographicHash::Sha256).toHex(), sha256);
  }

  // --rank R --world-size W: distributedInfo names the rank, the clock starts later per rank,
  // the kernels are jittered per rank, and the first all-reduce of an earlier rank waits longer.
  void distributedRanks() {
    auto rankRun = [&](int rank, QByteArray& trace, simdjson::dom::parser& parser, simdjson::dom::element& truth) {
      std::string text;
      const QStringList args = {QStringLiteral("--style"), QStringLiteral("training"), QStringLiteral("--steps"),
                                QStringLiteral("12"), QStringLiteral("--seed"), QStringLiteral("3"),
                                QStringLiteral("--rank"), QString::number(rank), QStringLiteral("--world-size"),
                                QStringLiteral("4"), QStringLiteral("--quiet")};
      if (!generate(args, path(QStringLiteral("rank%1.json").arg(rank)), trace, text)) return false;
      return parser.parse(text).get(truth) == simdjson::SUCCESS;
    };
    QByteArray t0, t3;
    simdjson::dom::parser p0, p3, pt0, pt3;
    simdjson::dom::element truth0, truth3, doc0, doc3;
    QVERIFY(rankRun(0, t0, pt0, truth0));
    QVERIFY(rankRun(3, t3, pt3, truth3));
    QCOMPARE(p0.parse(t0.constData(), size_t(t0.size())).get(doc0), simdjson::SUCCESS);
    QCOMPARE(p3.parse(t3.constData(), size_t(t3.size())).get(doc3), simdjson::SUCCESS);
    QCOMPARE(int64_t(doc3["distributedInfo"]["rank"]), int64_t(3));
    QCOMPARE(int64_t(doc3["distributedInfo"]["world_size"]), int64_t(4));
    QCOMPARE(doc3["distributedInfo"]["pg_config"].at(0)["ranks"].get_array().size(), size_t(4));
    QCOMPARE(std::string_view(doc3["traceName"]), std::string_view("steadyscope_gen_training_seed3_rank3.pt.trace.json"));
    QCOMPARE(int64_t(truth3["rank"]), int64_t(3));
    // Rank 0 waits for three later ranks (1.5 collectives), rank 3 for none.
    const double first0 = double(truth0["collective"]["first_us"]), first3 = double(truth3["collective"]["first_us"]);
    QVERIFY2(first0 - first3 > 300.0 && first0 - first3 < 600.0, qPrintable(QString::number(first0 - first3)));
    // Same schedule (event count), other jitter: the texts differ.
    QCOMPARE(uint64_t(truth0["events"]["total"]), uint64_t(truth3["events"]["total"]));
    QVERIFY(t0 != t3);
    // Bad combinations are usage errors.
    QCOMPARE(runGen({QStringLiteral("-o"), path(QStringLiteral("x.json")), QStringLiteral("--rank"), QStringLiteral("1")})
                 .exitCode,
             2);
    QCOMPARE(runGen({QStringLiteral("-o"), path(QStringLiteral("x.json")), QStringLiteral("--rank"), QStringLiteral("4"),
                     QStringLiteral("--world-size"), QStringLiteral("4")})
                 .exitCode,
             2);
  }

  // --annotation none --python-functions: no annotation at all, the steps
  // show only as repeated frames of the host thread's call tree.
  void callTreeTraining() {
    const QStringList args{QStringLiteral("--style"),
                           QStringLiteral("training"),
                           QStringLiteral("--annotation"),
                           QStringLiteral("none"),
                           QStringLiteral("--python-functions"),
                           QStringLiteral("--steps"),
                           QStringLiteral("30"),
                           QStringLiteral("--seed"),
                           QStringLiteral("4")};
    QByteArray trace, again, other;
    std::string truth;
    QVERIFY(generate(args, path(QStringLiteral("ct1.json")), trace, truth));
    QVERIFY(generate(args, path(QStringLiteral("ct2.json")), again, truth));
    QVERIFY(generate(args + QStringList{QStringLiteral("--seed"), QStringLiteral("5")},
                     path(QStringLiteral("ct3.json")), other, truth));
    QCOMPARE(trace, again);
    QVERIFY(trace != other);
    CallTreeScan scan;
    scan.read(trace);
    QCOMPARE(scan.annotations, 0u);
    QCOMPARE(scan.profilerStepNames, 0u);
    // The helpers report through QVERIFY; stop at the first one that fails.
    checkPythonStack(scan);
    std::vector<Span> steps, loaders;
    if (!QTest::currentTestFailed()) stepFrames(scan, QStringLiteral("train_step"), 30, steps);
    if (!QTest::currentTestFailed()) stepFrames(scan, QStringLiteral("__next__"), 30, loaders);
    if (!QTest::currentTestFailed()) checkStepContents(scan, steps, loaders);
    if (!QTest::currentTestFailed()) checkKernelFlows(scan, steps);
  }

  // One null-parent frame (main) encloses every host event; every other
  // frame's parent is the innermost Python frame around it.
  void checkPythonStack(CallTreeScan& scan) {
    auto& py = scan.python;
    QVERIFY(py.size() > 30 * 5);
    std::stable_sort(py.begin(), py.end(),
                     [](const Span& a, const Span& b) { return a.ts < b.ts || (a.ts == b.ts && a.end > b.end); });
    QCOMPARE(py.front().name, std::string("train.py(42): main"));
    QCOMPARE(py.front().pyParent, 0);
    std::set<int64_t> ids;
    std::vector<const Span*> stack;
    for (const Span& f : py) {
      QVERIFY(ids.insert(f.pyId).second);
      QCOMPARE(f.track, py.front().track);
      while (!stack.empty() && !stack.back()->contains(f)) stack.pop_back();
      if (&f != &py.front()) QVERIFY2(!stack.empty() && stack.back()->pyId == f.pyParent, f.name.c_str());
      stack.push_back(&f);
    }
    for (const auto* list : {&scan.cpuOps, &scan.runtime})
      for (const Span& e : *list) QVERIFY(py.front().contains(e));
  }

  // The per-step frames named `func`: `count` disjoint frames in ts order
  // under main. train_step alternates two line numbers, so only a name with
  // the line numbers stripped is shared by all of them.
  void stepFrames(const CallTreeScan& scan, const QString& func, std::size_t count, std::vector<Span>& out) {
    std::set<std::string> names;
    for (const Span& f : scan.python)
      if (QString::fromStdString(f.name).endsWith(QLatin1String("): ") + func)) {
        out.push_back(f);
        names.insert(f.name);
        QCOMPARE(f.pyParent, scan.python.front().pyId);
      }
    QCOMPARE(out.size(), count);
    for (std::size_t i = 1; i < out.size(); ++i) QVERIFY(out[i - 1].end < out[i].ts);
    std::set<QString> stripped;
    for (const auto& n : names) stripped.insert(stripLine(n));
    QCOMPARE(stripped.size(), 1u);
    QCOMPARE(names.size(), func == QLatin1String("train_step") ? 2u : 1u);
  }

  // Every cpu_op lies in its step's train_step frame or in the data loader's
  // __next__ frame before it (same pid/tid); every step runs the same ops.
  void checkStepContents(const CallTreeScan& scan, const std::vector<Span>& steps, const std::vector<Span>& loaders) {
    QCOMPARE(steps.size(), 30u);
    QCOMPARE(loaders.size(), 30u);
    std::vector<std::vector<std::string>> perStep(steps.size());
    for (const Span& op : scan.cpuOps) {
      const int s = enclosing(steps, op);
      if (s >= 0) {
        perStep[size_t(s)].push_back(op.name);
        continue;
      }
      const int l = enclosing(loaders, op);
      QVERIFY2(l >= 0, op.name.c_str());
      QVERIFY(loaders[size_t(l)].end < steps[size_t(l)].ts);  // the loader runs before its step
    }
    for (const Span& rt : scan.runtime) QVERIFY2(enclosing(steps, rt) >= 0, rt.name.c_str());
    for (const auto& ops : perStep) QCOMPARE(ops, perStep.front());
    for (const char* name :
         {"nn.Module: Transformer", "aten::cross_entropy_loss", "autograd::engine::evaluate_function: MmBackward0",
          "nccl:all_reduce", "Optimizer.step#AdamW.step"})
      QCOMPARE(std::count(perStep.front().begin(), perStep.front().end(), std::string(name)), 1);
  }

  // Each kernel is linked to its launch by an ac2g pair: "s" on the CPU
  // thread at the launch, "f" (bp "e") on the kernel's stream at its start,
  // id = correlation; the launch lies inside a train_step frame.
  void checkKernelFlows(const CallTreeScan& scan, const std::vector<Span>& steps) {
    std::map<int64_t, const Span*> launches;
    for (const Span& rt : scan.runtime)
      if (rt.name == "cudaLaunchKernel") launches[rt.corr] = &rt;
    QVERIFY(scan.kernels.size() >= 30 * 20);
    for (const Span& k : scan.kernels) {
      const auto launch = launches.find(k.corr);
      QVERIFY(launch != launches.end());
      const auto s = scan.flowS.find(k.corr);
      const auto f = scan.flowF.find(k.corr);
      QVERIFY(s != scan.flowS.end() && f != scan.flowF.end());
      QCOMPARE(s->second.cat, std::string("ac2g"));
      QCOMPARE(f->second.cat, std::string("ac2g"));
      QCOMPARE(s->second.track, launch->second->track);
      QCOMPARE(s->second.ts, launch->second->ts);
      QCOMPARE(f->second.track, k.track);
      QCOMPARE(f->second.ts, k.ts);
      QVERIFY(f->second.bindEnclosing && !s->second.bindEnclosing);
      QVERIFY(enclosing(steps, *launch->second) >= 0);
    }
  }

  void targetBytes() {
    QByteArray trace;
    std::string truth;
    QVERIFY(generate({QStringLiteral("--target-bytes"), QStringLiteral("4M"), QStringLiteral("--quiet")},
                     path(QStringLiteral("tb.json")), trace, truth));
    const double ratio = double(trace.size()) / double(4 << 20);
    QVERIFY2(ratio > 0.75 && ratio < 1.25, qPrintable(QString::number(ratio)));
  }

  void atomicOutput() {
    // Unwritable target: nothing is created.
    const QString missingDir = path(QStringLiteral("no/such/dir/x.json"));
    QVERIFY(runGen({QStringLiteral("-o"), missingDir, QStringLiteral("--steps"), QStringLiteral("5")}).exitCode != 0);
    QVERIFY(!QFile::exists(missingDir));
    // Target is a directory: the rename fails and the temporary file is removed.
    QDir(dir_.path()).mkdir(QStringLiteral("occupied.json"));
    const QStringList before = QDir(dir_.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot);
    QVERIFY(runGen({QStringLiteral("-o"), path(QStringLiteral("occupied.json")), QStringLiteral("--steps"),
                    QStringLiteral("5")})
                .exitCode != 0);
    QCOMPARE(QDir(dir_.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot), before);
    QVERIFY(QFileInfo(path(QStringLiteral("occupied.json"))).isDir());
  }
};

QTEST_GUILESS_MAIN(TestGen)
#include "tst_gen.moc"
