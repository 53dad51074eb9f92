#include <steadyscope/core/version.h>

namespace steadyscope {
const char* versionString() { return STEADYSCOPE_VERSION; }
}  // namespace steadyscope
