#pragma once
// The loader's parts shared by the plain path (loader.cpp), the streamed gzip
// path (load_gzip.cpp) and assembly (assemble.cpp). Options reaching these
// have their thread count resolved (LoadOptions::threads >= 1).
#include "io/event_parser.hpp"
#include "io/finalize.hpp"
#include "io/json_scan.hpp"
#include "io/ordered_sink.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::io {

/// One parsing thread's state, kept across pieces (and, for gzip, across the
/// streamed and the tail phase): a warm simdjson parser, its interner, a buffer.
struct Worker {
  EventParser parser;
  ThreadTables tables;
  std::unique_ptr<LocalColumns> buf = std::make_unique<LocalColumns>();
};

/// Refuses a text whose model would not fit (see loader.cpp).
std::optional<Error> memoryGuard(const std::string& path, uint64_t textBytes, const LoadOptions& options);
/// "not enough memory for this trace (needs about X GB[, Y GB available])", code out_of_memory.
Error outOfMemoryError(const std::string& path, uint64_t needBytes, std::optional<uint64_t> availBytes);
Error cancelledError(const std::string& path);
Error tooManyEventsError(const std::string& path);
Error tooManyCategoriesError(const std::string& path);

/// A fresh model for `source`, ready for an OrderedSink.
std::shared_ptr<Trace> newTrace(const std::string& path, const std::string& compression, uint64_t fileBytes);

/// Scans, parses and assembles a text that is wholly available. `partial`:
/// the text is what a file that ends early gave (the model is marked so).
Expected<TracePtr> buildTrace(const std::string& path, std::shared_ptr<const SourceText> source,
                              const std::string& compression, uint64_t fileBytes, const LoadOptions& opt,
                              std::optional<PartialLoad> partial = std::nullopt);

/// gzip: inflating and parsing together, keeping checkpoints (load_gzip.cpp).
Expected<TracePtr> buildTraceGzipIndexed(const std::string& path, std::shared_ptr<const SourceText> compressed,
                                         uint64_t fileBytes, const LoadOptions& opt);

/// After the last piece: global ids, the side tables, names, then finalize.
Expected<TracePtr> assemble(const std::string& path, std::shared_ptr<Trace> tr,
                            std::shared_ptr<const SourceText> source, TopLevelLayout layout,
                            std::vector<Worker>& workers, OrderedSink& sink, const LoadOptions& opt, LoadTimer& timer);

}  // namespace steadyscope::io
