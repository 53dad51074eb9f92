#pragma once
// Writing gzip on every thread: the text is cut into blocks that are
// compressed independently (ISA-L level 1, raw deflate; each block but the last
// ends with a full flush, so none refers back into another) and written in
// order as one gzip stream: a 10-byte header, the blocks, then the CRC-32 of
// the whole text (combined from the blocks') and its length. Python's gzip,
// zlib and TraceLens read it as any gzip file; the bytes are the same for any
// thread count.
#include <steadyscope/core/util/error.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace steadyscope::io {

class GzipBlockWriter {
 public:
  /// Where the compressed bytes go, in order, on the caller's thread.
  using Sink = std::function<Expected<void>(std::string_view)>;

  /// `threads` (as jobThreads: 0 = the hardware's) compress at once; 1 compresses
  /// each block on the calling thread as it is added.
  GzipBlockWriter(Sink sink, unsigned threads);
  ~GzipBlockWriter();  // unfinished: the helpers stop, nothing more is written
  GzipBlockWriter(const GzipBlockWriter&) = delete;
  GzipBlockWriter& operator=(const GzipBlockWriter&) = delete;

  /// Adds the next block of text (any size; about 1 MiB keeps every thread busy
  /// and the ratio within 1 % of one stream's).
  Expected<void> add(std::string block);
  /// Writes what is left and the trailer; the writer is done.
  Expected<void> finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// `text` as one gzip stream of blocks of `blockBytes`, made as GzipBlockWriter makes it.
std::string gzipBlocks(std::string_view text, unsigned threads, size_t blockBytes = size_t(1) << 20);

}  // namespace steadyscope::io
