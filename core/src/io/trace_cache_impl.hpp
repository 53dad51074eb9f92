#pragma once
// The loader's side of the trace cache (core/io/trace_cache.hpp): look a file
// up before parsing it, hand the parsed model over afterwards. One writer
// thread per cache writes the models handed over, in order.
#include "io/cache_codec.hpp"

#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/io/trace_cache.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace steadyscope {

struct TraceCache::Impl {
  explicit Impl(TraceCacheOptions o);
  ~Impl();

  struct Lookup {
    TracePtr hit;                            // the stored model, its source reopened
    std::optional<io::cache::SourceKey> key;  // the file's key before the parse (none: do not store)
  };
  /// The stored model of `path` when it is there and valid for the file as it is now.
  Lookup find(const std::string& path, const LoadOptions& options);
  /// Queues `trace` to be written under `key` (waits while two are queued).
  void store(TracePtr trace, io::cache::SourceKey key);
  void flush();
  std::string entryPath(const std::string& canonicalPath) const;
  uint64_t usedBytes() const;
  void clear();

  TraceCacheOptions options;
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<TracePtr, io::cache::SourceKey>> queue;
  bool writing = false, stopping = false;
  std::thread writer;
  Counts counts;
  std::string lastProblem;

 private:
  void writeLoop();
  void write(const Trace& trace, const io::cache::SourceKey& key);
  void evict();
  void reject(const std::string& entry, const Error& why);
  Expected<TracePtr> reopen(io::cache::ReadModel model, const std::string& path, const io::cache::SourceKey& key,
                            const LoadOptions& options);
};

struct TraceCacheAccess {
  static TraceCache::Impl& of(TraceCache& c) { return *c.impl_; }
};

}  // namespace steadyscope
