#pragma once
// Getting the JSON text of a trace into file-backed memory: mmap for plain
// files; zip / zstd (and gzip when not indexed, see io/gzip_index.hpp) are
// decompressed once into an unlinked temporary file in the cache directory,
// which is then mmapped.
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <memory>
#include <optional>
#include <string>

namespace steadyscope::io {

/// Where a source's bytes also lie in an open file, for bulk sequential reads
/// with pread (cheaper than first-touching the mapping). fd is -1 when the
/// text is only in memory.
struct FileSpan {
  int fd = -1;
  uint64_t offset = 0;
};

/// A source whose text is a mapped file (or a slice of one).
class FileBackedText : public SourceText {
 public:
  virtual FileSpan fileSpan() const = 0;
};

/// The file behind `source`, or {-1, 0}.
FileSpan fileSpanOf(const SourceText& source);

struct OpenedSource {
  /// gzip when asked to leave it compressed: the mapped compressed file (set
  /// instead of `text`); the loader inflates it once, keeping checkpoints.
  std::shared_ptr<const SourceText> gzip;
  std::shared_ptr<const SourceText> text;
  std::string compression;  // none, gzip, zip, zstd
  uint64_t fileBytes = 0;
  std::string memberName;  // zip member read
  std::optional<Error> truncation;  // keepTruncated: the gzip stream ended early; `text` is what it gave
};

/// `keepTruncated`: a gzip stream that ends early gives the text inflated so
/// far (with `truncation` set) instead of an error.
Expected<OpenedSource> openSource(const std::string& path, const std::string& cacheDir, JobControl* control,
                                  bool indexGzip = false, bool keepTruncated = false);

/// text[0, cut) followed by "]}" in an unlinked temporary file of the cache
/// directory, mapped: a truncated trace closed after its last complete event.
Expected<std::shared_ptr<const SourceText>> closedPrefix(std::string_view text, size_t cut, const std::string& cacheDir,
                                                         const std::string& path);

/// A SourceText over an owned std::string (tests, in-memory loads).
std::shared_ptr<const SourceText> makeStringSource(std::string text);

std::string defaultCacheDir();

}  // namespace steadyscope::io
