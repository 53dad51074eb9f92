#pragma once
// Loading a trace file (.json, .json.gz, .zip, .zst) into the model, in
// parallel, with progress and Cancel; a truncated file can be opened up to its
// last complete event (LoadOptions::allowPartial); a trace cache reads an
// unchanged file's model back instead of parsing it (LoadOptions::cache).
//
//   auto r = loadTrace("rank0.pt.trace.json.gz", {});
//   if (!r) { puts(r.error().describe().c_str()); return 1; }
//   TracePtr trace = r.value();
#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/io/trace_cache.hpp>
