#include <steadyscope/core/util/paths.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <system_error>

namespace steadyscope::paths {

std::string join(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string out(dir);
  if (out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string fileName(std::string_view path) {
  const size_t k = path.find_last_of("/\\");
  return std::string(k == std::string_view::npos ? path : path.substr(k + 1));
}

std::string resolve(std::string_view path, const std::filesystem::path& cwd) {
  std::filesystem::path x{std::string(path)};
  if (x.is_relative()) x = cwd / x;
  std::error_code ec;
  std::filesystem::path r = std::filesystem::weakly_canonical(x, ec);
  if (ec) r = x.lexically_normal();
  std::string s = r.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool isInside(std::string_view path, std::string_view dir) {
  if (dir == "/") return !path.empty() && path.front() == '/';
  return path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

int makeDirs(const std::string& path, unsigned mode) {
  if (path.empty()) return 0;
  for (size_t p = 0; p != std::string::npos;) {
    const size_t q = path.find('/', p + 1);
    const std::string part = path.substr(0, q);
    if (!part.empty() && ::mkdir(part.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST) return errno;
    p = q;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return ENOTDIR;
  return 0;
}

}  // namespace steadyscope::paths
