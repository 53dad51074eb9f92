// Tests of the split output's vocabulary (util/split_names), the interval
// union and the path helpers: every name the splitter builds reads back as
// what it is.
#include <steadyscope/core/util/intervals.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/split_names.hpp>
#include <steadyscope/core/util/threads.hpp>

#include <QTest>

#include <cmath>
#include <vector>

using namespace steadyscope;
using names::ChunkFileKind;
using names::ChunkMode;

class TestVocabulary : public QObject {
  Q_OBJECT
 private slots:
  void modeNamesRoundTrip() {
    for (ChunkMode m : names::kChunkModes) {
      QCOMPARE(names::parseModeName(names::modeName(m)), std::optional<ChunkMode>(m));
      QVERIFY(names::chunkFilePrefix(m).starts_with(names::chunkLabel(m)));
      QVERIFY(!names::modeDisplayName(m).empty());
    }
    QCOMPARE(names::parseModeName("max_prefilldecode"), std::optional<ChunkMode>(ChunkMode::PrefillDecode));
    QVERIFY(!names::parseModeName("steady_state"));
    QVERIFY(!names::parseModeName(""));
    QCOMPARE(names::chunkLabel(ChunkMode::Generic), std::string_view("steady_state"));
    QCOMPARE(names::chunkFilePrefix(ChunkMode::DecodeOnly), std::string("decode_only_steady_state_"));
  }

  // Every steady-state file name, for every mode, parses back to its mode
  // and matches the gate's glob for that mode only.
  void steadyChunkNamesRoundTrip() {
    const std::string suffix = "prefill_0_prefilldecode_3_decode_29_bs12_conc40";
    for (ChunkMode m : names::kChunkModes) {
      const std::string name = names::steadyChunkFileName(m, suffix, "vllm_20k");
      const names::ChunkFileName parsed = names::classifyChunkFile(name);
      QCOMPARE(parsed.kind, ChunkFileKind::SteadyState);
      QCOMPARE(parsed.mode, std::optional<ChunkMode>(m));
      QVERIFY(name.ends_with(names::kChunkExtension));
      for (ChunkMode other : names::kChunkModes) QCOMPARE(names::matchesChunkGlob(name, other, "json.gz"), other == m);
    }
    QCOMPARE(names::steadyChunkFileName(ChunkMode::Generic, suffix, "train"),
             std::string("steady_state_train.json.gz"));
    QCOMPARE(names::steadyChunkFileName(ChunkMode::Mixed, "S", "b"), std::string("mixed_steady_state_S_b.json.gz"));
  }

  void otherChunkNamesRoundTrip() {
    const std::string phase =
        names::phaseChunkFileName(names::PhaseFolder::DecodeOnly, 2, 17, 8, 33, "prefill_0_decode_17", "t");
    QCOMPARE(phase, std::string("decode_only/decode_only_chunk2_steps17_bs8_conc33_prefill_0_decode_17_t.json.gz"));
    QCOMPARE(names::classifyChunkFile(phase.substr(phase.find('/') + 1)).kind, ChunkFileKind::Phase);
    const std::string mix = names::phaseChunkFileName(names::PhaseFolder::PrefillDecodeMix, 0, 1, 1, 1, "s", "t");
    QCOMPARE(names::classifyChunkFile(mix.substr(mix.find('/') + 1)).kind, ChunkFileKind::Phase);
    QCOMPARE(names::iterationChunkFileName("t", 4), std::string("t_iteration_4.json.gz"));
    QCOMPARE(names::iterationChunkFileName("t", 4, "ProfilerStep_4"),
             std::string("t_iteration_4_ProfilerStep_4.json.gz"));
    QCOMPARE(names::rangeChunkFileName("t", 3, 7), std::string("t_iteration_3:7.json.gz"));
    QCOMPARE(names::rangeChunkFileName("t", 3, 4), std::string("t_iteration_3.json.gz"));
    QCOMPARE(names::bookendChunkFileName("t", "warmup"), std::string("t_warmup.json.gz"));
    for (const std::string& n :
         {names::iterationChunkFileName("t", 4), names::rangeChunkFileName("t", 3, 7),
          names::bookendChunkFileName("t", "warmup"), names::bookendChunkFileName("t", "wrapup")})
      QCOMPARE(names::classifyChunkFile(n).kind, ChunkFileKind::Iteration);
    QCOMPARE(names::classifyChunkFile("split_manifest.json").kind, ChunkFileKind::Other);
    QCOMPARE(names::classifyChunkFile("vllm_20k.json.gz").kind, ChunkFileKind::Other);
  }

  // A chunk's stem names its trace at its end (steady-state, phase) or its
  // start (iteration), always beside an underscore.
  void chunkStemNamesTrace() {
    QVERIFY(names::chunkStemNamesTrace("mixed_steady_state_S_vllm_20k", "vllm_20k"));
    QVERIFY(names::chunkStemNamesTrace("vllm_20k_iteration_3", "vllm_20k"));
    QVERIFY(names::chunkStemNamesTrace("vllm_20k_warmup", "vllm_20k"));
    QVERIFY(!names::chunkStemNamesTrace("mixed_steady_state_S_xvllm_20k", "vllm_20k"));
    QVERIFY(!names::chunkStemNamesTrace("vllm_20kx_iteration_3", "vllm_20k"));
    QVERIFY(!names::chunkStemNamesTrace("vllm_20k", "vllm_20k"));
    QVERIFY(!names::chunkStemNamesTrace("anything", ""));
  }

  // The gate's glob: prefix, anything (also nothing), "." + ext.
  void chunkGlob() {
    QVERIFY(names::matchesChunkGlob("steady_state_.json", ChunkMode::Generic, "json"));
    QVERIFY(names::matchesChunkGlob("steady_state_x.trace.json.gz", ChunkMode::Generic, "json.gz"));
    QVERIFY(!names::matchesChunkGlob("steady_state_x.json.gz", ChunkMode::Generic, "trace.json.gz"));
    QVERIFY(!names::matchesChunkGlob("steady_state.json", ChunkMode::Generic, "json"));
    QVERIFY(!names::matchesChunkGlob("mixed_steady_state_x.json", ChunkMode::Generic, "json"));
  }

  void percentTexts() {
    QCOMPARE(QString::fromStdString(names::percentText(0.95)), QString("95 %"));
    QCOMPARE(QString::fromStdString(names::percentText(0.002)), QString("0.2 %"));
    QCOMPARE(QString::fromStdString(names::percentText(0.99999)), QString("100 %"));
    // Shares read from another splitter's files: no integer conversion out of range.
    QCOMPARE(QString::fromStdString(names::percentText(-1e300)).right(2), QString(" %"));
    QCOMPARE(QString::fromStdString(names::percentText(std::nan(""))), QString("nan %"));
  }

  void intervalUnion() {
    std::vector<Interval> iv = {{5, 9}, {0, 2}, {2, 3}, {8, 12}, {20, 20}, {15, 16}, {1, 1}};
    iv.resize(sortAndMerge(iv));
    const std::vector<Interval> want = {{0, 3}, {5, 12}, {15, 16}};
    QVERIFY(iv == want);
    QCOMPARE(totalLength(iv), int64_t(11));
    QCOMPARE(lengthWithin(iv, 1, 6), int64_t(3));
    QCOMPARE(lengthWithin(iv, 12, 15), int64_t(0));
    QCOMPARE(lengthWithin(iv, -100, 100), int64_t(11));
  }

  void pathHelpers() {
    QCOMPARE(paths::join("out", "a.json"), std::string("out/a.json"));
    QCOMPARE(paths::join("out/", "a.json"), std::string("out/a.json"));
    QCOMPARE(paths::join("", "a.json"), std::string("a.json"));
    QCOMPARE(paths::fileName("a/b/c.json.gz"), std::string("c.json.gz"));
    QCOMPARE(paths::fileName("c.json"), std::string("c.json"));
    QCOMPARE(paths::resolve("x/../y/", "/tmp"), std::string("/tmp/y"));
  }

  void threadBudget() {
    QCOMPARE(jobThreads(3), 3u);
    QVERIFY(jobThreads() >= 1 && jobThreads() <= kMaxDefaultThreads);
  }
};

QTEST_APPLESS_MAIN(TestVocabulary)
#include "tst_vocabulary.moc"
