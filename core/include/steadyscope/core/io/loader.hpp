#pragma once
// Loading a Chrome trace-event / Kineto trace into the columnar model.
//
//   auto r = steadyscope::loadTrace("rank0.pt.trace.json.gz", {});
//   if (!r) { puts(r.error().describe().c_str()); return 1; }
//   steadyscope::TracePtr trace = r.value();
//
// `.json` is mmapped. `.json.gz` is inflated once while it is parsed, keeping
// checkpoints to re-inflate event text on demand (D-013); `.zip` / `.json.zst`
// (and gzip when the streamed path gives up) are decompressed into an unlinked
// temporary file in the cache directory and mmapped, so the text lives in
// file-backed pages, not anonymous memory. Compression is detected by magic
// bytes. Parsing uses simdjson On-Demand on pieces cut at event boundaries, on
// `threads` threads.
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <string>

namespace steadyscope {

namespace io {
struct LoadTuning;  // core/src/io/load_tuning.hpp: piece sizes and gzip checkpoint spacing
}
class TraceCache;  // core/io/trace_cache.hpp

struct LoadOptions {
  unsigned threads = 0;  // threads for parsing and assembly; 0: jobThreads()
  std::string cacheDir;  // for decompressed text; default: $XDG_CACHE_HOME/steadyscope, ~/.cache/steadyscope or /tmp
  JobControl* control = nullptr;  // progress + cancel; may be null
  // The memory the too-big guard takes as available (0: the system's
  // MemAvailable). A seam: tests refuse a small trace as a huge one would be.
  uint64_t assumeAvailableBytes = 0;
  // A truncated .json (or .json.gz / zip / zstd member) loads as the complete
  // events before the cut, marked Trace::partial, instead of failing.
  bool allowPartial = false;
  // A seam for tests: sizes the loader otherwise chooses itself (null: those).
  const io::LoadTuning* tuning = nullptr;
  // Where a model is read back instead of parsed, and stored after a parse
  // (null: neither). A trace read back has Trace::fromCache set.
  TraceCache* cache = nullptr;
};

/// Stage numbers published through JobControl::stage(). A .json.gz is inflated
/// and parsed together in StageDecompress (done/total in compressed bytes).
enum LoadStage : int { StageOpen = 0, StageDecompress = 1, StageParse = 2, StageIndex = 3, StageDone = 4 };

Expected<TracePtr> loadTrace(const std::string& path, const LoadOptions& options = {});

/// The load failed because the file ends early (truncated JSON or gzip), so a
/// load with LoadOptions::allowPartial can keep the complete events before the cut.
bool endsEarly(const Error& e);

/// Load from JSON text already in memory (tests, small inputs). `name` is used
/// in messages and as the path.
Expected<TracePtr> loadTraceFromString(std::string json, const std::string& name = "<memory>",
                                       const LoadOptions& options = {});

}  // namespace steadyscope
