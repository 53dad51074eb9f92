// The parsers of event names: serving annotations (step details, phase
// skeletons, root-name sanitising) and the call-tree name normaliser.
#include "util/name_normaliser.hpp"
#include "analysis/roots/annotation.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace steadyscope::analysis;
using steadyscope::names::normalizeNameForComparison;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  (void)parseAnnotation(name);
  (void)matchesKnownPattern(name);
  (void)nameSkeleton(name);
  (void)sanitizeRootName(name);
  (void)normalizeNameForComparison(name);
  return 0;
}
