#pragma once
// The trace cache's file format (D-072): a loaded model, every field of it, as
// one file that reads back with a few large preads instead of a parse.
//
//   [header, 4 KiB] [array 0] [array 1] … (each 4 KiB aligned) [meta] [array table]
//
// The header holds the format version and where meta and the table lie, with
// one CRC-64 over both; meta holds the source's key first, then the model's
// small fields in a fixed order, each big column as a reference into the
// table; each table row is an array's offset, bytes and CRC-64. A file whose
// magic, version, key or any checksum differs is not used.
#include "io/gzip_index.hpp"

#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace steadyscope::io::cache {

/// Bumped whenever the layout or the meaning of a field changes.
inline constexpr uint32_t kFormatVersion = 1;

/// What a stored model was loaded from; a file whose key differs now is another file.
struct SourceKey {
  std::string path;      // canonical
  uint64_t size = 0;     // bytes on disk
  int64_t mtimeNs = 0;
  uint64_t inode = 0;
  uint64_t edgeCrc = 0;  // CRC-64 of the first and the last MiB
  std::string build;     // the program's version and revision: another loader may build another model
  friend bool operator==(const SourceKey&, const SourceKey&) = default;
};

/// The key of the file at `path` as it is now.
Expected<SourceKey> keyOf(const std::string& path);

/// How a stored model's text is reached again: reopened as on a first load, or
/// (gzip read through checkpoints) from the checkpoints stored with it.
struct StoredSource {
  bool gzipIndexed = false;
  uint64_t textBytes = 0;
  std::vector<GzipCheckpoint> checkpoints;
};

/// Writes `trace` (not partial) keyed by `key` to `fd`, from its start.
Expected<void> writeModel(int fd, const std::string& fileName, const Trace& trace, const SourceKey& key);

struct ReadModel {
  std::shared_ptr<Trace> trace;  // path, baseName and source left for the caller
  StoredSource source;
};

/// Reads the model in `fd` when it was stored under `expected`. Error codes:
/// cache_version (another format or build), cache_stale (another file),
/// cache_corrupt (a bad magic, size or checksum).
Expected<ReadModel> readModel(int fd, const std::string& fileName, const SourceKey& expected, unsigned threads);

}  // namespace steadyscope::io::cache
