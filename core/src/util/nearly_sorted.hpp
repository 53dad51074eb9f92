#pragma once
// Sorting a sequence that is almost in order already, in place, with scratch
// memory only for the elements out of order.
#include "util/big_alloc.hpp"

#include <algorithm>
#include <cstddef>

namespace steadyscope {

/// Sorts `v` by `less` (a strict weak order; equal elements keep their
/// relative order only when `less` is total). Fast when `v` is nearly sorted,
/// as per-lane event lists in file order are (a parent op is written after its
/// children; an annotation after the kernels it spans) and as GPU intervals of
/// interleaved streams are: the elements that break the order are moved to
/// `aside`, the rest is compacted in place, `aside` is sorted and merged back
/// from the end, in linear time plus the sort of the few. With more than a
/// quarter out of order it gives up and sorts `v` whole. No copy of `v` is
/// made (fresh memory is a large cost on the VMs we run on); `aside` is
/// scratch reused across calls and holds at most a quarter of `v`.
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
      // left (k + aside.size() == i) and sort everything.
      std::copy(aside.begin(), aside.end(), v.begin() + static_cast<std::ptrdiff_t>(k));
      aside.clear();
      std::sort(v.begin(), v.end(), less);
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
