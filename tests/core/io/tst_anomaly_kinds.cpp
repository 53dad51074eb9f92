// The anomaly kinds: every counter the loader can record has a row in the
// core's table, is classified expected or suspicious, and says what it affects;
// a loaded trace's suspicious text names only suspicious kinds.
#include "io/event_parser.hpp"
#include "support/load_json.hpp"

#include <steadyscope/model.hpp>

#include <QTest>

#include <set>

using namespace steadyscope;

class TstAnomalyKinds : public QObject {
  Q_OBJECT
 private slots:
  void everyCounterHasAKind();
  void classification();
  void loaderTakesTheTablesWords();
  void suspiciousTextNamesOnlySuspicious();
};

void TstAnomalyKinds::everyCounterHasAKind() {
  std::set<std::string_view> codes;
  for (const char* code : io::kAnomalyCodes) {
    const AnomalyKind* k = findAnomalyKind(code);
    QVERIFY2(k, code);
    QVERIFY(!k->title.empty() && !k->meaning.empty());
    QVERIFY2(k->affects.size() > 20 && k->affects.back() == '.', code);  // one sentence
    codes.insert(code);
  }
  QCOMPARE(anomalyKinds().size(), codes.size());  // no row the loader cannot record
}

void TstAnomalyKinds::classification() {
  // Normal in any capture: flows and launches cut at the capture's edges, phases this version does not draw.
  for (const char* code : {"flow_without_peer", "kernel_without_launch", "ph_unknown"})
    QCOMPARE(anomalyClassOf(code), AnomalyClass::Expected);
  for (const char* code : {"dur_negative", "dur_missing", "ts_missing", "ts_not_number", "dur_not_number",
                           "number_non_finite", "number_out_of_range", "ph_missing", "event_not_object", "unmatched_B",
                           "unmatched_E", "gpu_without_correlation"})
    QCOMPARE(anomalyClassOf(code), AnomalyClass::Suspicious);
  QCOMPARE(anomalyClassOf("a_code_of_a_later_version"), AnomalyClass::Suspicious);
  QVERIFY(findAnomalyKind("a_code_of_a_later_version") == nullptr);
}

namespace {
// A cut flow (an 's' without its 'f'), a kernel whose launch is not in the file, and a negative duration.
const char* kTrace = R"({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":10,"dur":-5},
 {"ph":"s","cat":"ac2g","name":"f","id":7,"pid":1,"tid":1,"ts":11},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":3,"args":{"correlation":99}}]})";
}  // namespace

void TstAnomalyKinds::loaderTakesTheTablesWords() {
  const TracePtr t = sstest::loadJson(kTrace, "cut.json");
  QCOMPARE(t->anomalies.size(), size_t(3));
  for (const Anomaly& a : t->anomalies) QCOMPARE(a.explanation, std::string(findAnomalyKind(a.code)->meaning));
}

void TstAnomalyKinds::suspiciousTextNamesOnlySuspicious() {
  const TracePtr t = sstest::loadJson(kTrace, "cut.json");
  QCOMPARE(suspiciousAnomalyText(*t), std::string("negative durations (1)"));
  Trace many;
  many.anomalies = {{"flow_without_peer", "", 9234, 0}, {"unmatched_E", "", 3, 1}, {"dur_negative", "", 12345, 2}};
  QCOMPARE(suspiciousAnomalyText(many),
           std::string("negative durations (12,345), end ('E') events without a begin (3)"));
  Trace expectedOnly;
  expectedOnly.anomalies = {{"flow_without_peer", "", 9234, 0}, {"kernel_without_launch", "", 8, 1}};
  QCOMPARE(suspiciousAnomalyText(expectedOnly), std::string());
}

QTEST_GUILESS_MAIN(TstAnomalyKinds)
#include "tst_anomaly_kinds.moc"
