// The gate's rules: every case of spec E16 (verdict, warnings, retry, record
// sentence) and E17 (retry extraction) as data rows, the §8 choices, the
// findings, strict mode and the environment variables.
#include "gate_fixture.hpp"

#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/gate/review.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>

using namespace steadyscope::gate;
using steadyscope::jsonQuote;
using steadyscope::JsonStyle;
using steadyscope::JsonValue;
using namespace gatetest;

Q_DECLARE_METATYPE(steadyscope::JsonValue)

namespace {

// Warnings without their free-text fields (§6.6: wording is free).
QString warningsWithoutText(const GateResult& r) {
  JsonValue a = JsonValue::array();
  for (JsonValue w : r.warnings) {
    JsonValue c = JsonValue::object();
    for (const auto& m : w.members())
      if (m.first != "remediation" && m.first != "message") c.set(m.first, m.second);
    a.push(c);
  }
  return q(a.dump(JsonStyle::oneLine()));
}

const RuleEvaluation* findRule(const GateResult& r, const std::string& rule, const std::string& subject) {
  for (const auto& e : r.record)
    if (e.rule == rule && e.subject == subject) return &e;
  return nullptr;
}

bool hasFinding(const GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return true;
  return false;
}

const Finding* finding(const GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

// A split directory from a row spec, gated as `mode` with absolute output_path.
struct Gated {
  QTemporaryDir tmp;
  QString dir;
  GateResult result;
};

std::unique_ptr<Gated> gateSpec(const QString& spec, const QString& mode, bool withCsv = true,
                                GateOptions base = GateOptions{}, ReviewOptions ro = ReviewOptions{}) {
  auto g = std::make_unique<Gated>();
  g->dir = QDir(g->tmp.path()).canonicalPath() + "/split";
  QDir().mkpath(g->dir);
  writeSplitDir(g->dir, parseRows(spec), withCsv, g->dir);
  base.mode = *parseMode(mode.toStdString());
  ro.gate = base;
  auto r = reviewSplitDirectory(g->dir.toStdString(), ro);
  if (r) g->result = r.value();
  return g;
}

GateInput memoryInput(const std::vector<std::pair<Mode, ChunkRow>>& rows) {
  GateInput in;
  in.listing.splitDir = "/mem";
  for (const auto& [m, row] : rows) {
    in.listing.chunks[modeIndex(m)].push_back(*row.outputPath);
    in.rows[modeIndex(m)] = row;
  }
  return in;
}

}  // namespace

class TestGateRules : public QObject {
  Q_OBJECT
 private slots:
  // ---- E16 -------------------------------------------------------------------
  void e16_data() {
    QTest::addColumn<QString>("rows");
    QTest::addColumn<bool>("withCsv");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("envThreshold");  // "-" = unset
    QTest::addColumn<bool>("refuseWithoutAlternate");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("warnings");  // $DIR = the split directory; remediation/message dropped
    QTest::addColumn<QString>("retry");
    QTest::addColumn<QString>("summary");

    const QString pd = "prefilldecode:2790,4538984.0,2723452.0,0.600014";
    const QString mixedFile = "$DIR/" + chunkFileName("mixed");
    QTest::newRow("G1")
        << "mixed:160,3257719.65,2053.09,0.000630;" + pd << true << "mixed"
        << "-" << false << false
        << "[{\"code\": \"steady_state_chunk_low_quality\", \"severity\": \"blocking\", "
           "\"requested_mode\": \"mixed\", \"selected_chunk\": \"" +
               mixedFile +
               "\", "
               "\"num_gpu_events\": 160, \"gpu_busy_duration\": 2053.09, \"gpu_duration\": 3257719.65, "
               "\"busy_ratio\": 0.00063, \"threshold\": 0.05, \"non_empty_modes\": [\"prefilldecode\"], "
               "\"alternate_busy_ratios\": {\"prefilldecode\": 0.600014}, "
               "\"available_modes\": [\"mixed\", \"prefilldecode\"]}]"
        << "prefilldecode"
        << "refused, low quality: busy ratio 0.00063 < 0.05; prefilldecode offered at 0.600014";
    QTest::newRow("G2") << "mixed:1000,1000000,80000,;" + pd << true << "mixed"
                        << "-" << false << true << "[]"
                        << ""
                        << "passed: busy ratio 0.08 >= threshold 0.05";
    QTest::newRow("G2'")
        << "mixed:1000,1000000,80000,;" + pd << true << "mixed"
        << "0.20" << false << false
        << "[{\"code\": \"steady_state_chunk_low_quality\", \"severity\": \"blocking\", "
           "\"requested_mode\": \"mixed\", \"selected_chunk\": \"" +
               mixedFile +
               "\", "
               "\"num_gpu_events\": 1000, \"gpu_busy_duration\": 80000.0, \"gpu_duration\": 1000000.0, "
               "\"busy_ratio\": 0.08, \"threshold\": 0.2, \"non_empty_modes\": [\"prefilldecode\"], "
               "\"alternate_busy_ratios\": {\"prefilldecode\": 0.600014}, "
               "\"available_modes\": [\"mixed\", \"prefilldecode\"]}]"
        << "prefilldecode"
        << "refused, low quality: busy ratio 0.08 < 0.2; prefilldecode offered at 0.600014";
    QTest::newRow("G2''") << "mixed:1000,1000000,80000" << true << "mixed"
                          << "0.20" << false << true << "[]"
                          << ""
                          << "passed: busy ratio 0.08 < 0.2 but no alternate qualifies, and the pipeline passes such "
                             "a chunk to avoid a retry loop (§8 Q2)";
    QTest::newRow("G3") << "mixed:160,3257719.65,2053.09,0.000630;prefilldecode:10,1000,0.5,0.0005" << true << "mixed"
                        << "-" << false << true << "[]"
                        << ""
                        << "passed: busy ratio 0.00063 < 0.05 but no alternate qualifies, and the pipeline passes "
                           "such a chunk to avoid a retry loop (§8 Q2)";
    QTest::newRow("G3-refuse-switch")
        << "mixed:160,3257719.65,2053.09,0.000630;prefilldecode:10,1000,0.5,0.0005" << true << "mixed"
        << "-" << true << false
        << "[{\"code\": \"steady_state_chunk_low_quality\", \"severity\": \"blocking\", "
           "\"requested_mode\": \"mixed\", \"selected_chunk\": \"" +
               mixedFile +
               "\", "
               "\"num_gpu_events\": 160, \"gpu_busy_duration\": 2053.09, "
               "\"gpu_duration\": 3257719.65, \"busy_ratio\": 0.00063, \"threshold\": 0.05, "
               "\"non_empty_modes\": [], \"alternate_busy_ratios\": {\"prefilldecode\": "
               "0.0005}, \"available_modes\": [\"mixed\", \"prefilldecode\"]}]"
        << "mixed"  // §6.7 falls through to available_modes, whose first is "mixed"
        << "refused: busy ratio 0.00063 < 0.05 and no alternate qualifies "
           "(refuse-without-alternate, §8 Q2)";
    QTest::newRow("G4") << "mixed:0,0,0;decode_only:100,1000,20;prefilldecode:100,1000,600" << true << "mixed"
                        << "-" << false << false
                        << "[{\"code\": \"steady_state_chunk_low_quality\", \"severity\": \"blocking\", "
                           "\"requested_mode\": \"mixed\", \"selected_chunk\": \"" +
                               mixedFile +
                               "\", "
                               "\"num_gpu_events\": 0, \"gpu_busy_duration\": 0.0, \"gpu_duration\": 0.0, "
                               "\"busy_ratio\": null, \"threshold\": 0.05, "
                               "\"non_empty_modes\": [\"prefilldecode\", \"decode_only\"], "
                               "\"alternate_busy_ratios\": {\"decode_only\": 0.02, \"prefilldecode\": 0.6}, "
                               "\"available_modes\": [\"mixed\", \"decode_only\", \"prefilldecode\"]}]"
                        << "prefilldecode"
                        << "refused: the chunk has 0 GPU events; prefilldecode offered at 0.6, decode_only at 0.02";
    QTest::newRow("G5") << "mixed:10,1000,10,0.30" << true << "mixed"
                        << "-" << false << true << "[]"
                        << ""
                        << "passed: busy ratio 0.3 >= threshold 0.05";
    QTest::newRow("G6") << "mixed:5,0,0;prefilldecode:2790,4538984.0,2723452.0" << true << "mixed"
                        << "-" << false << true << "[]"
                        << ""
                        << "passed — not checked: the chunk has GPU events but no busy ratio (no usable busy_ratio cell "
                           "and gpu_duration is not > 0), and the pipeline then skips the quality check";
    QTest::newRow("G7") << "mixed:0,0,0" << false << "mixed"
                        << "-" << false << true << "[]"
                        << ""
                        << "passed — not checked: execution_details.csv is absent, so the pipeline does not look at "
                           "the chunk's numbers (§6.4)";
    QTest::newRow("G8") << "decode_only:100,1000,500" << true << "mixed"
                        << "-" << false << false
                        << "[{\"code\": \"steady_state_chunk_missing\", \"severity\": \"blocking\", "
                           "\"requested_mode\": \"mixed\", \"requested_chunk_label\": \"mixed_steady_state\", "
                           "\"available_modes\": [\"decode_only\"], \"trace_input\": null, \"split_dir\": \"$DIR\"}]"
                        << "decode_only"
                        << "refused: there is no mixed chunk; available: decode_only "
                           "(steady_state_chunk_missing)";
    QTest::newRow("G9") << "" << true << "mixed"
                        << "-" << false << false
                        << "[{\"code\": \"trace_split_no_steady_state\", \"severity\": \"warning\", "
                           "\"trace_input\": null, \"split_dir\": \"$DIR\", \"split_returncode\": null, "
                           "\"mixed_count\": 0, \"decode_only_count\": 0, \"prefilldecode_count\": 0}]"
                        << ""
                        << "refused: the split directory has no steady-state chunk of any mode "
                           "(trace_split_no_steady_state)";
    QTest::newRow("G10") << "generic:100,1000,500" << true << "generic"
                         << "-" << false << true << "[]"
                         << ""
                         << "passed: busy ratio 0.5 >= threshold 0.05";
    QTest::newRow("G11") << "mixed:100,1000,50;decode_only:100,1000,900" << true << "mixed"
                         << "-" << false << true << "[]"
                         << ""
                         << "passed: busy ratio 0.05 >= threshold 0.05";
    QTest::newRow("G12") << "mixed:100,1000,40;decode_only:100,1000,140" << true << "mixed"
                         << "-" << false << false
                         << "[{\"code\": \"steady_state_chunk_low_quality\", \"severity\": \"blocking\", "
                            "\"requested_mode\": \"mixed\", \"selected_chunk\": \"" +
                                mixedFile +
                                "\", "
                                "\"num_gpu_events\": 100, \"gpu_busy_duration\": 40.0, \"gpu_duration\": 1000.0, "
                                "\"busy_ratio\": 0.04, \"threshold\": 0.05, \"non_empty_modes\": [\"decode_only\"], "
                                "\"alternate_busy_ratios\": {\"decode_only\": 0.14}, "
                                "\"available_modes\": [\"mixed\", \"decode_only\"]}]"
                         << "decode_only"
                         << "refused, low quality: busy ratio 0.04 < 0.05; decode_only offered at 0.14";
    QTest::newRow("G13") << "mixed:100,1000,49;decode_only:100,1000,149" << true << "mixed"
                         << "-" << false << true << "[]"
                         << ""
                         << "passed: busy ratio 0.049 < 0.05 but no alternate qualifies, and the pipeline passes "
                            "such a chunk to avoid a retry loop (§8 Q2)";
  }
  void e16() {
    QFETCH(QString, rows);
    QFETCH(bool, withCsv);
    QFETCH(QString, mode);
    QFETCH(QString, envThreshold);
    QFETCH(bool, refuseWithoutAlternate);
    QFETCH(bool, accepted);
    QFETCH(QString, warnings);
    QFETCH(QString, retry);
    QFETCH(QString, summary);

    GateOptions o;
    if (envThreshold != "-") {
      qputenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO", envThreshold.toUtf8());
      o.threshold = thresholdFromEnvironment();
      qunsetenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO");
    }
    o.refuseWithoutAlternate = refuseWithoutAlternate;
    auto g = gateSpec(rows, mode, withCsv, o);
    const GateResult& r = g->result;
    QCOMPARE(r.accepted, accepted);
    QCOMPARE(r.exitStatus(), accepted ? 0 : 1);
    QCOMPARE(warningsWithoutText(r), QString(warnings).replace("$DIR", g->dir));
    QCOMPARE(r.retry ? q(r.retry->toMode) : QString(), retry);
    QCOMPARE(q(r.summary), summary);
    // The record ends with the verdict sentence (then the retry rule when refused).
    bool found = false;
    for (const auto& e : r.record) found = found || q(e.sentence) == summary;
    QVERIFY2(found, "the summary sentence is one of the record's sentences");
    // The pipeline's result object and the remediation rule of §6.6.
    QCOMPARE(q(r.pipelineResult().find("status")->asString()), accepted ? QString("ok") : QString("error"));
    for (const auto& w : r.warnings) {
      const JsonValue* code = w.find("code");
      if (code->asString() == "steady_state_chunk_low_quality") {
        const std::string rem = w.find("remediation")->asString();
        QVERIFY(rem.find("INFERENCE_OPTIMIZER_STEADY_STATE_MODE") != std::string::npos);
        for (const auto& m : w.find("non_empty_modes")->items()) QVERIFY(rem.find(m.asString()) != std::string::npos);
        QVERIFY(!w.find("message")->asString().empty());
        QVERIFY(q(r.errorMessage).startsWith("steady_state_chunk_low_quality"));
      }
      if (code->asString() == "steady_state_chunk_missing") {
        QVERIFY(w.find("remediation")->asString().find("INFERENCE_OPTIMIZER_STEADY_STATE_MODE") != std::string::npos);
        QVERIFY(q(r.errorMessage).startsWith("steady_state_chunk_missing"));
      }
      if (code->asString() == "trace_split_no_steady_state")
        QVERIFY(q(r.errorMessage).startsWith(code->asString().c_str()));
    }
  }

  void e16_marginSentences() {
    // G12/G13: the exact double difference decides, and the record shows it.
    auto g12 = gateSpec("mixed:100,1000,40;decode_only:100,1000,140", "mixed");
    const RuleEvaluation* a12 = findRule(g12->result, "alternate", "decode_only");
    QVERIFY(a12);
    QCOMPARE(q(a12->sentence), QString("decode_only: busy ratio 0.14 >= threshold 0.05 and 0.14 - 0.04 = 0.1 >= "
                                       "margin 0.1: qualifies"));
    auto g13 = gateSpec("mixed:100,1000,49;decode_only:100,1000,149", "mixed");
    const RuleEvaluation* a13 = findRule(g13->result, "alternate", "decode_only");
    QVERIFY(a13);
    QCOMPARE(q(a13->sentence), QString("decode_only: busy ratio 0.149 >= threshold 0.05 and 0.149 - 0.049 = "
                                       "0.09999999999999999 < margin 0.1: does not qualify"));
    QCOMPARE(a13->inputs.find("difference")->asDouble(), 0.149 - 0.049);
    // G4: 0 events, threshold and margin skipped.
    auto g4 = gateSpec("mixed:0,0,0;decode_only:100,1000,20;prefilldecode:100,1000,600", "mixed");
    QCOMPARE(q(findRule(g4->result, "gpu_events", "mixed")->sentence),
             QString("refused: the chunk has 0 GPU events (refused whatever its busy ratio)"));
    QVERIFY(
        q(findRule(g4->result, "alternate", "decode_only")->sentence).contains("threshold and margin do not apply"));
  }

  void recordJsonShape() {
    auto g = gateSpec("mixed:160,3257719.65,2053.09,0.000630;prefilldecode:2790,4538984.0,2723452.0,0.600014", "mixed");
    JsonValue rec = g->result.recordJson();
    QVERIFY(rec.isArray());
    QStringList rules;
    for (const auto& e : rec.items()) {
      rules << q(e.find("rule")->asString());
      QVERIFY(e.find("sentence")->isString());
      QVERIFY(e.find("inputs")->isObject());
    }
    QCOMPARE(rules, QStringList({"layout", "collect", "any_chunk", "mode_present", "select", "details_csv", "row_match",
                                 "gpu_events", "busy_ratio", "threshold", "alternate", "verdict", "retry"}));
    const RuleEvaluation* br = findRule(g->result, "busy_ratio", "mixed");
    QCOMPARE(q(br->inputs.find("ratio_source")->asString()), QString("busy_ratio column"));
    QCOMPARE(q(br->inputs.find("busy_ratio_cell")->asString()), QString("0.000630"));
    JsonValue all = g->result.toJson();
    QCOMPARE(q(all.find("retry_mode")->asString()), QString("prefilldecode"));
    QCOMPARE(q(all.find("retry")->find("from_mode")->asString()), QString("mixed"));
  }

  // ---- E17 -------------------------------------------------------------------
  void e17_data() {
    QTest::addColumn<JsonValue>("result");
    QTest::addColumn<QString>("retry");
    auto wrap = [](std::vector<JsonValue> ws, const char* status = "error") {
      return JsonValue::object({{"status", status}, {"trace_health_warnings", JsonValue::array(std::move(ws))}});
    };
    QTest::newRow("low-quality list")
        << wrap({JsonValue::object({{"code", "steady_state_chunk_low_quality"},
                                    {"non_empty_modes", JsonValue::stringList({"prefilldecode", "decode_only"})}})})
        << "prefilldecode";
    QTest::newRow("string skipped")
        << wrap({JsonValue::object({{"code", "steady_state_chunk_missing"}, {"non_empty_modes", "prefilldecode"}}),
                 JsonValue::object({{"code", "steady_state_chunk_low_quality"},
                                    {"available_modes", JsonValue::stringList({"decode_only"})}})})
        << "decode_only";
    QTest::newRow("no-steady-state not retried")
        << wrap({JsonValue::object(
               {{"code", "trace_split_no_steady_state"}, {"available_modes", JsonValue::stringList({"mixed"})}})})
        << "";
    QTest::newRow("empty list falls through, blanks skipped")
        << wrap({JsonValue::object({{"code", "steady_state_chunk_low_quality"},
                                    {"non_empty_modes", JsonValue::array()},
                                    {"available_modes", JsonValue::stringList({"  ", "decode_only"})}})})
        << "decode_only";
    QTest::newRow("status ok") << wrap({JsonValue::object(
                                           {{"code", "steady_state_chunk_low_quality"},
                                            {"non_empty_modes", JsonValue::stringList({"decode_only"})}})},
                                       "ok")
                               << "";
    QTest::newRow("older empty code, stripped")
        << wrap({JsonValue::object(
               {{"code", "steady_state_chunk_empty"}, {"non_empty_modes", JsonValue::stringList({" mixed\t"})}})})
        << "mixed";
    QTest::newRow("not an object") << JsonValue::array() << "";
    QTest::newRow("warnings not a list") << JsonValue::object(
                                                {{"status", "error"}, {"trace_health_warnings", JsonValue::object()}})
                                         << "";
    QTest::newRow("non-object warning and non-string modes skipped")
        << wrap({JsonValue(3), JsonValue::object({{"code", "steady_state_chunk_low_quality"},
                                                  {"non_empty_modes",
                                                   JsonValue::array({JsonValue(1), JsonValue(), "decode_only"})}})})
        << "decode_only";
  }
  void e17() {
    QFETCH(JsonValue, result);
    QFETCH(QString, retry);
    auto p = planRetry(result);
    QCOMPARE(p ? q(p->toMode) : QString(), retry);
  }

  // ---- §8 choices and reading rules --------------------------------------------
  void q4_zeroEventsKeepsReadableRatio() {
    // 0 events with a busy_ratio cell: refused, the warning carries the cell's ratio.
    auto g = gateSpec("mixed:0,1000,0,0.00;decode_only:100,1000,500,0.50", "mixed");
    QVERIFY(!g->result.accepted);
    QCOMPARE(g->result.warnings.at(0).find("busy_ratio")->asDouble(), 0.0);
    QCOMPARE(q(g->result.warnings.at(0).find("code")->asString()), QString("steady_state_chunk_low_quality"));
    QCOMPARE(q(g->result.retry->toMode), QString("decode_only"));
  }

  void q5_badCellFallsBackToQuotient_data() {
    QTest::addColumn<QString>("cell");
    QTest::newRow("empty") << "";
    QTest::newRow("text") << "n/a";
    QTest::newRow("spaces") << "   ";
  }
  void q5_badCellFallsBackToQuotient() {
    QFETCH(QString, cell);
    auto g = gateSpec("mixed:100,1000,10," + cell + ";decode_only:100,1000,900,0.9", "mixed");
    QVERIFY(!g->result.accepted);  // quotient 0.01 < 0.05, decode_only 0.9 offered
    QCOMPARE(g->result.warnings.at(0).find("busy_ratio")->asDouble(), 0.01);
    const RuleEvaluation* br = findRule(g->result, "busy_ratio", "mixed");
    QCOMPARE(q(br->inputs.find("ratio_source")->asString()), QString("gpu_busy_duration / gpu_duration"));
  }

  void nonFiniteClamped_data() {
    QTest::addColumn<QString>("cell");
    QTest::newRow("nan") << "nan";
    QTest::newRow("NaN spaced") << " NaN ";
    QTest::newRow("inf") << "inf";
    QTest::newRow("-inf") << "-inf";
    QTest::newRow("Infinity") << "Infinity";
  }
  void nonFiniteClamped() {
    QFETCH(QString, cell);
    GateOptions o;
    auto g = gateSpec("mixed:100,1000,10," + cell + ";decode_only:100,1000,900,0.9", "mixed", true, o);
    QVERIFY(g->result.accepted);  // clamped to 1.0 >= 0.05
    QVERIFY(hasFinding(g->result, "busy_ratio_non_finite"));
    QCOMPARE(g->result.exitStatus(), 0);
    o.strict = true;
    auto s = gateSpec("mixed:100,1000,10," + cell + ";decode_only:100,1000,900,0.9", "mixed", true, o);
    QVERIFY(s->result.accepted);
    QVERIFY(s->result.strictRefused);
    QCOMPARE(s->result.exitStatus(), 1);
    QVERIFY(findRule(s->result, "strict", ""));
  }

  void negativeAndAboveOne() {
    auto n = gateSpec("mixed:100,1000,-10;decode_only:100,1000,900", "mixed");
    QVERIFY(!n->result.accepted);  // -0.01 < 0.05, no clamping
    QCOMPARE(n->result.warnings.at(0).find("busy_ratio")->asDouble(), -0.01);
    QVERIFY(hasFinding(n->result, "busy_ratio_negative"));
    QVERIFY(hasFinding(n->result, "invalid_statistic"));

    // Above 1: not clamped (§8 Q6): it beats a 0.9 alternate when ranking.
    ReviewOptions ro;
    ChunkFacts ev;
    ev.unionBusyRatio = 0.81;
    ro.evidence[modeIndex(Mode::DecodeOnly)] = ev;
    auto a =
        gateSpec("mixed:0,0,0;decode_only:100,1000,1370;prefilldecode:100,1000,900", "mixed", true, GateOptions{}, ro);
    QCOMPARE(a->result.nonEmptyModes, (std::vector<std::string>{"decode_only", "prefilldecode"}));
    const Finding* f = finding(a->result, "busy_ratio_above_one");
    QVERIFY(f);
    QCOMPARE(q(f->subject), QString("decode_only"));
    QVERIFY(f->affectsVerdict);  // offered as the retry mode
    QVERIFY(q(f->sentence).contains("0.81"));
  }

  void eventsWithoutBusyTime() {
    auto g = gateSpec("mixed:12,1000,0,0.0;decode_only:100,1000,900", "mixed");
    QVERIFY(!g->result.accepted);
    QVERIFY(hasFinding(g->result, "gpu_events_without_busy_time"));
  }

  // A ratio of 0.046 prints as 0.05 and passes; recomputed it does not.
  void csvRoundingDecides() {
    auto alone = gateSpec("mixed:100,1000,46,0.05", "mixed");
    QVERIFY(alone->result.accepted);
    const Finding* f = finding(alone->result, "csv_rounding_decides");
    QVERIFY(f);
    QVERIFY(q(f->sentence).contains("0.046"));
    QVERIFY(q(f->sentence).contains("prints 0.05"));

    auto withAlt = gateSpec("mixed:100,1000,46,0.05;decode_only:100,1000,900,0.90", "mixed");
    QVERIFY(withAlt->result.accepted);
    const Finding* g = finding(withAlt->result, "csv_rounding_decides");
    QVERIFY(g);
    QVERIFY(q(g->sentence).contains("decode_only offered at 0.9"));
    QCOMPARE(g->details.find("recomputed_accepted")->asBool(), false);

    // Rounding that decides nothing is not reported.
    auto clear = gateSpec("mixed:100,1000,301,0.30", "mixed");
    QVERIFY(!hasFinding(clear->result, "csv_rounding_decides"));
    // A column far from the quotient is a different finding.
    auto far = gateSpec("mixed:10,1000,10,0.30", "mixed");
    QVERIFY(hasFinding(far->result, "busy_ratio_disagrees"));
    QVERIFY(!hasFinding(far->result, "csv_rounding_decides"));
  }

  void evidenceFindings() {
    ChunkFacts ev;
    ev.steps = 32;
    ev.stepsWithoutGpu = 30;
    ev.emptyStepIndices = {1, 2, 3};
    ev.largestEventShare = 0.83;
    ev.largestEventName = "nccl:all_reduce";
    ev.startupTransientInside = true;
    ev.numGpuEvents = 1245;
    ev.gpuDuration = 20538.107421875;
    ev.gpuBusyDuration = 16423.002000000015;
    ReviewOptions ro;
    ro.evidence[modeIndex(Mode::Mixed)] = ev;
    auto g = gateSpec("mixed:1245,20538.11,16423.00", "mixed", true, GateOptions{}, ro);
    QVERIFY(g->result.accepted);
    QCOMPARE(q(finding(g->result, "steps_without_gpu_work")->sentence),
             QString("mixed: 30 of 32 steps inside the chunk have no GPU work"));
    QVERIFY(q(finding(g->result, "dominant_gpu_event")->sentence).contains("nccl:all_reduce"));
    QVERIFY(hasFinding(g->result, "startup_transient_inside"));
    QVERIFY(!hasFinding(g->result, "statistics_disagree"));  // CSV agrees within its rounding

    // The trace disagrees with the CSV, and the recomputed verdict differs.
    ChunkFacts bad;
    bad.numGpuEvents = 1245;
    bad.gpuDuration = 20538.107421875;
    bad.gpuBusyDuration = 20.0;
    ro.evidence[modeIndex(Mode::Mixed)] = bad;
    auto d = gateSpec("mixed:1245,20538.11,16423.00;decode_only:100,1000,900", "mixed", true, GateOptions{}, ro);
    QVERIFY(d->result.accepted);
    QVERIFY(hasFinding(d->result, "statistics_disagree"));
    QVERIFY(hasFinding(d->result, "recomputed_verdict_differs"));
  }

  void strictIgnoresFindingsOnIgnoredAlternates() {
    // decode_only's ratio is above 1 but it is not selected nor offered.
    GateOptions o;
    o.strict = true;
    auto g = gateSpec("mixed:100,1000,500;decode_only:100,1000,1500", "mixed", true, o);
    QVERIFY(g->result.accepted);
    const Finding* f = finding(g->result, "busy_ratio_above_one");
    QVERIFY(f);
    QVERIFY(!f->affectsVerdict);
    QVERIFY(!g->result.strictRefused);
    QCOMPARE(g->result.exitStatus(), 0);
  }

  void inMemoryInput() {
    GateInput in =
        memoryInput({{Mode::Mixed, ChunkRow::fromValues("/mem/mixed_steady_state_a.json.gz", 160, 3257719.65, 2053.09)},
                     {Mode::PrefillDecode, ChunkRow::fromValues("/mem/prefilldecode_steady_state_a.json.gz", 2790,
                                                                4538984.0, 2723452.0, 0.600014)}});
    GateResult r = evaluateGate(in, GateOptions{});
    QVERIFY(!r.accepted);
    QCOMPARE(r.nonEmptyModes, std::vector<std::string>{"prefilldecode"});
    QCOMPARE(r.warnings.at(0).find("busy_ratio")->asDouble(), 2053.09 / 3257719.65);
    QCOMPARE(q(findRule(r, "row_match", "mixed")->sentence),
             QString("the selected chunk's row is in-memory row (matched by supplied)"));
    QVERIFY(r.findings.empty());
    // Exact values round-trip through the text form.
    RowReading rd = readRow(ChunkRow::fromValues("x", 1, 20538.107421875, 16423.002000000015, 0.1 + 0.2));
    QCOMPARE(rd.gpuDuration, 20538.107421875);
    QCOMPARE(rd.gpuBusyDuration, 16423.002000000015);
    QCOMPARE(*rd.busyRatio, 0.1 + 0.2);
  }

  void rowReading_data() {
    QTest::addColumn<QString>("events");
    QTest::addColumn<qlonglong>("expected");
    QTest::newRow("int") << "160" << 160LL;
    QTest::newRow("real") << "160.9" << 160LL;
    QTest::newRow("negative real") << "-2.5" << -2LL;
    QTest::newRow("empty") << "" << 0LL;
    QTest::newRow("text") << "many" << 0LL;
    QTest::newRow("spaced") << " 7 " << 7LL;
    QTest::newRow("exp") << "1e3" << 1000LL;
    QTest::newRow("nan") << "nan" << 0LL;
    QTest::newRow("underscore") << "1_000" << 1000LL;
  }
  void rowReading() {
    QFETCH(QString, events);
    QFETCH(qlonglong, expected);
    ChunkRow r;
    r.numGpuEvents = events.toStdString();
    QCOMPARE(static_cast<qlonglong>(readRow(r).numGpuEvents), expected);
  }

  // ---- environment -----------------------------------------------------------
  void thresholdEnv_data() {
    QTest::addColumn<QString>("value");  // "<unset>"
    QTest::addColumn<double>("expected");
    QTest::newRow("unset") << "<unset>" << 0.05;
    QTest::newRow("empty") << "" << 0.05;
    QTest::newRow("spaced") << " 0.2 " << 0.2;
    QTest::newRow("text") << "abc" << 0.05;
    QTest::newRow("above 1") << "1.5" << 0.05;
    QTest::newRow("negative") << "-0.1" << 0.05;
    QTest::newRow("nan") << "nan" << 0.05;
    QTest::newRow("one") << "1" << 1.0;
    QTest::newRow("zero") << "0" << 0.0;
  }
  void thresholdEnv() {
    QFETCH(QString, value);
    QFETCH(double, expected);
    if (value == "<unset>")
      qunsetenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO");
    else
      qputenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO", value.toUtf8());
    QCOMPARE(thresholdFromEnvironment(), expected);
    qunsetenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO");
  }

  void modeEnv() {
    qunsetenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE");
    QVERIFY(modeFromEnvironment().value() == Mode::Mixed);
    qputenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE", " decode_only ");
    QVERIFY(modeFromEnvironment().value() == Mode::DecodeOnly);
    qputenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE", "generic");
    QVERIFY(modeFromEnvironment().value() == Mode::Generic);
    qputenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE", "max_prefilldecode");
    auto bad = modeFromEnvironment();
    QVERIFY(!bad.ok());
    QVERIFY(q(bad.error().message).contains("INFERENCE_OPTIMIZER_STEADY_STATE_MODE"));
    qunsetenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE");
  }

  void jsonWriter() {
    JsonValue v = JsonValue::object({{"s", "a\"b\\c\n\x01"},
                                     {"d", 0.1 + 0.2},
                                     {"i", int64_t(3)},
                                     {"n", JsonValue()},
                                     {"nan", std::nan("")},
                                     {"arr", JsonValue::array({1.0, false})}});
    QCOMPARE(q(v.dump(JsonStyle::oneLine())),
             QString("{\"s\": \"a\\\"b\\\\c\\n\\u0001\", \"d\": 0.30000000000000004, \"i\": 3, "
                     "\"n\": null, \"nan\": NaN, \"arr\": [1.0, false]}"));
    QCOMPARE(q(JsonValue(std::string("bad\xff")).dump(JsonStyle::oneLine())), QString("\"bad\\ufffd\""));
    QCOMPARE(q(JsonValue::object({{"a", JsonValue::array({1})}}).dump(JsonStyle::indented())),
             QString("{\n  \"a\": [\n    1\n  ]\n}"));
  }

  // The three output forms against Python's json module (json.dumps(s),
  // json.dumps(s, ensure_ascii=False), json.dump(v, f, indent=2)).
  void jsonStyles() {
    const JsonValue s(std::string("x\x7f\xc3\xa9\xf0\x9f\x98\x80"));  // x DEL U+00E9 U+1F600
    QCOMPARE(s.dump(JsonStyle::pythonFile()), std::string("\"x\\u007f\\u00e9\\ud83d\\ude00\""));
    QCOMPARE(s.dump(JsonStyle::oneLine()), std::string("\"x\x7f\xc3\xa9\xf0\x9f\x98\x80\""));
    QCOMPARE(s.dump(JsonStyle::indented()), s.dump(JsonStyle::oneLine()));
    const JsonValue v = JsonValue::object({{"k", JsonValue::array({1, JsonValue::object({{"a", nullptr}})})}});
    QCOMPARE(v.dump(JsonStyle::pythonFile()),
             std::string("{\n  \"k\": [\n    1,\n    {\n      \"a\": null\n    }\n  ]\n}"));
    QCOMPARE(jsonQuote("\xe9x", /*ensureAscii=*/true), std::string("\"\\ufffdx\""));  // a lone lead byte
    QCOMPARE(jsonQuote("\xc3\xa9", /*ensureAscii=*/false), std::string("\"\xc3\xa9\""));
  }
};

QTEST_GUILESS_MAIN(TestGateRules)
#include "tst_gate_rules.moc"
