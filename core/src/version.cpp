#include <steadyscope/core/git_revision.h>
#include <steadyscope/core/version.h>
#include <steadyscope/core/version.hpp>

namespace steadyscope {
const char* versionString() { return STEADYSCOPE_VERSION; }
const char* gitRevision() { return STEADYSCOPE_GIT_REVISION; }
}  // namespace steadyscope
