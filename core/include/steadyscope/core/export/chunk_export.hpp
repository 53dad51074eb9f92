#pragma once
// Export of one chunk of a split: the chunk trace (the splitter's events,
// copied verbatim by the splitter's chunk writer, plus the process/thread-name
// metadata a viewer needs), its execution_details.csv / .json row in the
// reference's format, and the provenance manifest steadyscope-export.json.
// All four are staged under temporary names in the target folder and renamed
// into place only when every one is complete (docs/export.md).
//
//   analysis::Splitter sp(trace);  startSourceDigest(*trace);     // sha256 in the background
//   analysis::SplitResult plan = sp.plan(options);
//   exporting::ExportRequest req;  req.mode = names::ChunkMode::Mixed;  req.targetDir = "out";
//   exporting::ExportPreview pv = exporting::previewExport(*trace, plan, req);   // names, what exists
//   auto rep = exporting::exportChunk(sp, plan, options, req, &control);          // a job: stages, cancel
//
// No Qt; a blocking job for the window's job runner or the CLI.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/progress.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace steadyscope::exporting {

/// The provenance manifest's file name.
inline constexpr std::string_view kExportManifestFile = "steadyscope-export.json";

struct ExportRequest {
  names::ChunkMode mode = names::ChunkMode::Mixed;
  std::string targetDir;
  bool force = false;       // replace an earlier export's files (never the source trace)
  bool gzip = true;         // the chunk as .json.gz (the reference's name), else .json
  gate::GateOptions gate;   // the gate's parameters for the manifest's verdict (mode is set from `mode`)
  std::string toolVersion;  // recorded in the manifest
  WriteFault fault;         // test seam: makes a write of the staged files fail
};

/// The four files, as absolute paths in the target folder.
struct ExportFiles {
  std::string dir;
  std::string chunk;
  std::string detailsCsv;
  std::string detailsJson;
  std::string manifest;
  std::array<std::string, 4> all() const { return {chunk, detailsCsv, detailsJson, manifest}; }
};

/// What an export would write, before it runs (for a dialog, and the job's own checks).
struct ExportPreview {
  int chunk = -1;  // index into the plan's chunks (-1: the plan has none of that mode)
  ExportFiles files;
  std::vector<std::string> existing;  // those of `files` that exist already
  bool overwritesSource = false;      // one of them is the source trace itself (same file, any name)
  std::string refusal;                // why it cannot run as asked, in one sentence ("": it can)
  bool ok() const { return refusal.empty(); }
};
ExportPreview previewExport(const Trace& trace, const analysis::SplitResult& plan, const ExportRequest& request);

/// Seconds per stage of one export (the sha256 wait apart: it is computed after the load).
struct ExportTimings {
  double checks = 0, figures = 0, chunk = 0, details = 0, digestWait = 0, manifest = 0, publish = 0;
  double total() const { return checks + figures + chunk + details + manifest + publish; }
};

struct ExportReport {
  ExportFiles files;
  int64_t eventCount = 0;     // the splitter's events of the chunk (= the row's event_count)
  int64_t addedMetadata = 0;  // process/thread-name metadata events added for viewers
  std::string sha256;         // of the source file
  JsonValue manifest;         // as written
  gate::GateResult gate;      // the verdict on the split (in memory, with the trace's evidence)
  ExportTimings seconds;
};

/// Exports the chunk of `request.mode` of `plan` (planned by `splitter` with
/// `options`). Stages (JobControl::enterStage): "checks", "figures",
/// "chunk", "details", "digest", "manifest", "publish"; a cancel at any of
/// them, or while the chunk is written, leaves no file behind and returns
/// Error::Kind::Cancelled. Any failure leaves the target folder as it was.
Expected<ExportReport> exportChunk(analysis::Splitter& splitter, const analysis::SplitResult& plan,
                                   const analysis::SplitOptions& options, const ExportRequest& request,
                                   JobControl* control = nullptr);

// ---- pieces (export_manifest.cpp), public for tests ----

/// The ph "M" events of the trace that `events` lacks (the reference keeps
/// only metadata without a ts, so process and thread names get lost), in file order.
EventList missingMetadata(const Trace& trace, const EventList& events);

/// The split's parameters as the manifest records them.
JsonValue splitParametersJson(const analysis::SplitOptions& o);
/// The gate's parameters as the manifest records them.
JsonValue gateParametersJson(const gate::GateOptions& o);

}  // namespace steadyscope::exporting
