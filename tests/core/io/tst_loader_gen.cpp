// The loader on traces made by steadyscope-gen with the awkward shapes real
// traces have: counts and anomalies equal the generator's planted ground truth.
#include <steadyscope/core/io/loader.hpp>
#include "support/load_tuning.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;

namespace {
uint64_t anomaly(const Trace& t, const std::string& code) {
  for (const auto& a : t.anomalies)
    if (a.code == code) return a.count;
  return 0;
}
}  // namespace

class TestLoaderGen : public QObject {
  Q_OBJECT
 private slots:
  void generated_data() {
    QTest::addColumn<QStringList>("options");
    QTest::newRow("vllm native") << QStringList{"--style", "vllm"};
    QTest::newRow("B/E pairs") << QStringList{"--be-pairs"};
    QTest::newRow("bad dur") << QStringList{"--bad-dur", "0.1"};
    QTest::newRow("string ids") << QStringList{"--string-ids"};
    QTest::newRow("old 2021 categories") << QStringList{"--old-categories"};
    QTest::newRow("unsorted") << QStringList{"--unsorted"};
    QTest::newRow("overlapping kernels") << QStringList{"--overlap-kernels"};
    QTest::newRow("epoch timestamps") << QStringList{"--epoch"};
    QTest::newRow("everything, gzip") << QStringList{
        "--be-pairs", "--bad-dur",         "0.05", "--string-ids", "--old-categories",
        "--unsorted", "--overlap-kernels", "--gz"};
    QTest::newRow("training") << QStringList{"--style", "training"};
    QTest::newRow("sglang detailed, graph steps")
        << QStringList{"--style", "sglang", "--annotation", "detailed", "--graph-steps", "0.3"};
  }
  void generated() {
    QFETCH(QStringList, options);
    QTemporaryDir dir;
    bool gz = options.removeAll("--gz") > 0;
    QString out = dir.path() + (gz ? "/t.json.gz" : "/t.json");
    QString truthPath = dir.path() + "/truth.json";
    QProcess gen;
    gen.start(STEADYSCOPE_GEN,
              QStringList{"-o", out, "--steps", "120", "--seed", "5", "--truth", truthPath, "--quiet"} + options);
    QVERIFY(gen.waitForFinished(60000));
    QCOMPARE(gen.exitCode(), 0);
    QFile tf(truthPath);
    QVERIFY(tf.open(QIODevice::ReadOnly));
    QJsonObject truth = QJsonDocument::fromJson(tf.readAll()).object();
    QJsonObject evs = truth["events"].toObject();

    auto r =
        loadTrace(out.toStdString(), testsupport::tuned(LoadOptions{.cacheDir = dir.path().toStdString()}, 64 * 1024));
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Trace& t = *r.value();
    QCOMPARE(qint64(t.size()), qint64(evs["total"].toInteger()));
    QCOMPARE(qint64(t.stats.gpuEvents), qint64(evs["gpu"].toInteger()));
    QJsonObject byPh = evs["by_ph"].toObject();
    for (auto it = byPh.begin(); it != byPh.end(); ++it)
      QCOMPARE(qint64(t.stats.perPh.at(it.key().toStdString())), qint64(it.value().toInteger()));
    QJsonObject byCat = evs["by_cat"].toObject();
    for (auto it = byCat.begin(); it != byCat.end(); ++it)
      QCOMPARE(qint64(t.stats.perCat.at(it.key().toStdString())), qint64(it.value().toInteger()));
    QJsonObject an = truth["anomalies"].toObject();
    QCOMPARE(qint64(anomaly(t, "dur_missing")), qint64(an["missing_dur"].toInteger()));
    QCOMPARE(qint64(anomaly(t, "dur_negative")), qint64(an["negative_dur"].toInteger()));
    QCOMPARE(qint64(anomaly(t, "unmatched_B")), qint64(0));
    QCOMPARE(qint64(anomaly(t, "unmatched_E")), qint64(0));
    // every planted B/E pair was paired
    uint64_t paired = 0;
    for (EventIdx i = 0; i < t.size(); ++i) paired += t.has(i, ev::DurFromPair);
    QCOMPARE(qint64(paired), qint64(an["be_pairs"].toInteger()));
    // GPU busy union per device equals a brute-force union over the events
    std::map<JsonKey, std::vector<std::pair<int64_t, int64_t>>> iv;
    int64_t sum = 0;
    for (EventIdx i = 0; i < t.size(); ++i)
      if (isGpuWork(t.classOf(i)) && t.has(i, ev::HasDur) && t.durNs[i] > 0) {
        iv[t.lanes[t.lane[i]].pid].push_back({t.tsNs[i], t.endNs(i)});
        sum += t.durNs[i];
      }
    QCOMPARE(t.gpuBusy.size(), iv.size());
    int64_t uni = 0;
    for (const auto& d : t.gpuBusy) {
      auto v = iv.at(d.pid);
      std::sort(v.begin(), v.end());
      int64_t total = 0, curB = v[0].first, curE = v[0].second;
      for (size_t k = 1; k < v.size(); ++k) {
        if (v[k].first <= curE)
          curE = std::max(curE, v[k].second);
        else {
          total += curE - curB;
          curB = v[k].first;
          curE = v[k].second;
        }
      }
      total += curE - curB;
      QCOMPARE(d.busyNs, total);
      uni += d.busyNs;
    }
    QVERIFY(uni <= sum);
    if (an["overlapping_gpu_events"].toInteger() > 0) QVERIFY(uni < sum);
    // annotations
    QJsonObject ann = truth["annotations"].toObject();
    QCOMPARE(qint64(t.stats.perCat.count("user_annotation") ? t.stats.perCat.at("user_annotation") : 0),
             qint64(ann["user_annotation"].toInteger()));
  }
};

QTEST_APPLESS_MAIN(TestLoaderGen)
#include "tst_loader_gen.moc"
