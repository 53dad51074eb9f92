#pragma once
// Path helpers shared by the splitter's writer, the directory review and the
// CLI: one way to join, name and resolve paths.
#include <filesystem>
#include <string>
#include <string_view>

namespace steadyscope::paths {

/// dir + "/" + name, without doubling a trailing slash; name alone when dir is empty.
std::string join(std::string_view dir, std::string_view name);
/// The last component after '/' or '\\' ("a/b.json" -> "b.json").
std::string fileName(std::string_view path);
/// The absolute, normalised form of `path` taken relative to `cwd`
/// (symlinks resolved where the path exists), without a trailing slash.
std::string resolve(std::string_view path, const std::filesystem::path& cwd);
/// Whether `path` lies in `dir` or below (both resolved).
bool isInside(std::string_view path, std::string_view dir);
/// `text` for a one-line message: control characters as \n, \t, \r, \xNN.
std::string printable(std::string_view text);
/// Creates `path` and its missing parents with `mode` (`mkdir -p`): 0 when it is
/// a folder afterwards, else the errno of the step that failed (ENOTDIR: a file has its name).
int makeDirs(const std::string& path, unsigned mode = 0777);

}  // namespace steadyscope::paths
