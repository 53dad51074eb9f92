#include "split_load.hpp"

#include "cli_cache.hpp"

#include <string_view>

namespace steadyscope::cli {

bool hasTraceSuffix(const std::string& p) {
  auto ends = [&](std::string_view suf) {
    return p.size() >= suf.size() && p.compare(p.size() - suf.size(), suf.size(), suf) == 0;
  };
  return ends("json") || ends("json.gz") || ends(".zip");
}

Expected<TracePtr> loadForSplit(const std::string& path, unsigned threads, std::string& note) {
  LoadOptions load;
  load.threads = threads;
  load.cache = traceCache();
  auto loaded = loadTrace(path, load);
  if (!loaded && loaded.error().code == "no_trace_events") {
    note = loaded.error().describe();
    loaded = loadTraceFromString(R"({"traceEvents": []})", path, load);
  }
  return loaded;
}

}  // namespace steadyscope::cli
