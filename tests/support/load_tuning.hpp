#pragma once
// Load options with the loader's own sizes set small (core/src/io/load_tuning.hpp),
// so that a test's small input crosses piece boundaries and gzip checkpoints.
#include "io/load_tuning.hpp"

#include <steadyscope/core/io/loader.hpp>

#include <deque>

namespace testsupport {

/// `o` with pieces of `pieceBytes` (and gzip checkpoints every
/// `checkpointBytes`, 0: the loader's spacing). The tuning lives until the
/// test program ends.
inline steadyscope::LoadOptions tuned(steadyscope::LoadOptions o, size_t pieceBytes, uint64_t checkpointBytes = 0) {
  static thread_local std::deque<steadyscope::io::LoadTuning> kept;
  kept.push_back({pieceBytes, checkpointBytes});
  o.tuning = &kept.back();
  return o;
}

}  // namespace testsupport
