#pragma once
// The loader's and the trace cache's way into the model's narrow columns:
// their 16/32-bit storage, filled in bulk, and the side tables of values too
// wide for it. Private to the core, so the model's public types show only
// their values.
#include <steadyscope/core/model/trace.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace steadyscope {

struct ColumnFill {
  template <typename N, typename W, N M>
  static Column<N>& narrow(NarrowColumn<N, W, M>& c) {
    return c.narrow();
  }
  template <typename N, typename W, N M>
  static const Column<N>& narrow(const NarrowColumn<N, W, M>& c) {
    return c.narrow();
  }
  template <typename N, typename W, N M>
  static void adoptWide(NarrowColumn<N, W, M>& c, std::vector<std::pair<uint32_t, W>> wide) {
    c.adoptWide(std::move(wide));
  }
  template <typename N, typename W, N M>
  static void mergeWide(NarrowColumn<N, W, M>& c, std::vector<std::pair<uint32_t, W>> more) {
    c.mergeWide(std::move(more));
  }
  /// The side table of values too wide for the narrow storage (the trace cache writes it).
  template <typename N, typename W, N M>
  static const std::vector<std::pair<uint32_t, W>>& wide(const NarrowColumn<N, W, M>& c) {
    return c.wide_;
  }
  static Column<uint32_t>& low(OffsetColumn& c) { return c.low(); }
  static const Column<uint32_t>& low(const OffsetColumn& c) { return c.low_; }
  /// The epoch change points (a valid input for adoptChanges).
  static const std::vector<std::pair<uint32_t, uint32_t>>& epochs(const OffsetColumn& c) { return c.epochs_; }
  static void splitOffsets(const uint64_t* src, size_t n, uint32_t base, uint32_t* low,
                           std::vector<std::pair<uint32_t, uint32_t>>& changes) {
    OffsetColumn::splitInto(src, n, base, low, changes);
  }
  static void adoptChanges(OffsetColumn& c, std::vector<std::pair<uint32_t, uint32_t>> changes) {
    c.adoptChanges(std::move(changes));
  }
};

}  // namespace steadyscope
