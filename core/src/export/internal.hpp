#pragma once
// What the export's job hands the manifest builder (export_manifest.cpp).
#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/util/sha256.hpp>

#include <optional>

namespace steadyscope::exporting {

struct ManifestInput {
  const Trace& trace;
  const analysis::SplitResult& plan;
  const analysis::ChunkPlan& chunk;  // the exported copy (output_path set)
  const analysis::SplitOptions& options;
  const ExportRequest& request;
  const ExportFiles& files;
  const FileDigest& digest;
  const gate::GateResult& gate;
  std::optional<double> unionBusyRatio;
  int64_t addedMetadata = 0;
};

JsonValue exportManifest(const ManifestInput& in);

}  // namespace steadyscope::exporting
