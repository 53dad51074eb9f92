// The export job: check, gather the figures, stage the four files under
// staging folder, then publish them together (docs/export.md).
#include "analysis/chunks/extraction.hpp"
#include "internal.hpp"
#include "util/staged_dir.hpp"

#include <steadyscope/core/util/paths.hpp>

#include <steadyscope/core/review/split_gate.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <system_error>
#include <unistd.h>

namespace steadyscope::exporting {

namespace {

using Clock = std::chrono::steady_clock;

// Seconds since `t`, and moves `t` to now.
double lap(Clock::time_point& t) {
  const auto now = Clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

bool enter(JobControl* control, const char* stage) { return !control || control->enterStage(stage); }

Error cancelledError(const std::string& dir) {
  return makeError(Error::Kind::Cancelled, dir, "export cancelled: nothing was written");
}

// The four files, written into a staging folder beside the target folder; publishAll
// makes it the target folder (D-067). Whatever is not published is removed on destruction.
class Staging {
 public:
  explicit Staging(const WriteFault& fault) : fault_(fault) {}
  Expected<void> begin(const std::string& targetDir) { return dir_.open(targetDir); }
  AtomicFileWriter* open(const std::string& path, Expected<void>& status) {
    files_.push_back(std::make_unique<AtomicFileWriter>());
    AtomicFileWriter* w = files_.back().get();
    if (fault_) w->setFault(fault_);
    status = w->open(paths::join(dir_.path(), paths::fileName(path)));
    return w;
  }
  Expected<void> stage(const std::string& path, std::string_view data) {
    Expected<void> st;
    AtomicFileWriter* w = open(path, st);
    if (st) st = w->write(data);
    if (st) st = w->prepare();
    return st;
  }
  // The renames come last: the files in the staging folder, then the folder, `last` last
  // where the files must go in one by one.
  Expected<void> publishAll(const std::string& last) {
    for (auto& w : files_)
      if (auto p = w->publish(); !p) return p;
    return dir_.commit(paths::fileName(last));
  }

 private:
  WriteFault fault_;
  StagedDirectory dir_;
  std::vector<std::unique_ptr<AtomicFileWriter>> files_;
};

struct Figures {
  gate::GateResult gate;
  std::optional<double> unionBusyRatio;
};

// The gate's verdict on the whole split in memory, with the trace's evidence
// for the exported chunk (the other modes' chunks count by their rows alone:
// the evidence costs a selection per step).
Figures splitFigures(analysis::Splitter& splitter, const analysis::SplitResult& plan,
                     const analysis::SplitOptions& options, const ExportRequest& request, int chunk) {
  gate::GateInput in = review::gateInputFromSplit(plan, options, nullptr, splitter.trace().path);
  analysis::EvidenceContext ctx(splitter.eventIndex(options), options);
  const analysis::ChunkEvidence ev = ctx.evidenceFor(plan, plan.chunks[static_cast<size_t>(chunk)]);
  in.evidence[names::modeIndex(request.mode)] = review::gateFacts(ev);
  gate::GateOptions go = request.gate;
  go.mode = request.mode;
  Figures f{gate::evaluateGate(in, go), std::nullopt};
  f.unionBusyRatio = in.evidence[names::modeIndex(request.mode)]->unionBusyRatio;
  return f;
}

Error refusalError(const ExportPreview& pv) {
  Error e = makeError(Error::Kind::Usage, pv.files.dir, pv.refusal);
  e.code = pv.overwritesSource ? "export_overwrites_source" : pv.chunk < 0 ? "export_no_chunk" : "export_exists";
  return e;
}

// Just before the renames: the checks again (a file may have appeared
// meanwhile) and the source as it was digested.
Expected<void> finalChecks(const Trace& trace, const analysis::SplitResult& plan, const ExportRequest& request,
                           const FileDigest& digest) {
  const ExportPreview pv = previewExport(trace, plan, request);
  if (!pv.ok()) return refusalError(pv);
  auto now = identifyFile(trace.path);
  if (!now || !(*now == digest.file))
    return makeError(Error::Kind::Io, trace.path, "the source trace changed since it was loaded: load it again");
  return {};
}

// The chunk trace through the splitter's writer, complete under its temporary name.
Expected<void> stageChunk(const Trace& trace, const analysis::ChunkPlan& chunk, const EventList& added,
                          const ExportRequest& request, const std::string& path, Staging& staging,
                          JobControl* control, unsigned threads) {
  Expected<void> st;
  AtomicFileWriter* out = staging.open(path, st);
  const analysis::ChunkContent content{chunk.wholeTrace ? nullptr : &chunk.events, &added, request.gzip,
                                       jobThreads(threads)};
  if (st) st = analysis::writeChunk(trace, content, *out, control);
  if (st) st = out->prepare();
  return st;
}

}  // namespace

Expected<ExportReport> exportChunk(analysis::Splitter& splitter, const analysis::SplitResult& plan,
                                   const analysis::SplitOptions& options, const ExportRequest& request,
                                   JobControl* control) {
  const Trace& trace = splitter.trace();
  auto t = Clock::now();
  ExportReport rep;
  if (!enter(control, "checks")) return cancelledError(request.targetDir);
  const ExportPreview pv = previewExport(trace, plan, request);
  if (!pv.ok()) return refusalError(pv);
  rep.files = pv.files;
  Staging staging(request.fault);
  if (auto d = staging.begin(rep.files.dir); !d) return d.error();
  rep.seconds.checks = lap(t);

  if (!enter(control, "figures")) return cancelledError(rep.files.dir);
  Figures fig = splitFigures(splitter, plan, options, request, pv.chunk);
  rep.seconds.figures = lap(t);

  if (!enter(control, "chunk")) return cancelledError(rep.files.dir);
  analysis::ChunkPlan chunk = plan.chunks[static_cast<size_t>(pv.chunk)];
  chunk.outputPath = rep.files.chunk;  // absolute (docs/export.md)
  const EventList added = missingMetadata(trace, chunk.events);
  if (auto st = stageChunk(trace, chunk, added, request, rep.files.chunk, staging, control, options.threads); !st)
    return st.error().kind == Error::Kind::Cancelled ? cancelledError(rep.files.dir) : st.error();
  rep.eventCount = chunk.stats.eventCount;
  rep.addedMetadata = static_cast<int64_t>(added.size());
  rep.seconds.chunk = lap(t);

  if (!enter(control, "details")) return cancelledError(rep.files.dir);
  const analysis::ExecutionDetails details = analysis::executionDetailsOf({chunk}, options.busyRatioColumn);
  Expected<void> st;
  if (!(st = staging.stage(rep.files.detailsCsv, details.csv))) return st.error();
  if (!(st = staging.stage(rep.files.detailsJson, details.json.dump(JsonStyle::pythonFile())))) return st.error();
  rep.seconds.details = lap(t);

  if (!enter(control, "digest")) return cancelledError(rep.files.dir);
  auto digest = trace.digest->wait(trace.path, control);
  if (!digest) return digest.error().kind == Error::Kind::Cancelled ? cancelledError(rep.files.dir) : digest.error();
  rep.sha256 = digest->sha256;
  rep.seconds.digestWait = lap(t);

  if (!enter(control, "manifest")) return cancelledError(rep.files.dir);
  const ManifestInput mi{
      trace, plan, chunk, options, request, rep.files, *digest, fig.gate, fig.unionBusyRatio, rep.addedMetadata};
  rep.manifest = exportManifest(mi);
  if (!(st = staging.stage(rep.files.manifest, rep.manifest.dump(JsonStyle::pythonFile())))) return st.error();
  rep.seconds.manifest = lap(t);

  if (!enter(control, "publish")) return cancelledError(rep.files.dir);
  if (!(st = finalChecks(trace, plan, request, *digest))) return st.error();
  if (!(st = staging.publishAll(rep.files.manifest))) return st.error();
  rep.gate = std::move(fig.gate);
  rep.seconds.publish = lap(t);
  return rep;
}

}  // namespace steadyscope::exporting
