#pragma once

namespace steadyscope {
/// The project version, e.g. "0.1.0".
const char* versionString();
/// The git revision the build came from (`git describe --always --dirty`), "unknown" without git.
const char* gitRevision();
}  // namespace steadyscope

#include <string>
#include <vector>

namespace steadyscope {
/// A third-party library this build uses, for the About dialog and `--version`.
struct Component {
  std::string name, version, licence, url;
};
/// The core's libraries (the GUI adds Qt). The same list, with the licence texts, is in
/// packaging/copyright; a test checks that every name here appears there.
std::vector<Component> thirdPartyComponents();
}  // namespace steadyscope
