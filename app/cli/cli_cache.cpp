#include "cli_cache.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace steadyscope::cli {

namespace {

bool gOff = false;

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

TraceCache* traceCache() {
  if (gOff) return nullptr;
  // Destroyed at exit, after the command: its destructor waits for the writes in flight.
  static TraceCache cache(optionsFromEnvironment());
  return cache.limitBytes() > 0 ? &cache : nullptr;
}

}  // namespace steadyscope::cli
