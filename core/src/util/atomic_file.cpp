#include <steadyscope/core/util/atomic_file.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace steadyscope {

namespace {
std::string tempNameFor(const std::string& path) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{}.tmp-{:016x}", path, rng());
}
Error ioError(const std::string& path, const char* what) {
  return makeError(Error::Kind::Io, path, fmt::format("{}: {}", what, std::strerror(errno)));
}
bool isSpecialFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}
bool isFolder(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
}  // namespace

AtomicFileWriter::~AtomicFileWriter() { abort(); }

Expected<void> AtomicFileWriter::open(const std::string& path) {
  abort();
  path_ = path;
  tmpPath_.clear();
  written_ = 0;
  // A folder of that name would make the final rename fail after the file was made: say so first.
  if (isFolder(path)) return makeError(Error::Kind::Io, path, "cannot write the file: a folder has its name");
  if (isSpecialFile(path)) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) return ioError(path, "cannot open for writing");
    return {};
  }
  tmpPath_ = tempNameFor(path);
  fd_ = ::open(tmpPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) return ioError(path, "cannot create file");
  return {};
}

Expected<void> AtomicFileWriter::write(std::string_view data) {
  if (fault_) {
    if (const int err = fault_(path_, written_)) {
      errno = err;
      Error e = ioError(path_, "cannot write file");
      abort();
      return e;
    }
  }
  written_ += data.size();
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = ioError(path_, "cannot write file");
      abort();
      return e;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Expected<void> AtomicFileWriter::commit() {
  if (auto p = prepare(); !p) return p;
  return publish();
}

Expected<void> AtomicFileWriter::prepare() {
  if (fd_ < 0) return makeError(Error::Kind::Internal, path_, "commit without open");
  if (tmpPath_.empty()) {  // in place: nothing to flush to disk or rename
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return ioError(path_, "cannot write file");
    return {};
  }
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    Error e = ioError(path_, "cannot flush file");
    ::unlink(tmpPath_.c_str());
    return e;
  }
  fd_ = -1;
  prepared_ = true;
  return {};
}

Expected<void> AtomicFileWriter::publish() {
  if (tmpPath_.empty()) return {};
  if (!prepared_) return makeError(Error::Kind::Internal, path_, "publish before prepare");
  prepared_ = false;
  if (::rename(tmpPath_.c_str(), path_.c_str()) != 0) {
    Error e = ioError(path_, "cannot rename temporary file into place");
    ::unlink(tmpPath_.c_str());
    return e;
  }
  return {};
}

void AtomicFileWriter::abort() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    if (!tmpPath_.empty()) ::unlink(tmpPath_.c_str());
  }
  if (prepared_) {
    prepared_ = false;
    ::unlink(tmpPath_.c_str());
  }
}

Expected<void> writeFileAtomic(const std::string& path, std::string_view data) {
  AtomicFileWriter w;
  if (auto r = w.open(path); !r) return r;
  if (auto r = w.write(data); !r) return r;
  return w.commit();
}

}  // namespace steadyscope
