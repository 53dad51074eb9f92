#include <steadyscope/core/util/memory.hpp>

#include "util/big_alloc.hpp"

#include <malloc.h>

namespace steadyscope {

void releaseFreedMemory() noexcept {
  bigmem::releaseRetained();
  ::malloc_trim(0);
}

void tuneAllocatorForLongUse() noexcept {
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // Each thread's own heap (arena) keeps what it freed, scattered, so a window
  // whose loads ran on new threads held more after each round of traces: two
  // arenas, the window's thread and its workers' (D-076). The loader's big
  // columns come from the system, not from these heaps.
  ::mallopt(M_ARENA_MAX, 2);
}

}  // namespace steadyscope
