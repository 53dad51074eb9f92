// The job view's rows (core/src/job, steadyscope/job.hpp) and `steadyscope-cli job`:
// the interval unions against a brute-force reference on a hand-built trace and on
// generated ranks (clock skew, a straggler, NCCL all-reduces beside compute); the
// rows' steps, ranks and straggler; the CLI's --json shape, a truncated rank that
// keeps its row while the others go on, a world-size mismatch, --tsv, and the
// many-rank split's summary.tsv carrying the same figures.
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/job.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace steadyscope;

namespace {

struct Run {
  int status = -1;
  QString out, err;
};

Run runTool(const QString& exe, const QStringList& args, const QStringList& env = {}) {
  QProcess p;
  if (!env.isEmpty()) {
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(e);
  }
  p.start(exe, args);
  p.waitForFinished(600000);
  Run r;
  r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

TracePtr loadOrDie(const std::string& path) {
  auto t = loadTrace(path);
  if (!t) qFatal("load failed: %s", t.error().describe().c_str());
  return t.value();
}

// ---- the brute-force reference: written plainly, sharing nothing with core/src/job ----

struct Span {
  int64_t b, e;
};

// Every elementary segment between consecutive interval endpoints is covered or not;
// a segment counts when some interval of `set` contains it.
bool covers(const std::vector<Span>& set, int64_t b, int64_t e) {
  for (const Span& s : set)
    if (s.b <= b && e <= s.e) return true;
  return false;
}

struct Reference {
  int64_t gpu = 0, comm = 0, compute = 0, overlap = 0;
};

Reference bruteForce(const Trace& t) {
  std::vector<Span> all, comm, compute;
  for (EventIdx i = 0; i < t.size(); ++i) {
    const CatClass c = t.classOf(i);
    if (c != CatClass::Kernel && c != CatClass::Memcpy && c != CatClass::Memset) continue;
    if (!t.has(i, ev::HasDur) || t.durNs[i] <= 0) continue;
    const Span s{t.tsNs[i], t.tsNs[i] + t.durNs[i]};
    all.push_back(s);
    if (c != CatClass::Kernel) continue;
    QString name = QString::fromUtf8(t.nameOf(i).data(), static_cast<qsizetype>(t.nameOf(i).size())).toLower();
    (name.contains("nccl") || name.contains("rccl") ? comm : compute).push_back(s);
  }
  std::set<int64_t> points;
  for (const Span& s : all) points.insert({s.b, s.e});
  const std::vector<int64_t> p(points.begin(), points.end());
  Reference r;
  for (size_t k = 0; k + 1 < p.size(); ++k) {
    const int64_t b = p[k], e = p[k + 1], len = e - b;
    const bool inComm = covers(comm, b, e), inCompute = covers(compute, b, e);
    if (covers(all, b, e)) r.gpu += len;
    if (inComm) r.comm += len;
    if (inCompute) r.compute += len;
    if (inComm && inCompute) r.overlap += len;
  }
  return r;
}

// Kernels on two streams: ncclKernel [0,100) µs, compute [50,150), RCCL_x [140,200), a memcpy [300,310).
const char* kHandTrace = R"({"traceEvents": [
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum","pid":0,"tid":13,"ts":1000,"dur":100},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1050,"dur":100},
{"ph":"X","cat":"kernel","name":"RCCL_allgather","pid":0,"tid":13,"ts":1140,"dur":60},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1300,"dur":10}
], "distributedInfo": {"rank": 5, "world_size": 8}})";

}  // namespace

class TstJob : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::vector<std::string> ranks_;  // rank0..rank2 of 3; rank 2 a straggler

  std::string generate(const QString& name, const QStringList& extra) {
    const QString path = dir_.path() + "/" + name;
    Run r =
        runTool(STEADYSCOPE_GEN, QStringList{"-o", path, "--quiet", "--style", "training", "--steps", "60"} + extra);
    if (r.status != 0) qFatal("steadyscope-gen failed: %s", qPrintable(r.err));
    return path.toStdString();
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY2(QFileInfo::exists(STEADYSCOPE_GEN) && QFileInfo::exists(STEADYSCOPE_CLI), "build steadyscope-gen, -cli");
    for (int r = 0; r < 3; ++r) {
      QStringList extra = {"--rank", QString::number(r), "--world-size", "3", "--overlap-kernels"};
      if (r == 2) extra += {"--slow-rank-factor", "1.6"};
      ranks_.push_back(generate(QString("rank%1.json").arg(r), extra));
    }
  }

  void handBuiltUnions() {
    auto t = loadTraceFromString(kHandTrace, "hand.json");
    QVERIFY(t);
    const job::BusyFigures f = job::busyFigures(*t.value());
    QCOMPARE(f.gpuNs, int64_t(210'000));
    QCOMPARE(f.commNs, int64_t(160'000));
    QCOMPARE(f.computeNs, int64_t(100'000));
    QCOMPARE(f.overlapNs, int64_t(60'000));
    const Reference ref = bruteForce(*t.value());
    QCOMPARE(ref.gpu, f.gpuNs);
    QCOMPARE(ref.overlap, f.overlapNs);
  }

  void communicationNames() {
    QVERIFY(job::isCommunicationKernel("ncclDevKernel_AllReduce"));
    QVERIFY(job::isCommunicationKernel("void RCCL::kernel"));
    QVERIFY(job::isCommunicationKernel("x_NcCl_y"));
    QVERIFY(!job::isCommunicationKernel("ncc_l"));
    QVERIFY(!job::isCommunicationKernel("mccl_ccl"));
    QVERIFY(!job::isCommunicationKernel("gemm"));
  }

  void generatedUnionsMatchBruteForce() {
    for (const auto& path : ranks_) {
      TracePtr t = loadOrDie(path);
      const job::BusyFigures f = job::busyFigures(*t);
      const Reference ref = bruteForce(*t);
      QCOMPARE(f.gpuNs, ref.gpu);
      QCOMPARE(f.commNs, ref.comm);
      QCOMPARE(f.computeNs, ref.compute);
      QCOMPARE(f.overlapNs, ref.overlap);
      // The planted shapes are there: all-reduces, partly under compute.
      QVERIFY(f.commNs > 0);
      QVERIFY2(f.overlapNs > 0, path.c_str());
      QVERIFY(f.overlapNs < f.commNs);
    }
  }

  void rowsOfGeneratedRanks() {
    std::vector<job::RankRow> rows;
    for (size_t k = 0; k < ranks_.size(); ++k) rows.push_back(job::rankRow(ranks_[k], 10 + k, {}));
    const job::JobSummary s = job::summarise(rows);
    // Each rank's first step as the trace writes it: its ProfilerStep#0 annotation (the clock of
    // rank R starts R x 37 µs late, plus the rank's own random CPU time before the step).
    std::vector<double> firstSteps;
    for (const auto& path : ranks_) {
      TracePtr t = loadOrDie(path);
      for (EventIdx i = 0; i < t->size(); ++i)
        if (t->nameOf(i) == "ProfilerStep#0" && t->classOf(i) == CatClass::UserAnnotation) {
          firstSteps.push_back(t->tsUs(i));
          break;
        }
    }
    QCOMPARE(firstSteps.size(), size_t(3));
    for (size_t k = 0; k < rows.size(); ++k) {
      const auto& r = rows[k];
      QVERIFY2(r.loaded, r.reason.c_str());
      QCOMPARE(r.rank, int64_t(k));  // from distributedInfo, not the position
      QVERIFY(r.rankFromTrace);
      QCOMPARE(r.worldSize.value_or(0), int64_t(3));
      QCOMPARE(r.steps, uint64_t(60));
      QCOMPARE(r.splitStatus, std::string("split"));
      QCOMPARE(r.chunkMode, std::string("generic"));
      QCOMPARE(r.verdict, std::string("accepted"));
      QVERIFY(r.reason.empty());
      QVERIFY(r.busyRatio && *r.busyRatio > 0);
      QVERIFY(r.numGpuEvents && *r.numGpuEvents > 0);
      QVERIFY(*r.stepP90Us >= *r.stepMedianUs);
      QCOMPARE(*r.firstStepTsUs, firstSteps[k]);
      QCOMPARE(*r.skewUs, firstSteps[k] - *std::min_element(firstSteps.begin(), firstSteps.end()));
    }
    QCOMPARE(s.stragglerRank.value_or(-1), int64_t(2));
    QVERIFY(s.stepSpread && *s.stepSpread > 1.3);
    QVERIFY(!s.worldSizeMismatch);
    QCOMPARE(s.failedRanks, size_t(0));
  }

  void cliJsonShapeAndBrokenRank() {
    // A truncated copy of rank 1, among the others.
    QFile whole(QString::fromStdString(ranks_[1]));
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QString cut = dir_.path() + "/truncated.json";
    QFile part(cut);
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(whole.read(50000));
    part.close();
    const QStringList files = {QString::fromStdString(ranks_[0]), cut, QString::fromStdString(ranks_[2])};
    Run r = runTool(STEADYSCOPE_CLI, QStringList{"job"} + files + QStringList{"--json", "-j", "2"});
    QCOMPARE(r.status, 1);  // a rank did not load
    QJsonParseError err;
    const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8(), &err).object();
    QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(r.out));
    QCOMPARE(doc.keys(), QStringList({"job", "ranks"}));
    const QJsonArray rows = doc["ranks"].toArray();
    QCOMPARE(rows.size(), 3);
    QStringList expected;
    for (const auto& c : job::rowColumns()) expected << QString::fromStdString(c);
    const QStringList fields = {"rank",           "file",           "events",       "gpu_events",
                                "steps",          "step_median_us", "step_p90_us",  "first_step_ts_us",
                                "skew_us",        "gpu_busy_us",    "comm_busy_us", "compute_busy_us",
                                "overlap_us",     "split_status",   "chunk_mode",   "busy_ratio",
                                "num_gpu_events", "verdict",        "reason"};
    QCOMPARE(expected, fields);
    for (const auto& row : rows) {
      QStringList keys = row.toObject().keys();
      QStringList want = fields;
      keys.sort();
      want.sort();
      QCOMPARE(keys, want);
    }
    const QJsonObject broken = rows[1].toObject();
    QCOMPARE(broken["rank"].toInt(), 1);  // the position: the file never said
    QVERIFY2(broken["reason"].toString().contains("truncated.json"), qPrintable(broken["reason"].toString()));
    QVERIFY(broken["steps"].isNull() && broken["gpu_busy_us"].isNull());
    QCOMPARE(broken["split_status"].toString(), QString("error"));
    QCOMPARE(rows[0].toObject()["verdict"].toString(), QString("accepted"));
    QCOMPARE(rows[2].toObject()["rank"].toInt(), 2);
    QVERIFY(rows[2].toObject()["step_median_us"].toDouble() > rows[0].toObject()["step_median_us"].toDouble());
    const QJsonObject j = doc["job"].toObject();
    QCOMPARE(j["straggler_rank"].toInt(), 2);
    QVERIFY(j["step_spread"].toDouble() > 1.3);
    QCOMPARE(j["failed_ranks"].toInt(), 1);
    QCOMPARE(j["world_size_mismatch"].toBool(), false);
    QVERIFY(r.err.contains("truncated.json"));
  }

  void worldSizeMismatchFlagged() {
    const std::string other = generate("other.json", {"--rank", "1", "--world-size", "4"});
    Run r =
        runTool(STEADYSCOPE_CLI, {"job", QString::fromStdString(ranks_[0]), QString::fromStdString(other), "--json"});
    QCOMPARE(r.status, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object()["job"].toObject();
    QCOMPARE(j["world_size_mismatch"].toBool(), true);
    QCOMPARE(j["world_sizes"].toArray(), QJsonArray({3, 4}));
    Run table = runTool(STEADYSCOPE_CLI, {"job", QString::fromStdString(ranks_[0]), QString::fromStdString(other)});
    QCOMPARE(table.status, 0);
    QVERIFY2(table.out.contains("disagree on the world size (3, 4)"), qPrintable(table.out));
  }

  // `job --tsv` and the many-rank split's summary.tsv give the same figures (one code path).
  void tsvAndSplitSummaryAgree() {
    const QString tsv = dir_.path() + "/job.tsv";
    QStringList files;
    for (const auto& p : ranks_) files << QString::fromStdString(p);
    const QStringList env = {"INFERENCE_OPTIMIZER_STEADY_STATE_MODE=generic"};
    Run j = runTool(STEADYSCOPE_CLI, QStringList{"job"} + files + QStringList{"--tsv", tsv}, env);
    QCOMPARE(j.status, 0);
    QVERIFY2(j.out.contains("Straggler: rank 2"), qPrintable(j.out));
    Run s =
        runTool(STEADYSCOPE_CLI,
                QStringList{"split"} + files + QStringList{"-o", dir_.path() + "/split", "--find-steady-state"}, env);
    QCOMPARE(s.status, 0);
    auto read = [](const QString& path) {
      QFile f(path);
      if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
      QList<QStringList> rows;
      for (const QString& line : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts))
        rows << line.split('\t');
      return rows;
    };
    const auto jobRows = read(tsv), summary = read(dir_.path() + "/split/summary.tsv");
    QCOMPARE(jobRows.size(), 4);
    const QStringList jobHeader = jobRows[0], sumHeader = summary[0];
    const QStringList compared = {"rank", "steps", "step_median_us", "first_step_ts_us", "overlap_us", "verdict",
                                  "chunk_mode"};
    for (const QString& col : compared) {
      const auto jc = jobHeader.indexOf(col), sc = sumHeader.indexOf(col);
      QVERIFY2(jc >= 0 && sc >= 0, qPrintable(col));
      for (int k = 1; k <= 3; ++k) {
        const QString file = jobRows[k][jobHeader.indexOf("file")];
        const auto it =
            std::find_if(summary.begin() + 1, summary.end(), [&](const QStringList& r) { return r[0] == file; });
        QVERIFY(it != summary.end());
        QCOMPARE((*it)[sc], jobRows[k][jc]);
      }
    }
    QVERIFY(sumHeader.contains("selected_busy_ratio"));
    QVERIFY(!sumHeader.contains("skew_us"));  // per slice it would differ from the whole job's
    QCOMPARE(sumHeader.mid(0, 9), QStringList({"trace", "output_dir", "outcome", "gate", "chunk", "num_gpu_events",
                                               "busy_ratio", "chunk_verdict", "message"}));
  }

  void usageErrors() {
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"job"}).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"job", "x.json", "-j", "0"}).status, 2);
    QCOMPARE(runTool(STEADYSCOPE_CLI, {"job", "x.json", "--frobnicate"}).status, 2);
    Run missing = runTool(STEADYSCOPE_CLI, {"job", "/nonexistent/rank0.json", "--json"});
    QCOMPARE(missing.status, 1);
    QVERIFY(missing.out.contains("/nonexistent/rank0.json: cannot open"));
  }
};

QTEST_GUILESS_MAIN(TstJob)
#include "tst_job.moc"
