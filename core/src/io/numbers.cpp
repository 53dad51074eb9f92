#include "io/numbers.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

namespace steadyscope::io {

namespace {
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr int64_t kPow10[] = {1,
                              10,
                              100,
                              1000,
                              10000,
                              100000,
                              1000000,
                              10000000,
                              100000000,
                              1000000000,
                              10000000000,
                              100000000000,
                              1000000000000,
                              10000000000000,
                              100000000000000,
                              1000000000000000,
                              10000000000000000,
                              100000000000000000,
                              1000000000000000000};
// Times and durations stay under 2^62 ns (146 years) in magnitude, so that
// ts + dur and the difference of two times never overflow an int64_t.
constexpr int64_t kMaxAbsNs = (int64_t(1) << 62) - 1;
// kMaxAbsNs / 10^k: the largest mantissa that scales within range (a table,
// not a division per number: the division was a quarter of the parse's time here).
constexpr auto kMaxScalable = [] {
  std::array<uint64_t, 19> t{};
  for (size_t k = 0; k < t.size(); ++k) t[k] = static_cast<uint64_t>(kMaxAbsNs / kPow10[k]);
  return t;
}();

// Eight ASCII digits at p, as one number (SWAR: three multiply-shift steps;
// the first character is the lowest byte).
static_assert(std::endian::native == std::endian::little, "eightDigits assumes little-endian loads");
inline bool eightDigits(const char* p, uint64_t& out) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  // every byte in '0'..'9': high nibble 3, and adding 6 does not carry into it
  if (((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
      0x3333333333333333ull)
    return false;
  v -= 0x3030303030303030ull;
  v = (v * 10) + (v >> 8);  // pairs
  v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
      32;
  out = v;
  return true;
}

// Digits from p up to end appended to acc (the caller guarantees at most 19
// digits in all, so acc cannot overflow); returns the first non-digit.
inline const char* appendDigits(const char* p, const char* end, uint64_t& acc, int& count) {
  uint64_t eight;
  while (end - p >= 8 && count <= 11 && eightDigits(p, eight)) {
    acc = acc * 100000000ull + eight;
    p += 8;
    count += 8;
  }
  while (p < end && isDigit(*p) && count < 19) {
    acc = acc * 10 + static_cast<uint64_t>(*p - '0');
    ++p;
    ++count;
  }
  return p;
}
}  // namespace

ParsedNumber parseMicros(std::string_view tok) {
  // Fast path for the common shape: [-]digits[.digits], at most 19 digits in
  // all (ts, dur as Kineto writes them). Anything else — exponents, more
  // digits, junk — takes the general path below, which gives the same result
  // for these (test: parseMicrosFastPath).
  tok = trimJsonWs(tok);
  const char* p = tok.data();
  const char* const end = p + tok.size();
  const bool neg = p < end && *p == '-';
  p += neg;
  if (p < end && isDigit(*p)) {
    uint64_t mant = 0;
    int count = 0;
    p = appendDigits(p, end, mant, count);
    int frac = 0;
    bool isInt = true;
    if (p < end && *p == '.' && p + 1 < end && isDigit(p[1])) {
      isInt = false;
      const int before = count;
      p = appendDigits(p + 1, end, mant, count);
      frac = count - before;
    }
    if (p == end) {  // everything consumed within 19 digits
      ParsedNumber r;
      r.status = ParsedNumber::Status::Ok;
      r.isInt = isInt;
      const int k = 3 - frac;  // ns = mant × 10^k
      if (mant == 0) {
        r.ns = 0;
      } else if (k >= 0) {
        if (mant > kMaxScalable[static_cast<size_t>(k)]) return parseMicrosGeneral(tok);
        r.ns = static_cast<int64_t>(mant) * kPow10[k];
      } else {
        const auto div = static_cast<uint64_t>(kPow10[-k]);
        if (mant % div != 0) return parseMicrosGeneral(tok);  // finer than 1 ns: rare
        r.ns = static_cast<int64_t>(mant / div);
      }
      if (neg) r.ns = -r.ns;
      return r;
    }
  }
  return parseMicrosGeneral(tok);
}

namespace {

/// A JSON number's text as mant × 10^(dropped + exp10 - frac), mant holding
/// at most 19 significant digits.
struct Decimal {
  bool neg = false;
  bool isInt = true;
  uint64_t mant = 0;
  int sig = 0;      // significant digits accumulated in mant
  int dropped = 0;  // integer digits beyond 19 significant (scale up)
  bool droppedNonZero = false;
  int frac = 0;
  int exp10 = 0;
};

/// Reads the digits of [i, end) into `d` (fraction digits when `fraction`).
void readDigits(std::string_view tok, size_t& i, bool fraction, Decimal& d) {
  for (; i < tok.size() && isDigit(tok[i]); ++i) {
    if (d.sig < 19) {
      d.mant = d.mant * 10 + static_cast<uint64_t>(tok[i] - '0');
      if (d.mant) ++d.sig;
      if (fraction) ++d.frac;
    } else {
      if (!fraction) ++d.dropped;
      if (tok[i] != '0') d.droppedNonZero = true;
    }
  }
}

/// The JSON number grammar over all of `tok`; false for anything else.
bool readDecimal(std::string_view tok, Decimal& d) {
  size_t i = 0;
  if (tok[i] == '-') {
    d.neg = true;
    ++i;
  }
  if (i >= tok.size() || !isDigit(tok[i])) return false;
  readDigits(tok, i, false, d);
  if (i < tok.size() && tok[i] == '.') {
    d.isInt = false;
    ++i;
    if (i >= tok.size() || !isDigit(tok[i])) return false;
    readDigits(tok, i, true, d);
  }
  if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
    d.isInt = false;
    ++i;
    bool eneg = false;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) {
      eneg = tok[i] == '-';
      ++i;
    }
    if (i >= tok.size() || !isDigit(tok[i])) return false;
    int e = 0;
    for (; i < tok.size() && isDigit(tok[i]); ++i) e = std::min(e * 10 + (tok[i] - '0'), 100000);
    d.exp10 = eneg ? -e : e;
  }
  return i == tok.size();  // no junk after the number
}

/// The value × 1000 of `d` (read from `tok`), exact or with its double kept.
ParsedNumber toNanoseconds(const Decimal& d, std::string_view tok) {
  ParsedNumber r;
  r.status = ParsedNumber::Status::Ok;
  r.isInt = d.isInt;
  const int k = d.dropped + d.exp10 - d.frac + 3;  // ns = mant × 10^k
  bool inexact = d.droppedNonZero;
  int64_t ns = 0;
  if (d.mant == 0) {
    ns = 0;
  } else if (k >= 0) {
    if (k > 18 || d.mant > kMaxScalable[static_cast<size_t>(k)]) {
      r.status = ParsedNumber::Status::OutOfRange;
      return r;
    }
    ns = static_cast<int64_t>(d.mant) * kPow10[k];
  } else if (-k > 18) {
    ns = 0;
    inexact = true;
  } else {
    const auto div = static_cast<uint64_t>(kPow10[-k]);
    if (d.mant % div != 0) inexact = true;
    if (d.mant / div > static_cast<uint64_t>(kMaxAbsNs)) {
      r.status = ParsedNumber::Status::OutOfRange;
      return r;
    }
    ns = static_cast<int64_t>(d.mant / div);
  }
  r.ns = d.neg ? -ns : ns;
  if (inexact) {
    r.inexact = true;
    double v = 0;
    std::from_chars(tok.data(), tok.data() + tok.size(), v);
    r.exact = v;
    if (!d.isInt && r.ns == 0 && v != 0) r.ns = static_cast<int64_t>(v * 1000.0);
  }
  return r;
}

}  // namespace

ParsedNumber parseMicrosGeneral(std::string_view tok) {
  tok = trimJsonWs(tok);
  if (tok.empty()) return {};
  if (tok == "NaN" || tok == "Infinity" || tok == "-Infinity") {
    ParsedNumber r;
    r.status = ParsedNumber::Status::NonFinite;
    return r;
  }
  Decimal d;
  if (!readDecimal(tok, d)) return {};
  return toNanoseconds(d, tok);
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

}  // namespace steadyscope::io
