#include <steadyscope/core/util/memory.hpp>

#include "util/big_alloc.hpp"

#include <malloc.h>

namespace steadyscope {

void releaseFreedMemory() noexcept {
  bigmem::releaseRetained();
  ::malloc_trim(0);
}

void tuneAllocatorForLongUse() noexcept { ::mallopt(M_MMAP_THRESHOLD, 1 << 20); }

}  // namespace steadyscope
