// What would make a trace splittable (split_remedy.hpp): read from the trace
// and the plan, never by splitting again.
#include <steadyscope/core/analysis/gpu_categories.hpp>
#include <steadyscope/core/analysis/split_remedy.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include "analysis/roots/annotation_tiers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace steadyscope::analysis {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr const char* kCaptureMore =
    "capture more steps, e.g. `torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, "
    "active=10))` with `prof.step()` called once per iteration";
constexpr const char* kMarkIteration =
    "mark each iteration: call `prof.step()` once per iteration under `torch.profiler.profile` (it writes "
    "`ProfilerStep#N`), or wrap the iteration in `torch.profiler.record_function(\"step\")`";

std::string steps(size_t n) { return fmt::format("{} step{}", n, n == 1 ? "" : "s"); }

std::string grouped(uint64_t n) {  // "2117" -> "2,117"
  const std::string d = std::to_string(n);
  std::string out;
  for (size_t k = 0; k < d.size(); ++k) {
    if (k > 0 && (d.size() - k) % 3 == 0) out += ',';
    out += d[k];
  }
  return out;
}

/// "cpu_op (1,258), python_function (2,117), …": the five largest categories.
std::string categoriesText(const Trace& t) {
  std::vector<std::pair<std::string, uint64_t>> cats(t.stats.perCat.begin(), t.stats.perCat.end());
  std::stable_sort(cats.begin(), cats.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t k = 0; k < cats.size() && k < 5; ++k)
    out += fmt::format("{}{} ({})", k ? ", " : "", cats[k].first, grouped(cats[k].second));
  if (cats.size() > 5) out += fmt::format(" and {} more", cats.size() - 5);
  return out.empty() ? "none" : out;
}

std::string noGpuWorkRemedy(const Trace& t, const SplitResult& r) {
  if (r.nLegacyGpuEvents > 0)
    return legacyCategoryCount(r.nLegacyGpuEvents) + ": split again with the legacy categories counted.";
  return fmt::format(
      "The splitter reads GPU work under the categories kernel, gpu_memcpy and gpu_memset; this trace's "
      "categories are {}. Record the GPU too: `torch.profiler.profile(activities=[ProfilerActivity.CPU, "
      "ProfilerActivity.CUDA])`.",
      categoriesText(t));
}

/// The annotation family the cascade tried, if one (tier 1 or 2).
const DetectionCandidate* annotationCandidate(const Detection& d) {
  if (d.chosen.method == "annotation:tier" || d.chosen.method == "family:unknown_only") return &d.chosen;
  for (const DetectionCandidate& c : d.tried)
    if (c.method == "annotation:tier" || c.method == "family:unknown_only") return &c;
  return nullptr;
}

std::string lowCoverageRemedy(const DetectionCandidate& c) {
  const double cov = c.coverage ? c.coverage->coveredSelected : 0.0;
  std::string s = fmt::format(
      "The step annotations cover {} of the GPU time; {}: make each one enclose the whole iteration's GPU work "
      "(forward, backward and optimizer step).",
      names::percentText(cov), names::kSplitNeedsText);
  if (c.status == SplitStatus::Degraded) s += " Or allow degraded splits (`--allow-degraded`) to use them as they are.";
  return s;
}

}  // namespace

StepAnnotations countStepAnnotations(const Trace& t) {
  StepAnnotations out;
  out.needed = kMinRoots;
  std::vector<uint8_t> isStep(t.strings.size(), 0);  // by StrId: test each distinct name once
  for (StrId s = 0; s < StrId(t.strings.size()); ++s) isStep[s] = t.strings.view(s).starts_with(kStepPrefix) ? 1 : 0;
  for (EventIdx i = 0; i < t.size(); ++i) {
    if (!isStep[t.name[i]] || t.ph[i] != Ph::Complete || t.classOf(i) == CatClass::GpuUserAnnotation) continue;
    if (t.lane[i] < t.lanes.size() && t.lanes[t.lane[i]].gpu) continue;
    if (out.found++ == 0) out.example = std::string(t.nameOf(i));
  }
  return out;
}

std::string splitRemedy(const Trace& t, const SplitResult& r) {
  using enum SplitOutcome;
  if (r.outcome == NoGpuWork) return noGpuWorkRemedy(t, r);
  if (r.outcome != Refused && !(r.outcome == Split && r.chunks.empty())) return {};
  if (t.partial) return "Open the whole file: a split needs the whole trace.";
  const StepAnnotations sa = countStepAnnotations(t);
  if (sa.found > 0 && sa.found < sa.needed)
    return fmt::format("The trace holds {} (`{}`); a split by step annotations needs at least {}: {}.", steps(sa.found),
                       sa.example, sa.needed, kCaptureMore);
  if (r.outcome == Split)
    return fmt::format("The {} found gave no steady stretch to cut a chunk from: {}.", steps(r.roots.size()),
                       kCaptureMore);
  if (const DetectionCandidate* c = annotationCandidate(*r.detection); c && c->status != SplitStatus::Splittable)
    return lowCoverageRemedy(*c);
  return fmt::format(
      "No step annotation marks the iterations, so the splitter looked for repeats in the call "
      "tree; {}.",
      kMarkIteration);
}

}  // namespace steadyscope::analysis
