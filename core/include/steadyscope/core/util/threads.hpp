#pragma once
// How many threads a job uses: what the user asked for (--threads N), else
// what the hardware has, capped so that one job does not flood a big machine
// with threads whose work does not scale (parsing is memory bound).
#include <algorithm>
#include <thread>

namespace steadyscope {

/// The cap on threads one job takes from the hardware when the user did not say.
inline constexpr unsigned kMaxDefaultThreads = 16;

/// `requested` when it is non-zero, else the hardware's thread count (1 when
/// unknown) capped at kMaxDefaultThreads.
inline unsigned jobThreads(unsigned requested = 0) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(hw, 1u, kMaxDefaultThreads);
}

}  // namespace steadyscope
