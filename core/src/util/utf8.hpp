#pragma once
// UTF-8 decoding shared by the JSON writer (which escapes or replaces bad
// bytes) and the CSV reader (which names the line of the first bad byte).
#include <cstdint>
#include <string_view>
#include <utility>

namespace steadyscope {

/// The code point of the valid UTF-8 sequence at s[i] and its length, or
/// length 0 when the bytes there are not valid UTF-8 (overlong forms,
/// surrogates and values above U+10FFFF included). Requires i < s.size().
inline std::pair<uint32_t, size_t> decodeUtf8(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return {0, 0};
  }
  if (i + n > s.size()) return {0, 0};
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return {0, 0};
  return {cp, n};
}

}  // namespace steadyscope
