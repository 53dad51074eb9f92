// The loader on raw JSON bytes (the in-memory path: no compression), then,
// when a model comes out, everything that reads a model without a split:
// the event index and the timeline's lanes are built by loadTrace itself.
#include "io/load_tuning.hpp"
#include <steadyscope/core/io/loader.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  steadyscope::LoadOptions options;
  options.threads = 1;  // one thread: a crash must replay from its input alone
  static const steadyscope::io::LoadTuning kSmall{.pieceBytes = 4096};
  options.tuning = &kSmall;  // small pieces, so small inputs still cross piece boundaries
  auto r = steadyscope::loadTraceFromString(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json",
                                            options);
  if (!r) (void)r.error().describe();
  return 0;
}
