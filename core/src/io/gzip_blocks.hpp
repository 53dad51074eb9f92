#pragma once
// Writing gzip on every thread: the text comes in blocks, each made and
// compressed on its own (ISA-L level 1, raw deflate; every block but the last
// ends on a full flush, so none refers back into another) and written in order
// as one gzip stream: a 10-byte header, the blocks, then the CRC-32 of the
// whole text (combined from the blocks') and its length. Python's gzip, zlib
// and TraceLens read it as any gzip file. The bytes depend only on how the text
// is cut into blocks, never on the thread count (D-075).
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace steadyscope::io {

struct GzipBlockJob {
  size_t blocks = 0;
  /// Appends block k's text to `text` (empty on entry); `worker` in [0, threads)
  /// names the calling thread's slot, for per-thread readers. Called once per
  /// block, on any worker, for several blocks at once.
  std::function<Expected<void>(size_t k, unsigned worker, std::string& text)> produce;
  /// Receives the compressed bytes in order, from one thread at a time.
  std::function<Expected<void>(std::string_view bytes)> sink;
  unsigned threads = 1;  // workers, the calling thread included
  JobControl* control = nullptr;  // polled before each block: a cancel is an Error::Kind::Cancelled error
};

/// Makes, compresses and writes every block of `job`; the first error (in
/// block order) stops the rest.
Expected<void> writeGzipBlocks(const GzipBlockJob& job);

/// `text` as writeGzipBlocks writes it, cut into blocks of `blockBytes` (tests).
std::string gzipBlocks(std::string_view text, unsigned threads, size_t blockBytes = size_t(1) << 20);

}  // namespace steadyscope::io
