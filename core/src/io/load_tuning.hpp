#pragma once
// Sizes the loader chooses for the machine, out of the public LoadOptions:
// tests and the fuzz target set smaller ones (LoadOptions::tuning) to reach
// the paths a small file would not.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace steadyscope::io {

struct LoadTuning {
  // Target piece size: about 2 MiB (measured best: docs/BENCHMARKS.md), less
  // 128 KiB so that a piece buffer with its slack fits one 2 MiB huge page
  // (one more fresh page per buffer otherwise, D-014). At least 4 KiB is used (pieceBytesOf).
  size_t pieceBytes = (2u << 20) - (128u << 10);
  uint64_t gzipCheckpointBytes = 0;  // gzip: text between checkpoints (0: io::checkpointSpacing)
};

/// The options' tuning, or the machine's defaults.
inline const LoadTuning& tuningOf(const LoadTuning* t) {
  static const LoadTuning kDefaults;
  return t ? *t : kDefaults;
}

/// The piece size the loader cuts at: the tuning's, never under 4 KiB.
inline size_t pieceBytesOf(const LoadTuning* t) { return std::max<size_t>(tuningOf(t).pieceBytes, 4096); }

}  // namespace steadyscope::io
