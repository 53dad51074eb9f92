#include <steadyscope/core/util/error.hpp>

#include <fmt/format.h>

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

}  // namespace steadyscope
