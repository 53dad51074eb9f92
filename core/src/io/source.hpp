#pragma once
// Getting the JSON text of a trace into file-backed memory: mmap for plain
// files; gzip / zip / zstd are decompressed once into an unlinked temporary
// file in the cache directory, which is then mmapped.
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <memory>
#include <string>

namespace steadyscope::io {

/// Gzip decompression running on its own thread into an unlinked temporary
/// file, so that parsing can start before decompression ends. Readers pread
/// from fd() below written(); finish() joins and maps the whole text.
class InflateStream {
public:
  virtual ~InflateStream() = default;
  virtual int fd() const = 0;
  virtual uint64_t written() const = 0;  // bytes of text available (acquire)
  virtual uint64_t expectedBytes() const = 0;  // estimated final text size (0 unknown)
  virtual bool done() const = 0;         // the thread has finished (ok or not)
  virtual Expected<std::shared_ptr<const SourceText>> finish() = 0;  // join + map, or the error
};

struct OpenedSource {
  std::shared_ptr<InflateStream> stream;  // set instead of `text` for streamed gzip
  std::shared_ptr<const SourceText> text;
  std::string compression;  // none, gzip, zip, zstd
  uint64_t fileBytes = 0;
  std::string memberName;   // zip member read
};

Expected<OpenedSource> openSource(const std::string& path, const std::string& cacheDir,
                                  JobControl* control, bool streamGzip = false);

/// A SourceText over an owned std::string (tests, in-memory loads).
std::shared_ptr<const SourceText> makeStringSource(std::string text);

std::string defaultCacheDir();

} // namespace steadyscope::io
