// The windows stage of Splitter::plan: which roots every chunk gets
// (--iterations, --store-single-iteration, --divide-phases,
// --find-steady-state; spec §3.1, §3.10, §4.6).
#include "analysis/roots/annotation.hpp"
#include "analysis/split_stages.hpp"
#include "analysis/steady_state/input_dims_vote.hpp"
#include "analysis/steady_state/steady_state.hpp"
#include "util/big_alloc.hpp"

#include <fmt/format.h>

namespace steadyscope::analysis {

namespace {

__extension__ typedef __int128 Int128_;

constexpr const char* kIdealRatioCrash = "ZeroDivisionError in the ideal ratio from --CONC/--OSL/--R (spec §8 B6)";

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

// --store-single-iteration: one chunk per root of the range; else an
// explicit range: one chunk of its roots (the whole trace when it has none).
void queueIterationChunks(const SplitOptions& o, const IterRange& range, std::vector<PendingChunk>& out) {
  if (o.storeSingleIteration) {
    for (int64_t k = range.s; k < range.e; ++k) {
      PendingChunk p;
      p.kind = ChunkKind::Iteration;
      p.roots = {static_cast<size_t>(k)};
      p.structured = false;
      p.first = range.a + (k - range.s);
      out.push_back(std::move(p));
    }
    return;
  }
  if (range.all) return;
  PendingChunk p;
  p.kind = ChunkKind::Range;
  for (int64_t k = range.s; k < range.e; ++k) p.roots.push_back(static_cast<size_t>(k));
  p.wholeTrace = p.roots.empty();
  p.first = range.a;
  p.last = range.b;
  out.push_back(std::move(p));
}

// Stage 2's inputs: the range's roots without the bookends, and their steps.
void selectWorkingRoots(SplitResult& r, const IterRange& range, Column<StepDetails>& steps) {
  r.workingRoots.reserve(static_cast<size_t>(range.e - range.s));
  for (int64_t k = range.s; k < range.e; ++k)
    if (!isBookendRootName(r.roots[static_cast<size_t>(k)].name)) r.workingRoots.push_back(static_cast<size_t>(k));
  reserveFresh(steps, r.workingRoots.size());  // within the block the caller reserved when there is one
  for (size_t k : r.workingRoots) steps.push_back(r.roots[k].step);
  r.servingAnnotations = !steps.empty() && isServingKind(steps.front().kind);
}

void addWindowWarnings(SplitResult& r, const WindowChoice& wc) {
  for (const auto& w : wc.selection.warnings) r.warnings.push_back(fmt::format("[{}] {}", steadyModeName(wc.mode), w));
}

std::vector<size_t> windowRoots(const SplitResult& r, const Region& w) {
  std::vector<size_t> out;
  for (int64_t k = w.start; k < w.end; ++k) out.push_back(r.workingRoots[static_cast<size_t>(k)]);
  return out;
}

// The working roots of the mixed window's regions, cut into runs of one
// phase (0: prefill-bearing, 1: decode only; idle steps skipped with
// serving annotations).
std::vector<std::pair<int, std::vector<size_t>>> phaseRuns(const SplitResult& r, const WindowChoice& wc,
                                                           std::span<const StepDetails> steps,
                                                           std::optional<int64_t> maxNumSeq) {
  std::vector<bool> pb;
  if (!r.servingAnnotations) pb = classifyPrefillBearing(r.shapeBatchSizes, maxNumSeq);
  std::vector<std::pair<int, std::vector<size_t>>> runs;
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
  return runs;
}

// --divide-phases (§3.10): one chunk per phase run of the mixed window.
std::optional<std::string> planPhaseChunks(SplitResult& r, const SplitOptions& o, const WindowInputs& in,
                                           std::vector<PendingChunk>& out) {
  if (!r.servingAnnotations && r.shapeBatchSizes.empty()) {
    r.log.push_back("Phase division skipped: no serving annotations and no batch sizes.");
    return std::nullopt;
  }
  WindowChoice wc;
  wc.label = kDividePhasesLabel;
  if (!chooseWindow(in, SteadyMode::Mixed, wc)) return kIdealRatioCrash;
  addWindowWarnings(r, wc);
  int64_t counter[2] = {0, 0};
  for (auto& [label, rootIdx] : phaseRuns(r, wc, in.steps, o.maxNumSeq)) {
    PendingChunk p;
    p.kind = ChunkKind::Phase;
    p.roots = std::move(rootIdx);
    p.folder = label == 0 ? names::PhaseFolder::PrefillDecodeMix : names::PhaseFolder::DecodeOnly;
    p.number = counter[label]++;
    out.push_back(std::move(p));
  }
  return std::nullopt;
}

// The steady-state finder's modes and the chunk mode each one names.
std::vector<std::pair<SteadyMode, names::ChunkMode>> steadyModes(bool three) {
  if (!three) return {{SteadyMode::Mixed, names::ChunkMode::Generic}};
  return {{SteadyMode::Mixed, names::ChunkMode::Mixed},
          {SteadyMode::DecodeOnly, names::ChunkMode::DecodeOnly},
          {SteadyMode::MaxPrefillDecode, names::ChunkMode::PrefillDecode}};
}

// --find-steady-state (§3.1): one window per mode, a chunk for each non-empty one.
std::optional<std::string> planSteadyWindows(SplitResult& r, const SplitOptions& o, const WindowInputs& in,
                                             std::vector<PendingChunk>& out) {
  for (const auto& [mode, chunkMode] : steadyModes(r.servingAnnotations || o.llmInference)) {
    WindowChoice wc;
    wc.label = std::string(names::chunkLabel(chunkMode));
    if (r.workingRoots.empty()) {
      r.windows.push_back(std::move(wc));
      continue;
    }
    if (!chooseWindow(in, mode, wc)) return kIdealRatioCrash;
    addWindowWarnings(r, wc);
    if (wc.window.size() > 0) {
      PendingChunk p;
      p.kind = ChunkKind::SteadyState;
      p.roots = windowRoots(r, wc.window);
      wc.rootRange = {static_cast<int64_t>(p.roots.front()), static_cast<int64_t>(p.roots.back()) + 1};
      p.mode = chunkMode;
      p.window = r.windows.size();  // wc's place once pushed below
      out.push_back(std::move(p));
    } else {
      r.log.push_back(fmt::format("[{}] no window; no file written", steadyModeName(mode)));
    }
    r.windows.push_back(std::move(wc));
  }
  return std::nullopt;
}

}  // namespace

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

WindowInputs windowInputs(const SplitResult& r, const SplitOptions& o, std::span<const StepDetails> steps) {
  WindowInputs in;
  in.steps = steps;
  in.shapes = r.shapeBatchSizes;
  in.servingAnnotations = r.servingAnnotations;
  if (!r.servingAnnotations && r.shapeBatchSizes.empty())
    for (size_t k : r.workingRoots) in.durations.push_back(r.roots[k].durUs);
  in.concurrency.numSteps = o.numSteps;
  in.concurrency.conc = o.conc;
  in.concurrency.useLargestRegionRatio = o.fixes.largestRegionRatio;
  in.concurrency.idleBreaksRuns = o.fixes.idleBreaksRuns;
  in.numSteps = o.numSteps;
  in.maxNumSeq = o.maxNumSeq;
  return in;
}

bool chooseWindow(const WindowInputs& in, SteadyMode mode, WindowChoice& wc) {
  wc.mode = mode;
  if (in.servingAnnotations) {
    ConcurrencyOptions co = in.concurrency;
    if (mode != SteadyMode::Mixed) co.conc = {};
    wc.selection = concurrencyFinder(in.steps, mode, co);
    wc.finder = "concurrency";
    if (wc.selection.crashed) return false;
    wc.window = wc.selection.window;
  } else if (!in.shapes.empty()) {
    wc.selection = shapeFinder(in.shapes, mode, in.numSteps, in.maxNumSeq);
    wc.finder = "shapes";
    wc.window = wc.selection.window;
  } else {
    wc.duration = durationFinder(in.durations, in.numSteps);
    wc.finder = "duration";
    wc.selection.mode = mode;
    wc.selection.finder = "duration";
    wc.window = wc.duration->window;
  }
  return true;
}

std::optional<std::string> planWindows(SplitResult& r, const EventIndex& index, const SplitOptions& o,
                                       Column<StepDetails>& steps, std::vector<PendingChunk>& out) {
  const auto n = static_cast<int64_t>(r.roots.size());
  if (n == 0) return std::nullopt;
  std::string err;
  const auto range = parseIterations(o.iterations, n, &err);
  if (!range) return "--iterations " + o.iterations + ": " + err;
  if (o.fixes.strictIterations && !range->all && (range->a < 0 || range->a >= n || range->b <= range->a))
    return fmt::format("--iterations {}: range outside the {} detected roots", o.iterations, n);
  r.iterationRange = {range->s, range->e};
  queueIterationChunks(o, *range, out);
  selectWorkingRoots(r, *range, steps);
  if (o.llmInference && !r.servingAnnotations && !steps.empty()) r.shapeBatchSizes = voteShapeBatchSizes(index, r);
  const WindowInputs in = windowInputs(r, o, steps);
  if (o.dividePhases)
    if (auto e = planPhaseChunks(r, o, in, out)) return e;
  if (o.findSteadyState)
    if (auto e = planSteadyWindows(r, o, in, out)) return e;
  return std::nullopt;
}

}  // namespace steadyscope::analysis
