// The core's third-party libraries with the versions this build was compiled against.
#include <steadyscope/core/version.hpp>

#include <fmt/format.h>
#include <isa-l.h>
#include <simdjson.h>
#include <zlib.h>
#ifdef STEADYSCOPE_HAVE_ZSTD
#include <zstd.h>
#endif

namespace steadyscope {

std::vector<Component> thirdPartyComponents() {
  std::vector<Component> c;
  c.push_back({"simdjson",
               fmt::format("{}.{}.{}", int(simdjson::SIMDJSON_VERSION_MAJOR), int(simdjson::SIMDJSON_VERSION_MINOR),
                           int(simdjson::SIMDJSON_VERSION_REVISION)),
               "Apache-2.0", "https://simdjson.org"});
  c.push_back({"{fmt}", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100), "MIT",
               "https://fmt.dev"});
  c.push_back({"ISA-L", fmt::format("{}.{}.{}", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION),
               "BSD-3-Clause", "https://github.com/intel/isa-l"});
  c.push_back({"zlib", zlibVersion(), "Zlib", "https://zlib.net"});
#ifdef STEADYSCOPE_HAVE_ZSTD
  c.push_back({"Zstandard", ZSTD_versionString(), "BSD-3-Clause", "https://facebook.github.io/zstd/"});
#endif
  return c;
}

}  // namespace steadyscope
