// steadyscope-cli gate through a process: exit statuses 0/1/2 and --json.
#include "gate_fixture.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace gatetest;

namespace {
struct Run {
  int status = -1;
  QByteArray out, err;
};
Run runCli(const QStringList& args, const QString& cwd = QString()) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("INFERENCE_OPTIMIZER_STEADY_STATE_MODE");
  env.remove("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO");
  p.setProcessEnvironment(env);
  if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
  p.start(STEADYSCOPE_CLI, QStringList{"gate"} + args);
  p.waitForFinished(60000);
  Run r;
  r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}
}  // namespace

class TestGateCli : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  QString good_, bad_;

 private slots:
  void initTestCase() {
    const QString root = QDir(tmp_.path()).canonicalPath();
    good_ = root + "/good";
    bad_ = root + "/bad";
    QDir().mkpath(good_);
    QDir().mkpath(bad_);
    QVERIFY(writeSplitDir(good_, parseRows("mixed:100,1000,500;decode_only:100,1000,900"), true, good_));
    QVERIFY(writeSplitDir(bad_, parseRows("mixed:100,1000,20;decode_only:100,1000,900"), true, bad_));
  }

  void exitStatus_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("status");
    QTest::newRow("accepted") << QStringList{"$GOOD"} << 0;
    QTest::newRow("refused low quality") << QStringList{"$BAD"} << 1;
    QTest::newRow("threshold lowered accepts") << QStringList{"$BAD", "--threshold", "0.01"} << 0;
    QTest::newRow("threshold=") << QStringList{"$GOOD", "--threshold=0.6"} << 1;
    QTest::newRow("missing mode") << QStringList{"$GOOD", "--mode", "prefilldecode"} << 1;
    QTest::newRow("other mode") << QStringList{"$BAD", "--mode", "decode_only"} << 0;
    QTest::newRow("margin") << QStringList{"$BAD", "--margin", "0.95"} << 0;
    QTest::newRow("refuse without alternate")
        << QStringList{"$BAD", "--margin", "0.95", "--refuse-without-alternate"} << 1;
    QTest::newRow("strict") << QStringList{"$GOOD", "--strict"} << 0;
    QTest::newRow("not a dir") << QStringList{"$GOOD/execution_details.csv"} << 2;
    QTest::newRow("no such dir") << QStringList{"$GOOD/nope"} << 2;
    QTest::newRow("no dir") << QStringList{} << 2;
    QTest::newRow("bad mode") << QStringList{"$GOOD", "--mode", "max_prefilldecode"} << 2;
    QTest::newRow("bad threshold") << QStringList{"$GOOD", "--threshold", "2"} << 2;
    QTest::newRow("bad option") << QStringList{"$GOOD", "--frob"} << 2;
    QTest::newRow("two dirs") << QStringList{"$GOOD", "$BAD"} << 2;
    QTest::newRow("help") << QStringList{"--help"} << 0;
  }
  void exitStatus() {
    QFETCH(QStringList, args);
    QFETCH(int, status);
    for (auto& a : args) a.replace("$GOOD", good_).replace("$BAD", bad_);
    Run r = runCli(args);
    QVERIFY2(r.status == status, (r.out + r.err).constData());
    if (status == 2) QVERIFY(!r.err.isEmpty());
  }

  void json() {
    Run r = runCli({bad_, "--json"});
    QCOMPARE(r.status, 1);
    QJsonParseError e;
    QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    QVERIFY2(e.error == QJsonParseError::NoError, qPrintable(e.errorString()));
    QJsonObject o = d.object();
    QCOMPARE(o["verdict"].toString(), QString("refused"));
    QCOMPARE(o["retry_mode"].toString(), QString("decode_only"));
    QJsonArray w = o["result"].toObject()["trace_health_warnings"].toArray();
    QCOMPARE(w.size(), 1);
    QCOMPARE(w[0].toObject()["code"].toString(), QString("steady_state_chunk_low_quality"));
    QCOMPARE(w[0].toObject()["busy_ratio"].toDouble(), 0.02);
    QVERIFY(o["decision_record"].toArray().size() > 5);
    QVERIFY(o["findings"].isArray());
  }

  void textExplains() {
    Run r = runCli({bad_});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.out.contains("low quality: busy ratio 0.02 < 0.05; decode_only offered at 0.9"), r.out.constData());
    QVERIFY(r.out.contains("Retry: decode_only"));
  }

  void relativeOutputPathUsesWorkingDirectory() {
    // B12 through the CLI: rows written relative to the split's parent match
    // only when run from there.
    const QString root = QDir(tmp_.path()).canonicalPath() + "/rel";
    QDir().mkpath(root + "/out");
    QVERIFY(writeSplitDir(root + "/out", parseRows("mixed:100,1000,20;decode_only:100,1000,900"), true, "out"));
    QCOMPARE(runCli({"out"}, root).status, 1);
    Run moved = runCli({root + "/out"}, "/");
    QCOMPARE(moved.status, 0);
    QVERIFY(moved.out.contains("rows_matched_by_name"));
    QCOMPARE(runCli({root + "/out", "--strict"}, "/").status, 1);
  }
};

QTEST_GUILESS_MAIN(TestGateCli)
#include "tst_gate_cli.moc"
