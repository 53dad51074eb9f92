// PiecePipe: inflated text cut into pieces for the parsers.
#include "io/piece_pipe.hpp"

#include <algorithm>
#include <cstring>

namespace steadyscope::io {

bool PiecePipe::space(size_t minBytes, uint8_t*& at, size_t& room) {
  if (stopped_.load(std::memory_order_relaxed)) return false;
  if (!cur_) {  // before traceEvents
    if (prefix_.size() < prefixUsed_ + minBytes)
      prefix_.resize(std::max(prefixUsed_ + minBytes, prefix_.size() * 2 + (256u << 10)));
    at = reinterpret_cast<uint8_t*>(prefix_.data() + prefixUsed_);
    room = prefix_.size() - prefixUsed_;
    return true;
  }
  // Stop a little past a piece so that the cut is near the end of the buffer.
  const size_t goal = pieceBytes_ + (16u << 10);
  size_t want = used_ < goal ? std::max(goal - used_, minBytes) : minBytes;
  if (cur_->room() < used_ + want) grow(used_ + want);
  at = reinterpret_cast<uint8_t*>(cur_->text() + used_);
  room = want;
  return true;
}

bool PiecePipe::produced(size_t n) {
  if (!cur_) {
    prefixUsed_ += n;
    // Keys before traceEvents are small in practice (Kineto's are under
    // 100 KB); a huge one, or a file without traceEvents, goes to the plain
    // path early rather than being inflated twice and rescanned at each doubling.
    if (prefixUsed_ > (4u << 20)) return startEvents(false) && cur_;
    if (prefixUsed_ < nextPrefixScan_) return true;
    nextPrefixScan_ = prefixUsed_ * 2;
    return startEvents(false);
  }
  used_ += n;
  while (used_ >= pieceBytes_ && nextExactAt_ != SIZE_MAX) {  // SIZE_MAX: the array's end is in this buffer
    if (used_ < 256 + 64) break;
    const size_t from = std::max<size_t>(searchFrom_, pieceBytes_ > (48u << 10) ? pieceBytes_ - (48u << 10) : 64);
    std::string_view t(cur_->text(), used_);
    size_t c = from + 64 < used_ - 256 ? findCut(t, from, used_ - 256) : std::string_view::npos;
    if (c == std::string_view::npos) {
      searchFrom_ = used_ > 256 + 64 ? used_ - 256 - 64 : 0;  // a long event: look further next time
      // No "},<newline>{" (minified text, or huge events): past two pieces,
      // cut exactly (quote/depth-aware) so that the buffer stays bounded.
      if (used_ < std::max(2 * pieceBytes_, nextExactAt_)) return true;
      TopLevelLayout tl;
      ScanError err;
      if (exactArrayScan(t, 0, pieceBytes_, tl, err)) {  // the array ends in this buffer: it is the tail
        nextExactAt_ = SIZE_MAX;
        return true;
      }
      if (err.code != "truncated_json") return false;  // malformed: the plain path reports it
      if (tl.pieces.empty()) {                         // one event longer than the buffer so far
        nextExactAt_ = used_ * 2;
        return true;
      }
      c = static_cast<size_t>(tl.pieces.back().end);  // a comma at the array's depth
    }
    nextExactAt_ = 0;
    const size_t k = skipWs(t, c + 1);
    std::unique_ptr<Buf> next = take();
    if (!next) return false;
    const size_t carry = used_ - k;
    if (next->room() < carry) next->data.resize(carry + kEdge);  // space() grows it further as needed
    std::memcpy(next->text(), cur_->text() + k, carry);
    Ready r;
    r.buf = std::move(cur_);
    r.piece = {base_, base_ + c};
    base_ += k;
    cur_ = std::move(next);
    used_ = carry;
    searchFrom_ = 0;
    push(std::move(r));
  }
  return true;
}

void PiecePipe::finish(bool ok) {
  if (ok && !cur_) startEvents(true);
  std::lock_guard<std::mutex> lock(m_);
  ok_ = ok && cur_ != nullptr;
  done_ = true;
  cv_.notify_all();
}

bool PiecePipe::pop(Ready& r) {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return !ready_.empty() || done_ || stopped_; });
  if (stopped_ || ready_.empty()) return false;
  r = std::move(ready_.front());
  ready_.pop_front();
  return true;
}

void PiecePipe::recycle(std::unique_ptr<Buf> b) {
  std::lock_guard<std::mutex> lock(m_);
  free_.push_back(std::move(b));
  cv_.notify_all();
}

void PiecePipe::stop() {
  std::lock_guard<std::mutex> lock(m_);
  stopped_ = true;
  cv_.notify_all();
}

void PiecePipe::release() {
  std::lock_guard<std::mutex> lock(m_);
  free_.clear();
  ready_.clear();
  cur_.reset();
  used_ = 0;
  std::string().swap(prefix_);
  prefixUsed_ = first_ = 0;
}

bool PiecePipe::startEvents(bool complete) {
  bool needMore = false;
  ScanError err;
  const size_t first = scanToTraceEvents(std::string_view(prefix_.data(), prefixUsed_), complete, needMore, err);
  if (first == std::string_view::npos) return needMore;  // a malformed prefix: the plain path reports it
  first_ = first;
  const size_t b = skipWs(std::string_view(prefix_.data(), prefixUsed_), first);
  cur_ = take();
  if (!cur_) return false;
  const size_t carry = prefixUsed_ - b;
  if (cur_->room() < carry + (64u << 10)) grow(carry + (64u << 10));
  std::memcpy(cur_->text(), prefix_.data() + b, carry);
  used_ = carry;
  base_ = b;
  return true;
}

std::unique_ptr<PiecePipe::Buf> PiecePipe::take() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return !free_.empty() || allocated_ < maxBufs_ || stopped_; });
  if (stopped_) return nullptr;
  if (!free_.empty()) {
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  ++allocated_;
  auto b = std::make_unique<Buf>();
  b->data.resize(pieceBytes_ + (64u << 10) + kEdge);
  return b;
}

void PiecePipe::grow(size_t need) {
  Column<char> bigger;
  bigger.resize(std::max(need + kEdge, cur_->data.size() * 2));
  std::memcpy(bigger.data() + 1, cur_->text(), used_);
  cur_->data = std::move(bigger);
}

void PiecePipe::push(Ready r) {
  std::lock_guard<std::mutex> lock(m_);
  r.k = nextK_++;
  ready_.push_back(std::move(r));
  cv_.notify_all();
}

}  // namespace steadyscope::io
