#pragma once
// JSON's structural characters outside strings, 64 bytes at a time, the way
// simdjson's first stage finds them: escapes and quotes become bit masks and
// a prefix XOR marks the bytes inside strings, so a string costs nothing per
// character. The scans of json_scan.cpp (the array's end, a value's end) walk
// only the bits this leaves.
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace steadyscope::io {

/// One block's structural characters outside strings: bit i is byte i.
struct StructuralMasks {
  uint64_t opens = 0;   // '{' '['
  uint64_t closes = 0;  // '}' ']'
  uint64_t commas = 0;
};

class StructuralBlocks {
 public:
  static constexpr size_t kBlock = 64;

  /// Every '{' '[' / '}' ']' / ',' / '"' / '\\' of a block, strings not yet known.
  struct Raw {
    uint64_t opens = 0, closes = 0, commas = 0, quotes = 0, backslashes = 0;
  };
  static Raw classify(const char* p);
  static Raw classifyBytes(const char* p);  // the portable form, for other machines and the tests

  /// Classifies the kBlock bytes at `p` (all readable), which follow the
  /// bytes of the previous call; `base` is p's offset, for openQuote().
  StructuralMasks next(const char* p, uint64_t base) {
    const Raw r = classify(p);
    const uint64_t quotes = r.quotes & ~escapedBy(r.backslashes);
    const uint64_t inside = prefixXor(quotes) ^ inString_;  // from an opening quote up to its closing one
    inString_ = static_cast<uint64_t>(static_cast<int64_t>(inside) >> 63);
    if (const uint64_t opening = quotes & inside)
      lastOpenQuote_ = base + 63 - static_cast<uint64_t>(__builtin_clzll(opening));
    return {r.opens & ~inside, r.closes & ~inside, r.commas & ~inside};
  }

  /// The scan so far ends inside a string.
  bool inString() const { return inString_ != 0; }
  /// Where the last string opened (its quote's offset).
  uint64_t openQuote() const { return lastOpenQuote_; }

 private:
  static uint64_t prefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
  }

  /// The bytes escaped by a backslash (an escaped backslash escapes nothing);
  /// backslashes are rare in traces, so they are walked one by one.
  uint64_t escapedBy(uint64_t backslashes) {
    uint64_t escaped = escapeCarry_;
    escapeCarry_ = 0;
    while (backslashes) {
      const int i = __builtin_ctzll(backslashes);
      backslashes &= backslashes - 1;
      if ((escaped >> i) & 1) continue;
      if (i == 63)
        escapeCarry_ = 1;
      else
        escaped |= uint64_t(2) << i;
    }
    return escaped;
  }

  uint64_t inString_ = 0;  // all ones while inside a string across blocks
  uint64_t escapeCarry_ = 0;
  uint64_t lastOpenQuote_ = 0;
};

#if defined(__SSE2__)
inline StructuralBlocks::Raw StructuralBlocks::classify(const char* p) {
  Raw r;
  const __m128i lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(v, lower);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
    const int shift = 16 * k;
    r.opens |= uint64_t(uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)))) << shift;
    r.closes |= uint64_t(uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)))) << shift;
    r.commas |= uint64_t(uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)))) << shift;
    r.quotes |= uint64_t(uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))) << shift;
    r.backslashes |= uint64_t(uint16_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
  }
  return r;
}
#else
inline StructuralBlocks::Raw StructuralBlocks::classify(const char* p) { return classifyBytes(p); }
#endif

inline StructuralBlocks::Raw StructuralBlocks::classifyBytes(const char* p) {
  Raw r;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t(1) << i;
    switch (p[i]) {
      case '{':
      case '[': r.opens |= bit; break;
      case '}':
      case ']': r.closes |= bit; break;
      case ',': r.commas |= bit; break;
      case '"': r.quotes |= bit; break;
      case '\\': r.backslashes |= bit; break;
      default: break;
    }
  }
  return r;
}

/// Calls `visit(base, masks)` for each block of t[from, size) in order, the
/// last one padded with spaces, until it returns true; returns whether it did.
template <class Visit>
bool forEachStructuralBlock(const char* t, size_t size, size_t from, StructuralBlocks& blocks, Visit&& visit) {
  size_t base = from;
  for (; base + StructuralBlocks::kBlock <= size; base += StructuralBlocks::kBlock)
    if (visit(base, blocks.next(t + base, base))) return true;
  if (base >= size) return false;
  char last[StructuralBlocks::kBlock];
  std::memset(last, ' ', sizeof last);
  std::memcpy(last, t + base, size - base);
  return visit(base, blocks.next(last, base));
}

}  // namespace steadyscope::io
