// Export of one chunk (core/export): what it writes, that it reloads exactly,
// that its row and verdict are the split's, and that no failure leaves a
// partial file. Inputs: tests/data/vllm_40steps.json.gz and a training trace
// from steadyscope-gen.
#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/sha256.hpp>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <string>
#include <unistd.h>

using namespace steadyscope;

namespace {

const std::string kSmall = std::string(STEADYSCOPE_TEST_DATA_DIR) + "/vllm_40steps.json.gz";
// tests/data/README.md
const char* kSmallSha256 = "088421e1c65db8d4725906ee74bc55df1e2845a8f7b03ade30682355abaa0e64";

TracePtr loadOrDie(const std::string& path) {
  auto t = loadTrace(path);
  if (!t) qFatal("load failed: %s", t.error().describe().c_str());
  return t.value();
}

analysis::SplitOptions pipelineOptions(names::ChunkMode mode, const std::string& out) {
  analysis::SplitOptions o;
  o.outputDir = out;
  o.findSteadyState = true;
  o.numSteps = 32;
  o.llmInference = mode != names::ChunkMode::Generic;
  return o;
}

// A loaded trace, its splitter and the plan, as a caller of exportChunk holds them.
struct Session {
  TracePtr trace;
  analysis::Splitter splitter;
  analysis::SplitOptions options;
  analysis::SplitResult plan;
  Session(const std::string& path, names::ChunkMode mode, const std::string& out)
      : trace(loadOrDie(path)), splitter(trace), options(pipelineOptions(mode, out)) {
    startSourceDigest(*trace);
    plan = splitter.plan(options);
  }
  Expected<exporting::ExportReport> run(const exporting::ExportRequest& req, JobControl* control = nullptr) {
    return exporting::exportChunk(splitter, plan, options, req, control);
  }
};

exporting::ExportRequest request(names::ChunkMode mode, const QString& dir) {
  exporting::ExportRequest r;
  r.mode = mode;
  r.targetDir = dir.toStdString();
  r.toolVersion = "test";
  return r;
}

QStringList filesIn(const QString& dir) { return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System); }

std::string readAll(const std::string& path) {
  QFile f(QString::fromStdString(path));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

// The row of `csv` whose output_path names `leaf`, as column -> cell.
std::map<std::string, std::string> rowFor(const std::string& csv, const std::string& leaf) {
  auto t = gate::readCsvFile(csv);
  if (!t) qFatal("%s", t.error().describe().c_str());
  for (const auto& rec : t->records)
    if (paths::fileName(t->cell(rec, "output_path").value_or("")) == leaf) {
      std::map<std::string, std::string> row;
      for (const auto& h : t->header) row[h] = t->cell(rec, h).value_or("");
      return row;
    }
  return {};
}

bool isGpuEventAsCounted(const Trace& t, EventIdx i) {
  const std::string_view cat = t.catOf(i);
  const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation";
  return gpu && t.has(i, ev::HasCorr);
}

QString generateTraining(const QString& dir) {
  const QString path = dir + "/train.json.gz";
  QProcess p;
  p.start(STEADYSCOPE_GEN, {"-o", path, "--quiet", "--style", "training", "--steps", "48", "--seed", "3"});
  p.waitForFinished(120000);
  if (p.exitCode() != 0) qFatal("steadyscope-gen failed: %s", p.readAllStandardError().constData());
  return path;
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT

 private slots:
  void sha256FromLibcrypto() {
    QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    auto d = sha256File(kSmall);
    QVERIFY(d.ok());
    QCOMPARE(d->sha256, std::string(kSmallSha256));
    // Cached with the model: started after the load, the same answer when asked.
    TracePtr t = loadOrDie(kSmall);
    QVERIFY(!t->digest->started());
    startSourceDigest(*t);
    auto w = t->digest->wait(t->path);
    QVERIFY(w.ok());
    QCOMPARE(w->sha256, std::string(kSmallSha256));
    QVERIFY(t->digest->ready().has_value());
    QVERIFY(!sha256File("/nonexistent/x.json").ok());
  }

  void roundTrip_data() {
    QTest::addColumn<bool>("gzip");
    QTest::newRow("json.gz") << true;
    QTest::newRow("json") << false;
  }
  // Reload the export: its events minus the added metadata are the row's
  // event_count, its GPU events as the splitter counts them num_gpu_events,
  // and every event's text is the source's, byte for byte.
  void roundTrip() {
    QFETCH(bool, gzip);
    QTemporaryDir tmp;
    Session s(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    auto req = request(names::ChunkMode::Mixed, tmp.path() + "/export");
    req.gzip = gzip;
    auto rep = s.run(req);
    QVERIFY2(rep.ok(), rep.ok() ? "" : rep.error().describe().c_str());
    QCOMPARE(filesIn(tmp.path() + "/export").size(), 4);
    QVERIFY(QString::fromStdString(rep->files.chunk).endsWith(gzip ? ".json.gz" : ".json"));
    const auto row = rowFor(rep->files.detailsCsv, paths::fileName(rep->files.chunk));
    QVERIFY(!row.empty());
    QCOMPARE(row.at("output_path"), rep->files.chunk);  // absolute

    TracePtr back = loadOrDie(rep->files.chunk);
    const int64_t eventCount = std::stoll(row.at("event_count"));
    QVERIFY(rep->addedMetadata > 0);  // the generated trace's names carry a ts
    QCOMPARE(static_cast<int64_t>(back->size()) - rep->addedMetadata, eventCount);
    int64_t gpu = 0;
    for (EventIdx i = 0; i < eventCount; ++i) gpu += isGpuEventAsCounted(*back, i);
    QCOMPARE(gpu, std::stoll(row.at("num_gpu_events")));

    const analysis::ChunkPlan* c = nullptr;
    for (const auto& k : s.plan.chunks)
      if (names::classifyChunkFile(k.fileName).mode == names::ChunkMode::Mixed) c = &k;
    QVERIFY(c);
    EventText src(*s.trace), out(*back);
    for (EventIdx i = 0; i < eventCount; ++i) QCOMPARE(out(i), src(c->events[i]));
    const EventList added = exporting::missingMetadata(*s.trace, c->events);
    for (size_t k = 0; k < added.size(); ++k) {
      QCOMPARE(back->ph[static_cast<EventIdx>(eventCount + k)], Ph::Metadata);
      QCOMPARE(out(static_cast<EventIdx>(eventCount + k)), src(added[k]));
    }
    QCOMPARE(back->topLevel.size(), s.trace->topLevel.size());

    const QJsonObject m = QJsonDocument::fromJson(QByteArray::fromStdString(readAll(rep->files.manifest))).object();
    QCOMPARE(m["source"].toObject()["sha256"].toString(), QString::fromLatin1(kSmallSha256));
    QCOMPARE(m["added_metadata_events"].toObject()["count"].toInteger(), rep->addedMetadata);
    QCOMPARE(m["mode"].toString(), QStringLiteral("mixed"));
    QCOMPARE(m["split_parameters"].toObject()["num_steps"].toInt(), 32);
    QVERIFY(m["split_parameters"].toObject()["llm_inference"].toBool());
    QVERIFY(m["figures"].toObject()["union_busy_ratio"].isDouble());
    QCOMPARE(m["figures"].toObject()["verdict"].toString(), QStringLiteral("accepted"));
    QVERIFY(!m["figures"].toObject()["decision_record"].toArray().isEmpty());
    QCOMPARE(m["chunk"].toObject()["event_count"].toInteger(), eventCount);
  }

  // The exported row is split's row for that chunk, compared as numbers.
  void rowEqualsSplitRow() {
    for (names::ChunkMode mode : {names::ChunkMode::Mixed, names::ChunkMode::DecodeOnly}) {
      QTemporaryDir tmp;
      const std::string splitDir = (tmp.path() + "/split").toStdString();
      Session s(kSmall, mode, splitDir);
      QVERIFY(s.splitter.write(s.plan).ok());
      auto rep = s.run(request(mode, tmp.path() + "/export"));
      QVERIFY2(rep.ok(), rep.ok() ? "" : rep.error().describe().c_str());
      const std::string leaf = paths::fileName(rep->files.chunk);
      auto ours = rowFor(rep->files.detailsCsv, leaf);
      auto theirs = rowFor(splitDir + "/execution_details.csv", leaf);
      QVERIFY(!ours.empty() && !theirs.empty());
      QCOMPARE(ours.size(), theirs.size());
      for (const auto& [col, cell] : theirs) {
        if (col == "output_path") continue;
        auto a = gate::parsePyFloat(ours.at(col)), b = gate::parsePyFloat(cell);
        QVERIFY2(a && b && *a == *b, (col + ": " + ours.at(col) + " vs " + cell).c_str());
      }
    }
  }

  // gate on the export folder gives the split folder's verdict, the row found by its path.
  void gateOnExportFolder() {
    QTemporaryDir tmp;
    const QString train = generateTraining(tmp.path());
    struct Case {
      std::string trace;
      names::ChunkMode mode;
    };
    for (const Case& k : {Case{kSmall, names::ChunkMode::Mixed}, Case{kSmall, names::ChunkMode::PrefillDecode},
                          Case{train.toStdString(), names::ChunkMode::Generic}}) {
      const QString base = tmp.path() + "/" + QString::fromUtf8(names::modeName(k.mode).data());
      const std::string splitDir = (base + "/split").toStdString();
      Session s(k.trace, k.mode, splitDir);
      QVERIFY(s.splitter.write(s.plan).ok());
      auto rep = s.run(request(k.mode, base + "/export"));
      QVERIFY2(rep.ok(), rep.ok() ? "" : rep.error().describe().c_str());
      gate::ReviewOptions ro;
      ro.gate.mode = k.mode;
      auto onSplit = gate::reviewSplitDirectory(splitDir, ro);
      auto onExport = gate::reviewSplitDirectory(rep->files.dir, ro);
      QVERIFY(onSplit.ok() && onExport.ok());
      QCOMPARE(onExport->accepted, onSplit->accepted);
      QCOMPARE(onExport->accepted, rep->gate.accepted);
      QCOMPARE(paths::fileName(onExport->selectedChunk), paths::fileName(onSplit->selectedChunk));
      for (const auto& c : onExport->chunks)
        if (c.selected) QCOMPARE(c.match, gate::RowMatch::ByOutputPath);
    }
  }

  // A write that fails (the disk full) in any of the four files: no file, the folder as it was.
  void failingWriteLeavesNothing() {
    QTemporaryDir tmp;
    Session s(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    for (const char* leafEnd : {".json.gz", ".csv", "details.json", "export.json"}) {
      const QString dir = tmp.path() + "/export_" + QString::fromLatin1(leafEnd);
      auto req = request(names::ChunkMode::Mixed, dir);
      const std::string suffix = leafEnd;
      req.fault = [suffix](const std::string& path, uint64_t) {
        return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0
                   ? ENOSPC
                   : 0;
      };
      auto rep = s.run(req);
      QVERIFY(!rep.ok());
      const std::string msg = rep.error().describe();
      QVERIFY2(msg.find("No space left on device") != std::string::npos, msg.c_str());
      QVERIFY2(msg.find(suffix) != std::string::npos, msg.c_str());  // names the file
      QVERIFY(!QDir(dir).exists());                                  // the folder it made is gone
    }
    // Into an existing folder with an earlier export: that export stays as it was.
    const QString dir = tmp.path() + "/earlier";
    QVERIFY(s.run(request(names::ChunkMode::Mixed, dir)).ok());
    QStringList before = filesIn(dir);
    std::vector<FileIdentity> ids;  // a file renamed into place would be another inode
    for (const QString& f : before) ids.push_back(identifyFile((dir + "/" + f).toStdString()).value());
    const std::string manifestBefore = readAll((dir + "/steadyscope-export.json").toStdString());
    auto req = request(names::ChunkMode::Mixed, dir);
    req.force = true;
    req.fault = [](const std::string& path, uint64_t) {
      return path.find("export.json") != std::string::npos ? EIO : 0;
    };
    QVERIFY(!s.run(req).ok());
    QCOMPARE(filesIn(dir), before);
    for (int k = 0; k < before.size(); ++k)
      QVERIFY(identifyFile((dir + "/" + before[k]).toStdString()).value() == ids[k]);
    QCOMPARE(readAll((dir + "/steadyscope-export.json").toStdString()), manifestBefore);
  }

  // A cancel at any stage, or while the chunk is being written, leaves no file.
  void cancelLeavesNothing() {
    QTemporaryDir tmp;
    Session s(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    for (const char* stage : {"checks", "figures", "chunk", "details", "digest", "manifest", "publish"}) {
      const QString dir = tmp.path() + "/c_" + QString::fromLatin1(stage);
      JobControl control;
      const std::string at = stage;
      control.setStageObserver([&control, at](std::string_view name) {
        if (name == at) control.requestCancel();
      });
      auto rep = s.run(request(names::ChunkMode::Mixed, dir), &control);
      QVERIFY(!rep.ok());
      QCOMPARE(rep.error().kind, Error::Kind::Cancelled);
      QVERIFY2(rep.error().describe().find("nothing was written") != std::string::npos, stage);
      QVERIFY(!QDir(dir).exists());
    }
    // Cancelled in the middle of the chunk's bytes (seen at its next flush).
    QDir().mkpath(tmp.path() + "/mid");
    JobControl control;
    auto req = request(names::ChunkMode::Mixed, tmp.path() + "/mid");
    req.fault = [&control](const std::string&, uint64_t) {
      control.requestCancel();
      return 0;
    };
    auto rep = s.run(req, &control);
    QVERIFY(!rep.ok());
    QCOMPARE(rep.error().kind, Error::Kind::Cancelled);
    QVERIFY(filesIn(tmp.path() + "/mid").isEmpty());
  }

  // The source is never written: an export onto it is refused, --force or not,
  // whatever name leads to it.
  void sourceIsNeverTarget() {
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/export";
    QVERIFY(QDir().mkpath(dir));
    // Find the chunk's name, then put the source there under that name.
    Session probe(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    const auto pv = exporting::previewExport(*probe.trace, probe.plan, request(names::ChunkMode::Mixed, dir));
    QVERIFY(pv.ok());
    const std::string asChunk = pv.files.chunk;
    QVERIFY(QDir().mkpath(tmp.path() + "/src"));  // the same file name: the same chunk name
    const std::string source = (tmp.path() + "/src/vllm_40steps.json.gz").toStdString();
    QVERIFY(QFile::copy(QString::fromStdString(kSmall), QString::fromStdString(source)));
    QCOMPARE(::link(source.c_str(), asChunk.c_str()), 0);  // another name for the same file
    Session s(source, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    for (bool force : {false, true}) {
      auto req = request(names::ChunkMode::Mixed, dir);
      req.force = force;
      auto rep = s.run(req);
      QVERIFY(!rep.ok());
      QCOMPARE(rep.error().code, std::string("export_overwrites_source"));
      QVERIFY2(rep.error().describe().find("overwrite the source trace") != std::string::npos,
               rep.error().describe().c_str());
    }
    QCOMPARE(sha256File(source)->sha256, std::string(kSmallSha256));
    QCOMPARE(filesIn(dir), QStringList{QString::fromStdString(paths::fileName(asChunk))});
  }

  // An earlier export is replaced only with force; refused, it stays as it was.
  void overwriteNeedsForce() {
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/export";
    Session s(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    QVERIFY(s.run(request(names::ChunkMode::Mixed, dir)).ok());
    const std::string manifest = readAll((dir + "/steadyscope-export.json").toStdString());
    auto pv = exporting::previewExport(*s.trace, s.plan, request(names::ChunkMode::Mixed, dir));
    QCOMPARE(pv.existing.size(), size_t(4));
    QVERIFY(!pv.ok());
    auto again = s.run(request(names::ChunkMode::Mixed, dir));
    QVERIFY(!again.ok());
    QCOMPARE(again.error().code, std::string("export_exists"));
    QVERIFY(again.error().describe().find("--force") != std::string::npos);
    QCOMPARE(readAll((dir + "/steadyscope-export.json").toStdString()), manifest);
    auto req = request(names::ChunkMode::Mixed, dir);
    req.force = true;
    QVERIFY(s.run(req).ok());
    QCOMPARE(filesIn(dir).size(), 4);
  }

  // A mode the split did not cut is said, with what it did cut.
  void missingModeIsSaid() {
    QTemporaryDir tmp;
    Session s(kSmall, names::ChunkMode::Mixed, (tmp.path() + "/split").toStdString());
    auto rep = s.run(request(names::ChunkMode::Generic, tmp.path() + "/export"));
    QVERIFY(!rep.ok());
    QCOMPARE(rep.error().code, std::string("export_no_chunk"));
    QVERIFY2(rep.error().describe().find("made no generic chunk") != std::string::npos, rep.error().describe().c_str());
    QVERIFY(!QDir(tmp.path() + "/export").exists());
  }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
