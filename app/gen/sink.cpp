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
  explicit AtomicFile(std::string target) : target_(std::move(target)) {
    temp_ = target_ + ".tmp-" + std::to_string(::getpid());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) throwErrno("cannot create " + temp_);
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!published_) ::unlink(temp_.c_str());
  }

  void write(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        throwErrno("write to " + temp_ + " failed");
      }
      data += n;
      size -= static_cast<std::size_t>(n);
      bytes_ += static_cast<std::uint64_t>(n);
    }
  }

  void publish() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throwErrno("close of " + temp_ + " failed");
    if (::rename(temp_.c_str(), target_.c_str()) != 0) throwErrno("cannot rename " + temp_ + " to " + target_);
    published_ = true;
  }

  std::uint64_t bytes() const { return bytes_; }

 private:
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool published_ = false;
  std::uint64_t bytes_ = 0;
};

class PlainFileSink final : public ByteSink {
 public:
  explicit PlainFileSink(const std::string& path) : file_(path) {}
  void write(const char* data, std::size_t size) override { file_.write(data, size); }
  void commit() override { file_.publish(); }
  std::uint64_t storedBytes() const override { return file_.bytes(); }

 private:
  AtomicFile file_;
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
  GzipFileSink(const std::string& path, int level) : file_(path), levelBuf_(levelBufferSize(level)), out_(1 << 22) {
    isal_deflate_init(&zs_);
    zs_.level = static_cast<std::uint32_t>(level);
    zs_.level_buf = levelBuf_.empty() ? nullptr : levelBuf_.data();
    zs_.level_buf_size = static_cast<std::uint32_t>(levelBuf_.size());
    zs_.gzip_flag = IGZIP_GZIP;
    zs_.flush = NO_FLUSH;
    zs_.end_of_stream = 0;
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
    file_.publish();
  }

  std::uint64_t storedBytes() const override { return file_.bytes(); }

 private:
  void deflate(const char* data, std::size_t size, bool last) {
    zs_.next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(data));
    zs_.avail_in = static_cast<std::uint32_t>(size);
    zs_.end_of_stream = last ? 1 : 0;
    do {
      zs_.next_out = out_.data();
      zs_.avail_out = static_cast<std::uint32_t>(out_.size());
      if (isal_deflate(&zs_) != COMP_OK) throw std::runtime_error("isal_deflate failed");
      const std::size_t produced = out_.size() - zs_.avail_out;
      file_.write(reinterpret_cast<const char*>(out_.data()), produced);
    } while (zs_.avail_in > 0 || zs_.avail_out == 0 || (last && zs_.internal_state.state != ZSTATE_END));
  }

  AtomicFile file_;
  std::vector<std::uint8_t> levelBuf_;
  std::vector<std::uint8_t> out_;
  isal_zstream zs_{};
};

}  // namespace

std::unique_ptr<ByteSink> openOutput(const std::string& path, bool gzip, int gzipLevel) {
  if (gzip) return std::make_unique<GzipFileSink>(path, gzipLevel);
  return std::make_unique<PlainFileSink>(path);
}

}  // namespace steadyscope::gen
