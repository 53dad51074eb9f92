#pragma once
// SHA-256 of a file through OpenSSL's libcrypto (EVP: the CPU's SHA
// extensions where present), and SourceDigest: the digest of a loaded trace's
// file, computed once on its own thread after the load and kept with the model
// (Trace::digest) for whoever needs it first (an export's manifest).
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace steadyscope {

/// Which file a digest is of: the identity and state it had while it was read.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtimeNs = 0;
  bool operator==(const FileIdentity&) const = default;
};
/// stat() of `path` (following symbolic links): not_found / Io errors name the file.
Expected<FileIdentity> identifyFile(const std::string& path);

struct FileDigest {
  std::string sha256;  // 64 lower-case hex digits
  FileIdentity file;
};

/// Lower-case hex SHA-256 of `data`.
std::string sha256Hex(std::string_view data);
/// Reads `path` once and hashes it; `control` is polled between blocks (a
/// cancelled digest is Error::Kind::Cancelled). A file that changes while it is
/// read is an error (its identity before and after differ).
Expected<FileDigest> sha256File(const std::string& path, JobControl* control = nullptr);

/// The digest of one file, computed at most once, on a thread of its own.
/// Thread-safe; destroying it stops an unfinished digest and joins its thread.
class SourceDigest {
 public:
  SourceDigest() = default;
  ~SourceDigest();
  SourceDigest(const SourceDigest&) = delete;
  SourceDigest& operator=(const SourceDigest&) = delete;

  /// Starts hashing `path` in the background; later calls do nothing.
  void start(const std::string& path);
  bool started() const;
  /// The finished result, without waiting (nullopt: not started or not done).
  std::optional<Expected<FileDigest>> ready() const;
  /// Waits for the result, starting the digest here when nobody has. While
  /// waiting, `control` (if given) can cancel the wait, not the digest.
  Expected<FileDigest> wait(const std::string& path, JobControl* control = nullptr);

 private:
  mutable std::mutex mutex_;
  std::condition_variable done_;
  bool started_ = false;
  std::optional<Expected<FileDigest>> result_;
  JobControl control_;  // the digest's own cancel (set by the destructor)
  std::thread thread_;
};

}  // namespace steadyscope
