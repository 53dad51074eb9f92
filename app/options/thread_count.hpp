#pragma once
// The --threads N option shared by the commands that load a trace (split,
// info, gate): one accepted range and one message, so every command refuses a
// bad count the same way. Not given: 0, which the loader and splitter turn
// into jobThreads() (the hardware's count, capped).
#include <steadyscope/common.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace steadyscope::cli {

/// The most threads a user may ask for; more is a typo, not a machine.
inline constexpr unsigned kMaxThreadsArg = 256;

/// A --threads value: decimal digits only, from 1 to kMaxThreadsArg.
inline std::optional<unsigned> parseThreadCount(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  unsigned n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (n < 1 || n > kMaxThreadsArg) return std::nullopt;
  return n;
}

/// What is wrong with a refused --threads value (the caller names the option).
inline std::string threadCountError(std::string_view value) {
  return "expected a number of threads from 1 to " + std::to_string(kMaxThreadsArg) + ", not '" + std::string(value) +
         "'";
}

/// What is wrong with a refused -j/--jobs value.
inline std::string jobCountError(std::string_view value) {
  return "expected a number of jobs from 1 to " + std::to_string(kMaxThreadsArg) + ", not '" + std::string(value) + "'";
}

/// What is wrong with a refused --memory-budget value.
inline std::string memoryBudgetError(std::string_view value) {
  return "expected a size such as 8G or 512M, not '" + std::string(value) + "'";
}

/// The option's --help text (the caller aligns it after "--threads N").
inline std::string threadsHelp() {
  return "loader and splitter threads (default: the hardware's count, at most " + std::to_string(kMaxDefaultThreads) +
         ")";
}

}  // namespace steadyscope::cli
