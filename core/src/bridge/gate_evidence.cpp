// Bridge splitter -> gate: evidence from the source trace, the GateInput of a
// live split, and the review of a split directory against its source trace.
#include <steadyscope/core/bridge/gate_evidence.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace steadyscope::bridge {

namespace {

using analysis::EventIndex;

bool isFlow(Ph ph) { return ph == Ph::FlowStart || ph == Ph::FlowEnd || ph == Ph::FlowStep; }

// The GPU work events (kernel / memcpy / memset) of a selection, without the
// trailing metadata block.
void gpuWorkOf(const EventIndex& index, const analysis::ChunkSelection& sel, EventList& out) {
  const Trace& t = index.trace();
  const size_t n = sel.events.size() >= index.metadata.size() ? sel.events.size() - index.metadata.size() : 0;
  for (size_t k = 0; k < n; ++k) {
    const EventIdx e = sel.events[k];
    if (analysis::isGpuKernelRole(index.role(e)) && !isFlow(t.ph[e])) out.push_back(e);
  }
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool isBookend(std::string_view name) { return name == "warmup" || name == "wrapup"; }

gate::Finding makeFinding(std::string code, gate::Mode m, std::string chunk, std::string sentence,
                          JsonValue details = JsonValue::object()) {
  gate::Finding f;
  f.code = std::move(code);
  f.subject = std::string(gate::modeName(m));
  f.chunk = std::move(chunk);
  f.affectsVerdict = false;
  f.sentence = std::move(sentence);
  f.details = std::move(details);
  return f;
}

}  // namespace

// ---- (b) evidence ---------------------------------------------------------------

ChunkEvidenceReport computeChunkEvidence(const EventIndex& index, const EventList& roots,
                                         const std::vector<size_t>& rootNumbers, const analysis::TileSet* tiles,
                                         const EvidenceOptions& options, const TransientContext& transient) {
  const Trace& t = index.trace();
  ChunkEvidenceReport rep;
  gate::ChunkEvidence& ev = rep.evidence;

  // The chunk's statistics exactly as the splitter computes them (§4.4).
  const analysis::ChunkSelection whole = analysis::selectChunk(index, roots, tiles, options.extraction);
  ev.numGpuEvents = whole.stats.numGpuEvents;
  ev.gpuDuration = whole.stats.gpuDuration.asDouble();
  ev.gpuBusyDuration = whole.stats.gpuBusyDuration.asDouble();

  // Per step: the same windows, one root at a time. Without global tiles the
  // splitter tiles the chunk's own roots; passing those tiles keeps each
  // root's window and the "last window" rule unchanged.
  analysis::TileSet own;
  const analysis::TileSet* perRootTiles = &analysis::chunkTiles(index, roots, tiles, own);
  EventList all, one;
  for (size_t k = 0; k < roots.size(); ++k) {
    one.clear();
    const analysis::ChunkSelection sel = analysis::selectChunk(index, {roots[k]}, perRootTiles, options.extraction);
    gpuWorkOf(index, sel, one);
    StepWork w;
    w.root = k < rootNumbers.size() ? rootNumbers[k] : k;
    w.event = roots[k];
    w.gpuEvents = static_cast<int64_t>(one.size());
    for (EventIdx e : one) w.busyUs += t.durNs[e] > 0 ? index.durUs(e) : 0.0;
    rep.steps.push_back(w);
    all.insert(all.end(), one.begin(), one.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());

  // Steps without GPU work.
  int empty = 0;
  for (const StepWork& w : rep.steps)
    if (!(w.busyUs > 0.0)) {
      ++empty;
      ev.emptyStepIndices.push_back(static_cast<int>(w.root));
    }
  ev.steps = static_cast<int>(rep.steps.size());
  ev.stepsWithoutGpu = empty;

  // Union of the GPU work intervals (ns, each event once) and the largest event.
  std::vector<std::pair<int64_t, int64_t>> iv;
  iv.reserve(all.size());
  int64_t largestNs = -1;
  for (EventIdx e : all) {
    const int64_t d = t.durNs[e];
    if (d <= 0) continue;
    iv.emplace_back(t.tsNs[e], t.tsNs[e] + d);
    rep.kernelBusyUs += index.durUs(e);
    if (d > largestNs) {
      largestNs = d;
      rep.largestEvent = e;
    }
  }
  std::sort(iv.begin(), iv.end());
  int64_t unionNs = 0;
  for (size_t k = 0; k < iv.size();) {
    int64_t a = iv[k].first, b = iv[k].second;
    size_t j = k + 1;
    while (j < iv.size() && iv[j].first <= b) b = std::max(b, iv[j++].second);
    unionNs += b - a;
    k = j;
  }
  rep.unionUs = static_cast<double>(unionNs) / 1000.0;
  if (*ev.gpuDuration > 0) ev.unionBusyRatio = rep.unionUs / *ev.gpuDuration;
  if (rep.largestEvent && rep.kernelBusyUs > 0) {
    ev.largestEventShare = index.durUs(*rep.largestEvent) / rep.kernelBusyUs;
    ev.largestEventName = std::string(t.nameOf(*rep.largestEvent));
  }

  // Startup transient (§3.9) inside the window.
  if (transient.firstRoot) {
    ev.startupTransientInside = false;
    const analysis::TrimInfo& tr = transient.trim;
    size_t pos = rootNumbers.size();
    for (size_t k = 0; k < rootNumbers.size(); ++k)
      if (rootNumbers[k] == *transient.firstRoot) pos = k;
    if (pos < rep.steps.size() && !tr.trimmed) {
      if (tr.ran && tr.collectiveRatio && *tr.collectiveRatio >= 5.0) {
        rep.transientReason = fmt::format(
            "the chunk holds the first iteration (step {}), whose collective kernel {} ran {} times as long as in "
            "later iterations; the startup-transient trim kept it because other kernels were inflated too (noise "
            "ratio {})",
            *transient.firstRoot, tr.kernel, gate::formatNumber(*tr.collectiveRatio),
            gate::formatNumber(tr.noiseRatio));
      } else if (rep.steps.size() >= 3) {
        std::vector<double> others;
        for (size_t k = 0; k < rep.steps.size(); ++k)
          if (k != pos) others.push_back(rep.steps[k].busyUs);
        const double med = medianOf(others);
        const double first = rep.steps[pos].busyUs;
        if (med > 0 && first >= options.inflatedFirstStepFactor * med)
          rep.transientReason = fmt::format(
              "the chunk holds the first iteration (step {}), whose GPU busy time {} us is {} times the median of "
              "the chunk's other steps ({} us)",
              *transient.firstRoot, gate::formatNumber(first), gate::formatNumber(first / med),
              gate::formatNumber(med));
      }
    }
    ev.startupTransientInside = !rep.transientReason.empty();
  }
  return rep;
}

EvidenceContext::EvidenceContext(TracePtr trace, const analysis::SplitOptions& o) : trace_(std::move(trace)) {
  analysis::EventIndexOptions io;
  io.metadataAllM = o.fixes.metadataAllM;
  index_ = std::make_unique<analysis::EventIndex>(*trace_, io);
  options_.extraction.dedupeGpuEvents = o.fixes.dedupeGpuEvents;
  options_.extraction.gpuAnnotationsNotWork = o.fixes.gpuAnnotationsNotWork;
  options_.extraction.flowsAc2gOnly = o.fixes.flowsAc2gOnly;
  gapFill_ = !o.noGapFill;
}

ChunkEvidenceReport EvidenceContext::evidenceFor(const analysis::SplitResult& r, const analysis::ChunkPlan& c) {
  if (c.wholeTrace || c.roots.empty()) {
    ChunkEvidenceReport rep;
    rep.evidence.numGpuEvents = c.stats.numGpuEvents;
    rep.evidence.gpuDuration = c.stats.gpuDuration.asDouble();
    rep.evidence.gpuBusyDuration = c.stats.gpuBusyDuration.asDouble();
    return rep;
  }
  EventList allRoots;
  allRoots.reserve(r.roots.size());
  for (const auto& ri : r.roots) allRoots.push_back(ri.event);
  const bool gapFill = r.gapFill && gapFill_;
  if (gapFill && (tilesFor_ != &r || allRoots != tileRoots_)) {
    tiles_ = analysis::buildTiles(*index_, allRoots);
    tileRoots_ = allRoots;
    tilesFor_ = &r;
  }
  EventList roots;
  for (size_t k : c.roots) roots.push_back(r.roots[k].event);
  TransientContext tc;
  tc.trim = r.detection.trim;
  for (size_t k = 0; k < r.roots.size(); ++k)
    if (!isBookend(r.roots[k].name)) {
      tc.firstRoot = k;
      break;
    }
  return computeChunkEvidence(*index_, roots, c.roots, gapFill ? &tiles_ : nullptr, options_, tc);
}

// ---- (a) live split -> GateInput ---------------------------------------------------

gate::SplitListing listingFromSplit(const analysis::SplitResult& r) {
  gate::SplitListing L;
  L.splitDir = r.outputDir;
  for (gate::Mode m : gate::kAllModes) {
    for (std::string_view ext : names::kChunkExtensions) {
      std::vector<std::string> list;
      for (const auto& c : r.chunks)
        if (names::matchesChunkGlob(paths::fileName(c.fileName), m, ext)) list.push_back(c.outputPath);
      std::sort(list.begin(), list.end());
      auto& out = L.chunks[gate::modeIndex(m)];
      out.insert(out.end(), list.begin(), list.end());
    }
  }
  return L;
}

int chunkIndexForPath(const analysis::SplitResult& r, const std::string& path) {
  for (size_t k = 0; k < r.chunks.size(); ++k)
    if (r.chunks[k].outputPath == path) return static_cast<int>(k);
  return -1;
}

gate::GateInput gateInputFromSplit(const analysis::SplitResult& r, const analysis::SplitOptions& o,
                                   EvidenceContext* evidence, const std::optional<std::string>& traceInput) {
  gate::GateInput in;
  if (r.outcome == analysis::SplitOutcome::Split)
    in.listing = listingFromSplit(r);
  else
    in.listing.splitDir = r.outputDir;
  in.details = r.outcome == analysis::SplitOutcome::Split && !r.chunks.empty() ? gate::DetailsState::Readable
                                                                               : gate::DetailsState::Absent;
  in.traceInput = traceInput;
  in.splitReturnCode = r.exitStatus;
  for (gate::Mode m : gate::kAllModes) {
    const size_t mi = gate::modeIndex(m);
    in.rowMatch[mi] = gate::RowMatch::Supplied;
    if (in.listing.count(m) == 0) continue;
    const int ci = chunkIndexForPath(r, in.listing.of(m).front());
    if (ci < 0) continue;
    const analysis::ChunkPlan& c = r.chunks[static_cast<size_t>(ci)];
    in.rows[mi] = gate::ChunkRow::fromValues(c.outputPath, c.stats.numGpuEvents, c.stats.gpuDuration.asDouble(),
                                             c.stats.gpuBusyDuration.asDouble(),
                                             o.busyRatioColumn ? std::optional<double>(c.busyRatio) : std::nullopt);
    if (evidence) in.evidence[mi] = evidence->evidenceFor(r, c).evidence;
  }
  return in;
}

// ---- (c) directory + source trace --------------------------------------------------

void dedupeFindings(gate::GateResult& res) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  std::vector<gate::Finding> kept;
  for (auto& f : res.findings)
    if (seen.insert({f.code, f.subject, f.chunk, f.sentence}).second) kept.push_back(std::move(f));
  res.findings = std::move(kept);
  gate::finalizeStrict(res);
}

Expected<TraceReview> reviewSplitDirectoryWithTrace(const std::string& splitDir, TracePtr trace,
                                                    const TraceReviewOptions& options) {
  auto listing = gate::collectSplitChunks(splitDir);
  if (!listing) return listing.error();

  TraceReview out;
  std::array<std::string, 4> wanted;  // file names of the families' first chunks
  for (gate::Mode m : gate::kAllModes)
    if (listing->count(m)) {
      out.families[gate::modeIndex(m)].chunk = listing->of(m).front();
      wanted[gate::modeIndex(m)] = paths::fileName(listing->of(m).front());
    }

  // --num-steps candidates from the CSV rows of those chunks.
  std::vector<int64_t> csvSteps;
  {
    const std::string csvPath = paths::join(splitDir, names::kDetailsCsvFile);
    auto table = gate::readCsvFile(csvPath);
    if (table) {
      for (const auto& rec : table->records) {
        auto path = table->cell(rec, "output_path");
        auto steps = table->cell(rec, "num_steps");
        if (!path || !steps) continue;
        const std::string name = paths::fileName(*path);
        if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
        auto v = gate::parsePyFloat(*steps);
        if (!v || !std::isfinite(*v) || *v < 1 || *v > 1e9) continue;
        const auto n = static_cast<int64_t>(*v);
        if (std::find(csvSteps.begin(), csvSteps.end(), n) == csvSteps.end()) csvSteps.push_back(n);
      }
    }
  }

  analysis::SplitOptions base = options.split;
  base.findSteadyState = true;
  base.outputDir = splitDir;
  std::vector<std::pair<int64_t, bool>> plans = {{base.numSteps, base.llmInference}};
  for (int64_t n : csvSteps)
    if (n != base.numSteps) plans.emplace_back(n, base.llmInference);
  const size_t direct = plans.size();
  for (size_t k = 0; k < direct; ++k) plans.emplace_back(plans[k].first, !plans[k].second);

  analysis::Splitter splitter(trace);
  EvidenceContext ctx(trace, base);
  ctx.options() = options.evidence;
  ctx.options().extraction.dedupeGpuEvents = base.fixes.dedupeGpuEvents;
  ctx.options().extraction.gpuAnnotationsNotWork = base.fixes.gpuAnnotationsNotWork;
  ctx.options().extraction.flowsAc2gOnly = base.fixes.flowsAc2gOnly;

  auto unmatched = [&]() {
    for (gate::Mode m : gate::kAllModes) {
      const auto& f = out.families[gate::modeIndex(m)];
      if (!f.chunk.empty() && !f.matched) return true;
    }
    return false;
  };
  std::string lastProblem;
  for (const auto& [numSteps, llm] : plans) {
    if (!unmatched() || out.plans >= options.maxPlans) break;
    analysis::SplitOptions o = base;
    o.numSteps = numSteps;
    o.llmInference = llm;
    const analysis::SplitResult r = splitter.plan(o);
    ++out.plans;
    if (r.outcome != analysis::SplitOutcome::Split) {
      lastProblem = fmt::format("the re-run split of {} ended with '{}'{}", trace->path,
                                analysis::splitOutcomeName(r.outcome), r.error.empty() ? "" : ": " + r.error);
      continue;
    }
    for (gate::Mode m : gate::kAllModes) {
      FamilyMatch& f = out.families[gate::modeIndex(m)];
      if (f.chunk.empty() || f.matched) continue;
      for (const auto& c : r.chunks) {
        if (paths::fileName(c.fileName) != wanted[gate::modeIndex(m)]) continue;
        f.matched = true;
        f.plannedFile = c.fileName;
        f.numSteps = numSteps;
        f.llmInference = llm;
        f.report = ctx.evidenceFor(r, c);
        out.notes.push_back(fmt::format("{}: {} matched a re-run split of {} (--num-steps {}{})", gate::modeName(m),
                                        wanted[gate::modeIndex(m)], trace->path, numSteps,
                                        llm ? ", --llm-inference" : ""));
        break;
      }
    }
  }

  gate::ReviewOptions ro = options.review;
  if (!ro.traceInput) ro.traceInput = trace->path;
  for (gate::Mode m : gate::kAllModes) {
    const FamilyMatch& f = out.families[gate::modeIndex(m)];
    if (f.matched && f.report) ro.evidence[gate::modeIndex(m)] = f.report->evidence;
  }
  auto res = gate::reviewSplitDirectory(splitDir, ro);
  if (!res) return res.error();
  out.result = std::move(res.value());

  for (gate::Mode m : gate::kAllModes) {
    const FamilyMatch& f = out.families[gate::modeIndex(m)];
    if (f.chunk.empty()) continue;
    if (f.matched) {
      if (f.report && !f.report->transientReason.empty())
        for (auto& fi : out.result.findings)
          if (fi.code == "startup_transient_inside" && fi.subject == gate::modeName(m))
            fi.details.set("reason", f.report->transientReason);
      continue;
    }
    std::string s = fmt::format(
        "{}: no chunk of {} re-run split(s) of {} is named {}; no evidence from the source "
        "trace for it (split with other flags, or from another trace?)",
        gate::modeName(m), out.plans, trace->path, wanted[gate::modeIndex(m)]);
    if (!lastProblem.empty()) s += "; " + lastProblem;
    out.notes.push_back(s);
    out.result.findings.push_back(
        makeFinding("evidence_unavailable", m, f.chunk, s, JsonValue::object({{"plans", out.plans}})));
  }
  // The verdict changes with the statistics recomputed at full precision
  // while the CSV agrees with them within its rounding: the CSV's 2-decimal
  // rounding (of busy_ratio or of the durations) decides the verdict. The gate
  // only checks the busy_ratio column itself; say it here too.
  const gate::Finding* recomputed = nullptr;
  bool disagree = false, rounding = false;
  for (const auto& f : out.result.findings) {
    if (f.code == "recomputed_verdict_differs") recomputed = &f;
    if (f.code == "statistics_disagree") disagree = true;
    if (f.code == "csv_rounding_decides") rounding = true;
  }
  if (recomputed && !disagree && !rounding) {
    JsonValue d = recomputed->details;
    d.set("source", "trace");
    std::string s =
        "the CSV's 2-decimal rounding decides the verdict: its statistics agree with the source trace "
        "within the rounding, but " +
        recomputed->sentence;
    gate::Finding f = makeFinding("csv_rounding_decides", options.review.gate.mode, out.result.selectedChunk, s, d);
    f.affectsVerdict = true;
    out.result.findings.push_back(std::move(f));
  }
  dedupeFindings(out.result);
  return out;
}

}  // namespace steadyscope::bridge
