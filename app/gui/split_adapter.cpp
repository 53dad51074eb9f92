#include "split_adapter.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <cmath>

namespace steadyscope::app {

using namespace steadyscope::timeline;

namespace {
int64_t usToNs(double us) { return std::llround(us * 1000.0); }

StepKind kindOf(const analysis::StepDetails& s, bool serving) {
  if (!serving) return StepKind::Generic;
  if (s.prefillOnly()) return StepKind::PrefillOnly;
  if (s.prefillDecode()) return StepKind::PrefillDecode;
  if (s.decodeOnly()) return StepKind::DecodeOnly;
  return StepKind::Generic;
}

/// The mode of a window by its chunk label; other windows (divide_phases) are generic.
std::string modeOfLabel(std::string_view label) {
  for (names::ChunkMode m : names::kChunkModes)
    if (names::chunkLabel(m) == label) return std::string(names::modeName(m));
  return std::string(names::modeName(names::ChunkMode::Generic));
}

/// One band per root, in time order, clipped so that steps never overlap.
std::vector<StepBand> stepBands(const analysis::SplitResult& r, const Trace& trace) {
  std::vector<StepBand> steps;
  steps.reserve(r.roots.size());
  for (size_t i = 0; i < r.roots.size(); ++i) {
    const analysis::RootInfo& root = r.roots[i];
    StepBand s;
    s.index = int32_t(i);
    if (root.event < trace.size()) {
      s.beginNs = trace.tsNs[root.event];
      s.endNs = trace.endNs(root.event);
    } else {
      s.beginNs = usToNs(root.tsUs);
      s.endNs = usToNs(root.tsUs + root.durUs);
    }
    if (root.tile) {  // the window the splitter assigns to the step
      s.beginNs = usToNs(root.tile->a.asDouble());
      s.endNs = usToNs(root.tile->b.asDouble());
    }
    s.kind = kindOf(root.step, r.servingAnnotations);
    steps.push_back(s);
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepBand& a, const StepBand& b) { return a.beginNs < b.beginNs; });
  // Steps must not overlap for the ruler's search: clip each end to the next start.
  for (size_t i = 0; i + 1 < steps.size(); ++i)
    steps[i].endNs = std::max(steps[i].beginNs + 1, std::min(steps[i].endNs, steps[i + 1].beginNs));
  return steps;
}

/// The chunk table's row of a window, with its chunk's figures when one is planned.
widgets::ChunkRow chunkRowOf(const analysis::SplitResult& r, const analysis::WindowChoice& w, const ChunkBand& c) {
  widgets::ChunkRow row;
  row.mode = QString::fromStdString(c.mode);
  row.firstStep = c.firstStep;
  row.lastStep = c.lastStep;
  row.beginNs = c.beginNs;
  row.endNs = c.endNs;
  if (w.chunk >= 0 && size_t(w.chunk) < r.chunks.size()) {
    const analysis::ChunkPlan& p = r.chunks[size_t(w.chunk)];
    row.file = QString::fromStdString(p.fileName);
    row.events = p.stats.eventCount;
    row.gpuEvents = p.stats.numGpuEvents;
    const double gd = p.stats.gpuDuration.asDouble();
    row.busyRef = gd > 0 ? p.stats.gpuBusyDuration.asDouble() / gd : 0.0;
  }
  return row;
}
}  // namespace

SplitView splitViewOf(const analysis::SplitResult& r, const Trace& trace) {
  SplitView v;
  auto ov = std::make_shared<TimelineOverlays>();
  ov->steps = stepBands(r, trace);

  auto rootNs = [&](int64_t workingIdx, bool end) -> int64_t {
    if (workingIdx < 0 || size_t(workingIdx) >= r.workingRoots.size()) return 0;
    const size_t ri = r.workingRoots[size_t(workingIdx)];
    return end ? ov->steps[std::min(ri, ov->steps.size() - 1)].endNs
               : ov->steps[std::min(ri, ov->steps.size() - 1)].beginNs;
  };
  for (const analysis::WindowChoice& w : r.windows) {
    if (!ov->steps.empty())
      for (const analysis::Region& reg : w.selection.scan.regions) {
        if (reg.size() <= 0) continue;
        RegionBand rb{rootNs(reg.start, false), rootNs(reg.end - 1, true),
                      "steady region (" + std::string(analysis::steadyModeName(w.selection.mode)) + ")"};
        ov->steadyRegions.push_back(rb);
      }
    if (w.endUs <= w.startUs) continue;
    ChunkBand c;
    c.beginNs = usToNs(w.startUs);
    c.endNs = usToNs(w.endUs);
    c.mode = modeOfLabel(w.label);
    c.firstStep = int32_t(w.rootRange.start);
    c.lastStep = int32_t(w.rootRange.end - 1);
    c.label = c.mode + " " + std::to_string(c.firstStep) + "\u2013" + std::to_string(c.lastStep);
    ov->chunks.push_back(c);
    v.chunks.push_back(chunkRowOf(r, w, c));
  }
  v.overlays = ov;
  const std::string& tier = r.detection.chosen.tier;
  v.rootTier =
      QString::fromStdString(r.detection.chosen.method.empty() ? std::string("no roots") : r.detection.chosen.method) +
      (tier.empty() ? QString() : QStringLiteral(", ") + QString::fromStdString(tier));
  v.summary = QStringLiteral("%1 steps, %2 windows (%3)").arg(ov->steps.size()).arg(v.chunks.size()).arg(v.rootTier);
  if (!r.error.empty()) v.summary += QStringLiteral(" — ") + QString::fromStdString(r.error);
  return v;
}

std::optional<SplitView> planSplitView(const TracePtr& trace, int numSteps, JobControl* control) {
  analysis::Splitter splitter(trace);
  analysis::SplitOptions o;
  o.findSteadyState = true;
  o.numSteps = numSteps;
  o.outputDir = "steadyscope-preview";  // plan() writes nothing
  const analysis::SplitResult r = splitter.plan(o, control);
  if (r.outcome == analysis::SplitOutcome::Cancelled) return std::nullopt;
  if (control && !control->enterStage("view")) return std::nullopt;
  SplitView v = splitViewOf(r, *trace);
  if (control && !control->enterStage("gate input")) return std::nullopt;
  v.gate = liveGateSource(r, o, splitter);
  return v;
}

}  // namespace steadyscope::app
