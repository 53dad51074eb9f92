#include "cli_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace steadyscope::cli {

namespace {

bool gOff = false;
TraceCache* gCache = nullptr;  // see traceCache()

TraceCacheOptions optionsFromEnvironment() {
  TraceCacheOptions o;
  if (const char* v = std::getenv("STEADYSCOPE_CACHE_LIMIT"); v && *v) {
    uint64_t bytes = 0;
    if (parseByteSize(v, bytes))
      o.limitBytes = bytes;
    else
      std::fprintf(stderr, "steadyscope-cli: STEADYSCOPE_CACHE_LIMIT='%s' is not a size (such as 10G); using 10G\n", v);
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
  if (gOff) return nullptr;
  if (!gCache) gCache = new TraceCache(optionsFromEnvironment());
  return gCache->limitBytes() > 0 ? gCache : nullptr;
}

void closeTraceCache() {
  delete gCache;  // waits for the writes in flight
  gCache = nullptr;
  gOff = true;
}

}  // namespace steadyscope::cli
