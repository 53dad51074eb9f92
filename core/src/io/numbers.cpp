#include "io/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace steadyscope::io {

namespace {
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr int64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                              1000000000, 10000000000, 100000000000, 1000000000000,
                              10000000000000, 100000000000000, 1000000000000000,
                              10000000000000000, 100000000000000000, 1000000000000000000};
} // namespace

ParsedNumber parseMicros(std::string_view tok) {
  ParsedNumber r;
  tok = trimJsonWs(tok);
  if (tok.empty()) return r;
  if (tok == "NaN" || tok == "Infinity" || tok == "-Infinity") {
    r.status = ParsedNumber::Status::NonFinite;
    return r;
  }
  size_t i = 0;
  bool neg = false;
  if (tok[i] == '-') { neg = true; ++i; }
  if (i >= tok.size() || !isDigit(tok[i])) return r;
  // mantissa digits (without leading zeros), fraction digit count, exponent
  uint64_t mant = 0;
  int sig = 0;            // significant digits accumulated in mant
  int dropped = 0;        // integer digits beyond 19 significant (scale up)
  bool droppedNonZero = false;
  int frac = 0;
  for (; i < tok.size() && isDigit(tok[i]); ++i) {
    if (sig < 19) {
      mant = mant * 10 + static_cast<uint64_t>(tok[i] - '0');
      if (mant) ++sig;
    } else {
      ++dropped;
      if (tok[i] != '0') droppedNonZero = true;
    }
  }
  bool isInt = true;
  if (i < tok.size() && tok[i] == '.') {
    isInt = false;
    ++i;
    if (i >= tok.size() || !isDigit(tok[i])) return r;
    for (; i < tok.size() && isDigit(tok[i]); ++i) {
      if (sig < 19) {
        mant = mant * 10 + static_cast<uint64_t>(tok[i] - '0');
        if (mant) ++sig;
        ++frac;
      } else if (tok[i] != '0') {
        droppedNonZero = true;
      }
    }
  }
  int exp10 = 0;
  if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
    isInt = false;
    ++i;
    bool eneg = false;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) { eneg = tok[i] == '-'; ++i; }
    if (i >= tok.size() || !isDigit(tok[i])) return r;
    int e = 0;
    for (; i < tok.size() && isDigit(tok[i]); ++i) e = std::min(e * 10 + (tok[i] - '0'), 100000);
    exp10 = eneg ? -e : e;
  }
  if (i != tok.size()) return r;  // junk after the number
  r.status = ParsedNumber::Status::Ok;
  r.isInt = isInt;
  // value = mant × 10^(dropped + exp10 - frac) µs; ns = value × 10^3
  int k = dropped + exp10 - frac + 3;
  bool inexact = droppedNonZero;
  int64_t ns = 0;
  if (mant == 0) {
    ns = 0;
  } else if (k >= 0) {
    if (k > 18 || mant > static_cast<uint64_t>(INT64_MAX / kPow10[k])) {
      r.status = ParsedNumber::Status::OutOfRange;
      return r;
    }
    ns = static_cast<int64_t>(mant) * kPow10[k];
  } else {
    if (-k > 18) {
      ns = 0;
      inexact = true;
    } else {
      uint64_t div = static_cast<uint64_t>(kPow10[-k]);
      if (mant % div != 0) inexact = true;
      if (mant / div > static_cast<uint64_t>(INT64_MAX)) {
        r.status = ParsedNumber::Status::OutOfRange;
        return r;
      }
      ns = static_cast<int64_t>(mant / div);
    }
  }
  r.ns = neg ? -ns : ns;
  if (inexact) {
    r.inexact = true;
    double d = 0;
    std::from_chars(tok.data(), tok.data() + tok.size(), d);
    r.exact = d;
    if (!isInt && r.ns == 0 && d != 0) r.ns = static_cast<int64_t>(d * 1000.0);
  }
  return r;
}

bool parseIntegral(std::string_view tok, int64_t& out, bool& isReal) {
  tok = trimJsonWs(tok);
  isReal = false;
  if (tok.empty()) return false;
  auto res = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  if (res.ec == std::errc() && res.ptr == tok.data() + tok.size()) return true;
  double d = 0;
  auto r2 = std::from_chars(tok.data(), tok.data() + tok.size(), d);
  if (r2.ec != std::errc() || r2.ptr != tok.data() + tok.size() || !std::isfinite(d)) return false;
  if (d == std::floor(d) && std::fabs(d) < 9.2e18) {
    out = static_cast<int64_t>(d);
    return true;
  }
  isReal = true;
  std::memcpy(&out, &d, sizeof d);
  return true;
}

} // namespace steadyscope::io
