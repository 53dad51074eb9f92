// The review of a split directory from another machine: the input is cut at
// NUL bytes into execution_details.csv, split_manifest.json and a list of
// further file names (one per line, created empty: chunk files, odd names).
// The review must read nothing outside the directory and never crash.
#include "fuzz_support.hpp"

#include <steadyscope/core/gate/review.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace fs = std::filesystem;

namespace {
std::string_view nextPart(std::string_view& rest) {
  const size_t nul = rest.find('\0');
  const std::string_view part = rest.substr(0, nul);
  rest = nul == std::string_view::npos ? std::string_view{} : rest.substr(nul + 1);
  return part;
}

void writeFile(const fs::path& p, std::string_view text) {
  std::ofstream(p, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
}

// A name stays inside the directory: no separators, not "." or "..".
std::string safeName(std::string_view line) {
  std::string n(line.substr(0, 200));
  for (char& c : n)
    if (c == '/') c = '_';
  return n == "." || n == ".." ? n + "_" : n;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const fs::path dir = fuzzsupport::tempDir("dir") / "split";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  writeFile(dir / "execution_details.csv", nextPart(rest));
  if (!rest.empty()) writeFile(dir / "split_manifest.json", nextPart(rest));
  for (int files = 0; !rest.empty() && files < 16; ++files) {
    const size_t nl = rest.find('\n');
    const std::string name = safeName(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (!name.empty()) writeFile(dir / name, "");
  }
  steadyscope::gate::ReviewOptions options;
  options.workingDirectory = fuzzsupport::tempDir("dir").string();
  auto r = steadyscope::gate::reviewSplitDirectory(dir.string(), options);
  if (!r) (void)r.error().describe();
  return 0;
}
