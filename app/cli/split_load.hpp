#pragma once
// Loading a trace as `split` does, for the single-trace and the many-trace form alike.
#include <steadyscope/io.hpp>

#include <string>

namespace steadyscope::cli {

/// The reference's suffix rule (spec §1.1): json.gz, json, zip (the member is read from the archive).
bool hasTraceSuffix(const std::string& path);

/// loadTrace on `threads` threads. A JSON object without traceEvents loads as a
/// trace with no events, as the reference reads it ("No GPU work", exit 0);
/// `note` then says what the file lacked.
Expected<TracePtr> loadForSplit(const std::string& path, unsigned threads, std::string& note);

}  // namespace steadyscope::cli
