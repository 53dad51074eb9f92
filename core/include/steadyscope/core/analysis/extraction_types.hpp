#pragma once
// What Stage 3 (spec §4.1–§4.4) hands on: the gap-free tiles of a root list,
// a chunk's statistics and the extraction fixes. A SplitResult and the chunk
// evidence hold them; the extraction itself is the splitter's own
// (analysis/chunks/extraction.hpp).
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/pynum.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace steadyscope::analysis {

/// A half-open window [a, b) in µs with Python number types.
struct Tile {
  PyNum a;
  PyNum b;
};

/// Tiles of a root list (§4.1), looked up by (lane, ts) like the reference.
struct TileSet {
  struct Entry {
    uint32_t lane;
    double tsUs;
    Tile tile;
  };
  /// Sorted by (lane, tsUs), one entry per key: for roots sharing a key the
  /// last one computed wins (the reference keys a dict by (pid, tid, ts)).
  Column<Entry> entries;
  int64_t overlaps = 0;
  std::optional<PyNum> maxEnd;  // largest tile end
  bool empty() const { return entries.empty(); }
  const Tile* find(uint32_t lane, double tsUs) const;
  /// The same answer, trying entries[hint] first (keys are unique, so an exact
  /// match there is the one); on a hit, hint moves to the next entry. Constant
  /// time for keys asked in order, as roots are.
  const Tile* find(uint32_t lane, double tsUs, size_t& hint) const;

 private:
  size_t position(uint32_t lane, double tsUs) const;  // entries.size() when absent
};

/// The opt-in fixes that change what a chunk selects or counts.
struct ExtractionOptions {
  bool dedupeGpuEvents = false;        // fix for §8 B25
  bool gpuAnnotationsNotWork = false;  // fix for §8 B15
  bool flowsAc2gOnly = false;          // fix for §8 B13
};

/// A chunk's statistics (§4.4) with Python number types.
struct ChunkStats {
  int64_t eventCount = 0;
  int64_t numGpuEvents = 0;
  PyNum gpuDuration = PyNum::fromInt(0);
  PyNum gpuBusyDuration = PyNum::fromInt(0);
};

}  // namespace steadyscope::analysis
