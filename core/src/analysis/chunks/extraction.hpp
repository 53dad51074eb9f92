#pragma once
// Stage 3 (spec §4.1–§4.5): gap-free tiles, the events of one chunk and its
// statistics, the batch-size override, and writing a chunk as .json.gz.
// The tiles and statistics it hands on are public (extraction_types.hpp).
#include "analysis/event_index.hpp"
#include <steadyscope/core/analysis/extraction_types.hpp>
#include <steadyscope/core/analysis/roots.hpp>
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::analysis {

/// The tiles of `roots` (§4.1).
TileSet buildTiles(const EventIndex& index, const RootList& roots);

/// The window of root k: its tile if any, else its own span.
Tile windowOf(const EventIndex& index, const TileSet& tiles, const RootList& roots, size_t k);
/// windowOf with TileSet::find's hint, for roots taken in order.
Tile windowOf(const EventIndex& index, const TileSet& tiles, const RootList& roots, size_t k, size_t& hint);

struct ChunkSelection {
  EventList events;           // traceEvents of the chunk, in output order
  std::vector<Tile> windows;  // per root
  ChunkStats stats;
};

/// §4.2: events of a chunk whose roots are `roots` (in order). `globalTiles`
/// null means --no-gap-fill (tiles are rebuilt from the chunk's own roots).
/// `groups` must hold every id addChunkKeys adds for this chunk (groupingsFor
/// a set it filled); null uses the index's full groupings.
ChunkSelection selectChunk(const EventIndex& index, const RootList& roots, const TileSet* globalTiles,
                           const ExtractionOptions& options, const CorrGroupings* groups = nullptr);

/// The tiles a chunk's windows come from: `globalTiles`, or when it is null
/// (--no-gap-fill) the tiles of the chunk's own roots, built into `own`.
const TileSet& chunkTiles(const EventIndex& index, const RootList& roots, const TileSet* globalTiles, TileSet& own);

/// Adds to `keys` the ids selectChunk(index, roots, globalTiles, ...) may
/// look up: those of the CPU events on any lane within the time span of the
/// chunk's windows (a superset of the events it selects). With groupingsFor,
/// the groupings of several chunks cost one pass over the GPU and flow events.
void addChunkKeys(const EventIndex& index, const RootList& roots, const TileSet* globalTiles, CorrKeySet& keys);

/// §4.5: the distinct Input Dims[0][0] values of the selected attention /
/// quant events, in the reference's (CPython set) order.
/// Unreadable event text (text.error() set) counts as no value.
std::vector<int64_t> batchOverrideValues(const EventIndex& index, const EventList& events, EventText& text);

/// Input Dims[0][0] of one event (re-parsed from its raw JSON text; none
/// when the text cannot be read, with text.error() set).
std::optional<int64_t> firstInputDim(EventText& text, const Trace& trace, EventIdx i);

/// What a chunk file holds: `{top-level keys in order, "traceEvents": [...]}`
/// with each event's source text copied verbatim: `events` (null: every event
/// of the trace), then `extra` (an export's added metadata; null: none).
struct ChunkContent {
  const EventList* events = nullptr;
  const EventList* extra = nullptr;
  bool gzip = true;  // ISA-L level 1; false: plain JSON text
  unsigned threads = 1;  // that make and compress its gzip blocks at once (io/gzip_blocks.hpp)
};

/// The one chunk writer (split and export): writes `content` into `out`,
/// which the caller opened and commits (or prepares and publishes).
/// `control`, when given, is polled about every MiB: a cancel is an
/// Error::Kind::Cancelled error and `out` is aborted.
Expected<void> writeChunk(const Trace& trace, const ChunkContent& content, AtomicFileWriter& out,
                          JobControl* control = nullptr);

/// writeChunk of `events` gzip-compressed on `threads` threads, atomically to `path`.
Expected<void> writeChunkFile(const Trace& trace, const EventList* events, const std::string& path,
                              unsigned threads = 1);
/// The same, complete under `file`'s temporary name: the caller publishes it
/// (with the other files of a split) or lets `file` remove it.
Expected<void> prepareChunkFile(const Trace& trace, const EventList* events, const std::string& path,
                                AtomicFileWriter& file, unsigned threads = 1);
/// A chunk with the same events as one already prepared (`made`): its bytes
/// copied under `file`'s temporary name for `path`, as prepareChunkFile leaves it.
Expected<void> prepareChunkCopy(const AtomicFileWriter& made, const std::string& path, AtomicFileWriter& file);

}  // namespace steadyscope::analysis
