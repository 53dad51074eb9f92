#pragma once
// Half-open time intervals and their union: the GPU busy time of a device,
// of a chunk, of a range on the timeline. One merge rule everywhere:
// overlapping and touching intervals join, empty ones are dropped.
#include <algorithm>
#include <cstdint>
#include <span>

namespace steadyscope {

/// A half-open interval in ns.
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// Merges `iv`, sorted by begin, into its union in place and returns the
/// union's size (the first n elements; the caller shrinks the container).
inline size_t mergeSortedInPlace(std::span<Interval> iv) {
  size_t m = 0;
  for (const Interval& x : iv) {
    if (x.end <= x.begin) continue;
    if (m > 0 && x.begin <= iv[m - 1].end)
      iv[m - 1].end = std::max(iv[m - 1].end, x.end);
    else
      iv[m++] = x;
  }
  return m;
}

/// Sorts `iv` by begin and merges it into its union in place; returns the
/// union's size.
inline size_t sortAndMerge(std::span<Interval> iv) {
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  return mergeSortedInPlace(iv);
}

/// Total length of disjoint intervals.
inline int64_t totalLength(std::span<const Interval> iv) {
  int64_t sum = 0;
  for (const Interval& x : iv) sum += x.length();
  return sum;
}

/// Length of the part of disjoint, sorted intervals inside [a, b).
inline int64_t lengthWithin(std::span<const Interval> iv, int64_t a, int64_t b) {
  auto it = std::lower_bound(iv.begin(), iv.end(), a, [](const Interval& x, int64_t t) { return x.end <= t; });
  int64_t sum = 0;
  for (; it != iv.end() && it->begin < b; ++it) sum += std::min(it->end, b) - std::max(it->begin, a);
  return sum;
}

}  // namespace steadyscope
