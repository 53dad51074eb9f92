#include "cli_cache.hpp"

#include <steadyscope/common.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

namespace steadyscope::cli {

namespace {

bool gOff = false;
TraceCache* gCache = nullptr;  // see traceCache()
std::mutex gCacheMutex;        // a many-trace split asks for the cache from several jobs at once

TraceCacheOptions optionsFromEnvironment() {
  TraceCacheOptions o;
  if (const char* v = std::getenv("STEADYSCOPE_CACHE_LIMIT"); v && *v) {
    // A size as --memory-budget takes it; "0" stores nothing.
    const auto bytes = std::string_view(v) == "0" ? std::optional<uint64_t>(0) : parseByteSize(v);
    if (bytes)
      o.limitBytes = *bytes;
    else
      std::fprintf(stderr, "steadyscope-cli: STEADYSCOPE_CACHE_LIMIT='%s' is not a size (such as 8G); using 10 GB\n", v);
  }
  return o;
}

}  // namespace

void takeNoCacheOption(std::vector<std::string>& words) {
  const auto n = std::erase(words, std::string("--no-cache"));
  if (n > 0) gOff = true;
}

// Made on first use, closed by main after the command. Never left to static
// destruction: the models it still writes would be freed after the allocator's own statics.
TraceCache* traceCache() {
  const std::lock_guard lock(gCacheMutex);
  if (gOff) return nullptr;
  if (!gCache) gCache = new TraceCache(optionsFromEnvironment());
  return gCache->limitBytes() > 0 ? gCache : nullptr;
}

void closeTraceCache() {
  const std::lock_guard lock(gCacheMutex);
  delete gCache;  // waits for the writes in flight
  gCache = nullptr;
  gOff = true;
}

}  // namespace steadyscope::cli
