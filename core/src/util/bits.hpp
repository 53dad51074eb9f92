#pragma once
// Bitmaps over events: a bit per event, 64 to a word.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace steadyscope {

/// Calls fn(i) for every set bit i of `words`, in increasing order.
template <typename Fn>
void forEachSetBit(std::span<const uint64_t> words, Fn&& fn) {
  for (size_t w = 0; w < words.size(); ++w)
    for (uint64_t b = words[w]; b != 0; b &= b - 1) fn(static_cast<uint32_t>(w * 64 + std::countr_zero(b)));
}

}  // namespace steadyscope
