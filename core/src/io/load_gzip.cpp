// The streamed gzip path: one thread inflates the file, keeping checkpoints
// for later random access (io/gzip_index.hpp), while the parsers take pieces
// as they come. No copy of the text is kept.
#include "io/load_parts.hpp"
#include "io/load_tuning.hpp"
#include "io/piece_pipe.hpp"
#include "io/source.hpp"
#include "util/side_by_side.hpp"
#include "util/thread_group.hpp"

#include <cstdio>
#include <cstring>
#include <new>

namespace steadyscope::io {

namespace {

/// The gzip trailer's ISIZE is the text size modulo 2^32 (of the last member):
/// the smallest such size not below the compressed size is an estimate.
uint64_t estimateTextBytes(std::string_view z) {
  if (z.size() < 18) return 0;
  uint32_t isize;
  std::memcpy(&isize, z.data() + z.size() - 4, 4);
  uint64_t expected = isize;
  while (expected < z.size()) expected += uint64_t(1) << 32;
  return std::min<uint64_t>(expected, uint64_t(z.size()) * 64);
}

/// Parses the pipe's pieces on every worker until the inflater ends; false
/// when a piece does not parse.
bool parseStream(PiecePipe& pipe, std::vector<Worker>& workers, OrderedSink& sink, JobControl* control) {
  std::atomic<bool> failed{false};
  auto work = [&](unsigned w) {
    Worker& me = workers[w];
    PiecePipe::Ready r;
    while (pipe.pop(r)) {
      ParseFailure f;
      // In place: the inflater wrote the text where the parser reads it.
      const bool ok = me.parser.parseInPlace(r.buf->data.data(), r.buf->data.size() - PiecePipe::kEdge / 2, r.piece,
                                             me.tables, *me.buf, f);
      pipe.recycle(std::move(r.buf));
      if (!ok) {
        failed = true;
        pipe.stop();
        return;
      }
      sink.deliver(r.k, w, me.buf);
      if (control && control->cancelled()) {
        pipe.stop();
        return;
      }
    }
  };
  ThreadGroup helpers([&] { pipe.stop(); });
  for (unsigned w = 1; w < workers.size(); ++w) helpers.run([&work, w] { work(w); });
  work(0);
  helpers.join();
  return !failed;
}

/// The tail: exact scan to the array's end (into `tl`), cut so that every
/// worker parses a share of it; the inflater has ended, so nothing else runs.
/// Null when all went well, else why the plain path should take over.
const char* parseTail(PiecePipe& pipe, std::vector<Worker>& workers, OrderedSink& sink, TopLevelLayout& tl) {
  const std::string_view tail = pipe.tail();
  const uint64_t tailBase = pipe.tailBase();
  ScanError err;
  const size_t share = std::max<size_t>(tail.size() / workers.size() + 1, 64u << 10);
  if (!exactArrayScan(tail, 0, share, tl, err)) return "the tail does not scan";
  const size_t first = pipe.pieces();
  std::atomic<size_t> next{0};
  std::atomic<unsigned> ids{0};
  std::atomic<bool> failed{false};
  runOnWorkers(static_cast<unsigned>(std::min(workers.size(), tl.pieces.size())), [&] {
    const unsigned w = ids++;
    Worker& me = workers[w];
    for (size_t j; !failed && (j = next++) < tl.pieces.size();) {
      const Piece& p = tl.pieces[j];
      ParseFailure f;
      if (!me.parser.parseBytes(tail.data() + p.begin, {tailBase + p.begin, tailBase + p.end}, me.tables, *me.buf, f)) {
        failed = true;
        return;
      }
      sink.deliver(first + j, w, me.buf);
    }
  });
  return failed ? "a tail piece did not parse" : nullptr;
}

/// The top-level keys around the array: the text before it and the text
/// after the tail's array end.
bool scanOuterKeys(const PiecePipe& pipe, const TopLevelLayout& tl, size_t pieceBytes, TopLevelLayout& layout) {
  const std::string_view prefix = pipe.prefix(), tail = pipe.tail();
  std::string outer;
  outer.reserve(prefix.size() + tail.size() - tl.arrayClose);
  outer.append(prefix);
  outer.append(tail.substr(tl.arrayClose));
  ScanError err;
  if (!scanTopLevel(outer, pieceBytes, false, layout, err, prefix.size())) return false;
  layout.arrayOpen = prefix.size() - 1;
  layout.arrayClose = pipe.tailBase() + tl.arrayClose;
  return true;
}

}  // namespace

/// Anything unusual — corrupt or truncated data, a malformed prefix, a piece
/// that does not parse, a tail that does not scan — hands over to the plain
/// path (decompression into a temporary file, exact scan), which names the
/// problem and its byte offset.
Expected<TracePtr> buildTraceGzipIndexed(const std::string& path, std::shared_ptr<const SourceText> compressed,
                                         uint64_t fileBytes, const LoadOptions& opt) {
  JobControl* control = opt.control;
  const size_t pieceBytes = io::pieceBytesOf(opt.tuning);
  LoadTimer timer;
  auto plain = [&](const char* why) -> Expected<TracePtr> {
    if (timer.on) std::fprintf(stderr, "[load] gzip: starting over on the plain path (%s)\n", why);
    if (control) control->setDoneBytes(0);
    auto src = openSource(path, opt.cacheDir, control, /*indexGzip=*/false);
    if (!src) return src.error();
    return buildTrace(path, src->text, src->compression, src->fileBytes, opt);
  };
  const std::string_view z = compressed->text();
  const uint64_t expected = estimateTextBytes(z);
  if (auto e = memoryGuard(path, expected, opt)) return *e;
  if (control) {
    control->setStage(StageDecompress);
    control->setTotalBytes(z.size());
  }
  PiecePipe pipe(pieceBytes, 2 * opt.threads + 2);
  IndexedInflateResult inflated;
  ThreadGroup inflater([&] { pipe.stop(); });
  const bool started = inflater.tryRun([&] {
    uint64_t every = io::tuningOf(opt.tuning).gzipCheckpointBytes;
    if (!every) every = checkpointSpacing(expected);
    inflated = inflateIndexed(reinterpret_cast<const uint8_t*>(z.data()), z.size(), /*gzip=*/true, every, pipe, control,
                              pipe.stopFlag());
    pipe.finish(inflated.ok());
  });
  if (!started) throw std::bad_alloc();  // the parse needs the inflater beside it: the caller says "not enough memory"
  auto tr = newTrace(path, "gzip", fileBytes);
  std::vector<Worker> workers(opt.threads);
  OrderedSink sink(*tr, expected, workers.size());
  const bool parsed = parseStream(pipe, workers, sink, control);
  inflater.join();
  if (control && control->cancelled()) return cancelledError(path);
  if (sink.tooMany()) return tooManyEventsError(path);
  if (!parsed) return plain("a piece did not parse");
  if (!pipe.ok()) return plain("the stream or its prefix is not as expected");
  if (timer.on)
    std::fprintf(stderr, "[load] %zu pieces inflated and parsed, %zu checkpoints\n", pipe.pieces(),
                 inflated.checkpoints.size());
  timer.mark("inflate+parse");
  if (control) control->setStage(StageParse);
  TopLevelLayout tl, layout;
  if (const char* why = parseTail(pipe, workers, sink, tl)) return plain(why);
  if (sink.tooMany()) return tooManyEventsError(path);
  if (!scanOuterKeys(pipe, tl, pieceBytes, layout)) return plain("the top-level keys do not scan");
  timer.mark("tail");
  pipe.release();  // its buffers' pages go to finalize (see assemble)
  auto source = makeGzipIndexedSource(fileSpanOf(*compressed).fd, path, inflated.textBytes, std::move(inflated.checkpoints));
  return assemble(path, std::move(tr), std::move(source), std::move(layout), workers, sink, opt, timer);
}

}  // namespace steadyscope::io
