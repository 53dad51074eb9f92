// Orchestration of the splitter (spec §4.12) and its structured result.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/phase_timer.hpp>
#include <steadyscope/core/util/side_by_side.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <sys/stat.h>
#include <thread>

namespace steadyscope::analysis {

__extension__ typedef __int128 Int128_;

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
};
constexpr FixName kFixes[] = {
    {"metadata-all-m", &SplitFixes::metadataAllM},
    {"trim-keeps-status", &SplitFixes::trimKeepsStatus},
    {"fresh-n-roots", &SplitFixes::freshNRoots},
    {"strict-iterations", &SplitFixes::strictIterations},
    {"largest-region-ratio", &SplitFixes::largestRegionRatio},
    {"idle-breaks-runs", &SplitFixes::idleBreaksRuns},
    {"dedupe-gpu-events", &SplitFixes::dedupeGpuEvents},
    {"gpu-annotations-not-work", &SplitFixes::gpuAnnotationsNotWork},
    {"flows-ac2g-only", &SplitFixes::flowsAc2gOnly},
    {"no-batch-override", &SplitFixes::noBatchOverride},
};

std::string joinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

// Python int(text) for the --iterations parts.
std::optional<int64_t> pyInt(std::string_view t) {
  auto isWs = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!t.empty() && isWs(t.front())) t.remove_prefix(1);
  while (!t.empty() && isWs(t.back())) t.remove_suffix(1);
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  if (i >= t.size() || t[i] < '0' || t[i] > '9') return std::nullopt;
  Int128_ v = 0;
  bool us = false;
  for (; i < t.size(); ++i) {
    if (t[i] >= '0' && t[i] <= '9') {
      v = v * 10 + (t[i] - '0');
      if (v > INT64_MAX) return std::nullopt;
      us = false;
    } else if (t[i] == '_' && !us) {
      us = true;
    } else {
      return std::nullopt;
    }
  }
  if (us) return std::nullopt;
  return static_cast<int64_t>(neg ? -v : v);
}

struct IterRange {
  bool all = true;
  int64_t a = 0, b = 0;  // as the reference names them (b clipped to n)
  int64_t s = 0, e = 0;  // Python slice bounds, normalised
};

std::optional<IterRange> parseIterations(const std::string& text, int64_t n, std::string* err) {
  IterRange r;
  if (text == "all") {
    r.s = 0;
    r.e = n;
    return r;
  }
  r.all = false;
  std::vector<std::string> parts;
  size_t p = 0;
  while (true) {
    size_t q = text.find(':', p);
    parts.push_back(text.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  auto first = pyInt(parts[0]);
  if (!first) {
    *err = "invalid literal for int() with base 10: '" + parts[0] + "'";
    return std::nullopt;
  }
  r.a = *first;
  int64_t b = r.a + 1;
  if (parts.size() > 1) {
    auto second = pyInt(parts[1]);
    if (!second) {
      *err = "invalid literal for int() with base 10: '" + parts[1] + "'";
      return std::nullopt;
    }
    b = *second;
  }
  r.b = std::min(b, n);
  auto norm = [n](int64_t x) { return x < 0 ? std::max<int64_t>(x + n, 0) : std::min(x, n); };
  r.s = norm(r.a);
  r.e = std::max(r.s, norm(r.b));
  return r;
}

JsonValue stepJson(const StepDetails& s) {
  JsonValue o = JsonValue::object();
  o.set("batch_size", JsonValue::integer(s.batchSize));
  o.set("num_requests", JsonValue::integer(s.numRequests));
  o.set("context_requests", JsonValue::integer(s.contextRequests));
  o.set("context_sum", JsonValue::integer(s.contextSum));
  o.set("generation_requests", JsonValue::integer(s.generationRequests));
  o.set("generation_sum", JsonValue::integer(s.generationSum));
  return o;
}

JsonValue phaseJson(const PhaseSummary& p) {
  JsonValue o = JsonValue::object();
  o.set("num_prefill", JsonValue::integer(p.numPrefill));
  o.set("num_prefilldecode", JsonValue::integer(p.numPrefillDecode));
  o.set("num_decode", JsonValue::integer(p.numDecode));
  o.set("avg_bs", JsonValue::integer(p.avgBs));
  o.set("avg_conc", JsonValue::integer(p.avgConc));
  return o;
}

std::string phaseSuffix(const PhaseSummary& p) {
  return fmt::format("prefill_{}_prefilldecode_{}_decode_{}_bs{}_conc{}", p.numPrefill, p.numPrefillDecode, p.numDecode,
                     p.avgBs, p.avgConc);
}

JsonValue coverageJson(const CoverageReport& c) {
  JsonValue o = JsonValue::object();
  o.set("attribution_strategy", JsonValue::string(c.strategy));
  o.set("covered_selected", JsonValue::real(c.coveredSelected));
  o.set("covered_spans", JsonValue::real(c.coveredSpans));
  o.set("span_share", JsonValue::real(c.spanShare));
  o.set("passes", JsonValue::boolean(c.passes));
  o.set("total_gpu_us", JsonValue::real(c.totalGpuUs));
  return o;
}

JsonValue regionJson(const Region& g) {
  JsonValue a = JsonValue::array();
  a.push(JsonValue::integer(g.start));
  a.push(JsonValue::integer(g.end));
  return a;
}

int mkdirs(const std::string& path) {
  if (path.empty()) return 0;
  std::string cur;
  size_t p = 0;
  while (p != std::string::npos) {
    size_t q = path.find('/', p + 1);
    cur = path.substr(0, q);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) return errno;
    p = q;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return ENOTDIR;
  return 0;
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

Splitter::Splitter(TracePtr trace) : trace_(std::move(trace)) {}

const EventIndex& Splitter::index(bool metadataAllM) {
  if (!index_ || indexMetadataAllM_ != metadataAllM) {
    EventIndexOptions o;
    o.metadataAllM = metadataAllM;
    index_ = std::make_unique<EventIndex>(*trace_, o);
    indexMetadataAllM_ = metadataAllM;
    detection_.reset();
  }
  return *index_;
}

const Detection& Splitter::detection(const EventIndex& idx, bool trimKeepsStatus) {
  if (!detection_ || detectionTrimKeepsStatus_ != trimKeepsStatus) {
    DetectionOptions dopt;
    dopt.trimKeepsStatus = trimKeepsStatus;
    // The root list is the next stage's big fresh block on the main thread;
    // fault it in on the core the audit leaves idle (fresh pages cost ~2
    // ms/MiB on the VMs we run on; D-014, D-017). The tile thread's own
    // block is not: the main thread's side of that stage is as long.
    dopt.whileAuditing = [](size_t nRoots) { bigmem::prefault(nRoots * sizeof(RootInfo)); };
    detection_ = detectRoots(idx, dopt);
    detectionTrimKeepsStatus_ = trimKeepsStatus;
  }
  return *detection_;
}

SplitResult Splitter::plan(const SplitOptions& o, JobControl* control) {
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");  // stage times on stderr
  const Trace& t = *trace_;
  SplitResult r;
  r.outputDir = o.outputDir;
  r.baseName = t.baseName.empty() ? referenceBaseName(t.path) : t.baseName;
  r.gapFill = !o.noGapFill;
  r.executionDetails = JsonValue::array();
  auto fail = [&](std::string msg) {
    r.outcome = SplitOutcome::Error;
    r.exitStatus = 1;
    r.error = std::move(msg);
    r.manifest = JsonValue();
    r.chunks.clear();
    r.executionDetails = JsonValue::array();
    r.executionDetailsCsv.clear();
    return r;
  };
  if (control && !control->enterStage("index")) {
    SplitResult c;
    c.outcome = SplitOutcome::Cancelled;
    return c;
  }
  const EventIndex& idx = index(o.fixes.metadataAllM);
  timer.mark("index");
  r.log.push_back(fmt::format("Loaded {} events", t.size()));
  if (idx.noGpuWork) {
    r.outcome = SplitOutcome::NoGpuWork;
    r.log.push_back("No GPU work in trace; nothing to split.");
    return r;
  }

  // ---- Stage 1 + trim
  r.detection = detection(idx, o.fixes.trimKeepsStatus);
  timer.mark("detection");
  const DetectionCandidate& det = r.detection.chosen;
  if (r.detection.needsTreeTiers)
    return fail(
        "no known or unknown annotation family is SPLITTABLE; the reference would continue with the call-tree "
        "tiers (spec §2.6), which this build does not implement yet");
  const bool proceed =
      det.status == SplitStatus::Splittable || (det.status == SplitStatus::Degraded && o.allowDegraded);
  // The tiles need only the root events: build them on the other core while
  // the roots are described and the manifest is written (joined below, or on
  // any early return by the jthread).
  // The root list first, so that it takes the block the coverage audit
  // prefaulted for it (Splitter::detection) before the tile thread allocates.
  r.roots.reserve(det.roots.size());
  TileSet tiles;
  std::jthread tileThread;
  if (proceed && r.gapFill && det.roots.size() >= 4096)
    tileThread = std::jthread([&] { tiles = buildTiles(idx, det.roots); });
  {
    // parseAnnotation is a pure function of the name: parse each distinct name
    // once (stepOfName: the first root with that name; no second list).
    std::vector<uint32_t> stepOfName(t.strings.size(), UINT32_MAX);
    // Roots lie ~100 events apart: each one's columns are cache misses. Ask
    // for those of a root a few iterations ahead while this one is described.
    constexpr size_t kAhead = 8;
    auto prefetch = [&](size_t k) {
      if (k >= det.roots.size()) return;
      const EventIdx a = det.roots[k];
      __builtin_prefetch(&t.flags[a]);
      __builtin_prefetch(&t.tsNs[a]);
      __builtin_prefetch(t.durNs.narrow().data() + a);
      __builtin_prefetch(t.name.narrow().data() + a);
    };
    for (size_t k = 0; k < kAhead; ++k) prefetch(k);
    for (size_t k = 0; k < det.roots.size(); ++k) {
      prefetch(k + kAhead);
      const EventIdx e = det.roots[k];
      RootInfo ri;
      ri.event = e;
      ri.name = t.nameOf(e);
      ri.tsUs = idx.tsUs(e);
      ri.durUs = idx.durUs(e);
      uint32_t& s = stepOfName[t.name[e]];
      if (s == UINT32_MAX) {
        s = static_cast<uint32_t>(k);
        ri.step = parseAnnotation(ri.name);
      } else {
        ri.step = r.roots[s].step;
      }
      r.roots.push_back(std::move(ri));
    }
  }
  timer.mark("roots");
  if (det.coverage) {
    const auto& c = *det.coverage;
    r.log.push_back(fmt::format("Detection: {} -> {} roots, status={}, phase_confidence={}", det.method,
                                det.roots.size(), splitStatusName(det.status), det.phaseConfidence));
    r.log.push_back(fmt::format("GPU coverage ({}): {:.1f}% by the selected roots, {:.1f}% of that inside their spans",
                                c.strategy, c.coveredSelected * 100, c.spanShare * 100));
  }
  if (r.detection.trim.trimmed)
    r.log.push_back(fmt::format("Startup transient: iteration 0 trimmed ({} x{:.1f})", r.detection.trim.kernel,
                                *r.detection.trim.collectiveRatio));

  // ---- manifest, part 1
  JsonValue m = JsonValue::object();
  m.set("status", JsonValue::integer(static_cast<int64_t>(det.status)));
  m.set("method", JsonValue::string(det.method));
  m.set("phase_confidence", JsonValue::string(det.phaseConfidence));
  m.set("n_roots", JsonValue::integer(static_cast<int64_t>(det.roots.size())));
  if (det.coverage) {
    m.set("attribution_strategy", JsonValue::string(det.coverage->strategy));
    m.set("coverage_selected_roots", JsonValue::real(pyRound(det.coverage->coveredSelected, 4)));
    m.set("coverage_root_spans_only", JsonValue::real(pyRound(det.coverage->coveredSpans, 4)));
    m.set("root_span_share", JsonValue::real(pyRound(det.coverage->spanShare, 4)));
  } else {
    for (const char* k :
         {"attribution_strategy", "coverage_selected_roots", "coverage_root_spans_only", "root_span_share"})
      m.set(k, JsonValue::null());
  }
  for (const auto& [k, v] : det.diagnostics.members())
    if (k.empty() || k[0] != '_') m.set(k, v);
  if (o.fixes.freshNRoots) m.set("n_roots", JsonValue::integer(static_cast<int64_t>(det.roots.size())));

  // ---- splittability gate
  if (!proceed) {
    r.outcome = SplitOutcome::Refused;
    m.set("aborted", JsonValue::boolean(true));
    r.manifest = m;
    r.log.push_back(fmt::format("Refusing to split: status={}{}", splitStatusName(det.status),
                                det.status == SplitStatus::Degraded ? " (use --allow-degraded)" : ""));
    return r;
  }

  // The steps of stage 2 (a copy per working root, ~1 MB on big traces):
  // their block is faulted in here, while the tile thread still works.
  Column<StepDetails> steps;
  if (tileThread.joinable()) {
    steps.reserve(det.roots.size());
    bigmem::populate(steps.data(), steps.capacity() * sizeof(StepDetails));
  }

  // ---- tiles
  if (r.gapFill) {
    timer.mark("manifest");
    if (tileThread.joinable())
      tileThread.join();
    else
      tiles = buildTiles(idx, det.roots);
    timer.mark("tiles: build");
    r.nOverlappingRoots = tiles.overlaps;
    size_t hint = 0;
    for (RootInfo& ri : r.roots) ri.tile = windowOf(idx, tiles, ri.event, hint);
  }
  const TileSet* globalTiles = r.gapFill ? &tiles : nullptr;
  timer.mark("tiles");
  ExtractionOptions xo;
  xo.dedupeGpuEvents = o.fixes.dedupeGpuEvents;
  xo.gpuAnnotationsNotWork = o.fixes.gpuAnnotationsNotWork;
  xo.flowsAc2gOnly = o.fixes.flowsAc2gOnly;

  auto makeChunk = [&](const std::vector<size_t>& rootIdx, bool structured, const CorrGroupings* groups) {
    ChunkPlan c;
    c.roots = rootIdx;
    EventList evs;
    for (size_t k : rootIdx) evs.push_back(r.roots[k].event);
    ChunkSelection sel = selectChunk(idx, evs, globalTiles, xo, groups);
    c.events = std::move(sel.events);
    c.stats = sel.stats;
    c.steps.reserve(rootIdx.size());
    for (size_t k : rootIdx) c.steps.push_back(r.roots[k].step);
    if (structured && !o.fixes.noBatchOverride) {
      EventText text(*trace_);
      std::vector<int64_t> vals = batchOverrideValues(idx, c.events, text);
      if (!text.error().empty()) r.warnings.push_back("batch sizes from Input Dims not read: " + text.error());
      if (!vals.empty() && vals.size() == c.steps.size())
        for (size_t k = 0; k < vals.size(); ++k) c.steps[k].batchSize = vals[k];
    }
    c.phase = summarizePhase(c.steps.begin(), c.steps.end());
    const double gd = c.stats.gpuDuration.asDouble();
    c.busyRatio = gd != 0.0 ? c.stats.gpuBusyDuration.asDouble() / gd : 0.0;
    return c;
  };
  auto addChunk = [&](ChunkPlan c) {
    c.outputPath = joinPath(o.outputDir, c.fileName);
    r.log.push_back(fmt::format("  iteration {}: {} events -> {}",
                                c.idx.type() == JsonValue::Type::Int ? std::to_string(c.idx.asInt()) : c.idx.asString(),
                                c.stats.eventCount, c.outputPath));
    r.chunks.push_back(std::move(c));
    return static_cast<int>(r.chunks.size() - 1);
  };
  std::vector<ChunkPlan> iterationChunks, phaseChunks, steadyChunks;
  // Chunks are made once every chunk's roots are known: the correlation and
  // flow ids of all of them are then grouped in one pass (groupingsFor), not
  // the whole trace's (EventIndex::groupings, ~10 MB of fresh memory on a
  // 2.4 M-event trace). `finish` names a made chunk and files it, in the
  // order the chunks were asked for.
  struct PendingChunk {
    std::vector<size_t> rootIdx;
    bool structured;
    std::function<void(ChunkPlan&&)> finish;
  };
  std::vector<PendingChunk> pending;
  int64_t phaseCounter[2] = {0, 0};

  const auto n = static_cast<int64_t>(r.roots.size());
  if (n > 0) {
    std::string err;
    auto range = parseIterations(o.iterations, n, &err);
    if (!range) return fail("--iterations " + o.iterations + ": " + err);
    if (o.fixes.strictIterations && !range->all && (range->a < 0 || range->a >= n || range->b <= range->a))
      return fail(fmt::format("--iterations {}: range outside the {} detected roots", o.iterations, n));
    r.iterationRange = {range->s, range->e};

    if (o.storeSingleIteration) {
      for (int64_t k = range->s; k < range->e; ++k) {
        const int64_t i = range->a + (k - range->s);
        pending.push_back({{static_cast<size_t>(k)}, false, [&, k, i](ChunkPlan&& c) {
                             c.kind = "iteration";
                             c.idx = JsonValue::integer(i);
                             const std::string_view nm = r.roots[static_cast<size_t>(k)].name;
                             if (nm == "warmup" || nm == "wrapup")
                               c.fileName = fmt::format("{}_{}.json.gz", r.baseName, nm);
                             else if (matchesKnownPattern(nm))
                               c.fileName =
                                   fmt::format("{}_iteration_{}_{}.json.gz", r.baseName, i, sanitizeRootName(nm));
                             else
                               c.fileName = fmt::format("{}_iteration_{}.json.gz", r.baseName, i);
                             iterationChunks.push_back(std::move(c));
                           }});
      }
    } else if (!range->all) {
      std::vector<size_t> sl;
      for (int64_t k = range->s; k < range->e; ++k) sl.push_back(static_cast<size_t>(k));
      auto finishRange = [&, ra = range->a, rb = range->b](ChunkPlan&& c) {
        c.kind = "range";
        c.hasSteps = false;
        c.steps.clear();
        c.idx = JsonValue::string(fmt::format("{}:{}", ra, rb));
        c.fileName = rb - ra > 1 ? fmt::format("{}_iteration_{}:{}.json.gz", r.baseName, ra, rb)
                                 : fmt::format("{}_iteration_{}.json.gz", r.baseName, ra);
        const double gd = c.stats.gpuDuration.asDouble();
        c.busyRatio = gd != 0.0 ? c.stats.gpuBusyDuration.asDouble() / gd : 0.0;
        iterationChunks.push_back(std::move(c));
      };
      if (sl.empty()) {
        ChunkPlan c;
        c.wholeTrace = true;
        c.stats.eventCount = static_cast<int64_t>(t.size());
        finishRange(std::move(c));
      } else {
        pending.push_back({std::move(sl), true, finishRange});
      }
    }

    // ---- Stage 2 inputs
    r.workingRoots.reserve(static_cast<size_t>(range->e - range->s));
    for (int64_t k = range->s; k < range->e; ++k) {
      const std::string_view nm = r.roots[static_cast<size_t>(k)].name;
      if (nm != "warmup" && nm != "wrapup") r.workingRoots.push_back(static_cast<size_t>(k));
    }
    reserveFresh(steps, r.workingRoots.size());  // within the block reserved above when there is one
    for (size_t k : r.workingRoots) steps.push_back(r.roots[k].step);
    r.servingAnnotations = !steps.empty() && isServingKind(steps.front().kind);
    if (o.llmInference && !r.servingAnnotations && !steps.empty()) {
      bool any = false;
      for (size_t k : r.workingRoots) {
        const RootInfo& ri = r.roots[k];
        Tile w = ri.tile ? *ri.tile : Tile{idx.tsPy(ri.event), idx.endPy(ri.event)};
        const double a = w.a.asDouble(), b = w.b.asDouble(), len = (w.b - w.a).asDouble();
        // Most common Input Dims[0][0] among cpu_op events of the window (spec §3.7.1, D3 choice).
        static const char* kExcluded[] = {
            "aten::view",       "aten::reshape", "aten::_unsafe_view", "aten::empty",   "aten::empty_strided",
            "aten::copy_",      "aten::to",      "aten::_to_copy",     "aten::slice",   "aten::select",
            "aten::as_strided", "aten::t",       "aten::transpose",    "aten::permute", "aten::expand",
            "aten::contiguous", "aten::detach",  "aten::zeros",        "aten::fill_"};
        EventList evs;
        for (uint32_t l = 0; l < t.lanes.size(); ++l)
          idx.forEachInLane(l, a, b, [&](EventIdx e) {
            if (!idx.isExtractionCpu(e) || t.catOf(e) != "cpu_op" || !t.has(e, ev::HasInputDims)) return;
            const double ts = idx.tsUs(e);
            if (a <= ts && ts < b && idx.durUs(e) <= len) evs.push_back(e);
          });
        std::sort(evs.begin(), evs.end(), [&](EventIdx x, EventIdx y) {
          const double tx = idx.tsUs(x), ty = idx.tsUs(y);
          return tx != ty ? tx < ty : x < y;
        });
        std::vector<std::pair<int64_t, int64_t>> counts;  // value, count (first-seen order)
        EventText text(t);
        for (EventIdx e : evs) {
          std::string_view nm = t.nameOf(e);
          if (std::any_of(std::begin(kExcluded), std::end(kExcluded), [&](const char* x) { return nm == x; })) continue;
          auto v = firstInputDim(text, t, e);
          if (!v) continue;
          auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == *v; });
          if (it == counts.end())
            counts.emplace_back(*v, 1);
          else
            ++it->second;
        }
        if (!text.error().empty()) r.warnings.push_back("batch sizes from Input Dims not read: " + text.error());
        std::optional<int64_t> best;
        int64_t bestCount = 0;
        for (const auto& [v, cnt] : counts)
          if (cnt > bestCount) {
            best = v;
            bestCount = cnt;
          }
        r.shapeBatchSizes.push_back(best);
        any = any || best.has_value();
      }
      if (!any) {
        r.log.push_back(
            "[llm-inference] No cpu_op shapes found — falling back to generic duration-based steady state.");
        r.shapeBatchSizes.clear();
      }
    }
    ConcurrencyOptions co;
    co.numSteps = o.numSteps;
    co.useLargestRegionRatio = o.fixes.largestRegionRatio;
    co.idleBreaksRuns = o.fixes.idleBreaksRuns;
    auto runFinder = [&](SteadyMode mode, WindowChoice& wc) -> bool {
      wc.mode = mode;
      if (r.servingAnnotations) {
        ConcurrencyOptions c2 = co;
        if (mode == SteadyMode::Mixed) c2.conc = o.conc;
        wc.selection = concurrencyFinder(steps, mode, c2);
        wc.finder = "concurrency";
        if (wc.selection.crashed) return false;
        wc.window = wc.selection.window;
      } else if (!r.shapeBatchSizes.empty()) {
        wc.selection = shapeFinder(r.shapeBatchSizes, mode, o.numSteps, o.maxNumSeq);
        wc.finder = "shapes";
        wc.window = wc.selection.window;
      } else {
        std::vector<double> durs;
        for (size_t k : r.workingRoots) durs.push_back(r.roots[k].durUs);
        wc.duration = durationFinder(durs, o.numSteps);
        wc.finder = "duration";
        wc.selection.mode = mode;
        wc.selection.finder = "duration";
        wc.window = wc.duration->window;
      }
      for (const auto& w : wc.selection.warnings) r.warnings.push_back(fmt::format("[{}] {}", steadyModeName(mode), w));
      return true;
    };
    auto windowRoots = [&](const Region& w) {
      std::vector<size_t> out;
      for (int64_t k = w.start; k < w.end; ++k) out.push_back(r.workingRoots[static_cast<size_t>(k)]);
      return out;
    };

    // ---- --divide-phases (§3.10)
    if (o.dividePhases) {
      if (!r.servingAnnotations && r.shapeBatchSizes.empty()) {
        r.log.push_back("Phase division skipped: no serving annotations and no batch sizes.");
      } else {
        WindowChoice wc;
        wc.label = "divide_phases";
        if (!runFinder(SteadyMode::Mixed, wc))
          return fail("ZeroDivisionError in the ideal ratio from --CONC/--OSL/--R (spec §8 B6)");
        std::vector<bool> pb;
        if (!r.servingAnnotations) pb = classifyPrefillBearing(r.shapeBatchSizes, o.maxNumSeq);
        std::vector<std::pair<int, std::vector<size_t>>> runs;  // label 0 pdmix, 1 decode_only
        for (const Region& g : wc.selection.scan.regions) {
          for (int64_t k = g.start; k < g.end; ++k) {
            int label;
            if (r.servingAnnotations) {
              const StepDetails& s = steps[static_cast<size_t>(k)];
              if (s.contextRequests > 0)
                label = 0;
              else if (s.generationRequests > 0)
                label = 1;
              else
                continue;
            } else {
              label = pb[static_cast<size_t>(k)] ? 0 : 1;
            }
            if (runs.empty() || runs.back().first != label) runs.push_back({label, {}});
            runs.back().second.push_back(r.workingRoots[static_cast<size_t>(k)]);
          }
        }
        for (auto& [label, rootIdx] : runs) {
          pending.push_back({std::move(rootIdx), true, [&, label = label](ChunkPlan&& c) {
                               const char* folder = label == 0 ? "prefilldecodemix" : "decode_only";
                               std::vector<StepDetails> raw;
                               for (size_t k : c.roots) raw.push_back(r.roots[k].step);
                               PhaseSummary ps = summarizePhase(raw.begin(), raw.end());
                               c.kind = "phase";
                               c.idx = JsonValue::integer(0);
                               c.fileName = fmt::format("{}/{}_chunk{}_steps{}_bs{}_conc{}_{}_{}.json.gz", folder,
                                                        folder, phaseCounter[label], c.roots.size(), ps.avgBs,
                                                        ps.avgConc, phaseSuffix(c.phase), r.baseName);
                               ++phaseCounter[label];
                               phaseChunks.push_back(std::move(c));
                             }});
        }
      }
    }

    // ---- --find-steady-state (§3.1)
    if (o.findSteadyState) {
      const bool three = r.servingAnnotations || o.llmInference;
      std::vector<std::pair<SteadyMode, const char*>> modes;
      if (three) {
        modes = {{SteadyMode::Mixed, "mixed_steady_state"},
                 {SteadyMode::DecodeOnly, "decode_only_steady_state"},
                 {SteadyMode::MaxPrefillDecode, "prefilldecode_steady_state"}};
      } else {
        modes = {{SteadyMode::Mixed, "steady_state"}};
      }
      for (const auto& [mode, label] : modes) {
        WindowChoice wc;
        wc.label = label;
        if (r.workingRoots.empty()) {
          r.windows.push_back(std::move(wc));
          continue;
        }
        if (!runFinder(mode, wc))
          return fail("ZeroDivisionError in the ideal ratio from --CONC/--OSL/--R (spec §8 B6)");
        if (wc.window.size() > 0) {
          std::vector<size_t> rootIdx = windowRoots(wc.window);
          wc.rootRange = {static_cast<int64_t>(rootIdx.front()), static_cast<int64_t>(rootIdx.back()) + 1};
          const size_t w = r.windows.size();  // wc's place once pushed below
          pending.push_back({std::move(rootIdx), true, [&, w, three, label = label](ChunkPlan&& c) {
                               WindowChoice& wcw = r.windows[w];
                               c.kind = "steady_state";
                               c.idx = JsonValue::integer(0);
                               if (three)
                                 c.fileName = fmt::format("{}_{}_{}.json.gz", label, phaseSuffix(c.phase), r.baseName);
                               else
                                 c.fileName = fmt::format("steady_state_{}.json.gz", r.baseName);
                               if (!c.events.empty()) {
                                 auto tileOf = [&](const RootInfo& ri) {
                                   return ri.tile ? *ri.tile : Tile{idx.tsPy(ri.event), idx.endPy(ri.event)};
                                 };
                                 wcw.startUs = tileOf(r.roots[c.roots.front()]).a.asDouble();
                                 wcw.endUs = tileOf(r.roots[c.roots.back()]).b.asDouble();
                               }
                               wcw.chunk = static_cast<int>(steadyChunks.size());
                               steadyChunks.push_back(std::move(c));
                             }});
        } else {
          r.log.push_back(fmt::format("[{}] no window; no file written", steadyModeName(mode)));
        }
        r.windows.push_back(std::move(wc));
      }
    }
  }
  if (!pending.empty()) {
    CorrKeySet keys;
    EventList evs;
    for (const PendingChunk& p : pending) {
      evs.clear();
      for (size_t k : p.rootIdx) evs.push_back(r.roots[k].event);
      addChunkKeys(idx, evs, globalTiles, keys);
    }
    keys.finish();
    const CorrGroupings groups = idx.groupingsFor(keys);
    timer.mark("chunk groups");
    for (PendingChunk& p : pending) p.finish(makeChunk(p.rootIdx, p.structured, &groups));
  }
  const int base1 = static_cast<int>(iterationChunks.size() + phaseChunks.size());
  for (auto& c : iterationChunks) addChunk(std::move(c));
  for (auto& c : phaseChunks) addChunk(std::move(c));
  for (auto& c : steadyChunks) addChunk(std::move(c));
  for (auto& wc : r.windows)
    if (wc.chunk >= 0) wc.chunk += base1;

  // ---- manifest, part 2
  m.set("gap_fill", JsonValue::boolean(r.gapFill));
  if (r.gapFill && !r.roots.empty()) m.set("n_overlapping_roots", JsonValue::integer(r.nOverlappingRoots));
  m.set("n_gpu_events_in_trace", JsonValue::integer(static_cast<int64_t>(idx.nGpuEventsInTrace)));
  if (o.storeSingleIteration && o.iterations == "all" && r.gapFill && idx.nGpuEventsInTrace > 0) {
    int64_t extracted = 0;
    for (const auto& c : r.chunks)
      if (c.kind == "iteration") extracted += c.stats.numGpuEvents;
    const auto inTrace = static_cast<int64_t>(idx.nGpuEventsInTrace);
    m.set("n_gpu_events_extracted", JsonValue::integer(extracted));
    m.set("n_gpu_events_outside_iterations", JsonValue::integer(inTrace - extracted));
    m.set("gpu_events_duplicated", JsonValue::boolean(extracted > inTrace));
    m.set("gpu_event_retention",
          JsonValue::real(pyRound(static_cast<double>(extracted) / static_cast<double>(inTrace), 4)));
  }
  r.manifest = m;
  timer.mark("windows+chunks");

  // ---- execution details
  std::vector<std::vector<std::pair<std::string, CsvCell>>> rows;
  for (const ChunkPlan& c : r.chunks) {
    JsonValue e = JsonValue::object();
    e.set("idx", c.idx);
    e.set("output_path", JsonValue::string(c.outputPath));
    e.set("event_count", JsonValue::integer(c.stats.eventCount));
    e.set("num_gpu_events", JsonValue::integer(c.stats.numGpuEvents));
    e.set("gpu_duration", JsonValue::number(c.stats.gpuDuration));
    e.set("gpu_busy_duration", JsonValue::number(c.stats.gpuBusyDuration));
    if (o.busyRatioColumn) e.set("busy_ratio", JsonValue::real(c.busyRatio));
    std::vector<std::pair<std::string, CsvCell>> row;
    row.emplace_back("idx", c.idx.type() == JsonValue::Type::Int ? CsvCell::integer(c.idx.asInt())
                                                                 : CsvCell::string(c.idx.asString()));
    row.emplace_back("output_path", CsvCell::string(c.outputPath));
    row.emplace_back("event_count", CsvCell::integer(c.stats.eventCount));
    row.emplace_back("num_gpu_events", CsvCell::integer(c.stats.numGpuEvents));
    row.emplace_back("gpu_duration", CsvCell::number(c.stats.gpuDuration));
    row.emplace_back("gpu_busy_duration", CsvCell::number(c.stats.gpuBusyDuration));
    if (o.busyRatioColumn) row.emplace_back("busy_ratio", CsvCell::real(c.busyRatio));
    if (c.hasSteps) {
      JsonValue st = JsonValue::array();
      for (const auto& s : c.steps) st.push(stepJson(s));
      e.set("steps", std::move(st));
      e.set("phase", phaseJson(c.phase));
      row.emplace_back("phase_num_prefill", CsvCell::integer(c.phase.numPrefill));
      row.emplace_back("phase_num_prefilldecode", CsvCell::integer(c.phase.numPrefillDecode));
      row.emplace_back("phase_num_decode", CsvCell::integer(c.phase.numDecode));
      row.emplace_back("phase_avg_bs", CsvCell::integer(c.phase.avgBs));
      row.emplace_back("phase_avg_conc", CsvCell::integer(c.phase.avgConc));
    }
    row.emplace_back("num_steps", CsvCell::integer(c.hasSteps ? static_cast<int64_t>(c.steps.size()) : 0));
    r.executionDetails.push(std::move(e));
    rows.push_back(std::move(row));
  }
  if (!rows.empty()) r.executionDetailsCsv = formatPandasCsv(rows);
  r.log.push_back(fmt::format("Done! Extracted {} traces to {}", r.chunks.size(), o.outputDir));
  return r;
}

Expected<void> Splitter::write(const SplitResult& r) const {
  if (r.outcome == SplitOutcome::NoGpuWork || r.outcome == SplitOutcome::Error) return {};
  if (int e = mkdirs(r.outputDir))
    return makeError(Error::Kind::Io, r.outputDir,
                     std::string("cannot create the output directory: ") + std::strerror(e));
  for (const ChunkPlan& c : r.chunks) {
    auto slash = c.fileName.find('/');
    if (slash != std::string::npos) {
      if (int e = mkdirs(joinPath(r.outputDir, c.fileName.substr(0, slash))))
        return makeError(Error::Kind::Io, joinPath(r.outputDir, c.fileName),
                         std::string("cannot create the folder: ") + std::strerror(e));
    }
  }
  // The chunks are independent files (each gathered, compressed and written
  // whole or not at all): two at a time. The first failure in chunk order is
  // reported, and the manifest and details are written only when every chunk was.
  std::vector<Expected<void>> written(r.chunks.size());
  std::atomic<size_t> next{0};
  auto writeSome = [&] {
    for (size_t k = next++; k < r.chunks.size(); k = next++) {
      const ChunkPlan& c = r.chunks[k];
      const std::string path = joinPath(r.outputDir, c.fileName);
      try {  // on a helper thread: an exception must become this chunk's error, not std::terminate
        written[k] = writeChunkFile(*trace_, c.wholeTrace ? nullptr : &c.events, path);
      } catch (const std::exception& e) {
        written[k] = makeError(Error::Kind::Resource, path, std::string("cannot write the chunk: ") + e.what());
      }
    }
  };
  runSideBySide(r.chunks.size() > 1, writeSome, writeSome);
  for (auto& w : written)
    if (!w) return w;
  if (!r.manifest.isNull()) {
    auto w = writeFileAtomic(joinPath(r.outputDir, "split_manifest.json"), r.manifest.dump(JsonStyle::pythonFile()));
    if (!w) return w;
  }
  if (!r.executionDetails.items().empty()) {
    auto w = writeFileAtomic(joinPath(r.outputDir, "execution_details.json"),
                             r.executionDetails.dump(JsonStyle::pythonFile()));
    if (!w) return w;
    w = writeFileAtomic(joinPath(r.outputDir, "execution_details.csv"), r.executionDetailsCsv);
    if (!w) return w;
  }
  return {};
}

JsonValue splitResultToJson(const SplitResult& r) {
  JsonValue o = JsonValue::object();
  o.set("outcome", JsonValue::string(splitOutcomeName(r.outcome)));
  o.set("exit_status", JsonValue::integer(r.exitStatus));
  if (!r.error.empty()) o.set("error", JsonValue::string(r.error));
  o.set("base_name", JsonValue::string(r.baseName));
  o.set("output_dir", JsonValue::string(r.outputDir));
  // detection
  JsonValue det = JsonValue::object();
  const DetectionCandidate& c = r.detection.chosen;
  det.set("method", JsonValue::string(c.method));
  det.set("tier", JsonValue::string(c.tier));
  det.set("status", JsonValue::string(splitStatusName(c.status)));
  det.set("phase_confidence", JsonValue::string(c.phaseConfidence));
  det.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  det.set("coverage", c.coverage ? coverageJson(*c.coverage) : JsonValue::null());
  det.set("diagnostics", c.diagnostics);
  det.set("needs_tree_tiers", JsonValue::boolean(r.detection.needsTreeTiers));
  JsonValue tried = JsonValue::array();
  for (const auto& t : r.detection.tried) {
    JsonValue x = JsonValue::object();
    x.set("method", JsonValue::string(t.method));
    x.set("tier", JsonValue::string(t.tier));
    x.set("status", JsonValue::string(splitStatusName(t.status)));
    x.set("n_roots", JsonValue::integer(static_cast<int64_t>(t.roots.size())));
    x.set("coverage", t.coverage ? coverageJson(*t.coverage) : JsonValue::null());
    tried.push(std::move(x));
  }
  det.set("candidates", std::move(tried));
  const TrimInfo& tr = r.detection.trim;
  JsonValue trim = JsonValue::object();
  trim.set("ran", JsonValue::boolean(tr.ran));
  trim.set("trimmed", JsonValue::boolean(tr.trimmed));
  trim.set("kernel", tr.kernel.empty() ? JsonValue::null() : JsonValue::string(tr.kernel));
  trim.set("collective_ratio", tr.collectiveRatio ? JsonValue::real(*tr.collectiveRatio) : JsonValue::null());
  trim.set("noise_ratio", JsonValue::real(tr.noiseRatio));
  trim.set("coverage_before", tr.before ? coverageJson(*tr.before) : JsonValue::null());
  det.set("trim", std::move(trim));
  o.set("detection", std::move(det));
  // roots
  JsonValue roots = JsonValue::array();
  for (const RootInfo& ri : r.roots) {
    JsonValue x = JsonValue::object();
    x.set("event", JsonValue::integer(ri.event));
    x.set("name", JsonValue::string(std::string(ri.name)));
    x.set("ts_us", JsonValue::real(ri.tsUs));
    x.set("dur_us", JsonValue::real(ri.durUs));
    x.set("kind", JsonValue::string(annotationKindName(ri.step.kind)));
    x.set("step", stepJson(ri.step));
    if (ri.tile) {
      JsonValue tl = JsonValue::array();
      tl.push(JsonValue::number(ri.tile->a));
      tl.push(JsonValue::number(ri.tile->b));
      x.set("tile", std::move(tl));
    } else {
      x.set("tile", JsonValue::null());
    }
    roots.push(std::move(x));
  }
  o.set("roots", std::move(roots));
  o.set("gap_fill", JsonValue::boolean(r.gapFill));
  o.set("n_overlapping_roots", JsonValue::integer(r.nOverlappingRoots));
  o.set("iteration_range", regionJson(r.iterationRange));
  o.set("n_working_roots", JsonValue::integer(static_cast<int64_t>(r.workingRoots.size())));
  o.set("serving_annotations", JsonValue::boolean(r.servingAnnotations));
  if (!r.shapeBatchSizes.empty()) {
    JsonValue bs = JsonValue::array();
    for (const auto& v : r.shapeBatchSizes) bs.push(v ? JsonValue::integer(*v) : JsonValue::null());
    o.set("shape_batch_sizes", std::move(bs));
  }
  // windows
  JsonValue wins = JsonValue::array();
  for (const WindowChoice& w : r.windows) {
    JsonValue x = JsonValue::object();
    x.set("label", JsonValue::string(w.label));
    x.set("mode", JsonValue::string(steadyModeName(w.mode)));
    x.set("finder", JsonValue::string(w.finder));
    const ModeSelection& s = w.selection;
    JsonValue regions = JsonValue::array();
    for (const Region& g : s.scan.regions) regions.push(regionJson(g));
    x.set("regions", std::move(regions));
    x.set("regions_fallback", JsonValue::boolean(s.scan.fellBack));
    x.set("peak", JsonValue::integer(s.scan.peak));
    x.set("largest_region", regionJson(s.largest));
    x.set("reference_ratio_largest", JsonValue::real(s.ratio.largest));
    x.set("reference_ratio_average", JsonValue::real(s.ratio.average));
    x.set("target", JsonValue::real(s.target));
    x.set("ideal_ratio_used", JsonValue::boolean(s.idealUsed));
    x.set("num_steps", JsonValue::integer(s.numStepsUsed));
    x.set("stride", JsonValue::integer(s.stride));
    x.set("pool_fallback", JsonValue::boolean(s.poolFallback));
    JsonValue cands = JsonValue::array();
    for (const Candidate& cd : s.candidates) {
      JsonValue y = JsonValue::object();
      y.set("window", regionJson(cd.window));
      y.set("pd_count", JsonValue::integer(cd.pdCount));
      y.set("pd_ratio", JsonValue::real(cd.pdRatio));
      y.set("avg_requests", JsonValue::real(cd.avgRequests));
      y.set("distance", JsonValue::real(cd.distance));
      y.set("eligible", JsonValue::boolean(cd.eligible));
      cands.push(std::move(y));
    }
    x.set("candidates", std::move(cands));
    x.set("run", s.run ? regionJson(*s.run) : JsonValue::null());
    if (w.duration) {
      JsonValue d = JsonValue::object();
      d.set("scan", JsonValue::integer(w.duration->scan));
      d.set("best", regionJson(w.duration->best));
      d.set("mean", JsonValue::real(w.duration->mean));
      d.set("cv", JsonValue::real(w.duration->cv));
      d.set("passed", JsonValue::boolean(w.duration->passed));
      x.set("duration", std::move(d));
    }
    x.set("window", regionJson(w.window));
    x.set("root_range", regionJson(w.rootRange));
    x.set("start_us", JsonValue::real(w.startUs));
    x.set("end_us", JsonValue::real(w.endUs));
    x.set("chunk", JsonValue::integer(w.chunk));
    JsonValue warns = JsonValue::array();
    for (const auto& s2 : s.warnings) warns.push(JsonValue::string(s2));
    x.set("warnings", std::move(warns));
    wins.push(std::move(x));
  }
  o.set("windows", std::move(wins));
  JsonValue chunks = JsonValue::array();
  for (const ChunkPlan& ch : r.chunks) {
    JsonValue x = JsonValue::object();
    x.set("kind", JsonValue::string(ch.kind));
    x.set("idx", ch.idx);
    x.set("output_path", JsonValue::string(ch.outputPath));
    JsonValue ri = JsonValue::array();
    for (size_t k : ch.roots) ri.push(JsonValue::integer(static_cast<int64_t>(k)));
    x.set("roots", std::move(ri));
    x.set("whole_trace", JsonValue::boolean(ch.wholeTrace));
    x.set("event_count", JsonValue::integer(ch.stats.eventCount));
    x.set("num_gpu_events", JsonValue::integer(ch.stats.numGpuEvents));
    x.set("gpu_duration", JsonValue::number(ch.stats.gpuDuration));
    x.set("gpu_busy_duration", JsonValue::number(ch.stats.gpuBusyDuration));
    x.set("busy_ratio", JsonValue::real(ch.busyRatio));
    if (ch.hasSteps) x.set("phase", phaseJson(ch.phase));
    chunks.push(std::move(x));
  }
  o.set("chunks", std::move(chunks));
  o.set("manifest", r.manifest);
  JsonValue warns = JsonValue::array();
  for (const auto& w : r.warnings) warns.push(JsonValue::string(w));
  o.set("warnings", std::move(warns));
  JsonValue log = JsonValue::array();
  for (const auto& l : r.log) log.push(JsonValue::string(l));
  o.set("log", std::move(log));
  return o;
}

}  // namespace steadyscope::analysis
