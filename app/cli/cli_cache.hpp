#pragma once
// The CLI's trace cache (core/io/trace_cache.hpp): on for every command that
// loads a trace, unless `--no-cache` is given anywhere on the command line; its
// size cap from STEADYSCOPE_CACHE_LIMIT (parseByteSize: "8G", "512M"; 10 GB when
// unset; "0" stores nothing).
#include <steadyscope/io.hpp>

#include <string>
#include <vector>

namespace steadyscope::cli {

/// Removes every `--no-cache` from the words and turns the cache off if one was there.
void takeNoCacheOption(std::vector<std::string>& words);
/// The cache for this process's loads; null when turned off.
TraceCache* traceCache();
/// Waits for the cache's writes and closes it (main, after the command).
void closeTraceCache();
/// The option's line for a command's --help.
inline constexpr const char* kNoCacheHelp =
    "  --no-cache   parse TRACE even when the trace cache holds its model (the cache:\n"
    "               $XDG_CACHE_HOME/steadyscope/traces; size cap STEADYSCOPE_CACHE_LIMIT, 10 GB)\n";

}  // namespace steadyscope::cli
