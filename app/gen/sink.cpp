#include "sink.hpp"

#include <isa-l/igzip_lib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace steadyscope::gen {

namespace {

[[noreturn]] void throwErrno(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// A temporary file in the target's directory, renamed on publish() and
// removed by the destructor otherwise (so a failed run leaves nothing).
class AtomicFile {
 public:
  explicit AtomicFile(std::string target) : m_target(std::move(target)) {
    m_temp = m_target + ".tmp-" + std::to_string(::getpid());
    m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (m_fd < 0) throwErrno("cannot create " + m_temp);
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_published) ::unlink(m_temp.c_str());
  }

  void write(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(m_fd, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        throwErrno("write to " + m_temp + " failed");
      }
      data += n;
      size -= static_cast<std::size_t>(n);
      m_bytes += static_cast<std::uint64_t>(n);
    }
  }

  void publish() {
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) throwErrno("close of " + m_temp + " failed");
    if (::rename(m_temp.c_str(), m_target.c_str()) != 0) throwErrno("cannot rename " + m_temp + " to " + m_target);
    m_published = true;
  }

  std::uint64_t bytes() const { return m_bytes; }

 private:
  std::string m_target;
  std::string m_temp;
  int m_fd = -1;
  bool m_published = false;
  std::uint64_t m_bytes = 0;
};

class PlainFileSink final : public ByteSink {
 public:
  explicit PlainFileSink(const std::string& path) : m_file(path) {}
  void write(const char* data, std::size_t size) override { m_file.write(data, size); }
  void commit() override { m_file.publish(); }
  std::uint64_t storedBytes() const override { return m_file.bytes(); }

 private:
  AtomicFile m_file;
};

std::size_t levelBufferSize(int level) {
  switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
  }
}

// gzip via ISA-L's igzip (gzip header and trailer written by the library).
class GzipFileSink final : public ByteSink {
 public:
  GzipFileSink(const std::string& path, int level) : m_file(path), m_levelBuf(levelBufferSize(level)), m_out(1 << 22) {
    isal_deflate_init(&m_zs);
    m_zs.level = static_cast<std::uint32_t>(level);
    m_zs.level_buf = m_levelBuf.empty() ? nullptr : m_levelBuf.data();
    m_zs.level_buf_size = static_cast<std::uint32_t>(m_levelBuf.size());
    m_zs.gzip_flag = IGZIP_GZIP;
    m_zs.flush = NO_FLUSH;
    m_zs.end_of_stream = 0;
  }

  void write(const char* data, std::size_t size) override {
    // avail_in is 32-bit: feed very large blocks in slices.
    constexpr std::size_t kSlice = 1u << 30;
    while (size > 0) {
      const std::size_t n = size < kSlice ? size : kSlice;
      deflate(data, n, false);
      data += n;
      size -= n;
    }
  }

  void commit() override {
    deflate(nullptr, 0, true);
    m_file.publish();
  }

  std::uint64_t storedBytes() const override { return m_file.bytes(); }

 private:
  void deflate(const char* data, std::size_t size, bool last) {
    m_zs.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(data));
    m_zs.avail_in = static_cast<std::uint32_t>(size);
    m_zs.end_of_stream = last ? 1 : 0;
    do {
      m_zs.next_out = m_out.data();
      m_zs.avail_out = static_cast<std::uint32_t>(m_out.size());
      if (isal_deflate(&m_zs) != COMP_OK) throw std::runtime_error("isal_deflate failed");
      const std::size_t produced = m_out.size() - m_zs.avail_out;
      m_file.write(reinterpret_cast<const char*>(m_out.data()), produced);
    } while (m_zs.avail_in > 0 || m_zs.avail_out == 0 || (last && m_zs.internal_state.state != ZSTATE_END));
  }

  AtomicFile m_file;
  std::vector<std::uint8_t> m_levelBuf;
  std::vector<std::uint8_t> m_out;
  isal_zstream m_zs{};
};

}  // namespace

std::unique_ptr<ByteSink> openOutput(const std::string& path, bool gzip, int gzipLevel) {
  if (gzip) return std::make_unique<GzipFileSink>(path, gzipLevel);
  return std::make_unique<PlainFileSink>(path);
}

}  // namespace steadyscope::gen
