#pragma once
// Error reporting for the core: no exceptions cross the public API for bad
// input; functions return Expected<T> whose error names the file and, where it
// applies, the byte offset or line.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace steadyscope {

struct Error {
  enum class Kind : uint8_t {
    Io,           // missing / unreadable file, a directory, ...
    Format,       // not JSON, truncated JSON, top-level array, no traceEvents, ...
    Compression,  // truncated or corrupt gzip / zip / zstd
    Resource,     // not enough memory / disk
    Cancelled,    // the user cancelled
    Usage,        // bad arguments
    Internal,
  };
  Kind kind = Kind::Internal;
  std::string file;                    // the file the error is about (may be empty)
  std::optional<uint64_t> byteOffset;  // where, if known
  std::optional<uint64_t> line;        // 1-based line, for text formats (CSV)
  std::string message;                 // one plain sentence, no trailing period needed
  std::string code;                    // stable machine-readable reason, e.g. "no_trace_events"

  /// "FILE: at byte N: message" — the form every user-facing surface prints.
  std::string describe() const;
};

Error makeError(Error::Kind kind, std::string file, std::string message,
                std::optional<uint64_t> byteOffset = std::nullopt);

/// Minimal expected<T, Error> (C++23's std::expected is not in g++ 12).
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : e_(std::move(error)) {}
  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *e_; }

 private:
  std::optional<Error> e_;
};

/// Makes a process that runs out of memory on a worker thread (where no
/// caller can turn it into an Error) say so in words on stderr and exit 1,
/// instead of aborting with a bare std::bad_alloc. Other terminations keep
/// the default handler. Call once from main().
void reportOutOfMemoryOnTerminate(const char* program);

}  // namespace steadyscope
