#include "util/big_alloc.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

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

// ---- retained blocks ----
// Freed blocks are kept (up to a cap of address space) and handed out again:
// pages this process touched moments ago cost nothing to touch again, fresh
// ones ~2 ms/MiB on the VMs we run on (D-014), and the kernel does not reliably
// give freed pages back to the next mapping (free pages are reported to the
// host after ~2 s). Like an allocator's retained extents: best fit, the front
// of a larger block (its touched part) first, the rest kept.
struct Retained {
  std::mutex m;
  std::vector<std::pair<char*, size_t>> blocks;  // (start, size), sizes multiples of kHuge
  size_t bytes() const {                         // at most kMaxRetainedBlocks terms
    size_t b = 0;
    for (const auto& blk : blocks) b += blk.second;
    return b;
  }
};
Retained& retained() {
  static Retained* r = new Retained;  // never destroyed: blocks may be freed during static destruction
  return *r;
}
size_t retainCap() {
  static const size_t cap = [] {
    const char* v = std::getenv("STEADYSCOPE_RETAIN_MIB");
    return (v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : size_t(128)) << 20;
  }();
  return cap;
}
constexpr size_t kMaxRetainedBlocks = 64;

void* takeRetained(size_t size) {
  Retained& r = retained();
  std::lock_guard<std::mutex> lock(r.m);
  // Best fit; among equal sizes the most recently retained (warmest: a
  // prefaulted block, or one freed a moment ago, rather than an old reserve
  // that may never have been touched).
  size_t best = SIZE_MAX;
  for (size_t k = r.blocks.size(); k-- > 0;)
    if (r.blocks[k].second >= size && (best == SIZE_MAX || r.blocks[k].second < r.blocks[best].second)) best = k;
  if (best == SIZE_MAX) return nullptr;
  auto [p, have] = r.blocks[best];
  if (have > size) {
    r.blocks[best] = {p + size, have - size};
  } else {
    r.blocks.erase(r.blocks.begin() + static_cast<std::ptrdiff_t>(best));  // keeps the others' order
  }
  return p;
}

bool keepRetained(char* p, size_t size) {
  Retained& r = retained();
  std::lock_guard<std::mutex> lock(r.m);
  if (r.bytes() + size > retainCap() || r.blocks.size() >= kMaxRetainedBlocks) return false;
  r.blocks.emplace_back(p, size);
  return true;
}

void* mapFresh(size_t size) {
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
}  // namespace

size_t retainedBytes() noexcept {
  Retained& r = retained();
  std::lock_guard<std::mutex> lock(r.m);
  return r.bytes();
}

void releaseRetained() noexcept {
  Retained& r = retained();
  std::lock_guard<std::mutex> lock(r.m);
  for (auto [p, size] : r.blocks) ::munmap(p, size);
  r.blocks.clear();
}

void prefault(size_t bytes) noexcept {
  if (bytes < kMmapThreshold) return;
  const size_t size = roundUp(bytes, kHuge);
  char* p = nullptr;
  try {
    p = static_cast<char*>(allocate(size));
  } catch (...) {
    return;
  }
  // One write per 4 KiB page (one fault per 2 MiB where huge pages are on).
  // The block is ours until it is handed back, and its contents are free.
  for (size_t off = 0; off < size; off += 4096) reinterpret_cast<volatile char*>(p)[off] = 0;
  deallocate(p, size);
}

bool populate(void* p, size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
  if (!p || bytes == 0) return true;
  const auto begin = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(4095);
  const auto end = roundUp(reinterpret_cast<uintptr_t>(p) + bytes, 4096);
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

void* allocate(size_t bytes) {
  if (bytes < kMmapThreshold) return ::operator new(bytes);
  const size_t size = roundUp(bytes, kHuge);
  if (void* p = takeRetained(size)) return p;
  return mapFresh(size);
}

void* allocateZeroed(size_t bytes) {
  if (bytes < kMmapThreshold) return std::memset(::operator new(bytes), 0, bytes);
  const size_t size = roundUp(bytes, kHuge);
  // A retained block may be cold (an untouched reserve): clearing it here
  // would fault it all in on this thread. Dropped pages read as zero and are
  // faulted in where they are written, as a fresh mapping's are.
  if (void* p = takeRetained(size)) {
    if (::madvise(p, size, MADV_DONTNEED) != 0) std::memset(p, 0, bytes);
    return p;
  }
  return mapFresh(size);  // anonymous pages read as zero until written
}

void deallocate(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kMmapThreshold) {
    ::operator delete(p);
    return;
  }
  const size_t size = roundUp(bytes, kHuge);
  if (!keepRetained(static_cast<char*>(p), size)) ::munmap(p, size);
}

}  // namespace steadyscope::bigmem

namespace steadyscope::detail {

void* allocateColumn(size_t bytes) { return bigmem::allocate(bytes); }
void freeColumn(void* p, size_t bytes) noexcept { bigmem::deallocate(p, bytes); }

}  // namespace steadyscope::detail
