#pragma once
// What several fuzz targets share: private temporary directories.
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

namespace fuzzsupport {

/// /tmp/steadyscope-fuzz-TAG-XXXXXX, made once per tag and process (the
/// fuzzer runs every input in one process, so a target reuses its directory).
inline const std::filesystem::path& tempDir(const std::string& tag) {
  static std::map<std::string, std::filesystem::path> dirs;
  auto [it, fresh] = dirs.try_emplace(tag);
  if (fresh) {
    std::string tmpl = "/tmp/steadyscope-fuzz-" + tag + "-XXXXXX";
    const char* d = ::mkdtemp(tmpl.data());
    it->second = d ? std::string(d) : "/tmp/steadyscope-fuzz-" + tag;
  }
  return it->second;
}

}  // namespace fuzzsupport
