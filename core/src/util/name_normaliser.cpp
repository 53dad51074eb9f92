#include "util/name_normaliser.hpp"

namespace steadyscope::names {

namespace {

bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// 0x followed by hex digits -> 0xXXXX (leftmost, longest, non-overlapping).
std::string maskHexAddresses(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '0' && i + 2 < s.size() && s[i + 1] == 'x' && isHex(s[i + 2])) {
      size_t j = i + 2;
      while (j < s.size() && isHex(s[j])) ++j;
      out += "0xXXXX";
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

// `.py(digits):` -> `.py:`
std::string dropPythonLineNumbers(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 4, ".py(") == 0) {
      size_t j = i + 4;
      while (j < s.size() && isDigit(s[j])) ++j;
      if (j > i + 4 && j + 1 < s.size() && s[j] == ')' && s[j + 1] == ':') {
        out += ".py:";
        i = j + 2;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

std::string normalizeNameForComparison(std::string_view name) {
  std::string n = dropPythonLineNumbers(maskHexAddresses(name));
  if (n == "hipModuleLaunchKernel" || n == "cuLaunchKernel") return "__kernel_launch__";
  return n;
}

}  // namespace steadyscope::names
