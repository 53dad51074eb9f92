// One rank's row: its trace loaded, split in memory (nothing written) and
// gated, reduced to figures; the trace is gone when the row is returned.
#include <steadyscope/job.hpp>

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/split_gate.hpp>

#include <simdjson.h>

#include <algorithm>
#include <vector>

namespace steadyscope::job {

namespace {

struct DistributedInfo {
  std::optional<int64_t> rank, worldSize;
};

// distributedInfo's rank and world_size, from the raw top-level value the loader kept.
DistributedInfo distributedInfo(const Trace& trace) {
  DistributedInfo out;
  for (const auto& e : trace.topLevel) {
    if (e.key != "distributedInfo") continue;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(e.rawValue).get(root) != simdjson::SUCCESS || !root.is_object()) return out;
    int64_t v = 0;
    if (root["rank"].get_int64().get(v) == simdjson::SUCCESS) out.rank = v;
    if (root["world_size"].get_int64().get(v) == simdjson::SUCCESS) out.worldSize = v;
  }
  return out;
}

// numpy's default percentile: linear between the two nearest ranks.
double percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

void setSteps(RankRow& row, const analysis::SplitResult& split) {
  row.steps = split.roots.size();
  if (split.roots.empty()) return;
  std::vector<double> durs;
  durs.reserve(split.roots.size());
  for (const auto& root : split.roots) durs.push_back(root.durUs);
  row.stepDurationsUs = durs;
  std::sort(durs.begin(), durs.end());
  row.stepMedianUs = percentile(durs, 0.5);
  row.stepP90Us = percentile(durs, 0.9);
  row.firstStepTsUs = split.roots[0].tsUs;
}

const char* verdictOf(const gate::GateResult& g) {
  if (!g.finalAccepted()) return "refused";
  return g.lowQuality ? "low_quality" : "accepted";
}

// The gate's pick: its mode, and its busy ratio and GPU events from the plan.
void setGate(RankRow& row, const analysis::SplitResult& split, const gate::GateResult& g) {
  row.verdict = verdictOf(g);
  for (const auto& c : g.chunks)
    if (c.selected && !c.chunk.empty()) row.chunkMode = std::string(gate::modeName(c.mode));
  if (const int k = review::chunkIndexForPath(split, g.selectedChunk); k >= 0 && !g.selectedChunk.empty()) {
    row.busyRatio = split.chunks[static_cast<size_t>(k)].busyRatio;
    row.numGpuEvents = split.chunks[static_cast<size_t>(k)].stats.numGpuEvents;
  }
}

// Why the rank has no chunk to show, or why it was refused ("" when it has one that passed).
std::string reasonOf(const RankRow& row, const analysis::SplitResult& split, const gate::GateResult& g) {
  if (row.gpuEvents == 0) return row.file + ": no GPU events (kernels, memcpys, memsets)";
  switch (split.outcome) {
    case analysis::SplitOutcome::NoGpuWork:
      return row.file + ": the splitter found no GPU work" +
             (split.nLegacyGpuEvents ? " (its GPU events use legacy category names)" : "");
    case analysis::SplitOutcome::Refused: return row.file + ": split refused: " + split.story.verdict;
    case analysis::SplitOutcome::Error: return row.file + ": split failed: " + split.error;
    default: break;
  }
  return g.finalAccepted() ? std::string() : row.file + ": " + g.summary;
}

}  // namespace

RankRow failedRow(const std::string& path, size_t position, std::string reason) {
  RankRow row;
  row.rank = static_cast<int64_t>(position);
  row.file = path;
  row.splitStatus = analysis::splitOutcomeName(analysis::SplitOutcome::Error);
  row.reason = std::move(reason);
  return row;
}

RankRow rankRowOf(const Trace& trace, size_t position, const analysis::SplitResult& split,
                  const gate::GateResult& gate) {
  RankRow row;
  const DistributedInfo info = distributedInfo(trace);
  row.rankFromTrace = info.rank.has_value();
  row.rank = info.rank.value_or(static_cast<int64_t>(position));
  row.worldSize = info.worldSize;
  row.file = trace.path;
  row.loaded = true;
  row.events = trace.size();
  row.gpuEvents = trace.stats.gpuEvents;
  setSteps(row, split);
  const BusyFigures busy = busyFigures(trace);
  row.gpuBusyUs = static_cast<double>(busy.gpuNs) / 1000.0;
  row.commBusyUs = static_cast<double>(busy.commNs) / 1000.0;
  row.computeBusyUs = static_cast<double>(busy.computeNs) / 1000.0;
  row.overlapUs = static_cast<double>(busy.overlapNs) / 1000.0;
  row.splitStatus = analysis::splitOutcomeName(split.outcome);
  setGate(row, split, gate);
  row.reason = reasonOf(row, split, gate);
  return row;
}

RankRow rankRow(const std::string& path, size_t position, const RankOptions& options) {
  // The caller's cancel flag, seen by the load and the split at each of their stages.
  JobControl control;
  if (options.cancel)
    control.setStageObserver([&control, cancel = options.cancel](std::string_view) {
      if (cancel->load(std::memory_order_relaxed)) control.requestCancel();
    });
  LoadOptions load;
  load.threads = options.threads;
  load.control = &control;
  load.cache = options.cache;
  auto loaded = loadTrace(path, load);
  if (!loaded) return failedRow(path, position, loaded.error().describe());
  const TracePtr trace = loaded.value();
  analysis::SplitOptions o = options.split;
  o.threads = options.threads;
  if (o.outputDir.empty()) o.outputDir = trace->baseName;  // names the planned chunks only
  if (options.kind) o.llmInference = analysis::llmInferenceFor(*options.kind, *trace);
  gate::GateOptions g = options.gate;
  if (options.gateModeByWorkload) g.mode = o.llmInference ? gate::Mode::Mixed : gate::Mode::Generic;
  analysis::Splitter splitter(trace);
  const analysis::SplitResult split = splitter.plan(o, &control);
  if (control.cancelled()) return failedRow(path, position, path + ": cancelled");
  const gate::GateResult verdict = gate::evaluateGate(review::gateInputFromSplit(split, o), g);
  return rankRowOf(*trace, position, split, verdict);
}

}  // namespace steadyscope::job
