// Oracle parity: for every synthetic case of ../shared/oracle/newest/ and
// every real trace the reference ran on, rebuild the input with the generator
// command from the case README (checking its sha256) into a cache under the
// build tree, run `steadyscope-cli split INPUT -o out` with the reference's
// flags from the input's folder, and require a byte-identical
// execution_details.csv, an identical split_manifest.json and the same chunk
// file names with the same event counts (chunks.tsv) — or, where the reference
// wrote nothing, nothing and the same exit status.
//
// Row names can be passed on the command line (ctest `oracle_vllm_20k` runs
// the 0.9 GB vllm_20k rows, which are skipped unless STEADYSCOPE_ORACLE_BIG=1).
#include "support/shared_data.hpp"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <simdjson.h>
#include <zlib.h>

namespace {

const QString kOracle = QStringLiteral(STEADYSCOPE_SHARED_DIR "/oracle/newest");
const QString kCache = QStringLiteral(STEADYSCOPE_BINARY_DIR "/oracle_cache");

QByteArray readAll(const QString& p) {
  QFile f(p);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString sha256Of(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash h(QCryptographicHash::Sha256);
  h.addData(&f);
  return QString::fromLatin1(h.result().toHex());
}

// Event count of a chunk: gunzip + count traceEvents elements.
std::string gunzipFile(const QString& path) {
  gzFile gz = gzopen(path.toLocal8Bit().constData(), "rb");
  if (!gz) return {};
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  return text;
}

qint64 chunkEvents(const QString& path) {
  const std::string text = gunzipFile(path);
  simdjson::ondemand::parser parser;
  simdjson::padded_string ps(text);
  auto doc = parser.iterate(ps);
  simdjson::ondemand::array arr;
  if (doc["traceEvents"].get_array().get(arr)) return -1;
  size_t count = 0;
  if (arr.count_elements().get(count)) return -1;
  return static_cast<qint64>(count);
}

// "out/name.json.gz\tN" lines, sorted, for every chunk under dir/out.
QStringList ourChunks(const QString& dir) {
  QStringList out;
  QDir base(dir);
  QDirIterator it(dir + "/out", {"*.json.gz"}, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    QString p = it.next();
    out << base.relativeFilePath(p) + "\t" + QString::number(chunkEvents(p));
  }
  out.sort();
  return out;
}

QStringList refChunks(const QString& tsv) {
  QStringList out;
  const QList<QByteArray> lines = readAll(tsv).split('\n');
  for (int i = 1; i < lines.size(); ++i) {
    const QList<QByteArray> f = lines[i].split('\t');
    if (f.size() >= 3) out << QString::fromUtf8(f[0]) + "\t" + QString::fromUtf8(f[2]);
  }
  out.sort();
  return out;
}

struct CaseInput {
  QString file;     // input file name
  QString path;     // where it is
  QString sha256;   // expected
  QString command;  // generator command ("" for stored real traces)
};

CaseInput inputOf(const QString& caseDir) {
  CaseInput in;
  const QString readme = QString::fromUtf8(readAll(caseDir + "/README.md"));
  QRegularExpression sha("sha256 `([0-9a-f]{64})`");
  in.sha256 = sha.match(readme).captured(1);
  QRegularExpression gen("(python3 \\.\\./shared/oracle/gen\\S+\\.py[^\\n`]*)");
  auto gm = gen.match(readme);
  if (gm.hasMatch()) {
    in.command = gm.captured(1).trimmed();
    in.file = QRegularExpression("-o (\\S+)").match(in.command).captured(1);
    in.path = kCache + "/" + in.file;
  } else {
    QRegularExpression stored("Stored input `shared/([^`]+)`");
    const QString rel = stored.match(readme).captured(1);
    in.path = QStringLiteral(STEADYSCOPE_SHARED_DIR "/") + rel;
    in.file = QFileInfo(rel).fileName();
  }
  return in;
}

bool ensureInput(const CaseInput& in, QString* why) {
  if (QFile::exists(in.path) && sha256Of(in.path) == in.sha256) return true;
  if (in.command.isEmpty()) {
    *why = "stored input missing or changed: " + in.path;
    return false;
  }
  QDir().mkpath(kCache);
  QString cmd = in.command;
  cmd.replace("../shared/", QStringLiteral(STEADYSCOPE_SHARED_DIR "/"));
  QProcess p;
  p.setWorkingDirectory(kCache);
  p.start("/bin/sh", {"-c", cmd});
  if (!p.waitForFinished(30 * 60 * 1000) || p.exitCode() != 0) {
    *why = "generator failed: " + cmd + "\n" + QString::fromUtf8(p.readAllStandardError());
    return false;
  }
  if (sha256Of(in.path) != in.sha256) {
    *why = "regenerated input has the wrong sha256: " + in.path;
    return false;
  }
  return true;
}

}  // namespace

class TestSplitterOracle : public QObject {
  Q_OBJECT
 private slots:
  void parity_data() {
    QTest::addColumn<QString>("caseDir");
    QTest::addColumn<QString>("mode");
    const QStringList synthetic = {"vllm_2k",        "vllm_20k",         "sglang_native_2k", "sglang_detailed_2k",
                                   "atom_native_2k", "atom_detailed_2k", "vllm_graphs_2k",   "vllm_nogpu_1k",
                                   "diffusion_1k",   "training_300"};
    // Every real trace the reference ran on (default and --llm-inference).
    const QStringList real = QDir(kOracle + "/real").entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& c : synthetic)
      for (const QString& m : {QString("default"), QString("llm-inference")})
        QTest::newRow(qPrintable(c + (m == "default" ? "_default" : "_llm"))) << kOracle + "/" + c << m;
    for (const QString& c : real)
      for (const QString& m : {QString("default"), QString("llm-inference")})
        QTest::newRow(qPrintable("real_" + c + (m == "default" ? "_default" : "_llm"))) << kOracle + "/real/" + c << m;
  }
  void parity() {
    QFETCH(QString, caseDir);
    QFETCH(QString, mode);
    if (caseDir.endsWith("vllm_20k") && qEnvironmentVariableIsEmpty("STEADYSCOPE_ORACLE_BIG"))
      QSKIP("vllm_20k runs in the ctest oracle_vllm_20k (STEADYSCOPE_ORACLE_BIG=1)");
    SHARED_OR_SKIP(caseDir);
    CaseInput in = inputOf(caseDir);
    QString why;
    QVERIFY2(ensureInput(in, &why), qPrintable(why));
    // The reference's flags, from the case README.
    const QString readme = QString::fromUtf8(readAll(caseDir + "/README.md"));
    QRegularExpression runRe("## Run `" + QRegularExpression::escape(mode) +
                             "`\\s*```sh\\s*PYTHONPATH=[^\\n]*? python3 -m \\S+ (\\S+) ([^\\n]*)\\n");
    auto rm = runRe.match(readme);
    QVERIFY2(rm.hasMatch(), "no reference command in README");
    QStringList args = {"split", rm.captured(1)};
    args += rm.captured(2).trimmed().split(' ', Qt::SkipEmptyParts);
    QRegularExpression rcRe("## Run `" + QRegularExpression::escape(mode) + "`[\\s\\S]*?Exit code (\\d+)");
    const int refRc = rcRe.match(readme).captured(1).toInt();

    QTemporaryDir work;
    QVERIFY(QFile::link(in.path, work.filePath(in.file)));
    QProcess p;
    p.setWorkingDirectory(work.path());
    p.start(QStringLiteral(STEADYSCOPE_CLI), args);
    QVERIFY(p.waitForFinished(20 * 60 * 1000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), refRc);

    const QString ref = caseDir + "/" + mode;
    if (!QFile::exists(ref + "/split_manifest.json")) {
      QVERIFY2(!QDir(work.filePath("out")).exists(), "the reference wrote nothing");
      return;
    }
    QCOMPARE(readAll(work.filePath("out/split_manifest.json")), readAll(ref + "/split_manifest.json"));
    if (QFile::exists(ref + "/execution_details.csv")) {
      QCOMPARE(readAll(work.filePath("out/execution_details.csv")), readAll(ref + "/execution_details.csv"));
      // The JSON too (the reference's float sums reproduce exactly; the spec only asks 1e-9).
      QCOMPARE(readAll(work.filePath("out/execution_details.json")), readAll(ref + "/execution_details.json"));
    } else {
      QVERIFY(!QFile::exists(work.filePath("out/execution_details.csv")));
    }
    QCOMPARE(ourChunks(work.path()), refChunks(ref + "/chunks.tsv"));
    Q_UNUSED(err);
  }
  // A .json.gz input's text is re-inflated from checkpoints when chunks are
  // written: every output must be the same as from the plain .json.
  void gzipInputWritesTheSameChunks() {
    CaseInput in = inputOf(kOracle + "/vllm_2k");
    QString why;
    QVERIFY2(ensureInput(in, &why), qPrintable(why));
    QTemporaryDir work;
    QVERIFY(QDir(work.path()).mkpath("a") && QDir(work.path()).mkpath("b"));
    QVERIFY(QFile::link(in.path, work.filePath("a/t.json")));
    {
      const QByteArray json = readAll(in.path);
      gzFile gz = gzopen(work.filePath("b/t.json.gz").toLocal8Bit().constData(), "wb1");
      QVERIFY(gz);
      QCOMPARE(gzwrite(gz, json.constData(), unsigned(json.size())), int(json.size()));
      QCOMPARE(gzclose(gz), Z_OK);
    }
    for (const char* f : {"a/t.json", "b/t.json.gz"}) {
      QProcess p;
      p.setWorkingDirectory(work.filePath(QString(f).left(1)));
      p.start(QStringLiteral(STEADYSCOPE_CLI),
              {"split", QString(f).mid(2), "-o", "out", "--find-steady-state", "--llm-inference"});
      QVERIFY(p.waitForFinished(10 * 60 * 1000));
      QCOMPARE(p.exitCode(), 0);
    }
    const QString outA = work.filePath("a/out");
    QDirIterator it(outA, QDir::Files, QDirIterator::Subdirectories);
    int files = 0;
    while (it.hasNext()) {
      const QString a = it.next();
      const QString b = work.filePath("b/out/") + QDir(outA).relativeFilePath(a);
      QVERIFY2(QFile::exists(b), qPrintable(b));
      if (a.endsWith(".json.gz"))
        QVERIFY2(gunzipFile(a) == gunzipFile(b), qPrintable(a));
      else
        QCOMPARE(readAll(a), readAll(b));
      ++files;
    }
    QVERIFY(files >= 4);
  }

  // Spec §8 B5 as measured on the reference (SPEC-CHECK.md): --no-gap-fill still tiles multi-root chunks.
  void no_gap_fill_vllm_2k() {
    CaseInput in = inputOf(kOracle + "/vllm_2k");
    QString why;
    QVERIFY2(ensureInput(in, &why), qPrintable(why));
    QTemporaryDir work;
    QVERIFY(QFile::link(in.path, work.filePath(in.file)));
    QProcess p;
    p.setWorkingDirectory(work.path());
    p.start(QStringLiteral(STEADYSCOPE_CLI), {"split", in.file, "-o", "out", "--find-steady-state", "--no-gap-fill"});
    QVERIFY(p.waitForFinished(10 * 60 * 1000));
    QCOMPARE(p.exitCode(), 0);
    const QString csv = QString::fromUtf8(readAll(work.filePath("out/execution_details.csv")));
    QVERIFY(csv.contains("_vllm_2k.json.gz,4282,1246,20796.12,"));
    QVERIFY(csv.contains("_vllm_2k.json.gz,3618,"));
    QVERIFY(csv.contains("_vllm_2k.json.gz,1790,"));
    QVERIFY(!readAll(work.filePath("out/split_manifest.json")).contains("n_overlapping_roots"));
  }
};

QTEST_GUILESS_MAIN(TestSplitterOracle)
#include "tst_splitter_oracle.moc"
