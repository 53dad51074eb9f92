#pragma once
// Export of one chunk: the chunk trace (its events copied verbatim, plus the
// metadata a viewer needs), its execution_details row in the reference's
// format, and a provenance manifest, all renamed into place together.
//
//   exporting::ExportRequest req; req.mode = names::ChunkMode::Mixed; req.targetDir = folder;
//   auto w = exporting::exportChunk(splitter, plan, options, req);
//   if (!w) puts(w.error().describe().c_str());
#include <steadyscope/common.hpp>
#include <steadyscope/split.hpp>
#include <steadyscope/core/export/chunk_export.hpp>
