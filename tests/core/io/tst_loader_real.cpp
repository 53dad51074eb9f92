// Every real trace in shared/traces/real loads, and its counts equal the
// independent Python characterisation (characterisation.jsonl).
#include "support/shared_data.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace steadyscope;

namespace {
const QString kShared = QStringLiteral(STEADYSCOPE_SHARED_DIR);

// The characterisation script's inference-annotation patterns (search semantics).
const std::vector<std::pair<QString, QRegularExpression>>& patterns() {
  static const std::vector<std::pair<QString, QRegularExpression>> p = {
      {"vllm_native execute_context_N(N)_generation_N(N)",
       QRegularExpression(R"(^execute_context_\d+\([\d_]+\)_generation_\d+\(\d+\)$)")},
      {"tracelens_detailed execute_N_context_N(sq..)_generation_N(sq..)",
       QRegularExpression(R"(^execute_\d+_context_\d+\(sq.*\)_generation_\d+\(sq.*\))")},
      {"sglang step[DECODE|EXTEND|MIXED ...]", QRegularExpression(R"(^step\[(DECODE|PREFILL|EXTEND|MIXED|IDLE))")},
      {"atom prefill[...]", QRegularExpression(R"(^prefill\[)")},
      {"atom decode[...]", QRegularExpression(R"(^decode\[)")},
      {"xdit execute_diffusion_*", QRegularExpression(R"(^execute_diffusion)")},
      {"graph capture_N_*", QRegularExpression(R"(^capture_\d+_)")},
  };
  return p;
}
}  // namespace

class TestLoaderReal : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { SHARED_OR_SKIP(kShared + "/traces/real/characterisation.jsonl"); }
  void realTraces_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QJsonObject>("expected");
    QFile f(kShared + "/traces/real/characterisation.jsonl");
    QVERIFY(f.open(QIODevice::ReadOnly));
    int n = 0;
    while (!f.atEnd()) {
      QByteArray line = f.readLine().trimmed();
      if (line.isEmpty()) continue;
      QJsonObject o = QJsonDocument::fromJson(line).object();
      QString rel = o["file"].toString();  // relative to the folder holding shared/
      QString path = kShared + "/../" + rel;
      QTest::newRow(qPrintable(rel.section('/', 3))) << path << o;
      ++n;
    }
    QCOMPARE(n, 35);
  }
  void realTraces() {
    QFETCH(QString, path);
    QFETCH(QJsonObject, expected);
    auto r = loadTrace(path.toStdString());
    if (expected["events"].toInt() == 0 && expected["ph"].toObject().isEmpty() && path.contains("rocprof")) {
      // rocprofv3's own JSON: no traceEvents. Refused with a clear message.
      QVERIFY(!r.ok());
      QCOMPARE(QString::fromStdString(r.error().code), QString("no_trace_events"));
      QVERIFY(QString::fromStdString(r.error().describe()).contains("traceEvents"));
      return;
    }
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Trace& t = *r.value();
    QCOMPARE(qint64(t.size()), qint64(expected["events"].toInt()));
    QCOMPARE(qint64(t.stats.gpuEvents), qint64(expected["gpu_events"].toInt()));
    QCOMPARE(qint64(t.stats.jsonBytes), qint64(expected["uncompressed_bytes"].toInteger()));
    QJsonObject ph = expected["ph"].toObject();
    for (auto it = ph.begin(); it != ph.end(); ++it) {
      auto f = t.stats.perPh.find(it.key().toStdString());
      QVERIFY2(f != t.stats.perPh.end(), qPrintable("ph " + it.key()));
      QCOMPARE(qint64(f->second), qint64(it.value().toInt()));
    }
    QCOMPARE(qsizetype(t.stats.perPh.size()), ph.size());
    QJsonObject cat = expected["cat"].toObject();  // top 25
    for (auto it = cat.begin(); it != cat.end(); ++it) {
      auto f = t.stats.perCat.find(it.key().toStdString());
      QVERIFY2(f != t.stats.perCat.end(), qPrintable("cat " + it.key()));
      QCOMPARE(qint64(f->second), qint64(it.value().toInt()));
    }
    QCOMPARE(qint64(t.stats.perCat.size()), qint64(expected["n_cats"].toInt()));
    // step annotations (CPU side) and ProfilerStep count
    int profilerSteps = 0;
    QMap<QString, int> inf;
    for (EventIdx i = 0; i < t.size(); ++i) {
      QString name = QString::fromUtf8(t.nameOf(i).data(), qsizetype(t.nameOf(i).size()));
      std::string_view c = t.catOf(i);
      if (name.startsWith("ProfilerStep#") && c != "gpu_user_annotation") ++profilerSteps;
      if (c == "user_annotation" && t.ph[i] != Ph::Metadata)
        for (const auto& [label, rx] : patterns())
          if (rx.match(name).hasMatch()) ++inf[label];
    }
    QCOMPARE(profilerSteps, expected["profiler_steps_cpu"].toInt());
    QJsonObject expInf = expected["inference_annotations"].toObject();
    QCOMPARE(qsizetype(inf.size()), expInf.size());
    for (auto it = expInf.begin(); it != expInf.end(); ++it) QCOMPARE(inf.value(it.key()), it.value().toInt());
    // anomaly counters agree with the characterisation's own checks
    uint64_t durMissing = 0, negative = 0;
    for (const auto& a : t.anomalies) {
      if (a.code == "dur_missing") durMissing = a.count;
      if (a.code == "dur_negative") negative = a.count;
    }
    QCOMPARE(qint64(durMissing), qint64(expected["x_missing_dur"].toInt()));
    QCOMPARE(qint64(negative), qint64(expected["negative_dur"].toInt()));
    // every event's raw text is one JSON object
    EventText text(t);
    for (EventIdx i = 0; i < t.size(); i += 97) {
      auto raw = text(i);
      QVERIFY(!raw.empty() && raw.front() == '{' && raw.back() == '}');
    }
  }
};

QTEST_APPLESS_MAIN(TestLoaderReal)
#include "tst_loader_real.moc"
