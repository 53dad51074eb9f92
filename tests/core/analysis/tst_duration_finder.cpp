// Spec §7 E8: the duration (generic) finder of §3.8, called directly and end
// to end through `steadyscope-cli split` on the E8 trace `xdit_trace.json.gz`
// (tier 2 family ProfilerStep##, one generic window), plus the
// `--llm-inference` variant at the end of E8 (shape path, §3.7).
#include "trace_builder.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/io/loader.hpp>
#include "analysis/steady_state/steady_state.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <cmath>

using namespace steadyscope;
using namespace steadyscope::analysis;

namespace steadyscope::analysis {
// QCOMPARE prints a window as [start, end).
char* toString(const Region& r) { return QTest::toString(QString("[%1, %2)").arg(r.start).arg(r.end)); }
}  // namespace steadyscope::analysis

namespace {

const char* const kHeader =
    "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,phase_num_prefill,"
    "phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc,num_steps\n";

std::vector<double> e8Doubles() {
  std::vector<double> d;
  for (int64_t v : sstest::e8Durations()) d.push_back(static_cast<double>(v));
  return d;
}

// Independent §3.8 figures of one window: mean and pstdev / mean.
std::pair<double, double> meanCv(const std::vector<double>& d, int64_t a, int64_t b) {
  double sum = 0.0;
  for (int64_t i = a; i < b; ++i) sum += d[static_cast<size_t>(i)];
  const double mean = sum / static_cast<double>(b - a);
  double ss = 0.0;
  for (int64_t i = a; i < b; ++i) ss += (d[static_cast<size_t>(i)] - mean) * (d[static_cast<size_t>(i)] - mean);
  const double sd = std::sqrt(ss / static_cast<double>(b - a));
  return {mean, mean == 0.0 ? 0.0 : sd / mean};
}

double roundTo(double x, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

bool writeGz(const QString& path, const std::string& text) {
  gzFile gz = gzopen(path.toLocal8Bit().constData(), "wb");
  if (!gz) return false;
  const bool ok = gzwrite(gz, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
  return gzclose(gz) == Z_OK && ok;
}

QByteArray readGz(const QString& path) {
  gzFile gz = gzopen(path.toLocal8Bit().constData(), "rb");
  if (!gz) return {};
  QByteArray out;
  char buf[65536];
  int n;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, n);
  gzclose(gz);
  return out;
}

QString readFile(const QString& p) {
  QFile f(p);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

int runCli(const QString& dir, const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr) {
  QProcess p;
  p.setWorkingDirectory(dir);
  p.start(QStringLiteral(STEADYSCOPE_CLI), QStringList{"split"} + args);
  if (!p.waitForFinished(120000)) return -1;
  if (out) *out = p.readAllStandardOutput();
  if (err) *err = p.readAllStandardError();
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// Writes the E8 trace as <dir>/xdit_trace.json.gz.
void writeE8(const QTemporaryDir& dir) {
  QVERIFY(dir.isValid());
  QVERIFY(writeGz(dir.filePath("xdit_trace.json.gz"), sstest::e8Trace()));
}

// A chunk file: its top-level keys, event count and root (user_annotation) names.
struct Chunk {
  QStringList keys;
  qsizetype events = -1;
  QStringList roots;
};
Chunk readChunk(const QString& path) {
  Chunk c;
  QJsonParseError pe{};
  const QJsonDocument doc = QJsonDocument::fromJson(readGz(path), &pe);
  if (pe.error != QJsonParseError::NoError || !doc.isObject()) return c;
  c.keys = doc.object().keys();
  const QJsonArray ev = doc.object().value("traceEvents").toArray();
  c.events = ev.size();
  for (const QJsonValue& e : ev)
    if (e.toObject().value("cat").toString() == "user_annotation") c.roots << e.toObject().value("name").toString();
  c.roots.sort();
  return c;
}

QStringList profilerSteps(int a, int b) {
  QStringList s;
  for (int i = a; i < b; ++i) s << QString("ProfilerStep#%1").arg(i);
  s.sort();
  return s;
}

QStringList filesIn(const QString& dir) {
  QStringList f = QDir(dir).entryList(QDir::Files, QDir::Name);
  return f;
}

}  // namespace

class TestDurationFinder : public QObject {
  Q_OBJECT
 private slots:
  // ------------------------------------------------------------ E8 unit part
  void e8_windows_data() {
    QTest::addColumn<int>("numSteps");
    QTest::addColumn<int>("start");
    QTest::addColumn<int>("end");
    QTest::addColumn<int>("bestStart");
    QTest::addColumn<int>("bestEnd");
    QTest::addColumn<int>("scan");
    QTest::addColumn<bool>("passed");
    QTest::addColumn<double>("mean");   // the spec's figure (NaN: not given)
    QTest::addColumn<double>("cv");     // the spec's figure, rounded to `cvDigits`
    QTest::addColumn<int>("cvDigits");  // 0: not given
    // E8: passing [3,7) 3075, [4,8) 3073.75 (cv 0.0035), [5,9) 3077.5 -> smallest mean.
    QTest::newRow("E8-num_steps-4") << 4 << 4 << 8 << 4 << 8 << 4 << true << 3073.75 << 0.0035 << 4;
    // E8: scan 4, best [4,8); re-centre c = 6, h = 1, fs = 5, fe = 7.
    QTest::newRow("E8-num_steps-2") << 2 << 5 << 7 << 4 << 8 << 4 << true << 3073.75 << 0.0035 << 4;
    // E8: scan min(32, 10) = 10, the only window has cv 0.228 -> lowest cv -> all roots.
    QTest::newRow("E8-num_steps-32") << 32 << 0 << 10 << 0 << 10 << 10 << false << std::nan("") << 0.228 << 3;
    // §3.8 re-centring with the other short windows (not in E8; the formula applied by hand):
    // num_steps 3: c = 6, h = 1, fs = max(4, 5) = 5, fe = 8; num_steps 1: h = 0, fs = 6, fe = 7.
    QTest::newRow("3.8-num_steps-3") << 3 << 5 << 8 << 4 << 8 << 4 << true << 3073.75 << 0.0035 << 4;
    QTest::newRow("3.8-num_steps-1") << 1 << 6 << 7 << 4 << 8 << 4 << true << 3073.75 << 0.0035 << 4;
    // num_steps 10 == n: one window [0,10) (cv 0.228 fails), no re-centring.
    QTest::newRow("3.8-num_steps-10") << 10 << 0 << 10 << 0 << 10 << 10 << false << 3471.0 << 0.228 << 3;
  }
  void e8_windows() {
    QFETCH(int, numSteps);
    QFETCH(int, start);
    QFETCH(int, end);
    QFETCH(int, bestStart);
    QFETCH(int, bestEnd);
    QFETCH(int, scan);
    QFETCH(bool, passed);
    QFETCH(double, mean);
    QFETCH(double, cv);
    QFETCH(int, cvDigits);
    const std::vector<double> d = e8Doubles();
    const DurationSelection s = durationFinder(d, numSteps);
    QCOMPARE(s.window, (Region{start, end}));
    QCOMPARE(s.best, (Region{bestStart, bestEnd}));
    QCOMPARE(s.scan, int64_t(scan));
    QCOMPARE(s.passed, passed);
    // mean / cv are the best scan window's figures: exact against an independent computation ...
    const auto [m, c] = meanCv(d, bestStart, bestEnd);
    QCOMPARE(s.mean, m);
    QVERIFY2(std::abs(s.cv - c) <= 1e-12 * c, qPrintable(QString("cv %1, expected %2").arg(s.cv, 0, 'g', 17).arg(c)));
    // ... and at the spec's precision.
    if (!std::isnan(mean)) QCOMPARE(s.mean, mean);
    if (cvDigits > 0) QCOMPARE(roundTo(s.cv, cvDigits), cv);
    QVERIFY(s.passed == (s.cv < 0.15));
  }

  // E8's claims about the other windows: only those without 5200 / 4900 pass,
  // and [4,8) has the smallest mean of the three that do. (Guards the fixture:
  // were the durations mistyped the windows above would still be computable.)
  void e8_passing_windows_fixture() {
    const std::vector<double> d = e8Doubles();
    QStringList passing;
    for (int64_t a = 0; a + 4 <= 10; ++a)
      if (meanCv(d, a, a + 4).second < 0.15) passing << QString("[%1,%2)").arg(a).arg(a + 4);
    QCOMPARE(passing, (QStringList{"[3,7)", "[4,8)", "[5,9)"}));
    QCOMPARE(meanCv(d, 3, 7).first, 3075.0);
    QCOMPARE(meanCv(d, 5, 9).first, 3077.5);
    QCOMPARE(roundTo(meanCv(d, 0, 10).second, 3), 0.228);
  }

  // §3.8 edge rules: no roots; fewer roots than the minimum scan; equal
  // durations (first window on ties, as E13's generic window [0, 4)); all
  // zero (cv 0 when the mean is 0, so every window passes).
  void rules_edges() {
    QCOMPARE(durationFinder(std::vector<double>{}, 4).window.size(), int64_t(0));
    const DurationSelection few = durationFinder(std::vector<double>{10, 20, 30}, 4);
    QCOMPARE(few.scan, int64_t(3));
    QCOMPARE(few.window, (Region{0, 3}));
    const DurationSelection equal = durationFinder(std::vector<double>(8, 700.0), 4);
    QCOMPARE(equal.window, (Region{0, 4}));
    QCOMPARE(equal.cv, 0.0);
    QVERIFY(equal.passed);
    const DurationSelection zero = durationFinder(std::vector<double>(6, 0.0), 4);
    QCOMPARE(zero.window, (Region{0, 4}));
    QCOMPARE(zero.cv, 0.0);
    QVERIFY(zero.passed);
    // No window passes and the lowest cv is not the first: [2,6) (cv of 1,1,1,2) beats the rest.
    const DurationSelection low = durationFinder(std::vector<double>{1, 9, 1, 1, 1, 2, 9}, 4);
    QVERIFY(!low.passed);
    QCOMPARE(low.window, (Region{2, 6}));
  }

  // ------------------------------------------------------------ E8 end to end
  // The plan in process: one generic window from the duration finder, [4, 8).
  void e8_plan() {
    auto t = loadTraceFromString(sstest::e8Trace(), "xdit_trace.json.gz");
    QVERIFY(t.ok());
    Splitter s(t.value());
    SplitOptions o;
    o.outputDir = "out";
    o.findSteadyState = true;
    o.numSteps = 4;
    const SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(r.roots.size(), size_t(10));
    QVERIFY(!r.servingAnnotations);
    QCOMPARE(r.windows.size(), size_t(1));
    QCOMPARE(r.windows[0].finder, std::string("duration"));
    QCOMPARE(r.windows[0].window, (Region{4, 8}));
    QVERIFY(r.windows[0].duration.has_value());
    QCOMPARE(r.windows[0].duration->mean, 3073.75);
    QCOMPARE(r.chunks.size(), size_t(1));
    QCOMPARE(QString::fromStdString(r.chunks[0].fileName), QString("steady_state_xdit_trace.json.gz"));
  }

  void e8_cli() {
    QTemporaryDir dir;
    writeE8(dir);
    QByteArray out, err;
    QCOMPARE(
        runCli(dir.path(), {"xdit_trace.json.gz", "-o", "out", "--find-steady-state", "--num-steps", "4"}, &out, &err),
        0);
    // Manifest (§4.11): tier 2 family, SPLITTABLE.
    QJsonParseError pe{};
    const QJsonDocument md = QJsonDocument::fromJson(readFile(dir.filePath("out/split_manifest.json")).toUtf8(), &pe);
    QVERIFY2(pe.error == QJsonParseError::NoError && md.isObject(), qPrintable(err));
    const QJsonObject m = md.object();
    QCOMPARE(m.value("status").toInt(-1), 0);
    QCOMPARE(m.value("method").toString(), QString("family:unknown_only"));
    QCOMPARE(m.value("phase_confidence").toString(), QString("unknown"));
    QVERIFY(m.value("root_family_known").isBool());
    QCOMPARE(m.value("root_family_known").toBool(true), false);
    QCOMPARE(m.value("root_family").toString(), QString("ProfilerStep##"));
    QCOMPARE(m.value("n_roots").toInt(), 10);
    QCOMPARE(m.value("coverage_selected_roots").toDouble(), 1.0);
    QVERIFY(!m.contains("aborted"));
    // Exactly one chunk, the generic one.
    QCOMPARE(filesIn(dir.filePath("out")), (QStringList{"execution_details.csv", "execution_details.json",
                                                        "split_manifest.json", "steady_state_xdit_trace.json.gz"}));
    QCOMPARE(readFile(dir.filePath("out/execution_details.csv")),
             QString(kHeader) + "0,out/steady_state_xdit_trace.json.gz,68,32,9120,5760,0,0,4,1,1,4\n");
    // The chunk: 68 events of steps 4..7, top-level key traceEvents only.
    const Chunk c = readChunk(dir.filePath("out/steady_state_xdit_trace.json.gz"));
    QCOMPARE(c.keys, QStringList{"traceEvents"});
    QCOMPARE(c.events, qsizetype(68));
    QCOMPARE(c.roots, profilerSteps(4, 8));
  }

  // ------------------------------------------------------------ E8 + --llm-inference
  // Shape path [spec: "?", depends on the unstored shape helper, §8 D3; our
  // stand-in is input_dims_vote]: every root votes 256 -> all decode ->
  // region (0, 10); mixed and decode_only both [0, 4); no prefill run, so no
  // prefilldecode file. The names use the §2.4 step details (bs1, conc1).
  void e8_llm_inference_cli() {
    QTemporaryDir dir;
    writeE8(dir);
    QByteArray out, err;
    QCOMPARE(runCli(dir.path(),
                    {"xdit_trace.json.gz", "-o", "out", "--find-steady-state", "--num-steps", "4", "--llm-inference"},
                    &out, &err),
             0);
    // Shapes were found: no fallback to the duration finder (which would give [4, 8) three times).
    QVERIFY2(!out.contains("No cpu_op shapes found") && !err.contains("No cpu_op shapes found"), out.constData());
    const QString mixed = "mixed_steady_state_prefill_0_prefilldecode_0_decode_4_bs1_conc1_xdit_trace.json.gz";
    const QString decode = "decode_only_steady_state_prefill_0_prefilldecode_0_decode_4_bs1_conc1_xdit_trace.json.gz";
    const QStringList files = filesIn(dir.filePath("out"));
    QVERIFY2(files.contains(mixed), qPrintable(files.join(", ")));
    QVERIFY2(files.contains(decode), qPrintable(files.join(", ")));
    for (const QString& f : files) QVERIFY2(!f.startsWith("prefilldecode"), qPrintable(f));
    QCOMPARE(files,
             (QStringList{decode, "execution_details.csv", "execution_details.json", mixed, "split_manifest.json"}));
    // Both windows [0, 4): steps 0..3, 17 events each.
    for (const QString& f : {mixed, decode}) {
      const Chunk c = readChunk(dir.filePath("out/" + f));
      QCOMPARE(c.events, qsizetype(68));
      QCOMPARE(c.roots, profilerSteps(0, 4));
    }
    QCOMPARE(readFile(dir.filePath("out/execution_details.csv")), QString(kHeader) + "0,out/" + mixed +
                                                                      ",68,32,9120,5760,0,0,4,1,1,4\n" + "0,out/" +
                                                                      decode + ",68,32,9120,5760,0,0,4,1,1,4\n");
  }

  // ------------------------------------------------------------ E14
  // Spec §7 E14, --llm-inference without shapes: tier 2 picks my_custom_step_#, no cpu_op
  // shapes -> the duration finder's [4, 8) written three times under the three mode names.
  void e14_llm_inference_without_shapes_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("file");
    const QString suffix = "steady_state_prefill_0_prefilldecode_0_decode_4_bs1_conc1_custom.json.gz";
    QTest::newRow("E14-mixed") << "mixed"
                               << "mixed_" + suffix;
    QTest::newRow("E14-decode_only") << "decode_only"
                                     << "decode_only_" + suffix;
    QTest::newRow("E14-prefilldecode") << "max_prefilldecode"
                                       << "prefilldecode_" + suffix;
  }
  void e14_llm_inference_without_shapes() {
    QFETCH(QString, mode);
    QFETCH(QString, file);
    auto t = loadTraceFromString(sstest::e14Trace(), "custom.json");
    QVERIFY(t.ok());
    Splitter s(t.value());
    SplitOptions o;
    o.outputDir = "out";
    o.findSteadyState = true;
    o.numSteps = 4;
    o.llmInference = true;
    const SplitResult r = s.plan(o);
    QCOMPARE(r.outcome, SplitOutcome::Split);
    QCOMPARE(QString::fromStdString(r.detection->chosen.method), QString("family:unknown_only"));
    QCOMPARE(QString::fromStdString(r.manifest.find("root_family")->asString()), QString("my_custom_step_#"));
    bool fellBack = false;
    for (const auto& l : r.log) fellBack |= l.find("[llm-inference] No cpu_op shapes found") != std::string::npos;
    QVERIFY(fellBack);
    QCOMPARE(r.chunks.size(), size_t(3));
    int k = -1;
    for (size_t i = 0; i < r.windows.size(); ++i)
      if (QString(steadyModeName(r.windows[i].mode)) == mode) k = static_cast<int>(i);
    QVERIFY2(k >= 0, qPrintable(mode));
    QCOMPARE(r.windows[size_t(k)].window, (Region{4, 8}));
    const ChunkPlan& c = r.chunks[size_t(r.windows[size_t(k)].chunk)];
    QCOMPARE(QString::fromStdString(c.fileName), file);
    QVERIFY(r.executionDetailsCsv.find("0,out/" + file.toStdString() + ",68,32,9120,5760,0,0,4,1,1,4\n") !=
            std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestDurationFinder)
#include "tst_duration_finder.moc"
