#include <steadyscope/core/util/error.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

namespace steadyscope {

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (line) out += fmt::format("line {}: ", *line);
  if (byteOffset) out += fmt::format("at byte {}: ", *byteOffset);
  out += message;
  return out;
}

Error makeError(Error::Kind kind, std::string file, std::string message, std::optional<uint64_t> byteOffset) {
  Error e;
  e.kind = kind;
  e.file = std::move(file);
  e.message = std::move(message);
  e.byteOffset = byteOffset;
  return e;
}

namespace {

const char* oomProgram = "steadyscope";
std::terminate_handler previousTerminate = nullptr;

[[noreturn]] void onTerminate() {
  if (auto ex = std::current_exception()) {
    try {
      std::rethrow_exception(ex);
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr,
                   "%s: not enough memory for this trace: an allocation failed (close other programs, "
                   "use fewer threads with --threads, or a machine with more memory)\n",
                   oomProgram);
      std::_Exit(1);
    } catch (...) {
    }
  }
  if (previousTerminate) previousTerminate();
  std::abort();
}

}  // namespace

void reportOutOfMemoryOnTerminate(const char* program) {
  oomProgram = program;
  previousTerminate = std::set_terminate(onTerminate);
}

}  // namespace steadyscope
