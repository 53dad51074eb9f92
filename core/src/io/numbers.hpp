#pragma once
// Exact parsing of JSON number text (µs) into integer nanoseconds, keeping
// whether the text was an integer or a real, as the reference's CSV needs.
#include <cstdint>
#include <string_view>

namespace steadyscope::io {

struct ParsedNumber {
  enum class Status : uint8_t { Ok, NotNumber, NonFinite, OutOfRange } status = Status::NotNumber;
  bool isInt = false;    // written without '.', 'e' or 'E'
  bool inexact = false;  // finer than 1 ns: `exact` holds the correctly rounded double
  int64_t ns = 0;        // value × 1000, exact unless inexact
  double exact = 0.0;    // only set when inexact
};

/// `t` without trailing JSON whitespace (raw tokens carry it up to the next
/// structural character). Inline: it runs on every string and number token.
inline std::string_view trimJsonWs(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}

/// `tok` is the raw token (may carry trailing whitespace). Accepts Python's
/// json extensions NaN / Infinity / -Infinity as NonFinite.
ParsedNumber parseMicros(std::string_view tok);
/// The general parser behind parseMicros (which has a fast path for plain
/// decimals); the same results for every input, kept callable for the tests.
ParsedNumber parseMicrosGeneral(std::string_view tok);

/// Parses an integral JSON number (ids). Returns false for non-integers;
/// `1.0` is accepted as 1 (JSON value equality as Python compares dict keys).
bool parseIntegral(std::string_view tok, int64_t& out, bool& isReal);

}  // namespace steadyscope::io
