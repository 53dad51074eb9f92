#pragma once
// Memory for the big per-event arrays (model columns, lane indices, parse
// buffers).
//
// Why: on the VMs we run on, the first touch of a fresh 4 KiB page is a trap
// to the hypervisor, so a model spent most of its load time in page faults
// (D-010). Allocations of 1 MiB and more
// are therefore mmapped on a 2 MiB boundary with MADV_HUGEPAGE: one fault per
// 2 MiB instead of 512 (docs/BENCHMARKS.md "Fresh memory"). Smaller blocks go
// to operator new.
// Freed big blocks are retained for reuse (D-014).
// STEADYSCOPE_HUGEPAGES=0 in the environment turns the advice off.
#include <steadyscope/core/util/column.hpp>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace steadyscope {

namespace bigmem {
/// Threshold in bytes above which blocks are mmapped.
inline constexpr size_t kMmapThreshold = size_t(1) << 20;
void* allocate(size_t bytes);  // throws std::bad_alloc
void deallocate(void* p, size_t bytes) noexcept;
/// Freed blocks of kMmapThreshold and more are retained (up to
/// STEADYSCOPE_RETAIN_MIB of address space, default 128) and reused by later
/// allocations: touching them again is nearly free, fresh pages are not.
/// Their contents are whatever was left in them (Column never promises zeros).
size_t retainedBytes() noexcept;
/// Faults in a block of `bytes` (rounded up to 2 MiB; nothing under
/// kMmapThreshold) and retains it, so that the next allocation of about that
/// size finds warm pages. For a thread that would otherwise idle while
/// another one works: a fresh page costs the same wherever it is touched, so
/// this only pays when it runs on an idle core ahead of the allocation.
/// Best effort: never throws.
void prefault(size_t bytes) noexcept;
/// Faults in the pages of [p, p + bytes) that are not yet present without
/// changing any byte (MADV_POPULATE_WRITE), so another thread may be writing
/// the same memory meanwhile. For an idle core ahead of a thread that is
/// about to fill a block it owns. False where the kernel cannot (< 5.14).
bool populate(void* p, size_t bytes) noexcept;
void releaseRetained() noexcept;  // unmaps every retained block
/// A block of `bytes` reading as zeros. A fresh mapping is zero already and
/// is not touched here: its pages are faulted in where they are first
/// written, by whichever thread writes them. A retained block's pages are
/// dropped (they read as zero and are faulted in the same way).
void* allocateZeroed(size_t bytes);  // throws std::bad_alloc
}  // namespace bigmem

/// Reserves room for n elements, for temporaries that are filled once. Blocks
/// under kMmapThreshold stay on 4 KiB pages: a fresh huge page the host has
/// not backed yet costs as much as hundreds of 4 KiB pages, so rounding a few
/// hundred KiB up to a huge page of its own cost more than it saved
/// (docs/BENCHMARKS.md).
template <typename T>
void reserveFresh(Column<T>& c, size_t n) {
  c.reserve(n);
}

/// n trivial elements reading as zero (bigmem::allocateZeroed): for big
/// arrays where zero means "nothing yet" and most entries are written once,
/// so that no fill pass touches fresh pages ahead of the writes.
template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(size_t n) : p_(n ? static_cast<T*>(bigmem::allocateZeroed(bytesFor(n))) : nullptr), n_(n) {}
  ZeroedArray(ZeroedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ZeroedArray& operator=(ZeroedArray&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() { release(); }

  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  static size_t bytesFor(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return n * sizeof(T);
  }
  void release() noexcept {
    if (p_) bigmem::deallocate(p_, n_ * sizeof(T));
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  size_t n_ = 0;
};

/// n zero (value-initialised) elements, reserved as reserveFresh reserves them.
template <typename T>
Column<T> zeroedFresh(size_t n) {
  Column<T> c;
  reserveFresh(c, n);
  c.assign(n, T{});
  return c;
}

}  // namespace steadyscope
