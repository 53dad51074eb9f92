#pragma once

namespace steadyscope {
/// The project version, e.g. "0.1.0".
const char* versionString();
}  // namespace steadyscope
