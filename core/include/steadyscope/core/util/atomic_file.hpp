#pragma once
// Every file Steadyscope writes appears whole or not at all: write to a
// temporary file in the same directory, fsync, then rename over the target.
// A target that exists and is not a regular file (/dev/null, a FIFO, a
// terminal) is written in place: renaming over it would replace the device.
#include <steadyscope/core/util/error.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace steadyscope {

/// Writes `data` to `path` atomically (temp file + rename). Creates nothing on failure.
Expected<void> writeFileAtomic(const std::string& path, std::string_view data);

/// A test seam: called before each write with the target path and the bytes
/// written so far; a non-zero errno (ENOSPC, EIO) makes that write fail as
/// the disk would.
using WriteFault = std::function<int(const std::string& path, uint64_t written)>;

/// Streaming variant: open, append, commit. Destroying an uncommitted writer
/// removes the temporary file. Files that must appear together are prepared
/// (complete on disk under their temporary names) first and published after.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Expected<void> open(const std::string& path);
  Expected<void> write(std::string_view data);
  /// prepare() then publish().
  Expected<void> commit();
  /// Flushes and closes the temporary file; the target is not touched yet.
  Expected<void> prepare();
  /// Renames the prepared temporary file over the target.
  Expected<void> publish();
  void abort();
  bool isOpen() const { return fd_ >= 0; }
  void setFault(WriteFault fault) { fault_ = std::move(fault); }
  const std::string& path() const { return path_; }
  /// The temporary name while open or prepared ("" when writing in place).
  const std::string& temporaryPath() const { return tmpPath_; }

 private:
  std::string path_;
  std::string tmpPath_;  // empty when writing in place (not a regular file)
  int fd_ = -1;
  bool prepared_ = false;  // closed, complete, not yet renamed
  uint64_t written_ = 0;
  WriteFault fault_;
};

}  // namespace steadyscope
