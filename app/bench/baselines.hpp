#pragma once
// Raw baselines the loader is measured against (used by `steadyscope-cli bench`):
// the same pieces parsed by a bare simdjson On-Demand pass that touches every
// field of every event and stores nothing, and decompression alone.
#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope {

struct BaselineResult {
  double seconds = 0;
  uint64_t bytes = 0;   // bytes of JSON text processed / produced
  uint64_t events = 0;  // events visited (parse baseline only)
  int level = 0;        // the ISA-L level that was faster (compress baseline only)
};

/// Bare On-Demand pass over traceEvents of `source`: the same pieces, threads
/// (0: jobThreads()) and reading path (pread into a reused buffer) as the loader.
Expected<BaselineResult> baselineBareParse(const SourceText& source, unsigned threads, size_t pieceBytes);

/// Decompression alone (gzip/zip/zstd) into a reused 1 MiB buffer; 0 s for plain files.
Expected<BaselineResult> baselineDecompress(const std::string& path);

/// The files' bytes (a .gz file's inflated bytes) compressed at ISA-L's fastest
/// level (the faster of 0 and 1) on `threads` threads (0: jobThreads()), each thread a contiguous share
/// into a reused buffer: the floor for writing them.
Expected<BaselineResult> baselineCompress(const std::vector<std::string>& files, unsigned threads);

/// Current and peak memory of this process from /proc/self/status, in bytes.
struct MemoryFigures {
  uint64_t rssAnon = 0, rssFile = 0, vmHwm = 0;
};
MemoryFigures readMemoryFigures();

}  // namespace steadyscope
