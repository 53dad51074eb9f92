// Orchestration of the splitter (spec §4.12): Splitter::plan runs the
// stages of split_stages.hpp in order; Splitter::write writes their outputs.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/paths.hpp>
#include "util/phase_timer.hpp"
#include "util/side_by_side.hpp"
#include "util/thread_group.hpp"
#include "analysis/chunks/extraction.hpp"
#include "util/staged_dir.hpp"
#include "analysis/roots/detection.hpp"
#include "analysis/roots/detection_story.hpp"
#include "analysis/split_stages.hpp"
#include "util/big_alloc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unordered_map>

namespace steadyscope::analysis {

const char* splitOutcomeName(SplitOutcome o) {
  switch (o) {
    case SplitOutcome::NoGpuWork: return "no_gpu_work";
    case SplitOutcome::Refused: return "refused";
    case SplitOutcome::Split: return "split";
    case SplitOutcome::Error: return "error";
    case SplitOutcome::Cancelled: return "cancelled";
  }
  return "?";
}

namespace {

struct FixName {
  const char* name;
  bool SplitFixes::*member;
  const char* description;
};
constexpr FixName kFixes[] = {
    {"metadata-all-m", &SplitFixes::metadataAllM, "every ph \"M\" event is metadata, not only the known names"},
    {"trim-keeps-status", &SplitFixes::trimKeepsStatus,
     "keep the detection status after the startup transient is trimmed"},
    {"fresh-n-roots", &SplitFixes::freshNRoots, "the manifest's n_roots counts the roots left after the trim"},
    {"strict-iterations", &SplitFixes::strictIterations, "refuse an out-of-range or negative iteration range"},
    {"largest-region-ratio", &SplitFixes::largestRegionRatio,
     "score by the largest steady region's ratio, not the average"},
    {"idle-breaks-runs", &SplitFixes::idleBreaksRuns, "idle steps are neither decode nor prefill"},
    {"dedupe-gpu-events", &SplitFixes::dedupeGpuEvents, "a GPU event enters a chunk once"},
    {"gpu-annotations-not-work", &SplitFixes::gpuAnnotationsNotWork,
     "GPU user annotations are not counted as GPU work"},
    {"flows-ac2g-only", &SplitFixes::flowsAc2gOnly, "copy only the CPU-to-GPU (ac2g) flow events into chunks"},
    {"no-batch-override", &SplitFixes::noBatchOverride, "keep the batch sizes parsed from the step names"},
    {"legacy-categories", &SplitFixes::legacyCategories, "the 2021 names Kernel, Memcpy, Memset count as GPU work"},
};

// Kernel counts from which the coverage audit runs on two cores (and a third
// job beside it pays).
constexpr size_t kBigAudit = size_t(1) << 16;
// Root counts from which the global tiles are built on another core.
constexpr size_t kBigTiles = 4096;

// A stage boundary: false when the caller asked to stop.
bool enter(JobControl* control, const char* stage) { return !control || control->enterStage(stage); }

SplitResult cancelledResult() {
  SplitResult c;
  c.outcome = SplitOutcome::Cancelled;
  return c;
}

SplitResult failed(SplitResult& r, std::string msg) {
  r.outcome = SplitOutcome::Error;
  r.exitStatus = 1;
  r.error = std::move(msg);
  r.manifest = JsonValue();
  r.chunks.clear();
  r.executionDetails = JsonValue::array();
  r.executionDetailsCsv.clear();
  return std::move(r);
}

SplitResult refused(SplitResult& r, JsonValue m) {
  const DetectionCandidate& det = r.detection->chosen;
  r.outcome = SplitOutcome::Refused;
  m.set("aborted", JsonValue::boolean(true));
  r.manifest = std::move(m);
  r.log.push_back(fmt::format("Refusing to split: status={}{}", splitStatusName(det.status),
                              det.status == SplitStatus::Degraded ? " (use --allow-degraded)" : ""));
  r.log.push_back("  " + r.story.verdict);
  for (const std::string& a : r.story.attempts) r.log.push_back("  tried " + a);
  return std::move(r);
}

// The global tiles (gap fill) need only the root events: on big traces they
// are built on another core while the roots are described and the manifest
// is made, and joined at the tiles stage (or on an early return).
class TileBuild {
 public:
  void start(const EventIndex& idx, const RootList& roots, bool parallel) {
    if (parallel) thread_.tryRun([this, &idx, &roots] { tiles_ = buildTiles(idx, roots); });
  }
  bool running() const { return thread_.running(); }
  const TileSet& finish(const EventIndex& idx, const RootList& roots) {
    if (thread_.running())
      thread_.join();  // rethrows the helper's exception (out of memory)
    else
      tiles_ = buildTiles(idx, roots);
    return tiles_;
  }

 private:
  TileSet tiles_;
  ThreadGroup thread_;  // after tiles_: joined before tiles_ goes
};

SplitResult newResult(const Trace& t, const SplitOptions& o) {
  SplitResult r;
  r.outputDir = o.outputDir;
  r.baseName = t.baseName.empty() ? referenceBaseName(t.path) : t.baseName;
  r.gapFill = !o.noGapFill;
  r.executionDetails = JsonValue::array();
  return r;
}

// The tiles stage (gap fill): the global tiles, and each root's.
const TileSet* attachTiles(SplitResult& r, const EventIndex& idx, TileBuild& tiles, PhaseTimer& timer) {
  timer.mark("manifest");
  const TileSet& global = tiles.finish(idx, r.detection->chosen.roots);
  timer.mark("tiles: build");
  r.nOverlappingRoots = global.overlaps;
  size_t hint = 0;
  const RootList& roots = r.detection->chosen.roots;
  for (size_t k = 0; k < r.roots.size(); ++k) r.roots[k].tile = windowOf(idx, global, roots, k, hint);
  return &global;
}

// The steps of stage 2 (a copy per working root, ~1 MB on big traces): their
// block is faulted in while the tile thread still works.
Column<StepDetails> reserveSteps(size_t nRoots, bool tilesRunning) {
  Column<StepDetails> steps;
  if (tilesRunning) {
    steps.reserve(nRoots);
    bigmem::populate(steps.data(), steps.capacity() * sizeof(StepDetails));
  }
  return steps;
}

}  // namespace

std::optional<std::string> parseFixList(const std::string& list, SplitFixes& fixes) {
  size_t p = 0;
  while (p <= list.size()) {
    size_t q = list.find(',', p);
    std::string name = list.substr(p, q == std::string::npos ? std::string::npos : q - p);
    if (!name.empty()) {
      bool found = false;
      for (const auto& f : kFixes) {
        if (name == f.name || name == "all") {
          fixes.*(f.member) = true;
          found = true;
        }
      }
      if (!found) return "unknown fix '" + name + "'";
    }
    if (q == std::string::npos) break;
    p = q + 1;
  }
  return std::nullopt;
}

std::vector<std::string> fixNames() {
  std::vector<std::string> out;
  for (const auto& f : kFixes) out.emplace_back(f.name);
  return out;
}

std::string fixDescription(std::string_view name) {
  for (const auto& f : kFixes)
    if (name == f.name) return f.description;
  return {};
}

std::vector<std::string> enabledFixNames(const SplitFixes& fixes) {
  std::vector<std::string> out;
  for (const auto& f : kFixes)
    if (fixes.*(f.member)) out.emplace_back(f.name);
  return out;
}

Splitter::Splitter(TracePtr trace) : trace_(std::move(trace)) {}
Splitter::~Splitter() = default;

const EventIndex& Splitter::eventIndex(const SplitOptions& options) {
  return index(options.fixes, jobThreads(options.threads));
}

const EventIndex& Splitter::index(const SplitFixes& fixes, unsigned threads) {
  if (!index_ || indexMetadataAllM_ != fixes.metadataAllM || indexLegacyCategories_ != fixes.legacyCategories) {
    EventIndexOptions o;
    o.metadataAllM = fixes.metadataAllM;
    o.legacyCategories = fixes.legacyCategories;
    o.threads = threads;
    index_ = std::make_unique<EventIndex>(*trace_, o);
    indexMetadataAllM_ = fixes.metadataAllM;
    indexLegacyCategories_ = fixes.legacyCategories;
    detection_.reset();
  }
  index_->setThreads(threads);
  return *index_;
}

std::shared_ptr<const Detection> Splitter::detection(const EventIndex& idx, bool trimKeepsStatus, unsigned threads) {
  if (!detection_ || detectionTrimKeepsStatus_ != trimKeepsStatus) {
    DetectionOptions dopt;
    dopt.trimKeepsStatus = trimKeepsStatus;
    dopt.threads = threads;
    auto detect = [&] { detection_ = std::make_shared<const Detection>(detectRoots(idx, dopt)); };
    // The root list is the roots stage's big fresh block: fault it in on
    // another core meanwhile (a fresh page costs the same on any core; D-017).
    // Its roots are among the annotations, capped so that a trace with far
    // more annotations than steps does not fault in memory it never uses. A
    // third thread beside the audit's two: only when the job may use three.
    constexpr size_t kMaxPrefaultRoots = size_t(1) << 16;
    if (jobThreads(threads) >= 3 && idx.kernels.size() >= kBigAudit)
      runSideBySide(
          threads, true, [&] { prefaultRootList(std::min(idx.annotations.size(), kMaxPrefaultRoots)); }, detect);
    else
      detect();
    detectionTrimKeepsStatus_ = trimKeepsStatus;
  }
  return detection_;
}

SplitResult Splitter::plan(const SplitOptions& o, JobControl* control) {
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");  // stage times on stderr
  const unsigned threads = jobThreads(o.threads);
  SplitResult r = newResult(*trace_, o);
  if (trace_->partial) {  // chunks of a part would pass for chunks of the whole
    r.outcome = SplitOutcome::Error;
    r.exitStatus = 1;
    r.error =
        fmt::format("the trace was read only in part ({}); a split needs the whole trace", trace_->partial->reason);
    return r;
  }
  if (!enter(control, "index")) return cancelledResult();
  const EventIndex& idx = index(o.fixes, threads);
  timer.mark("index");
  r.log.push_back(fmt::format("Loaded {} events", trace_->size()));
  r.nLegacyGpuEvents = idx.nLegacyGpuEvents;
  if (idx.noGpuWork) {
    r.outcome = SplitOutcome::NoGpuWork;
    r.log.push_back("No GPU work in trace; nothing to split.");
  }
  if (idx.nLegacyGpuEvents) r.log.push_back(legacyCategoryNote(idx));  // after the reference's own line
  if (idx.noGpuWork) return r;
  if (!enter(control, "detection")) return cancelledResult();
  r.detection = detection(idx, o.fixes.trimKeepsStatus, threads);
  r.story = explainDetection(*trace_, *r.detection, o.allowDegraded);
  timer.mark("detection");
  const DetectionCandidate& det = r.detection->chosen;
  const bool proceed =
      det.status == SplitStatus::Splittable || (det.status == SplitStatus::Degraded && o.allowDegraded);
  if (!enter(control, "roots")) return cancelledResult();
  r.roots.reserve(det.roots.size());  // before the tile thread allocates: the prefaulted block
  TileBuild tiles;
  tiles.start(idx, det.roots, proceed && r.gapFill && sideBySide(threads, det.roots.size() >= kBigTiles));
  describeRoots(idx, det.roots, r.roots);
  timer.mark("roots");
  logDetection(r);
  if (!enter(control, "manifest")) return cancelledResult();
  JsonValue m = manifestHead(det, o.fixes);
  if (!proceed) return refused(r, std::move(m));
  Column<StepDetails> steps = reserveSteps(det.roots.size(), tiles.running());
  if (!enter(control, "tiles")) return cancelledResult();
  const TileSet* globalTiles = r.gapFill ? attachTiles(r, idx, tiles, timer) : nullptr;
  timer.mark("tiles");
  if (!enter(control, "windows")) return cancelledResult();
  std::vector<PendingChunk> pending;
  if (auto err = planWindows(r, idx, o, steps, pending)) return failed(r, std::move(*err));
  if (!enter(control, "chunk groups")) return cancelledResult();
  CorrGroupings groups;
  if (!pending.empty()) {
    groups = chunkGroupings(idx, r.roots, globalTiles, pending);
    timer.mark("chunk groups");
  }
  if (!enter(control, "chunks")) return cancelledResult();
  fileChunks(r, chunkInputs(idx, r, globalTiles, o.fixes), pending, &groups);
  manifestTail(m, r, idx, o);
  r.manifest = std::move(m);
  timer.mark("windows+chunks");
  if (!enter(control, "execution details")) return cancelledResult();
  fillExecutionDetails(r, o.busyRatioColumn);
  r.log.push_back(fmt::format("Done! Extracted {} traces to {}", r.chunks.size(), o.outputDir));
  return r;
}

namespace {
/// For each chunk, the first chunk with the same events, or itself. A steady
/// state that every mode picks is one window: its file is made once and copied.
std::vector<size_t> firstWithSameEvents(const std::vector<ChunkPlan>& chunks) {
  std::vector<size_t> first(chunks.size());
  std::unordered_map<uint64_t, std::vector<size_t>> byShape;  // (size, first and last event) → made chunks
  for (size_t k = 0; k < chunks.size(); ++k) {
    const ChunkPlan& c = chunks[k];
    const uint64_t shape = c.wholeTrace ? ~uint64_t(0)
                                        : (uint64_t(c.events.size()) * 0x9E3779B97F4A7C15ull) ^
                                              (c.events.empty() ? 0 : (uint64_t(c.events.front()) << 32 | c.events.back()));
    first[k] = k;
    auto& made = byShape[shape];
    for (size_t j : made)
      if (chunks[j].wholeTrace == c.wholeTrace && (c.wholeTrace || chunks[j].events == c.events)) {
        first[k] = j;
        break;
      }
    if (first[k] == k) made.push_back(k);
  }
  return first;
}
}  // namespace

Expected<void> Splitter::prepareChunks(const SplitResult& r, const std::string& dir,
                                       std::vector<AtomicFileWriter>& staged, JobControl* control,
                                       unsigned threads) const {
  // Independent files on several threads; the first failure in chunk order is reported.
  std::vector<Expected<void>> prepared(r.chunks.size());
  const std::vector<size_t> first = firstWithSameEvents(r.chunks);
  std::vector<size_t> made;
  for (size_t k = 0; k < first.size(); ++k)
    if (first[k] == k) made.push_back(k);
  std::atomic<size_t> next{0};
  // The threads no file takes compress blocks of the files (a generic split: all on its one chunk).
  const unsigned workers = static_cast<unsigned>(std::min<size_t>(jobThreads(threads), made.size()));
  const unsigned perFile = workers ? std::max(1u, jobThreads(threads) / workers) : 1;
  auto stopped = [&](size_t k, const std::string& path) {
    if (control && control->cancelled()) prepared[k] = makeError(Error::Kind::Cancelled, path, "cancelled");
    return control && control->cancelled();
  };
  auto prepareSome = [&] {
    for (size_t i = next++; i < made.size(); i = next++) {
      const size_t k = made[i];
      const ChunkPlan& c = r.chunks[k];
      const std::string path = paths::join(dir, c.fileName);
      if (stopped(k, path)) continue;  // stop before the next file
      try {  // on a helper thread: an exception must become this chunk's error, not std::terminate
        prepared[k] = prepareChunkFile(*trace_, c.wholeTrace ? nullptr : &c.events, path, staged[k], perFile);
      } catch (const std::exception& e) {
        prepared[k] = makeError(Error::Kind::Resource, path, std::string("cannot write the chunk: ") + e.what());
      }
    }
  };
  runOnWorkers(workers, prepareSome);
  for (size_t k = 0; k < first.size(); ++k) {
    if (first[k] == k) continue;
    const std::string path = paths::join(dir, r.chunks[k].fileName);
    if (!stopped(k, path))
      prepared[k] = prepared[first[k]] ? prepareChunkCopy(staged[first[k]], path, staged[k]) : prepared[first[k]];
  }
  for (auto& p : prepared)
    if (!p) return p;
  if (control && control->cancelled()) return makeError(Error::Kind::Cancelled, r.outputDir, "cancelled");
  return {};
}

namespace {
// The execution details (JSON, CSV), written whole into `dir`.
Expected<void> writeDetails(const SplitResult& r, const std::string& dir) {
  if (r.executionDetails.items().empty()) return {};
  const std::string json = r.executionDetails.dump(JsonStyle::pythonFile());
  if (auto w = writeFileAtomic(paths::join(dir, names::kDetailsJsonFile), json); !w) return w;
  return writeFileAtomic(paths::join(dir, names::kDetailsCsvFile), r.executionDetailsCsv);
}

Expected<void> writeManifest(const SplitResult& r, const std::string& dir) {
  if (r.manifest.isNull()) return {};
  return writeFileAtomic(paths::join(dir, names::kManifestFile), r.manifest.dump(JsonStyle::pythonFile()));
}
}  // namespace

Expected<void> Splitter::write(const SplitResult& r, JobControl* control, unsigned threads) const {
  if (r.outcome == SplitOutcome::NoGpuWork || r.outcome == SplitOutcome::Error || r.outcome == SplitOutcome::Cancelled)
    return {};
  if (control && !control->enterStage("write")) return makeError(Error::Kind::Cancelled, r.outputDir, "cancelled");
  // A split appears whole or not at all (D-067): every chunk is made complete in a
  // staging folder (gathered and compressed on several threads), then the details
  // and the manifest; only then does the staging folder become the output folder.
  // A failure, a cancel or a kill leaves the output folder as it was.
  StagedDirectory out;
  if (auto o = out.open(r.outputDir); !o) return o;
  const std::string& dir = out.path();
  for (const ChunkPlan& c : r.chunks) {
    auto slash = c.fileName.find('/');
    if (slash != std::string::npos) {
      if (int e = paths::makeDirs(paths::join(dir, c.fileName.substr(0, slash))))
        return makeError(Error::Kind::Io, paths::join(r.outputDir, c.fileName),
                         std::string("cannot create the folder: ") + std::strerror(e));
    }
  }
  // The details are written beside the chunks being compressed; the manifest comes last.
  std::vector<AtomicFileWriter> staged(r.chunks.size());
  Expected<void> chunks, details;
  runSideBySide(
      threads, true, [&] { details = writeDetails(r, dir); },
      [&] { chunks = prepareChunks(r, dir, staged, control, threads); });
  if (!chunks) return chunks;
  if (!details) return details;
  for (AtomicFileWriter& w : staged)
    if (auto p = w.publish(); !p) return p;
  if (auto w = writeManifest(r, dir); !w) return w;
  if (control && control->cancelled()) return makeError(Error::Kind::Cancelled, r.outputDir, "cancelled");
  return out.commit(std::string(names::kManifestFile));
}

}  // namespace steadyscope::analysis
