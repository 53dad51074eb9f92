#pragma once
// Every file Steadyscope writes appears whole or not at all: write to a
// temporary file in the same directory, fsync, then rename over the target.
// A target that exists and is not a regular file (/dev/null, a FIFO, a
// terminal) is written in place: renaming over it would replace the device.
#include <steadyscope/core/util/error.hpp>

#include <string>
#include <string_view>

namespace steadyscope {

/// Writes `data` to `path` atomically (temp file + rename). Creates nothing on failure.
Expected<void> writeFileAtomic(const std::string& path, std::string_view data);

/// Streaming variant: open, append, commit. Destroying an uncommitted writer
/// removes the temporary file.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Expected<void> open(const std::string& path);
  Expected<void> write(std::string_view data);
  Expected<void> commit();
  void abort();
  bool isOpen() const { return fd_ >= 0; }

 private:
  std::string path_;
  std::string tmpPath_;  // empty when writing in place (not a regular file)
  int fd_ = -1;
};

}  // namespace steadyscope
