#pragma once
// The streamed gzip path's buffers between the inflating thread and the parsers.
#include "io/gzip_index.hpp"
#include "io/json_scan.hpp"

#include "util/big_alloc.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::io {
/// Inflated text on its way from the inflating thread to the parsers. The
/// inflater writes straight into piece buffers (a bounded pool, so it never
/// runs far ahead of the parsers); when a buffer holds about a piece, it is
/// cut at an event boundary (findCut), queued, and what follows the cut starts
/// the next buffer. Text before traceEvents is kept apart (the top-level keys),
/// and the buffer left when the stream ends is the tail: its exact scan finds
/// the array's end and the keys after it.
class PiecePipe final : public InflateTarget {
 public:
  /// Text at data + 1 (data[0] takes the '[' the parser wraps a piece in);
  /// kEdge bytes stay free at the end for the ']' and the parser's padding.
  struct Buf {
    Column<char> data;
    char* text() { return data.data() + 1; }
    size_t room() const { return data.size() - kEdge; }  // text bytes it can hold
  };
  static constexpr size_t kEdge = 256;
  struct Ready {
    size_t k = 0;
    std::unique_ptr<Buf> buf;
    Piece piece;  // text offsets; bytes at buf->data
  };

  PiecePipe(size_t pieceBytes, size_t maxBufs) : pieceBytes_(pieceBytes), maxBufs_(maxBufs) {}

  // ---- inflating thread ----
  bool space(size_t minBytes, uint8_t*& at, size_t& room) override;
  bool produced(size_t n) override;

  /// The inflater ended (`ok`: the whole stream was read).
  void finish(bool ok);

  // ---- parsers ----
  /// The next piece in text order; false when there are no more (or stopped).
  bool pop(Ready& r);
  void recycle(std::unique_ptr<Buf> b);
  void stop();
  const std::atomic<bool>* stopFlag() const { return &stopped_; }

  // ---- after the inflater and the parsers have ended ----
  bool ok() const { return ok_; }
  size_t pieces() const { return nextK_; }
  std::string_view prefix() const { return std::string_view(prefix_.data(), first_); }  // up to and with '['
  std::string_view tail() const { return std::string_view(cur_->text(), used_); }
  uint64_t tailBase() const { return base_; }
  /// Frees every buffer (prefix() and tail() are invalid afterwards).
  void release();

 private:
  /// Looks for the '[' of traceEvents in the text so far; once found, the
  /// events' text moves to the first piece buffer.
  bool startEvents(bool complete);
  /// A buffer from the pool, waiting while all are in use; null when stopped.
  std::unique_ptr<Buf> take();
  void grow(size_t need);
  void push(Ready r);

  const size_t pieceBytes_, maxBufs_;
  std::string prefix_;
  size_t prefixUsed_ = 0, nextPrefixScan_ = 4096, first_ = 0;
  std::unique_ptr<Buf> cur_;
  size_t used_ = 0, searchFrom_ = 0, nextExactAt_ = 0;
  uint64_t base_ = 0;
  size_t nextK_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Ready> ready_;
  std::vector<std::unique_ptr<Buf>> free_;
  size_t allocated_ = 0;
  std::atomic<bool> stopped_{false};
  bool done_ = false, ok_ = false;
};

}  // namespace steadyscope::io
