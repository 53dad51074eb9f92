#pragma once
// Sorting a sequence that is almost in order already, in place, with scratch
// memory only for the elements out of order.
#include "util/big_alloc.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace steadyscope {

/// Sorts `v` by `less` (a strict weak order; equal elements keep their
/// relative order only when `less` is total). Fast when `v` is nearly sorted,
/// as per-lane event lists in file order are (a parent op is written after its
/// children; an annotation after the kernels it spans) and as GPU intervals of
/// interleaved streams are: the elements that break the order are moved to
/// `aside`, the rest is compacted in place, `aside` is sorted and merged back
/// from the end, in linear time plus the sort of the few. With more than a
/// quarter out of order it merges `v`'s ascending runs when they are few (a
/// lane written as a handful of sorted stretches), else sorts `v` whole. No
/// copy of `v` is made (fresh memory is a large cost on the VMs we run on);
/// `aside` is scratch reused across calls: a quarter of `v`, or the shorter
/// run of a merge.
template <typename T, typename Less>
void sortNearlySorted(Column<T>& v, Less less, Column<T>& aside);

namespace nearly_sorted_detail {

/// Merges the ascending neighbours v[a, b) and v[b, c) in place, the shorter
/// one copied to `aside`; on ties the left one's element goes first.
template <typename T, typename Less>
void mergeNeighbours(Column<T>& v, size_t a, size_t b, size_t c, Less& less, Column<T>& aside) {
  if (b - a <= c - b) {
    aside.assign(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(b));
    size_t i = 0, j = b, w = a;
    while (i < aside.size()) v[w++] = (j < c && less(v[j], aside[i])) ? v[j++] : aside[i++];
  } else {
    aside.assign(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(c));
    size_t i = b, j = aside.size(), w = c;
    while (j > 0) v[--w] = (i > a && less(aside[j - 1], v[i - 1])) ? v[--i] : aside[--j];
  }
}

/// Sorts `v` by merging its ascending runs pairwise, in O(n log runs); false
/// (and `v` as it was) when it has more than `maxRuns`.
template <typename T, typename Less>
bool mergeRuns(Column<T>& v, Less& less, Column<T>& aside, size_t maxRuns = 32) {
  std::vector<size_t> starts{0};  // the runs' starts, then v's end
  for (size_t q = 1; q < v.size(); ++q)
    if (less(v[q], v[q - 1])) {
      if (starts.size() == maxRuns) return false;
      starts.push_back(q);
    }
  starts.push_back(v.size());
  while (starts.size() > 2) {
    const size_t runs = starts.size() - 1;
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 2 <= runs; r += 2) {
      mergeNeighbours(v, starts[r], starts[r + 1], starts[r + 2], less, aside);
      merged.push_back(starts[r + 2]);
    }
    if (runs % 2) merged.push_back(starts[runs]);  // the odd last run waits for the next round
    starts = std::move(merged);
  }
  aside.clear();
  return true;
}

}  // namespace nearly_sorted_detail

template <typename T, typename Less>
void sortNearlySorted(Column<T>& v, Less less, Column<T>& aside) {
  aside.clear();
  const size_t n = v.size();
  aside.reserve(n / 4 + 16);  // address space; touched only as used
  size_t k = 0;               // v[0, k) is the in-order run kept so far
  for (size_t i = 0; i < n; ++i) {
    const T x = v[i];
    if (k == 0 || !less(x, v[k - 1])) {
      v[k++] = x;
      continue;
    }
    if ((aside.size() + 1) * 4 > n) {
      // Too disordered: put the set-aside elements back into the hole they
      // left (k + aside.size() == i) and merge the runs, or sort everything.
      std::copy(aside.begin(), aside.end(), v.begin() + static_cast<std::ptrdiff_t>(k));
      aside.clear();
      if (!nearly_sorted_detail::mergeRuns(v, less, aside)) std::sort(v.begin(), v.end(), less);
      return;
    }
    aside.push_back(x);
  }
  if (aside.empty()) return;
  std::sort(aside.begin(), aside.end(), less);
  // Merge v[0, k) and aside from the back into v[0, n). On ties the kept
  // element goes first, as std::merge puts its first range first.
  size_t i = k, j = aside.size(), w = n;
  while (j > 0) {
    if (i > 0 && less(aside[j - 1], v[i - 1]))
      v[--w] = v[--i];
    else
      v[--w] = aside[--j];
  }
}

}  // namespace steadyscope
