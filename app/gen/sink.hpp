// Byte sinks for the generator: plain file, gzip (ISA-L) and a counting null
// sink. File output is atomic: bytes go to a temporary file next to the
// target, which is renamed over the target only by commit().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace steadyscope::gen {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Throws std::runtime_error on I/O failure.
  virtual void write(const char* data, std::size_t size) = 0;
  // Flushes, closes and publishes the output. Throws on failure.
  virtual void commit() = 0;
  // Bytes written to disk so far (compressed size for gzip).
  virtual std::uint64_t storedBytes() const = 0;
};

// Discards everything (used to measure the size of a pilot run).
class NullSink final : public ByteSink {
 public:
  void write(const char*, std::size_t size) override { bytes_ += size; }
  void commit() override {}
  std::uint64_t storedBytes() const override { return bytes_; }

 private:
  std::uint64_t bytes_ = 0;
};

// Opens `path` atomically; `.gz` paths get gzip framing at `gzipLevel`.
std::unique_ptr<ByteSink> openOutput(const std::string& path, bool gzip, int gzipLevel);

}  // namespace steadyscope::gen
