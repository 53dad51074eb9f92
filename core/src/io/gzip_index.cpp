#include "io/gzip_index.hpp"

#include "util/big_alloc.hpp"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <iterator>
#include <memory>
#include <mutex>
#include <cstddef>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <isa-l/igzip_lib.h>

namespace steadyscope::io {

namespace {

/// The part of an inflate_state worth saving: everything before its output
/// history buffer, and the valid part of that buffer. ISA-L keeps the last
/// 32 KiB of output (and any output not yet handed out) in tmp_out_buffer
/// between calls, so the state is complete without the caller's buffers.
std::vector<uint8_t> saveState(const inflate_state& st) {
  const size_t head = offsetof(inflate_state, tmp_out_buffer);
  const size_t valid =
      std::min<size_t>(static_cast<size_t>(std::max<int32_t>(st.tmp_out_valid, 0)), sizeof(st.tmp_out_buffer));
  std::vector<uint8_t> v(head + valid);
  std::memcpy(v.data(), &st, head + valid);
  return v;
}

void restoreState(inflate_state& st, const GzipCheckpoint& cp) {
  if (cp.state.empty()) {
    isal_inflate_init(&st);
    st.crc_flag = IGZIP_GZIP;
    return;
  }
  std::memcpy(&st, cp.state.data(), std::min(cp.state.size(), sizeof(st)));
}

bool allZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

uint64_t checkpointSpacing(uint64_t textBytes) {
  // A reader re-inflates a checkpoint's span into fresh memory: narrower spans
  // for smaller texts (1 MiB up to 64 MiB of text), so writing a chunk touches
  // less; at most ~2048 checkpoints for the biggest (D-075).
  const uint64_t mib = uint64_t(1) << 20;
  return std::max(std::clamp(textBytes / 64, mib, 4 * mib), textBytes / 2048);
}

const char* inflateErrorText(int rc) {
  switch (rc) {
    case ISAL_INCORRECT_CHECKSUM: return "corrupt gzip data (CRC mismatch)";
    case ISAL_INVALID_BLOCK: return "corrupt compressed data (invalid deflate block)";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INVALID_SYMBOL: return "corrupt compressed data (invalid symbol)";
    case ISAL_INVALID_LOOKBACK: return "corrupt compressed data (invalid distance)";
    case ISAL_INVALID_WRAPPER: return "corrupt gzip header";
    default: return "corrupt compressed data";
  }
}

namespace {

/// One inflateIndexed call: the input, the target, and the text so far.
struct InflateRun {
  const uint8_t* in;
  size_t inLen;
  bool gzip, index;
  uint64_t every;
  InflateTarget& target;
  JobControl* control;
  const std::atomic<bool>* stop;
  uint64_t baseOffset;
  IndexedInflateResult& r;
  inflate_state& st;
  uint64_t out = 0, nextCheckpoint = 0;

  bool fail(const char* code, std::string message, uint64_t at) {
    r.failure = InflateFailure{code, std::move(message), baseOffset + at};
    return false;
  }
  bool stopped() {
    r.stopped = true;
    return false;
  }
  bool member(size_t& pos);
};

/// Inflates the member (or raw stream) starting at `pos` into the target and
/// moves `pos` past it; false when the run ends early (r says why).
bool InflateRun::member(size_t& pos) {
  isal_inflate_init(&st);
  st.crc_flag = gzip ? IGZIP_GZIP : IGZIP_DEFLATE;
  st.next_in = const_cast<uint8_t*>(in + pos);
  st.avail_in = static_cast<uint32_t>(std::min<size_t>(inLen - pos, 1u << 30));
  size_t fed = st.avail_in;
  const size_t memberStart = pos;
  for (;;) {
    uint8_t* at = nullptr;
    size_t room = 0;
    if (!target.space(64u << 10, at, room)) return stopped();
    room = std::min<size_t>(room, 1u << 30);
    st.next_out = at;
    st.avail_out = static_cast<uint32_t>(room);
    const int rc = isal_inflate(&st);
    const size_t made = room - st.avail_out;
    if (rc < 0 || rc == ISAL_NEED_DICT)
      return fail("gzip_corrupt", inflateErrorText(rc), static_cast<uint64_t>(st.next_in - in));
    out += made;
    if (made && !target.produced(made)) return stopped();
    const size_t consumed = fed - st.avail_in;
    if (control) control->setDoneBytes(baseOffset + memberStart + consumed);
    if ((control && control->cancelled()) || (stop && stop->load(std::memory_order_relaxed))) return stopped();
    if (st.block_state == ISAL_BLOCK_FINISH) {
      pos = memberStart + consumed;
      return true;
    }
    if (st.avail_in == 0 && made == 0) {
      if (memberStart + fed < inLen) {  // feed the next gigabyte
        const size_t more = std::min<size_t>(inLen - (memberStart + fed), 1u << 30);
        st.next_in = const_cast<uint8_t*>(in + memberStart + fed);
        st.avail_in = static_cast<uint32_t>(more);
        fed += more;
        continue;
      }
      return fail("gzip_truncated",
                  fmt::format("truncated compressed data: the stream ends before its end marker "
                              "({} bytes decompressed)",
                              out),
                  inLen);
    }
    if (index && out >= nextCheckpoint) {
      r.checkpoints.push_back({out, memberStart + consumed, saveState(st)});
      nextCheckpoint = out + every;
    }
  }
}

}  // namespace

IndexedInflateResult inflateIndexed(const uint8_t* in, size_t inLen, bool gzip, uint64_t every, InflateTarget& target,
                                    JobControl* control, const std::atomic<bool>* stop, uint64_t baseOffset) {
  IndexedInflateResult r;
  auto st = std::make_unique<inflate_state>();
  InflateRun run{in,   inLen,      gzip, every != 0, std::max<uint64_t>(every, 1u << 16), target, control,
                 stop, baseOffset, r,    *st};
  size_t pos = 0;
  bool anyMember = false;
  while (pos < inLen) {
    if (gzip && anyMember) {
      // Concatenated members form one stream; trailing zero padding is tolerated.
      if (allZero(in + pos, inLen - pos)) break;
      if (inLen - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
        run.fail("gzip_trailing", "trailing garbage after the gzip data", pos);
        return r;
      }
    }
    if (run.index && run.out >= run.nextCheckpoint) {
      r.checkpoints.push_back({run.out, pos, {}});
      run.nextCheckpoint = run.out + run.every;
    }
    if (!run.member(pos)) return r;
    anyMember = true;
    if (!gzip) break;
  }
  r.textBytes = run.out;
  return r;
}

namespace {

class GzipIndexedText;

/// Text re-inflated from one checkpoint up to `end`.
struct Span {
  uint64_t begin = 0, end = 0;
  Column<char> data;
  bool covers(uint64_t off, size_t len) const { return begin <= off && off + len <= end; }
};
using SpanPtr = std::shared_ptr<const Span>;

/// The spans every reader of one source shares, so that threads writing one
/// chunk inflate each span once between them (D-075): the kCached last used
/// stay; a span another reader is inflating is waited for.
class SpanCache {
 public:
  static constexpr size_t kCached = 8;
  /// The span from checkpoint k reaching at least `end`, from the cache or
  /// made here by `inflate(Span&)` (false: it failed, nothing is kept).
  template <typename F>
  SpanPtr get(size_t k, uint64_t end, F&& inflate) {
    std::unique_lock lock(m_);
    for (Entry* e = find(k, end); e; e = find(k, end)) {
      if (e->ready) {
        e->lastUse = ++clock_;
        return e->span;
      }
      cv_.wait(lock);  // another reader is inflating it
    }
    std::shared_ptr<Span> span = room();
    entries_.push_back({k, end, span, false, ++clock_});
    lock.unlock();
    const bool ok = inflate(*span);
    lock.lock();
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.span == span; });
    if (ok) {
      it->ready = true;
    } else {
      entries_.erase(it);
    }
    cv_.notify_all();
    return ok ? SpanPtr(span) : nullptr;
  }

 private:
  struct Entry {
    size_t k;
    uint64_t end;
    std::shared_ptr<Span> span;
    bool ready;
    uint64_t lastUse;
  };
  Entry* find(size_t k, uint64_t end) {
    for (Entry& e : entries_)
      if (e.k == k && e.end >= end) return &e;
    return nullptr;
  }
  // A span to inflate into: the least recently used one's buffer when the
  // cache is full and no reader holds it (no fresh pages), else a new one.
  std::shared_ptr<Span> room() {
    auto lru = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->ready && (lru == entries_.end() || it->lastUse < lru->lastUse)) lru = it;
    if (entries_.size() < kCached || lru == entries_.end()) return std::make_shared<Span>();
    std::shared_ptr<Span> old = std::move(lru->span);
    entries_.erase(lru);
    if (old.use_count() != 1) return std::make_shared<Span>();
    old->begin = old->end = 0;
    return old;
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

/// Reads through the source's shared spans, holding the few it used last (a
/// returned view stays valid until its next read; most reads hit these).
class GzipReader final : public TextReader {
 public:
  explicit GzipReader(const GzipIndexedText& src);
  bool read(uint64_t off, size_t len, std::string_view& out) override;
  const std::string& error() const override { return error_; }

 private:
  static constexpr size_t kHeld = 4;
  // A span reaches this far past the next checkpoint, so that an event
  // crossing it is read from the span its start lies in instead of
  // re-inflating that span a little longer.
  static constexpr uint64_t kOverlap = 64u << 10;
  bool inflateSpan(size_t cp, uint64_t end, Span& s);
  bool fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }

  const GzipIndexedText& src_;
  SpanPtr held_[kHeld];  // most recent first
  std::unique_ptr<inflate_state> st_ = std::make_unique<inflate_state>();
  std::vector<uint8_t> inBuf_;
  std::string error_;
};

class GzipIndexedText final : public SourceText {
 public:
  GzipIndexedText(int fd, std::string path, uint64_t textBytes, std::vector<GzipCheckpoint> cps)
      : fd_(::dup(fd)), path_(std::move(path)), textBytes_(textBytes), cps_(std::move(cps)) {
    struct stat sb {};
    if (fd_ >= 0 && ::fstat(fd_, &sb) == 0) {
      size_ = static_cast<uint64_t>(sb.st_size);
      mtimeNs_ = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    }
  }
  ~GzipIndexedText() override {
    if (fd_ >= 0) ::close(fd_);
  }
  std::string_view text() const override { return {}; }
  uint64_t size() const override { return textBytes_; }
  std::unique_ptr<TextReader> reader() const override { return std::make_unique<GzipReader>(*this); }

  /// Empty when the compressed file is as it was at load time, else why not.
  std::string changed() const {
    if (fd_ < 0) return "the trace file could not be reopened";
    struct stat sb {};
    if (::fstat(fd_, &sb) != 0) return fmt::format("cannot stat the trace file: {}", std::strerror(errno));
    const int64_t m = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    if (static_cast<uint64_t>(sb.st_size) != size_ || m != mtimeNs_)
      return "the trace file was modified after it was loaded; reload it to read its events' text";
    return {};
  }

  int fd_;
  std::string path_;
  uint64_t textBytes_;
  std::vector<GzipCheckpoint> cps_;
  uint64_t size_ = 0;
  int64_t mtimeNs_ = 0;
  mutable SpanCache spans_;
};

GzipReader::GzipReader(const GzipIndexedText& src) : src_(src) {}

bool GzipReader::read(uint64_t off, size_t len, std::string_view& out) {
  if (off > src_.textBytes_ || len > src_.textBytes_ - off)
    return fail(fmt::format("range {}+{} lies outside the text ({} bytes)", off, len, src_.textBytes_));
  auto hit = std::find_if(std::begin(held_), std::end(held_), [&](const SpanPtr& s) { return s && s->covers(off, len); });
  if (hit == std::end(held_)) {
    // The last checkpoint at or before `off`; inflate a little past the next
    // one (or further for a longer range), so that neighbouring reads hit the span.
    const auto& cps = src_.cps_;
    auto it =
        std::upper_bound(cps.begin(), cps.end(), off, [](uint64_t v, const GzipCheckpoint& c) { return v < c.out; });
    if (it == cps.begin()) return fail(fmt::format("no checkpoint before text offset {}", off));
    const size_t k = static_cast<size_t>(it - cps.begin()) - 1;
    uint64_t end = k + 1 < cps.size() ? cps[k + 1].out + kOverlap : src_.textBytes_;
    end = std::max<uint64_t>(std::min(end, src_.textBytes_), off + len);
    SpanPtr span = src_.spans_.get(k, end, [&](Span& s) { return inflateSpan(k, end, s); });
    if (!span) return false;
    hit = std::end(held_) - 1;  // the oldest goes
    *hit = std::move(span);
  }
  std::rotate(std::begin(held_), hit, hit + 1);
  out = std::string_view(held_[0]->data.data() + (off - held_[0]->begin), len);
  return true;
}

bool GzipReader::inflateSpan(size_t k, uint64_t end, Span& s) {
  if (auto why = src_.changed(); !why.empty()) return fail(why);
  const GzipCheckpoint& cp = src_.cps_[k];
  const size_t need = static_cast<size_t>(end - cp.out);
  s.begin = s.end = 0;
  if (s.data.size() < need) {
    s.data = Column<char>();
    s.data.resize(need);
  }
  inflate_state& st = *st_;
  restoreState(st, cp);
  constexpr size_t kIn = 256u << 10;
  inBuf_.resize(kIn);
  uint64_t chunkAt = cp.in;  // file offset of inBuf_[0]
  size_t chunkLen = 0;
  st.next_in = inBuf_.data();
  st.avail_in = 0;
  size_t made = 0;
  auto corrupt = [&] {
    return fail(fmt::format("cannot re-read the compressed text near byte offset {} (the file changed or is damaged)",
                            chunkAt + static_cast<uint64_t>(st.next_in - inBuf_.data())));
  };
  while (made < need) {
    if (st.block_state == ISAL_BLOCK_FINISH) {
      // The member ended: the next one starts where its trailer ended.
      const uint32_t left = st.avail_in;
      uint8_t* nextIn = st.next_in;
      isal_inflate_init(&st);
      st.crc_flag = IGZIP_GZIP;
      st.next_in = nextIn;
      st.avail_in = left;
    }
    if (st.avail_in == 0) {
      chunkAt += chunkLen;
      ssize_t got;
      do {
        got = ::pread(src_.fd_, inBuf_.data(), kIn, static_cast<off_t>(chunkAt));
      } while (got < 0 && errno == EINTR);
      if (got <= 0) return corrupt();
      chunkLen = static_cast<size_t>(got);
      st.next_in = inBuf_.data();
      st.avail_in = static_cast<uint32_t>(chunkLen);
    }
    const uint32_t inBefore = st.avail_in;
    st.next_out = reinterpret_cast<uint8_t*>(s.data.data() + made);
    st.avail_out = static_cast<uint32_t>(std::min<size_t>(need - made, 1u << 30));
    const uint32_t outBefore = st.avail_out;
    const int rc = isal_inflate(&st);
    if (rc < 0 || rc == ISAL_NEED_DICT) return corrupt();
    made += outBefore - st.avail_out;
    if (st.avail_out == outBefore && st.avail_in == inBefore && st.block_state != ISAL_BLOCK_FINISH)
      return corrupt();  // no progress: input ended early
  }
  s.begin = cp.out;
  s.end = end;
  return true;
}

}  // namespace

std::shared_ptr<const SourceText> makeGzipIndexedSource(int fd, const std::string& path, uint64_t textBytes,
                                                        std::vector<GzipCheckpoint> checkpoints) {
  return std::make_shared<GzipIndexedText>(fd, path, textBytes, std::move(checkpoints));
}

const std::vector<GzipCheckpoint>* gzipCheckpointsOf(const SourceText& source) {
  const auto* g = dynamic_cast<const GzipIndexedText*>(&source);
  return g ? &g->cps_ : nullptr;
}

}  // namespace steadyscope::io
