// A plan as the gate's input, and the analysis's evidence in the gate's terms.
#include <steadyscope/core/review/split_gate.hpp>

#include <steadyscope/core/analysis/gpu_categories.hpp>
#include <steadyscope/core/analysis/split_remedy.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace steadyscope::review {

gate::ChunkFacts gateFacts(const analysis::ChunkEvidence& ev) {
  gate::ChunkFacts g;
  g.numGpuEvents = ev.numGpuEvents;
  g.gpuDuration = ev.gpuDuration;
  g.gpuBusyDuration = ev.gpuBusyDuration;
  if (!ev.hasSteps) return g;
  g.steps = static_cast<int>(ev.steps.size());
  g.stepsWithoutGpu = static_cast<int>(ev.emptyStepIndices.size());
  g.emptyStepIndices = ev.emptyStepIndices;
  g.unionBusyRatio = ev.unionBusyRatio;
  g.largestEventShare = ev.largestEventShare;
  g.largestEventName = ev.largestEventName;
  g.startupTransientInside = ev.startupTransientInside;
  if (ev.transient.kind != analysis::StartupTransient::Kind::None) g.transientStep = static_cast<int>(ev.transient.firstRoot);
  if (ev.largestEvent)
    for (const analysis::StepWork& s : ev.steps)
      if (std::find(s.gpuWork.begin(), s.gpuWork.end(), *ev.largestEvent) != s.gpuWork.end()) {
        g.largestEventStep = static_cast<int>(s.root);
        break;
      }
  return g;
}

std::string transientReason(const analysis::ChunkEvidence& ev) {
  using Kind = analysis::StartupTransient::Kind;
  const analysis::StartupTransient& t = ev.transient;
  switch (t.kind) {
    case Kind::None: return {};
    case Kind::CollectiveKept:
      return fmt::format(
          "the chunk holds the first iteration (step {}), whose collective kernel {} ran {} times as long as in "
          "later iterations; the startup-transient trim kept it because other kernels were inflated too (noise "
          "ratio {})",
          t.firstRoot, t.kernel, gate::formatNumber(t.collectiveRatio), gate::formatNumber(t.noiseRatio));
    case Kind::InflatedFirstStep:
      return fmt::format(
          "the chunk holds the first iteration (step {}), whose GPU busy time {} us is {} times the median of "
          "the chunk's other steps ({} us)",
          t.firstRoot, gate::formatNumber(t.firstBusyUs), gate::formatNumber(t.firstBusyUs / t.medianBusyUs),
          gate::formatNumber(t.medianBusyUs));
  }
  return {};
}

gate::SplitListing listingFromSplit(const analysis::SplitResult& r) {
  gate::SplitListing L;
  L.splitDir = r.outputDir;
  for (gate::Mode m : gate::kAllModes)
    for (std::string_view ext : names::kChunkExtensions) {
      std::vector<std::string> list;
      for (const auto& c : r.chunks)
        if (names::matchesChunkGlob(paths::fileName(c.fileName), m, ext)) list.push_back(c.outputPath);
      std::sort(list.begin(), list.end());
      auto& out = L.chunks[gate::modeIndex(m)];
      out.insert(out.end(), list.begin(), list.end());
    }
  return L;
}

int chunkIndexForPath(const analysis::SplitResult& r, const std::string& path) {
  for (size_t k = 0; k < r.chunks.size(); ++k)
    if (r.chunks[k].outputPath == path) return static_cast<int>(k);
  return -1;
}

namespace {

// Why the splitter made no chunk when that is its own decision, in words; empty otherwise.
std::string splitterWhy(const analysis::SplitResult& r) {
  if (r.outcome == analysis::SplitOutcome::Refused) {
    const std::string& v = r.story.verdict;
    return "The splitter refused the trace: " + (v.rfind("Refused: ", 0) == 0 ? v.substr(9) : v);
  }
  if (r.outcome != analysis::SplitOutcome::NoGpuWork) return {};
  std::string why = "The splitter found no GPU work in the trace (no kernel, copy or memset with a duration), "
                    "so there is nothing to split.";
  if (const std::string hint = analysis::legacyCategoryHint(r.nLegacyGpuEvents); !hint.empty()) why += " " + hint;
  return why;
}

// The reason, then what would make the trace splittable when the trace is at hand.
std::string splitterReason(const analysis::SplitResult& r, const Trace* trace) {
  const std::string why = splitterWhy(r);
  const bool hinted = r.outcome == analysis::SplitOutcome::NoGpuWork && r.nLegacyGpuEvents > 0;  // the hint says it
  if (why.empty() || !trace || hinted) return why;
  std::string fix = analysis::splitRemedy(*trace, r);
  if (fix.empty()) return why;
  fix[0] = char(std::tolower(static_cast<unsigned char>(fix[0])));  // it continues the sentence
  return why + " To split it: " + fix;
}

}  // namespace

gate::GateInput gateInputFromSplit(const analysis::SplitResult& r, const analysis::SplitOptions& o,
                                   analysis::EvidenceContext* evidence, const std::optional<std::string>& traceInput) {
  const bool split = r.outcome == analysis::SplitOutcome::Split;
  gate::GateInput in;
  if (split)
    in.listing = listingFromSplit(r);
  else
    in.listing.splitDir = r.outputDir;
  in.details = split && !r.chunks.empty() ? gate::DetailsState::Readable : gate::DetailsState::Absent;
  in.traceInput = traceInput;
  in.splitReturnCode = r.exitStatus;
  in.splitInMemory = true;
  in.splitRefusal = splitterReason(r, evidence ? &evidence->trace() : nullptr);
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
    if (evidence) in.evidence[mi] = gateFacts(evidence->evidenceFor(r, c));
  }
  return in;
}

}  // namespace steadyscope::review
