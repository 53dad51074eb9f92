#include "io/gzip_blocks.hpp"

#include <steadyscope/core/util/threads.hpp>
#include "util/thread_group.hpp"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace steadyscope::io {

namespace {

struct Block {
  std::string in, out;
  uint32_t crc = 0;
  bool last = false;
  bool done = false;
};

// One block as raw deflate: the last ends the stream, the others end on a full flush.
void compress(Block& b) {
  thread_local std::vector<uint8_t> levelBuf(ISAL_DEF_LVL1_DEFAULT);
  if (b.in.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("gzip block over 4 GiB");
  isal_zstream s{};
  isal_deflate_init(&s);
  s.level = 1;
  s.level_buf = levelBuf.data();
  s.level_buf_size = static_cast<uint32_t>(levelBuf.size());
  s.gzip_flag = IGZIP_DEFLATE;
  s.end_of_stream = b.last ? 1 : 0;
  s.flush = b.last ? NO_FLUSH : FULL_FLUSH;
  s.next_in = reinterpret_cast<uint8_t*>(b.in.data());
  s.avail_in = static_cast<uint32_t>(b.in.size());
  b.out.resize(b.in.size() + b.in.size() / 16 + 1024);
  size_t produced = 0;
  do {
    if (produced == b.out.size()) b.out.resize(b.out.size() * 2);
    s.next_out = reinterpret_cast<uint8_t*>(b.out.data()) + produced;
    s.avail_out = static_cast<uint32_t>(std::min<size_t>(b.out.size() - produced, UINT32_MAX));
    const uint32_t room = s.avail_out;
    if (isal_deflate(&s) != COMP_OK) throw std::runtime_error("gzip compression failed");
    produced += room - s.avail_out;
  } while (s.avail_in > 0 || s.avail_out == 0 || (b.last && s.internal_state.state != ZSTATE_END));
  b.out.resize(produced);
  b.crc = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(b.in.data()), b.in.size());
}

void putLe32(std::string& s, uint32_t v) {
  for (int k = 0; k < 4; ++k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

}  // namespace

struct GzipBlockWriter::State {
  Sink sink;
  unsigned threads = 1;  // at most: the helpers and the writing thread
  unsigned helpers = 0;
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Block>> order;  // added, not yet written
  std::deque<Block*> todo;                   // added, not yet taken by a compressor
  std::unique_ptr<Block> held;               // the newest block: the last one until another comes
  bool stopping = false;
  bool failed = false;
  bool started = false;  // the header is written
  uint32_t crc = 0;
  uint64_t total = 0;
  ThreadGroup group{[this] {
    std::lock_guard lock(m);
    failed = stopping = true;
    cv.notify_all();
  }};

  void startHelpers() {
    while (helpers + 1 < threads) {
      if (!group.tryRun([this] { helperLoop(); })) break;  // no thread to be had: fewer do it
      ++helpers;
    }
    threads = helpers + 1;
  }

  void helperLoop() {
    for (;;) {
      Block* b = nullptr;
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stopping || !todo.empty(); });
        if (stopping) return;
        b = todo.front();
        todo.pop_front();
      }
      compress(*b);
      std::lock_guard lock(m);
      b->done = true;
      cv.notify_all();
    }
  }

  void submit(std::unique_ptr<Block> b) {
    std::lock_guard lock(m);
    todo.push_back(b.get());
    order.push_back(std::move(b));
    cv.notify_all();
  }

  // The oldest block, compressed: by a helper, or here when one is still waiting.
  Block& front() {
    std::unique_lock lock(m);
    Block& f = *order.front();
    while (!f.done) {
      if (failed) {
        lock.unlock();
        group.join();  // rethrows the helper's exception
        throw std::runtime_error("gzip compression stopped");
      }
      if (!todo.empty()) {
        Block* b = todo.front();
        todo.pop_front();
        lock.unlock();
        compress(*b);
        lock.lock();
        b->done = true;
        cv.notify_all();
        continue;
      }
      cv.wait(lock);
    }
    return f;
  }

  // Writes blocks in order until at most `keep` are in flight.
  Expected<void> drain(size_t keep) {
    while (order.size() > keep) {
      Block& b = front();
      if (!started) {
        static constexpr char kHeader[] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};  // deflate, no name, Unix
        if (auto w = sink(std::string_view(kHeader, sizeof kHeader)); !w) return w;
        started = true;
      }
      if (auto w = sink(b.out); !w) return w;
      crc = static_cast<uint32_t>(crc32_combine(crc, b.crc, static_cast<z_off_t>(b.in.size())));
      total += b.in.size();
      std::lock_guard lock(m);
      order.pop_front();
    }
    return {};
  }
};

GzipBlockWriter::GzipBlockWriter(Sink sink, unsigned threads) : s_(std::make_unique<State>()) {
  s_->sink = std::move(sink);
  s_->threads = jobThreads(threads);
}

GzipBlockWriter::~GzipBlockWriter() {
  {
    std::lock_guard lock(s_->m);
    s_->stopping = true;
    s_->cv.notify_all();
  }
  try {
    s_->group.join();
  } catch (...) {  // the error was reported by add() or finish(), or nobody is left to ask
  }
}

Expected<void> GzipBlockWriter::add(std::string block) {
  auto b = std::make_unique<Block>();
  b->in = std::move(block);
  if (s_->held) {
    s_->startHelpers();  // a second block: only now do threads pay
    s_->submit(std::move(s_->held));
  }
  s_->held = std::move(b);
  return s_->drain(s_->helpers ? 2 * size_t(s_->helpers) + 2 : 0);
}

Expected<void> GzipBlockWriter::finish() {
  if (!s_->held) s_->held = std::make_unique<Block>();  // no text: one empty final block
  s_->held->last = true;
  s_->submit(std::move(s_->held));
  if (auto d = s_->drain(0); !d) return d;
  std::string trailer;
  putLe32(trailer, s_->crc);
  putLe32(trailer, static_cast<uint32_t>(s_->total));  // ISIZE: the length modulo 2^32
  return s_->sink(trailer);
}

std::string gzipBlocks(std::string_view text, unsigned threads, size_t blockBytes) {
  std::string out;
  GzipBlockWriter w(
      [&out](std::string_view s) -> Expected<void> {
        out.append(s);
        return {};
      },
      threads);
  for (size_t at = 0; at < text.size(); at += blockBytes)
    (void)w.add(std::string(text.substr(at, blockBytes)));
  (void)w.finish();
  return out;
}

}  // namespace steadyscope::io
