#pragma once
// Random access to gzip-compressed text without keeping the text: while the
// loader inflates the file once, it records a checkpoint about every few MiB
// of output — ISA-L's inflate state, which holds its own 32 KiB history, as it
// was at that point, and where the compressed input resumes. Reading a range
// later re-inflates from the nearest checkpoint before it (zran-style). So a
// .json.gz trace needs no temporary file and no anonymous copy of its text:
// the compressed file stays the only copy (docs/DECISIONS.md D-013).
#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::io {

/// One resumable point of a gzip stream.
struct GzipCheckpoint {
  uint64_t out = 0;            // text bytes produced before this point
  uint64_t in = 0;             // compressed byte where input resumes
  std::vector<uint8_t> state;  // leading bytes of the ISA-L inflate_state (empty: a member starts at `in`)
};

/// Where inflated text goes: `space` asks for writable room (at least
/// `minBytes`), `produced` reports bytes written into it; false stops.
struct InflateTarget {
  virtual ~InflateTarget() = default;
  virtual bool space(size_t minBytes, uint8_t*& at, size_t& room) = 0;
  virtual bool produced(size_t n) = 0;
};

struct InflateFailure {
  std::string code;  // gzip_corrupt, gzip_truncated, gzip_trailing
  std::string message;
  uint64_t offset = 0;  // compressed byte (plus the caller's base offset)
};

struct IndexedInflateResult {
  bool stopped = false;                   // the target, `stop` or the JobControl asked to stop
  std::optional<InflateFailure> failure;  // corrupt, truncated, trailing garbage
  uint64_t textBytes = 0;
  std::vector<GzipCheckpoint> checkpoints;  // ascending `out`, first at 0 (when indexing)
  /// The whole stream inflated with valid CRCs and sizes.
  bool ok() const { return !stopped && !failure; }
};

/// Inflates `in[0, inLen)` into `target`: gzip members (concatenated ones are
/// one stream, trailing zero padding is tolerated) or, with `gzip` false, one
/// raw deflate stream (zip members). With `every` > 0 it records a checkpoint
/// about every `every` bytes of text. Progress in compressed bytes, offset by
/// `baseOffset` (also added to failure offsets). The one inflate loop of the
/// project: the loader's indexed gzip path and the temporary-file path use it.
IndexedInflateResult inflateIndexed(const uint8_t* in, size_t inLen, bool gzip, uint64_t every, InflateTarget& target,
                                    JobControl* control, const std::atomic<bool>* stop, uint64_t baseOffset = 0);

/// The checkpoint spacing for a text of about `textBytes`: a 64th of it
/// between 1 and 4 MiB, wider for texts over 8 GiB so that there are at most
/// ~2048 checkpoints (~110 MB).
uint64_t checkpointSpacing(uint64_t textBytes);

/// A SourceText over a gzip file read through checkpoints. text() is empty;
/// reader() re-inflates what is asked for (and caches recent segments). The
/// compressed file is read with pread from a descriptor opened at load time; if
/// it changes in place afterwards, reads fail with a clear message.
std::shared_ptr<const SourceText> makeGzipIndexedSource(int fd, const std::string& path, uint64_t textBytes,
                                                        std::vector<GzipCheckpoint> checkpoints);

/// The checkpoints of a source made by makeGzipIndexedSource (the trace cache
/// stores them with the model), else null.
const std::vector<GzipCheckpoint>* gzipCheckpointsOf(const SourceText& source);

}  // namespace steadyscope::io
