#pragma once
// Column<T>: the array type of the model's per-event fields and of other big
// per-event lists. It reads and writes as a std::vector<T>; where its memory
// comes from (large blocks on huge pages, freed blocks kept for reuse) is the
// core's business, behind detail::allocateColumn (core/src/util/big_alloc.cpp).
#include <cstddef>
#include <new>
#include <vector>

namespace steadyscope {

namespace detail {
void* allocateColumn(size_t bytes);  // throws std::bad_alloc
void freeColumn(void* p, size_t bytes) noexcept;

template <typename T>
struct ColumnAllocator {
  using value_type = T;
  ColumnAllocator() noexcept = default;
  template <typename U>
  ColumnAllocator(const ColumnAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(allocateColumn(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { freeColumn(p, n * sizeof(T)); }
  /// Default-initialises: resize(n) without a value leaves trivial elements
  /// uninitialised, so no page is touched until the data lands.
  template <typename U>
  void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(static_cast<Args&&>(args)...);
  }
  template <typename U>
  friend bool operator==(const ColumnAllocator&, const ColumnAllocator<U>&) noexcept {
    return true;
  }
};
}  // namespace detail

/// A per-event array: std::vector's interface, except that resize(n) and
/// Column(n) leave new trivial elements uninitialised (use resize(n, T{}) or
/// assign(n, T{}) for zeros).
template <typename T>
class Column : public std::vector<T, detail::ColumnAllocator<T>> {
  using Base = std::vector<T, detail::ColumnAllocator<T>>;

 public:
  using Base::Base;
};

}  // namespace steadyscope
