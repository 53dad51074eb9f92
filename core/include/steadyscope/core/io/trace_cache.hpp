#pragma once
// The trace cache: a loaded model kept on disk so that the next open of the
// same, unchanged file reads it back instead of parsing (D-072).
//
//   TraceCache cache;                        // $XDG_CACHE_HOME/steadyscope/traces, 10 GB
//   LoadOptions o;
//   o.cache = &cache;
//   auto r = loadTrace("run.json.gz", o);    // parses, then stores the model in the background
//   auto again = loadTrace("run.json.gz", o);  // reads the stored model: again->fromCache
//
// An entry is keyed by the file's real path, size, mtime, inode and a CRC of
// its first and last MiB, and by the program's build. A stale, cut, corrupt or
// older-format entry is never used: it is removed and written anew after the
// parse. Entries appear whole or not at all (written under a temporary name,
// renamed); past the size limit the least recently used go first.
#include <cstdint>
#include <memory>
#include <string>

namespace steadyscope {

class Trace;

struct TraceCacheOptions {
  std::string dir;                              // "": $XDG_CACHE_HOME/steadyscope/traces (or ~/.cache/…)
  uint64_t limitBytes = 10'000'000'000;         // the folder's size cap; 0: store nothing
};

class TraceCache {
 public:
  explicit TraceCache(TraceCacheOptions options = {});
  ~TraceCache();  // waits for the writes in flight
  TraceCache(const TraceCache&) = delete;
  TraceCache& operator=(const TraceCache&) = delete;

  const std::string& dir() const;
  uint64_t limitBytes() const;
  /// Waits until every model handed over so far is written (or dropped).
  void flush();
  /// Bytes the folder's entries take now.
  uint64_t usedBytes() const;
  /// Removes every entry.
  void clear();

  struct Counts {
    uint64_t hits = 0, misses = 0, written = 0, evicted = 0, rejected = 0;  // rejected: stale, cut, corrupt, old
  };
  Counts counts() const;
  /// The last trouble met (a write that failed, an entry rejected), "" when none: for tests and logs.
  std::string lastProblem() const;

  struct Impl;  // core/src/io/trace_cache_impl.hpp: the loader's side

 private:
  friend struct TraceCacheAccess;
  std::unique_ptr<Impl> impl_;
};

}  // namespace steadyscope
