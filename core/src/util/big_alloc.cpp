#include <steadyscope/core/util/big_alloc.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace steadyscope::bigmem {

namespace {
constexpr size_t kHuge = size_t(2) << 20;

bool readEnabled() {
  const char* v = std::getenv("STEADYSCOPE_HUGEPAGES");
  return !(v && std::strcmp(v, "0") == 0);
}

size_t roundUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

bool hugePagesEnabled() noexcept {
  static const bool on = readEnabled();
  return on;
}
} // namespace

void* allocate(size_t bytes) {
  if (bytes < kMmapThreshold) return ::operator new(bytes);
  const size_t size = roundUp(bytes, kHuge);
  // Over-map by one huge page, then trim both ends so the block starts on a
  // 2 MiB boundary (the kernel only backs aligned 2 MiB ranges with huge pages).
  void* raw = ::mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = roundUp(base, kHuge);
  if (aligned > base) ::munmap(raw, aligned - base);
  uintptr_t end = base + size + kHuge;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  if (hugePagesEnabled()) ::madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

void deallocate(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kMmapThreshold) {
    ::operator delete(p);
    return;
  }
  ::munmap(p, roundUp(bytes, kHuge));
}

} // namespace steadyscope::bigmem
