// Reviewing split directories: chunk collection (§6.3, B11), row matching
// (§6.4, B12 moved directories), reference layouts (newest, Aug-2026), CSV
// variants read or refused with file and line, and inputs left untouched.
#include "gate_fixture.hpp"

#include "gate/manifest.hpp"
#include <steadyscope/core/gate/review.hpp>

#include <QCryptographicHash>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope::gate;
using steadyscope::JsonValue;
using namespace gatetest;

namespace {

// execution_details.csv of the reference's newest layout (oracle newest/vllm_2k,
// run with -o out): relative output_path, no busy_ratio column.
const char* kNewestVllm2k =
    "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,phase_num_prefill,"
    "phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc,num_steps\n"
    "0,out/mixed_steady_state_prefill_0_prefilldecode_8_decode_24_bs448_conc64_vllm_2k.json.gz,4276,1245,20538.11,"
    "16423.00,0,8,24,448,64,32\n"
    "0,out/decode_only_steady_state_prefill_0_prefilldecode_0_decode_32_bs64_conc64_vllm_2k.json.gz,3612,1247,"
    "12278.17,8080.98,0,0,32,64,64,32\n"
    "0,out/prefilldecode_steady_state_prefill_0_prefilldecode_9_decode_0_bs2014_conc64_vllm_2k.json.gz,1793,356,"
    "14892.47,13857.51,0,9,0,2014,64,9\n";

// Oracle newest/vllm_graphs_2k: the decode_only chunk has no GPU events.
const char* kNewestGraphs =
    "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,phase_num_prefill,"
    "phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc,num_steps\n"
    "0,out/mixed_steady_state_prefill_0_prefilldecode_8_decode_24_bs703_conc64_vllm_graphs_2k.json.gz,1760,310,"
    "15719.58,14804.45,0,8,24,703,64,32\n"
    "0,out/decode_only_steady_state_prefill_0_prefilldecode_0_decode_32_bs64_conc64_vllm_graphs_2k.json.gz,256,0,"
    "0.00,0.00,0,0,32,64,64,32\n"
    "0,out/prefilldecode_steady_state_prefill_0_prefilldecode_4_decode_0_bs2796_conc60_vllm_graphs_2k.json.gz,788,156,"
    "8241.02,7785.10,0,4,0,2796,60,4\n";

// Oracle legacy (Aug-2026 layout) real/hta__critical_path__alexnet…: integer
// columns, two windows without GPU events, no manifest.
const char* kLegacyAlexnet =
    "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,phase_num_prefill,"
    "phase_num_prefilldecode,phase_num_decode,phase_avg_bs,phase_avg_conc,num_steps\n"
    "0,out/mixed_steady_state_prefill_0_prefilldecode_0_decode_13_bs1_conc1_alexnet.json.gz,40,0,0,0,0,0,13,1,1,13\n"
    "0,out/decode_only_steady_state_prefill_0_prefilldecode_0_decode_13_bs1_conc1_alexnet.json.gz,40,0,0,0,0,0,13,1,1,"
    "13\n";

// Writes a reference-style "out" directory below `root` from CSV text; every
// output_path's file is created unless listed in `skip`.
QString writeReferenceDir(const QString& root, const char* csv, const QStringList& skip = {}) {
  const QString out = root + "/out";
  QDir().mkpath(out);
  writeFile(out + "/execution_details.csv", csv);
  for (const QString& line : QString(csv).split('\n').mid(1)) {
    const QString p = line.section(',', 1, 1);
    if (p.isEmpty()) continue;
    const QString name = p.section('/', -1);
    if (!skip.contains(name)) writeFile(out + "/" + name, "{}");
  }
  return out;
}

const Finding* finding(const GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

GateResult review(const QString& dir, Mode mode, const QString& cwd, bool strict = false) {
  ReviewOptions o;
  o.gate.mode = mode;
  o.gate.strict = strict;
  o.workingDirectory = cwd.toStdString();
  auto r = reviewSplitDirectory(dir.toStdString(), o);
  if (!r) qWarning("%s", r.error().describe().c_str());
  return r ? r.value() : GateResult{};
}

QByteArray treeHash(const QString& dir) {
  QCryptographicHash h(QCryptographicHash::Sha256);
  QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  QStringList files;
  while (it.hasNext()) files << it.next();
  files.sort();
  for (const auto& f : files) {
    QFile file(f);
    file.open(QIODevice::ReadOnly);
    h.addData(f.toUtf8());
    h.addData(file.readAll());
    h.addData(QByteArray::number(QFileInfo(f).lastModified().toMSecsSinceEpoch()));
  }
  return h.result();
}

}  // namespace

class TestGateReview : public QObject {
  Q_OBJECT
 private slots:
  // ---- §6.3 collection -----------------------------------------------------------
  void collection() {
    QTemporaryDir tmp;
    const QString d = tmp.path();
    for (const char* n :
         {"mixed_steady_state_b.json", "mixed_steady_state_z.json.gz", "mixed_steady_state_a.trace.json.gz",
          "sub/mixed_steady_state_c.json.gz", "mixed_steady_state_.json", "mixed_steady_state.json",
          "steady_state_g.trace.json", "decode_only_steady_state_x.json.gz", "notes.txt",
          ".hidden/mixed_steady_state_h.json.gz", "mixed_steady_state_dir.json/inner.txt"})
      writeFile(d + "/" + n, "{}");
    auto L = collectSplitChunks(d.toStdString());
    QVERIFY(L.ok());
    QStringList mixed;
    for (const auto& p : L->of(Mode::Mixed)) mixed << q(p).mid(d.size() + 1);
    // ext order first (trace.json.gz, json.gz, trace.json, json), each sorted; B11 duplicate kept.
    QCOMPARE(mixed, QStringList({"mixed_steady_state_a.trace.json.gz", "mixed_steady_state_a.trace.json.gz",
                                 "mixed_steady_state_z.json.gz", "sub/mixed_steady_state_c.json.gz",
                                 "mixed_steady_state_.json", "mixed_steady_state_b.json"}));
    QCOMPARE(L->count(Mode::DecodeOnly), size_t(1));
    QCOMPARE(L->count(Mode::PrefillDecode), size_t(0));
    // generic: names starting with steady_state_ only; .trace.json listed twice.
    QCOMPARE(L->count(Mode::Generic), size_t(2));

    // The record counts the duplicate (chunks_by_mode is doubled, B11).
    ReviewOptions o;
    auto r = reviewSplitDirectory(d.toStdString(), o);
    QVERIFY(r.ok());
    QCOMPARE(r->record[1].inputs.find("chunks_by_mode")->find("mixed")->asInt(), int64_t(6));
    QVERIFY(q(r->record[1].sentence).contains("B11"));
    QCOMPARE(q(r->selectedChunk), d + "/mixed_steady_state_a.trace.json.gz");
  }

  void notADirectory() {
    QTemporaryDir tmp;
    writeFile(tmp.path() + "/file", "x");
    QVERIFY(!collectSplitChunks((tmp.path() + "/file").toStdString()).ok());
    QVERIFY(!collectSplitChunks((tmp.path() + "/none").toStdString()).ok());
    QVERIFY(!reviewSplitDirectory((tmp.path() + "/none").toStdString(), ReviewOptions{}).ok());
  }

  // ---- reference layouts -----------------------------------------------------------
  void newestLayoutRelativePaths() {
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const QString out = writeReferenceDir(root, kNewestVllm2k);
    // Run from the directory the splitter ran in: rows match by output_path.
    GateResult r = review(out, Mode::Mixed, root);
    QVERIFY(r.accepted);
    QCOMPARE(q(r.summary), QString("passed: busy ratio 0.7996 >= threshold 0.05"));
    QCOMPARE(r.chunks[0].match, RowMatch::ByOutputPath);
    QVERIFY(!finding(r, "rows_matched_by_name"));
    QVERIFY(q(r.record[0].sentence).contains("no busy_ratio column"));
  }

  void movedDirectoryPassesSilently() {
    // B12: reviewed from elsewhere, "out/…" resolves to nothing; the pipeline
    // passes silently, the finding says what matching by name gives.
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const QString out = writeReferenceDir(root, kNewestGraphs);
    GateResult r = review(out, Mode::DecodeOnly, "/");
    QVERIFY(r.accepted);
    QVERIFY(q(r.summary).startsWith("passed — not checked: no row"));
    const Finding* f = finding(r, "rows_matched_by_name");
    QVERIFY(f);
    QVERIFY(f->affectsVerdict);
    QCOMPARE(f->details.find("by_name_accepted")->asBool(), false);
    QCOMPARE(q(f->details.find("by_name_retry_mode")->asString()), QString("prefilldecode"));
    QVERIFY2(q(f->sentence)
                 .contains("the gate says: refused: the chunk has 0 GPU events; prefilldecode offered at "
                           "0.9447, mixed at 0.9418"),
             qPrintable(q(f->sentence)));
    // strict turns it into a refusal
    GateResult s = review(out, Mode::DecodeOnly, "/", true);
    QCOMPARE(s.exitStatus(), 1);
    // From the right working directory the pipeline itself refuses.
    GateResult right = review(out, Mode::DecodeOnly, root);
    QVERIFY(!right.accepted);
    QCOMPARE(right.nonEmptyModes, (std::vector<std::string>{"prefilldecode", "mixed"}));
  }

  void legacyLayoutZeroEvents() {
    // Aug-2026 layout: both windows without GPU events. Refused (0 events,
    // low-quality code, §8 Q4); no alternate has GPU work, so the retry falls
    // back to available_modes, whose first entry is the requested mode.
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const QString out = writeReferenceDir(root, kLegacyAlexnet);
    GateResult r = review(out, Mode::Mixed, root);
    QVERIFY(!r.accepted);
    QCOMPARE(q(r.summary), QString("refused: the chunk has 0 GPU events; no alternate has GPU work"));
    QCOMPARE(q(r.warnings.at(0).find("code")->asString()), QString("steady_state_chunk_low_quality"));
    QVERIFY(r.warnings.at(0).find("busy_ratio")->isNull());
    QVERIFY(r.nonEmptyModes.empty());
    QCOMPARE(q(r.retry->toMode), QString("mixed"));
    QVERIFY(q(r.record[0].sentence).contains("no split_manifest.json"));
  }

  void absolutePathsAndBusyRatioColumn() {
    QTemporaryDir tmp;
    const QString d = QDir(tmp.path()).canonicalPath();
    writeSplitDir(d, parseRows("mixed:100,1000,20,0.02;decode_only:100,1000,500,0.50"), true, d);
    writeFile(d + "/split_manifest.json", "{\n  \"status\": 0\n}");
    GateResult r = review(d, Mode::Mixed, "/");  // absolute paths: the working directory does not matter
    QVERIFY(!r.accepted);
    QCOMPARE(q(r.retry->toMode), QString("decode_only"));
    QVERIFY(q(r.record[0].sentence).contains("split_manifest.json present"));
    QVERIFY(q(r.record[0].sentence).contains("has a busy_ratio column"));
  }

  void refusalManifestRead() {
    QTemporaryDir tmp;
    const QString path = tmp.path() + "/split_manifest.json";
    writeFile(path, "{\n  \"aborted\": true,\n  \"status\": 2,\n  \"method\": \"generic:branch_descent\",\n"
                    "  \"n_roots\": 4,\n  \"branch_coverage\": 0.002\n}");
    auto m = readManifestFacts(path.toStdString());
    QVERIFY(m && m->aborted);
    QCOMPARE(*m->status, int64_t(2));
    QCOMPARE(q(refusalSentence(*m)), QString("The splitter refused the trace: 4 repeating calls in the call tree "
                                             "cover 0.2 % of the GPU time; a split needs 95 %, or 75 % "
                                             "when degraded splits are allowed."));
    // Numbers no splitter writes read as absent: no undefined conversion, the plain sentence.
    writeFile(path, "{\"aborted\": true, \"status\": 5.55556e+67, \"n_roots\": 2.5, \"method\": \"generic:x\", "
                    "\"branch_coverage\": -1e300}");
    m = readManifestFacts(path.toStdString());
    QVERIFY(m && m->aborted && !m->status && !m->nRoots);
    QVERIFY(q(refusalSentence(*m)).contains("no annotation family and no repeating pattern"));
    // Python writes NaN and -Infinity: they read as absent, and a string holding the word is still a string.
    writeFile(path, "{\"aborted\": true, \"n_roots\": 3, \"method\": \"NaN \\\"Infinity\", \"branch_coverage\": NaN}");
    m = readManifestFacts(path.toStdString());
    QVERIFY(m && m->nRoots && !m->branchCoverage);
    QCOMPARE(q(m->method), QString("NaN \"Infinity"));
    writeFile(path, "{\"aborted\": true, \"n_roots\": 3, \"method\": \"generic:x\", \"branch_coverage\": -Infinity}");
    m = readManifestFacts(path.toStdString());
    QVERIFY(m && !m->branchCoverage);
    // Only top-level fields count: a nested "aborted" is not the manifest's.
    writeFile(path, "{\"status\": 0, \"extra\": {\"aborted\": true, \"n_roots\": 9}, \"n_roots\": 2}");
    m = readManifestFacts(path.toStdString());
    QVERIFY(m && !m->aborted);
    QCOMPARE(*m->nRoots, int64_t(2));
  }

  // A manifest that is not JSON is an error naming the file and, where simdjson can tell, the byte.
  void brokenManifest_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("byte");  // -1: no offset expected
    QTest::newRow("truncated") << QByteArray("{\n  \"aborted\": true,\n  \"status\": 2") << -1;
    QTest::newRow("nan is not NaN") << QByteArray("{\"aborted\": true, \"branch_coverage\": nan}") << -1;
    QTest::newRow("an array") << QByteArray("[1, 2]") << 0;
    QTest::newRow("text after it") << QByteArray("{\"status\": 0} {\"status\": 1}") << -1;
    QTest::newRow("empty") << QByteArray("") << -1;
  }
  void brokenManifest() {
    QFETCH(QByteArray, text);
    QFETCH(int, byte);
    QTemporaryDir tmp;
    const QString path = tmp.path() + "/split_manifest.json";
    writeFile(path, text);
    const auto m = readManifestFacts(path.toStdString());
    QVERIFY(!m);
    QCOMPARE(m.error().kind, steadyscope::Error::Kind::Format);
    QCOMPARE(q(m.error().file), path);
    if (byte >= 0) QCOMPARE(m.error().byteOffset.value_or(99), uint64_t(byte));
    if (m.error().byteOffset) QVERIFY(*m.error().byteOffset <= uint64_t(text.size()));
    QVERIFY(q(m.error().describe()).startsWith(path + ": "));
  }

  // In a review, a broken manifest is a finding that does not change the verdict.
  void brokenManifestInReview() {
    QTemporaryDir tmp;
    const QString d = QDir(tmp.path()).canonicalPath();
    writeSplitDir(d, parseRows("mixed:100,1000,900,0.9"), true, d);
    GateResult before = review(d, Mode::Mixed, "/");
    writeFile(d + "/split_manifest.json", "{\"aborted\": tru");
    GateResult r = review(d, Mode::Mixed, "/");
    QCOMPARE(r.accepted, before.accepted);
    const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const Finding& f) { return f.code == "manifest_unreadable"; });
    QVERIFY(it != r.findings.end());
    QVERIFY(!it->affectsVerdict);
    QVERIFY(q(it->sentence).startsWith(d + "/split_manifest.json: "));
    QVERIFY(std::none_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.code == "split_refused"; }));
  }

  // ---- CSV variants ----------------------------------------------------------------
  void csvVariants_data() {
    QTest::addColumn<QByteArray>("csv");  // $D = split dir
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("findingCode");  // "" = none expected of interest
    QTest::addColumn<QString>("findingText");  // substring of its sentence

    const QByteArray mixed = "$D/" + chunkFileName("mixed").toUtf8();
    const QByteArray dec = "$D/" + chunkFileName("decode_only").toUtf8();
    QTest::newRow("reordered and extra columns")
        << "gpu_busy_duration,zzz,output_path,gpu_duration,num_gpu_events\n10,x," + mixed + ",1000,5\n900,y," + dec +
               ",1000,5\n"
        << false << ""
        << "";
    QTest::newRow("crlf") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration\r\n" + mixed +
                                 ",5,1000,10\r\n" + dec + ",5,1000,900\r\n"
                          << false << ""
                          << "";
    QTest::newRow("quoted fields") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration\n\"" + mixed +
                                          "\",\"5\",\"1000\",\"10\"\n\"" + dec + "\",5,1000,900\n"
                                   << false << ""
                                   << "";
    QTest::newRow("nan busy_ratio") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration,busy_ratio\n" +
                                           mixed + ",5,1000,10,nan\n" + dec + ",5,1000,900,0.9\n"
                                    << true << "busy_ratio_non_finite"
                                    << "clamps it to 1.0";
    QTest::newRow("inf busy_ratio") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration,busy_ratio\n" +
                                           mixed + ",5,1000,10,inf\n"
                                    << true << "busy_ratio_non_finite"
                                    << "'inf'";
    QTest::newRow("negative busy_ratio") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration,busy_ratio\n" +
                                                mixed + ",5,1000,10,-0.5\n" + dec + ",5,1000,900,0.9\n"
                                         << false << "busy_ratio_negative"
                                         << "-0.5";
    QTest::newRow("empty cells") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration,busy_ratio\n" + mixed +
                                        ",5,,,\n" + dec + ",5,1000,900,\n"
                                 << true << ""
                                 << "";  // gpu_duration 0 -> no ratio -> passed unchecked
    QTest::newRow("empty file") << QByteArray() << true << "details_csv_unreadable"
                                << "execution_details.csv: line 1: the file is empty";
    QTest::newRow("header only") << QByteArray("output_path,num_gpu_events,gpu_duration,gpu_busy_duration\n") << true
                                 << "row_not_found"
                                 << "by output_path or by file name";
    QTest::newRow("invalid utf-8") << "output_path,num_gpu_events\n" + mixed + ",5\n\xff\xfe,1\n"
                                   << true << "details_csv_unreadable"
                                   << "execution_details.csv: line 3: the file is not valid UTF-8";
    QTest::newRow("ragged row") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration\n" + mixed + ",5,1000\n" +
                                       dec + ",5,1000,900,extra\n"
                                << false << "details_csv_irregular"
                                << "execution_details.csv line 2: the row has 3 fields";
    QTest::newRow("bom before output_path")
        << "\xEF\xBB\xBFoutput_path,num_gpu_events,gpu_duration,gpu_busy_duration\n" + mixed + ",5,1000,10\n" + dec +
               ",5,1000,900\n"
        << true << "details_csv_bom"
        << "byte-order mark";
    QTest::newRow("bom before idx") << "\xEF\xBB\xBFidx,output_path,num_gpu_events,gpu_duration,gpu_busy_duration\n0," +
                                           mixed + ",5,1000,10\n0," + dec + ",5,1000,900\n"
                                    << false << ""
                                    << "";
    QTest::newRow("no output_path column")
        << QByteArray("path,num_gpu_events\nx,0\n") << true << "details_csv_no_output_path"
        << "line 1";
    QTest::newRow("missing chunk file") << "output_path,num_gpu_events,gpu_duration,gpu_busy_duration\n" + mixed +
                                               ",5,1000,900\n$D/"
                                               "mixed_steady_state_gone.json.gz,5,1000,10\n"
                                        << true << "chunk_file_missing"
                                        << "mixed_steady_state_gone.json.gz";
  }
  void csvVariants() {
    QFETCH(QByteArray, csv);
    QFETCH(bool, accepted);
    QFETCH(QString, findingCode);
    QFETCH(QString, findingText);
    QTemporaryDir tmp;
    const QString d = QDir(tmp.path()).canonicalPath();
    writeFile(d + "/" + chunkFileName("mixed"), "{}");
    writeFile(d + "/" + chunkFileName("decode_only"), "{}");
    writeFile(d + "/execution_details.csv", QByteArray(csv).replace("$D", d.toUtf8()));
    const QByteArray before = treeHash(d);
    GateResult r = review(d, Mode::Mixed, "/");
    QCOMPARE(treeHash(d), before);  // nothing modified
    QCOMPARE(r.accepted, accepted);
    if (!findingCode.isEmpty()) {
      const Finding* f = finding(r, findingCode.toStdString());
      QVERIFY2(f, qPrintable("missing finding " + findingCode));
      QVERIFY2(q(f->sentence).contains(findingText), qPrintable(q(f->sentence)));
    }
  }

  void missingCsvPasses() {
    QTemporaryDir tmp;
    const QString d = QDir(tmp.path()).canonicalPath();
    writeSplitDir(d, parseRows("mixed:0,0,0"), false, d);
    GateResult r = review(d, Mode::Mixed, "/");
    QVERIFY(r.accepted);
    QVERIFY(finding(r, "details_csv_missing"));
    QCOMPARE(review(d, Mode::Mixed, "/", true).exitStatus(), 1);
  }

  void toJsonIsComplete() {
    QTemporaryDir tmp;
    const QString d = QDir(tmp.path()).canonicalPath();
    writeSplitDir(d, parseRows("mixed:100,1000,20;decode_only:100,1000,500"), true, d);
    GateResult r = review(d, Mode::Mixed, "/");
    const JsonValue j = r.toJson();
    for (const char* k : {"verdict", "pipeline_verdict", "refusal", "exit_status", "result", "retry_mode", "retry",
                          "decision_record", "findings", "chunks"})
      QVERIFY2(j.find(k), k);
    QCOMPARE(q(j.find("result")->find("status")->asString()), QString("error"));
    QCOMPARE(j.find("chunks")->items().size(), size_t(4));
    QCOMPARE(q(j.find("chunks")->items()[1].find("row_match")->asString()), QString("output_path"));
  }
};

QTEST_GUILESS_MAIN(TestGateReview)
#include "tst_gate_review.moc"
