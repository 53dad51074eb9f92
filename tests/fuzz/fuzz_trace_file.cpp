// The loader on a file of raw bytes: compression is detected by magic bytes,
// so one target reaches the plain, gzip (streamed and indexed), zip and zstd
// paths. The bytes live in an anonymous memory file named by /proc/self/fd.
#include "io/load_tuning.hpp"
#include "fuzz_support.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = ::memfd_create("fuzz-trace", 0);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  steadyscope::LoadOptions options;
  options.threads = 1;
  static const steadyscope::io::LoadTuning kSmall{.pieceBytes = 4096, .gzipCheckpointBytes = 8192};
  options.tuning = &kSmall;  // small pieces, and checkpoints even in small gzip members
  options.cacheDir = fuzzsupport::tempDir("cache").string();
  auto r = steadyscope::loadTrace("/proc/self/fd/" + std::to_string(fd), options);
  if (!r) (void)r.error().describe();
  ::close(fd);
  return 0;
}
