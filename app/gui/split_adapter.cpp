#include "split_adapter.hpp"

#include "common/rich_text.hpp"
#include "common/text.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/review.hpp>
#include <steadyscope/split.hpp>
#include <steadyscope/timeline.hpp>

#include <QFileInfo>
#include <QObject>

#include <cctype>
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
    if (root.event < trace.size()) {  // a call-tree root spans its own duration, not its event's
      s.beginNs = trace.tsNs[root.event];
      s.endNs = s.beginNs + usToNs(root.durUs);
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
    row.stepCount = int(p.roots.size());
    const double gd = p.stats.gpuDuration.asDouble();
    row.gpuTimeUs = gd;
    row.gpuBusyUs = p.stats.gpuBusyDuration.asDouble();
    row.busyRef = p.busyRatio;  // the splitter's busy_ratio: one definition, wherever it is shown
  }
  return row;
}
/// Where the steps come from, in words (not the manifest's method names).
QString rootsLabel(const analysis::DetectionCandidate& c) {
  const std::string& m = c.method;
  if (m == "annotation:tier")
    return c.tier == "detailed" ? QObject::tr("serving annotations") : QObject::tr("serving annotations, short form");
  if (m == "family:unknown_only") return QObject::tr("step annotations");
  if (m == "generic:branch_descent") return QObject::tr("repeating calls in the call tree");
  if (m == "generic:sibling_roots") return QObject::tr("repeating top-level calls");
  return QObject::tr("no steps found");
}

QString richText(const std::string& text) { return widgets::codeSpansHtml(QString::fromStdString(text)); }

/// What would make the trace splittable, as a paragraph ("" when nothing is known to help).
QString remedyHtml(const analysis::SplitResult& r, const Trace& trace) {
  const std::string fix = analysis::splitRemedy(trace, r);
  return fix.empty() ? QString() : QObject::tr("<br><br><b>To split it:</b> %1").arg(richText(fix));
}

QString noGpuWorkHtml(const analysis::SplitResult& r, const Trace& trace) {
  QString t = QObject::tr(
      "<b>Nothing to split.</b><br>The trace has no GPU work: no kernel, copy or memset with "
      "a duration under the category names the splitter reads.");
  const std::string count = analysis::legacyCategoryCount(r.nLegacyGpuEvents);
  if (count.empty()) return t + remedyHtml(r, trace);
  return t + QStringLiteral("<br>%1. <a href=\"%2\">%3</a>")  // the link is the remedy
                 .arg(richText(count), kFixLinkPrefix + QStringLiteral("legacy-categories"),
                      QObject::tr("Count them and split again"));
}

/// Why a split has no chunks, where the chunks would be: the verdict, what would make the trace splittable,
/// and what each step of the search found.
QString noChunksText(const analysis::SplitResult& r, const Trace& trace) {
  using analysis::SplitOutcome;
  if (r.outcome == SplitOutcome::Split && !r.chunks.empty()) return {};
  if (r.outcome == SplitOutcome::NoGpuWork) return noGpuWorkHtml(r, trace);
  if (r.outcome == SplitOutcome::Error) return QObject::tr("<b>The split failed.</b><br>%1").arg(richText(r.error));
  std::string verdict = r.story.verdict;
  if (verdict.rfind("Refused: ", 0) == 0) verdict = verdict.substr(9);
  if (!verdict.empty()) verdict[0] = char(std::toupper(static_cast<unsigned char>(verdict[0])));  // a sentence
  QString t = r.outcome == SplitOutcome::Refused ? QObject::tr("<b>This trace cannot be split.</b><br>")
                                                 : QObject::tr("<b>The split made no chunk.</b><br>");
  t += richText(verdict) + remedyHtml(r, trace);
  if (!r.story.attempts.empty()) {
    t += QObject::tr("<br><br>What was tried, in order:");
    for (const std::string& a : r.story.attempts) t += QStringLiteral("<br>• ") + richText(a);
  }
  if (!r.roots.empty()) t += QObject::tr("<br><br>The steps it found are marked on the timeline's step ruler.");
  return t;
}

QString deviceLine(const Trace& trace, const DeviceChunkFigures& d, const QString& value) {
  return QObject::tr("GPU %1: %2").arg(QString::fromStdString(trace.keyText(d.pid)), value);
}

/// The device-level columns: the worst device shown, every device in the tooltip.
void addFigures(const Trace& trace, const ChunkFigures& f, widgets::ChunkRow& row) {
  auto ratio = [](double r) { return QString::fromStdString(formatRatio(r)); };
  auto dur = [](int64_t ns) { return QString::fromStdString(formatDuration(double(ns))); };
  QStringList u, w, g;
  for (const DeviceChunkFigures& d : f.devices) {
    u << deviceLine(
        trace, d,
        QObject::tr("%1 (union %2 of GPU time %3)").arg(ratio(d.unionRatio()), dur(d.unionNs), dur(d.spanSumNs)));
    w << deviceLine(
        trace, d,
        QObject::tr("%1 (busy %2 of the %3 window)").arg(ratio(d.windowRatio()), dur(d.windowBusyNs), dur(d.windowNs)));
    g << deviceLine(trace, d, dur(d.longestGapNs));
  }
  if (const DeviceChunkFigures* d = f.worstUnion(); d && d->spanSumNs > 0) row.busyUnion = d->unionRatio();
  if (const DeviceChunkFigures* d = f.worstWindow(); d && d->windowNs > 0) row.busyWindow = d->windowRatio();
  if (const DeviceChunkFigures* d = f.worstGap(); d && d->windowNs > 0) row.longestGapNs = d->longestGapNs;
  row.unionDevices = u.join(QLatin1Char('\n'));
  row.windowDevices = w.join(QLatin1Char('\n'));
  row.gapDevices = g.join(QLatin1Char('\n'));
  row.busyNote = QString::fromStdString(busyRatiosNote(f));
}

/// Each window's figures from its chunk's evidence (the steps' GPU events), and the steps' GPU spans for the
/// timeline.
void addWindowFigures(const analysis::SplitResult& r, const Trace& trace, const TimelineIndex& index,
                      analysis::EvidenceContext& ctx, SplitView& v, TimelineOverlays& ov) {
  qsizetype k = -1;  // the window's row: splitViewOf keeps the windows that span time
  for (const analysis::WindowChoice& w : r.windows) {
    if (w.endUs <= w.startUs) continue;
    if (++k >= v.chunks.size()) break;
    if (w.chunk < 0 || size_t(w.chunk) >= r.chunks.size()) continue;
    const analysis::ChunkEvidence& ev = ctx.evidenceFor(r, r.chunks[size_t(w.chunk)]);
    std::vector<StepGpuWork> steps;
    steps.reserve(ev.steps.size());
    for (const analysis::StepWork& s : ev.steps)
      steps.push_back({int32_t(s.root), std::vector<EventIdx>(s.gpuWork.begin(), s.gpuWork.end())});
    widgets::ChunkRow& row = v.chunks[k];
    const ChunkFigures f = computeChunkFigures(trace, index, row.beginNs, row.endNs, steps);
    addFigures(trace, f, row);
    for (const StepGpuSpan& sp : f.spans)
      ov.chunks[size_t(k)].gpuSpans.push_back({sp.beginNs, sp.endNs, sp.step, int32_t(sp.device)});
  }
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
  v.rootTier = rootsLabel(r.detection->chosen);
  v.summary = QObject::tr("%1, %2 (%3)")
                  .arg(widgets::countOf(qint64(ov->steps.size()), QObject::tr("step"), QObject::tr("steps")),
                       widgets::countOf(v.chunks.size(), QObject::tr("window"), QObject::tr("windows")), v.rootTier);
  if (!r.error.empty()) v.summary += QStringLiteral(" — ") + QString::fromStdString(r.error);
  if (r.outcome == analysis::SplitOutcome::Refused) v.summary = QObject::tr("refused — %1").arg(v.summary);
  v.noChunks = noChunksText(r, trace);
  return v;
}

analysis::SplitOptions windowSplitOptions(int numSteps) {
  analysis::SplitOptions o;
  o.findSteadyState = true;
  o.numSteps = numSteps;
  o.outputDir = "steadyscope-preview";
  return o;
}

std::optional<SplitView> planSplitView(const TracePtr& trace, const TimelineIndexPtr& index,
                                       const analysis::SplitOptions& o, JobControl* control) {
  auto planned = std::make_shared<PlannedSplit>();
  planned->splitter = std::make_shared<analysis::Splitter>(trace);
  planned->options = o;
  analysis::Splitter& splitter = *planned->splitter;
  analysis::SplitResult& r = planned->plan;
  r = splitter.plan(o, control);
  if (r.outcome == analysis::SplitOutcome::Cancelled) return std::nullopt;
  if (control && !control->enterStage("view")) return std::nullopt;
  SplitView v = splitViewOf(r, *trace);
  analysis::EvidenceContext ctx(splitter.eventIndex(o), o);
  if (control && !control->enterStage("figures")) return std::nullopt;
  if (index) {
    auto ov = std::make_shared<TimelineOverlays>(*v.overlays);
    addWindowFigures(r, *trace, *index, ctx, v, *ov);
    v.overlays = std::move(ov);
  }
  if (control && !control->enterStage("gate input")) return std::nullopt;
  v.gate = liveGateSource(r, o, ctx);
  v.planned = std::move(planned);
  return v;
}

std::optional<DirectoryPlacement> placeDirectory(const TracePtr& trace, const TimelineIndexPtr& index,
                                                 const analysis::SplitOptions& options, const std::string& dir,
                                                 JobControl* control) {
  std::optional<SplitView> plan = planSplitView(trace, index, options, control);
  if (!plan || (control && !control->enterStage("evidence"))) return std::nullopt;
  DirectoryPlacement out{std::move(*plan), nullptr};
  review::TraceReviewOptions tro;
  tro.split = options;
  if (auto m = review::matchSplitDirectory(dir, trace, tro); m.ok())
    out.match = std::make_shared<const review::TraceMatch>(std::move(m.value()));
  return out;
}

int locateDirectoryRows(const SplitView& plan, QVector<widgets::ChunkRow>& rows, TimelineOverlays& out) {
  out = TimelineOverlays{};
  if (!plan.overlays) return 0;
  out.steps = plan.overlays->steps;
  out.steadyRegions = plan.overlays->steadyRegions;
  int placed = 0;
  for (widgets::ChunkRow& row : rows) {
    ChunkBand band;
    band.mode = row.mode.toStdString();
    band.label = band.mode;
    for (qsizetype k = 0; k < plan.chunks.size() && size_t(k) < plan.overlays->chunks.size(); ++k) {
      const widgets::ChunkRow& p = plan.chunks[k];
      if (p.file.isEmpty() || QFileInfo(p.file).fileName() != row.file) continue;
      band = plan.overlays->chunks[size_t(k)];
      widgets::takePlacementFields(row, p);
      ++placed;
      break;
    }
    out.chunks.push_back(std::move(band));
  }
  return placed;
}

void addWindowFigures(const widgets::TraceDocument& doc, QVector<widgets::ChunkRow>& rows) {
  if (!doc || doc.index->devices.empty()) return;
  for (widgets::ChunkRow& c : rows) {
    if (c.endNs <= c.beginNs || c.busyWindow >= 0) continue;
    const timeline::ChunkFigures f = timeline::computeChunkFigures(*doc.trace, *doc.index, c.beginNs, c.endNs, {});
    if (const auto* d = f.worstWindow()) c.busyWindow = d->windowRatio();
    if (const auto* d = f.worstGap()) c.longestGapNs = d->longestGapNs;
  }
}

}  // namespace steadyscope::app
