// loadTrace: the source, the top-level scan, the parallel parse and the
// ordered commit of the plain path; the streamed gzip path is load_gzip.cpp,
// assembly assemble.cpp, the derived parts finalize*.cpp.
#include <steadyscope/core/io/loader.hpp>

#include "io/load_parts.hpp"
#include "io/load_tuning.hpp"
#include "io/source.hpp"
#include "io/trace_cache_impl.hpp"
#include "util/thread_group.hpp"

#include <steadyscope/core/util/threads.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>

#include <fmt/format.h>

namespace steadyscope {

namespace io {

namespace {

Error scanToError(const std::string& path, const ScanError& e) {
  // "no traceEvents" is about the whole object: no byte offset to point at.
  Error err = makeError(Error::Kind::Format, path, e.message,
                        e.code == "no_trace_events" ? std::nullopt : std::optional<uint64_t>(e.offset));
  err.code = e.code;
  return err;
}

uint64_t memAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return UINT64_MAX;
}

/// Address space left under the process's limit (ulimit -v), or UINT64_MAX
/// without one: where that limit is set, it fails allocations long before
/// physical memory runs out.
uint64_t addressSpaceLeftBytes() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  in >> pages;
  const uint64_t used = pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return lim.rlim_cur > used ? lim.rlim_cur - used : 0;
}

std::string gigabytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  return b >= 1e9 ? fmt::format("{:.1f} GB", b / 1e9) : fmt::format("{:.0f} MB", b / 1e6);
}

struct ParseOutcome {
  bool ok = true;
  bool cancelled = false;
  size_t failedPiece = SIZE_MAX;
  ParseFailure failure;
};

/// Parses pieces [from, to) on up to `threads` workers (workers[0] runs on the
/// calling thread); each takes the next unparsed piece, so the load balances
/// itself. Stops early on failure or cancellation.
ParseOutcome parseRange(std::string_view text, int fd, uint64_t fdBase, const std::vector<Piece>& pieces, size_t from,
                        size_t to, std::vector<Worker>& workers, OrderedSink& sink, JobControl* control) {
  ParseOutcome out;
  const unsigned threads =
      static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(workers.size(), to > from ? to - from : 1)));
  std::atomic<size_t> nextPiece{from};
  std::atomic<bool> stop{false};
  std::mutex failMutex;
  size_t longest = 0;
  for (size_t k = from; k < to; ++k) longest = std::max<size_t>(longest, pieces[k].end - pieces[k].begin);
  auto work = [&](unsigned w) {
    Worker& me = workers[w];
    me.parser.reserve(longest);  // one allocation for the whole range (the worker's own thread)
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      if (control && control->cancelled()) {
        stop = true;
        std::lock_guard<std::mutex> lock(failMutex);
        out.cancelled = true;
        return;
      }
      size_t k = nextPiece.fetch_add(1);
      if (k >= to) return;
      ParseFailure f;
      if (!me.parser.parsePiece(text, fd, fdBase, pieces[k], me.tables, *me.buf, f)) {
        stop = true;
        std::lock_guard<std::mutex> lock(failMutex);
        if (k < out.failedPiece) {
          out.failedPiece = k;
          out.failure = f;
          out.ok = false;
        }
        return;
      }
      sink.deliver(k, w, me.buf);
      if (control) {
        control->addDoneBytes(pieces[k].end - pieces[k].begin);
        control->addEvents(0);
      }
    }
  };
  ThreadGroup pool([&] { stop = true; });
  for (unsigned t = 1; t < threads; ++t) pool.run([&work, t] { work(t); });
  work(0);
  pool.join();
  if (out.cancelled) out.ok = true;  // cancellation wins over a later failure
  return out;
}

}  // namespace

/// Refuses a text whose model would not fit: ~64 B per event (41 B of columns
/// and lane lists, and finalize's temporaries), events of at least ~100 bytes
/// of JSON each.
std::optional<Error> memoryGuard(const std::string& path, uint64_t textBytes, const LoadOptions& options) {
  // Each thread also reserves its stack and its piece buffers.
  const uint64_t perThread = (8u << 20) + 4 * io::pieceBytesOf(options.tuning);
  const uint64_t need = textBytes / 100 * 64 + options.threads * perThread;
  uint64_t avail = options.assumeAvailableBytes ? options.assumeAvailableBytes : memAvailableBytes();
  avail = std::min(avail, addressSpaceLeftBytes());
  if (need <= avail) return std::nullopt;
  return outOfMemoryError(path, need, avail);
}

Error outOfMemoryError(const std::string& path, uint64_t needBytes, std::optional<uint64_t> availBytes) {
  Error e = makeError(Error::Kind::Resource, path,
                      availBytes ? fmt::format("not enough memory for this trace (needs about {}, {} available)",
                                               gigabytes(needBytes), gigabytes(*availBytes))
                                 : fmt::format("not enough memory for this trace (needs about {})", gigabytes(needBytes)));
  e.code = "out_of_memory";
  return e;
}

Error cancelledError(const std::string& path) {
  Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
  e.code = "cancelled";
  return e;
}

Error tooManyCategoriesError(const std::string& path) {
  Error e = makeError(
      Error::Kind::Resource, path,
      fmt::format("more than {} distinct event categories (\"cat\" values) are not supported", kMaxCategories));
  e.code = "too_many_categories";
  return e;
}

Error tooManyEventsError(const std::string& path) {
  Error e = makeError(Error::Kind::Resource, path, "more than 4 billion events are not supported");
  e.code = "too_many_events";
  return e;
}

/// A fresh model for `source`, ready for an OrderedSink.
std::shared_ptr<Trace> newTrace(const std::string& path, const std::string& compression, uint64_t fileBytes) {
  auto tr = std::make_shared<Trace>();
  tr->path = path;
  tr->baseName = referenceBaseName(path);
  tr->stats.fileBytes = fileBytes;
  tr->stats.compression = compression;
  return tr;
}

/// "at byte N: message": an error's words without its file name.
std::string placeAndMessage(const Error& e) {
  return e.byteOffset ? fmt::format("at byte {}: {}", *e.byteOffset, e.message) : e.message;
}

/// allowPartial: the complete events of a truncated text, closed after the
/// last of them in a temporary file and loaded as a model marked partial.
Expected<TracePtr> buildPartial(const std::string& path, const SourceText& source, const std::string& compression,
                                uint64_t fileBytes, const LoadOptions& opt, const Error& why) {
  const std::string_view text = source.text();
  bool needMore = false;
  ScanError ignored;
  const size_t first = scanToTraceEvents(text, true, needMore, ignored);
  if (first == std::string_view::npos) return why;  // cut before the events begin: nothing to keep
  const size_t cut = lastCompleteElementEnd(text, first);
  if (cut == first) return why;
  auto closed = closedPrefix(text, cut, opt.cacheDir, path);
  if (!closed) return closed.error();
  LoadOptions once = opt;
  once.allowPartial = false;
  return buildTrace(path, closed.value(), compression, fileBytes, once, PartialLoad{cut, placeAndMessage(why)});
}

Expected<TracePtr> buildTrace(const std::string& path, std::shared_ptr<const SourceText> source,
                              const std::string& compression, uint64_t fileBytes, const LoadOptions& opt,
                              std::optional<PartialLoad> partial) {
  LoadTimer timer;
  JobControl* control = opt.control;
  std::string_view text = source->text();
  const FileSpan file = fileSpanOf(*source);
  if (text.empty()) {
    Error e = makeError(Error::Kind::Format, path, "the file is empty (no JSON text)");
    e.code = "empty_file";
    return e;
  }
  if (control) {
    control->setStage(StageParse);
    control->setTotalBytes(text.size());
    control->setDoneBytes(0);
  }
  if (auto e = memoryGuard(path, text.size(), opt)) return *e;
  size_t pieceBytes = io::pieceBytesOf(opt.tuning);
  timer.mark("memory guard");
  TopLevelLayout layout;
  ScanError serr;
  if (!scanTopLevel(text, pieceBytes, false, layout, serr, std::string_view::npos, file.fd, file.offset)) {
    Error why = scanToError(path, serr);
    if (partial && serr.code == "truncated_json") {  // the compressed stream ended early: that is the reason
      why.message = partial->reason;
      why.byteOffset.reset();
    }
    if (opt.allowPartial && serr.code == "truncated_json")
      return buildPartial(path, *source, compression, fileBytes, opt, why);
    return why;
  }
  if (partial && partial->keptTextBytes == 0) partial->keptTextBytes = text.size();
  timer.mark("scan");
  for (int attempt = 0;; ++attempt) {
    auto tr = newTrace(path, compression, fileBytes);
    tr->partial = partial;
    std::vector<Worker> workers(opt.threads);
    OrderedSink sink(*tr, layout.arrayClose > layout.arrayOpen ? layout.arrayClose - layout.arrayOpen : text.size(),
                     workers.size());
    ParseOutcome po = parseRange(text, file.fd, file.offset, layout.pieces, 0, layout.pieces.size(),
                                 workers, sink, control);
    timer.mark("parse");
    if (po.cancelled) return cancelledError(path);
    if (sink.tooMany()) return tooManyEventsError(path);
    if (!po.ok && !layout.usedExactScan && attempt == 0) {
      // A heuristic cut may have landed inside a nested structure: redo exactly.
      if (control) control->setDoneBytes(0);
      if (!scanTopLevel(text, pieceBytes, true, layout, serr)) return scanToError(path, serr);
      continue;
    }
    if (!po.ok) {
      Error e = makeError(Error::Kind::Format, path, po.failure.message, po.failure.offset);
      e.code = "bad_json";
      return e;
    }
    return assemble(path, std::move(tr), std::move(source), std::move(layout), workers, sink, opt, timer);
  }
}

}  // namespace io

namespace {
/// The options with the thread count resolved (0: jobThreads()).
LoadOptions resolved(const LoadOptions& options) {
  LoadOptions opt = options;
  opt.threads = jobThreads(opt.threads);
  return opt;
}
}  // namespace

bool endsEarly(const Error& e) { return e.code == "gzip_truncated" || e.code == "truncated_json"; }

namespace {

Expected<TracePtr> loadResolved(const std::string& path, const LoadOptions& opt) {
  if (opt.control) opt.control->setStage(StageOpen);
  io::LoadTimer openTimer;
  auto src = io::openSource(path, opt.cacheDir, opt.control, /*indexGzip=*/true);
  if (!src) return src.error();
  openTimer.mark("open");
  if (src->gzip) {
    auto r = io::buildTraceGzipIndexed(path, src->gzip, src->fileBytes, opt);
    if (r.ok() || !opt.allowPartial || !endsEarly(r.error())) return r;
    // What the stream gave before it ended, on the plain path (which keeps it whole).
    auto whole = io::openSource(path, opt.cacheDir, opt.control, /*indexGzip=*/false, /*keepTruncated=*/true);
    if (!whole) return whole.error();
    std::optional<PartialLoad> partial;
    if (whole->truncation) partial = PartialLoad{0, io::placeAndMessage(*whole->truncation)};
    return io::buildTrace(path, whole->text, whole->compression, whole->fileBytes, opt, partial);
  }
  return io::buildTrace(path, src->text, src->compression, src->fileBytes, opt);
}

/// The model's size for a file of `fileBytes` (compressed files inflate ~10x).
uint64_t modelBytesGuess(const std::string& path, uint64_t fileBytes) {
  const bool plain = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return (plain ? fileBytes : fileBytes * 10) / 100 * 64;
}

}  // namespace

Expected<TracePtr> loadTrace(const std::string& path, const LoadOptions& options) {
  const LoadOptions opt = resolved(options);
  try {
    if (!opt.cache) return loadResolved(path, opt);
    auto& cache = TraceCacheAccess::of(*opt.cache);
    auto found = cache.find(path, opt);
    if (found.hit) return found.hit;
    auto r = loadResolved(path, opt);
    if (r && found.key) cache.store(r.value(), std::move(*found.key));
    return r;
  } catch (const std::bad_alloc&) {
    // The guard's estimate was short (or the limit moved): an allocation on this
    // thread failed, and everything it had built is freed by now.
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    return io::outOfMemoryError(path, modelBytesGuess(path, ec ? 0 : bytes), std::nullopt);
  }
}

Expected<TracePtr> loadTraceFromString(std::string json, const std::string& name, const LoadOptions& options) {
  uint64_t n = json.size();
  return io::buildTrace(name, io::makeStringSource(std::move(json)), "none", n, resolved(options));
}

}  // namespace steadyscope
