#pragma once
// What several fuzz targets share: private temporary directories.
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

namespace fuzzsupport {

/// steadyscope-fuzz-TAG-XXXXXX in /dev/shm (memory: the targets that write
/// files run a whole split and export per input, and a disk's metadata updates
/// would dominate them), else in /tmp; made once per tag and process (the
/// fuzzer runs every input in one process, so a target reuses its directory).
inline const std::filesystem::path& tempDir(const std::string& tag) {
  struct Dirs : std::map<std::string, std::filesystem::path> {
    ~Dirs() {  // at exit: nothing left in memory behind the run
      std::error_code ec;
      for (const auto& [t, d] : *this) std::filesystem::remove_all(d, ec);
    }
  };
  static Dirs dirs;
  auto [it, fresh] = dirs.try_emplace(tag);
  if (fresh) {
    std::error_code ec;
    const std::string base = std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    std::string tmpl = base + "/steadyscope-fuzz-" + tag + "-XXXXXX";
    const char* d = ::mkdtemp(tmpl.data());
    it->second = d ? std::string(d) : base + "/steadyscope-fuzz-" + tag;
  }
  return it->second;
}

}  // namespace fuzzsupport
