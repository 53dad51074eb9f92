#include "io/gzip_blocks.hpp"

#include "util/side_by_side.hpp"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

namespace steadyscope::io {

namespace {

struct Slot {
  size_t block = 0;
  bool done = false;
  Expected<void> status;
  // Kept from block to block, and never zero-filled: fresh or cleared pages
  // cost more here than compressing them.
  std::string text;
  std::unique_ptr<uint8_t[]> out;
  size_t outRoom = 0, outBytes = 0;
  uint32_t crc = 0;

  std::string_view compressed() const { return {reinterpret_cast<const char*>(out.get()), outBytes}; }
  void ensureRoom(size_t n) {
    if (outRoom >= n) return;
    auto bigger = std::make_unique_for_overwrite<uint8_t[]>(n);
    if (outBytes) std::memcpy(bigger.get(), out.get(), outBytes);
    out = std::move(bigger);
    outRoom = n;
  }
};

// One block as raw deflate: the last ends the stream, the others end on a full flush.
Expected<void> compress(Slot& s, bool last) {
  thread_local std::vector<uint8_t> levelBuf(ISAL_DEF_LVL1_DEFAULT);
  if (s.text.size() > std::numeric_limits<uint32_t>::max())
    return makeError(Error::Kind::Internal, "", "a gzip block over 4 GiB");
  isal_zstream z{};
  isal_deflate_init(&z);
  z.level = 1;
  z.level_buf = levelBuf.data();
  z.level_buf_size = static_cast<uint32_t>(levelBuf.size());
  z.gzip_flag = IGZIP_DEFLATE;
  z.end_of_stream = last ? 1 : 0;
  z.flush = last ? NO_FLUSH : FULL_FLUSH;
  z.next_in = reinterpret_cast<uint8_t*>(s.text.data());
  z.avail_in = static_cast<uint32_t>(s.text.size());
  s.outBytes = 0;
  s.ensureRoom(s.text.size() + s.text.size() / 16 + 1024);
  do {
    if (s.outBytes == s.outRoom) s.ensureRoom(s.outRoom * 2);
    z.next_out = s.out.get() + s.outBytes;
    z.avail_out = static_cast<uint32_t>(std::min<size_t>(s.outRoom - s.outBytes, UINT32_MAX));
    const uint32_t room = z.avail_out;
    if (isal_deflate(&z) != COMP_OK) return makeError(Error::Kind::Internal, "", "gzip compression failed");
    s.outBytes += room - z.avail_out;
  } while (z.avail_in > 0 || z.avail_out == 0 || (last && z.internal_state.state != ZSTATE_END));
  s.crc = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(s.text.data()), s.text.size());
  return {};
}

std::string le32(uint32_t v) {
  std::string s;
  for (int k = 0; k < 4; ++k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  return s;
}

// The workers share the blocks out in order; a window of slots bounds the
// blocks made but not yet written. Whoever finishes the next block to write
// writes it (and any done after it), one writer at a time.
class BlockRun {
 public:
  // One slot a worker, and one more for the block waiting to be written while
  // the others are made; alone, one slot is reused for every block.
  BlockRun(const GzipBlockJob& job, unsigned workers) : job_(job), slots_(workers > 1 ? workers + 1 : 1) {}

  void work() {
    const unsigned me = ids_++;
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || next_ >= job_.blocks || next_ < written_ + slots_.size(); });
      if (stop_ || next_ >= job_.blocks) return;
      const size_t k = next_++;
      Slot& s = slots_[k % slots_.size()];
      lock.unlock();
      Expected<void> st = make(k, me, s);
      lock.lock();
      s.block = k;
      s.status = std::move(st);
      s.done = true;
      drain(lock);
    }
  }

  Expected<void> result() {
    std::lock_guard lock(m_);
    return result_;
  }

 private:
  Expected<void> make(size_t k, unsigned worker, Slot& s) {
    try {
      if (job_.control && job_.control->cancelled()) return makeError(Error::Kind::Cancelled, "", "cancelled");
      s.text.clear();
      if (auto p = job_.produce(k, worker, s.text); !p) return p;
      return compress(s, k + 1 == job_.blocks);
    } catch (const std::exception& e) {  // on a helper thread: an error of this block, not std::terminate
      return makeError(Error::Kind::Resource, "", std::string("cannot write the block: ") + e.what());
    }
  }

  // Writes done blocks in order while this thread holds the writer's turn.
  void drain(std::unique_lock<std::mutex>& lock) {
    while (!writing_ && !stop_ && written_ < job_.blocks) {
      Slot& s = slots_[written_ % slots_.size()];
      if (!s.done || s.block != written_) return;
      if (!s.status) return finish(s.status);
      writing_ = true;
      lock.unlock();
      Expected<void> w = write(s);
      lock.lock();
      writing_ = false;
      s.done = false;
      ++written_;
      cv_.notify_all();
      if (!w) return finish(w);
      if (written_ == job_.blocks) return finish({});
    }
  }

  Expected<void> write(const Slot& s) {
    if (written_ == 0) {
      static constexpr char kHeader[] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};  // deflate, no name, Unix
      if (auto w = job_.sink(std::string_view(kHeader, sizeof kHeader)); !w) return w;
    }
    if (auto w = job_.sink(s.compressed()); !w) return w;
    crc_ = static_cast<uint32_t>(crc32_combine(crc_, s.crc, static_cast<z_off_t>(s.text.size())));
    total_ += s.text.size();
    if (written_ + 1 < job_.blocks) return {};
    return job_.sink(le32(crc_) + le32(static_cast<uint32_t>(total_)));  // ISIZE: the length modulo 2^32
  }

  void finish(Expected<void> r) {
    result_ = std::move(r);
    stop_ = true;
    cv_.notify_all();
  }

  const GzipBlockJob& job_;
  std::vector<Slot> slots_;
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<unsigned> ids_{0};
  size_t next_ = 0, written_ = 0;
  bool writing_ = false, stop_ = false;
  Expected<void> result_ = makeError(Error::Kind::Internal, "", "gzip blocks not all written");
  uint32_t crc_ = 0;
  uint64_t total_ = 0;
};

}  // namespace

Expected<void> writeGzipBlocks(const GzipBlockJob& job) {
  if (job.blocks == 0) return makeError(Error::Kind::Internal, "", "a gzip stream needs at least one block");
  const auto workers = static_cast<unsigned>(std::min<size_t>(std::max(1u, job.threads), job.blocks));
  BlockRun run(job, workers);
  runOnWorkers(workers, [&] { run.work(); });
  return run.result();
}

std::string gzipBlocks(std::string_view text, unsigned threads, size_t blockBytes) {
  std::string out;
  GzipBlockJob job;
  job.blocks = std::max<size_t>(1, (text.size() + blockBytes - 1) / blockBytes);
  job.threads = threads;
  job.produce = [&](size_t k, unsigned, std::string& t) -> Expected<void> {
    if (k * blockBytes < text.size()) t.assign(text.substr(k * blockBytes, blockBytes));
    return {};
  };
  job.sink = [&](std::string_view s) -> Expected<void> {
    out.append(s);
    return {};
  };
  if (!writeGzipBlocks(job)) out.clear();
  return out;
}

}  // namespace steadyscope::io
