#pragma once
// What a split directory's split_manifest.json says about the detection: the
// few top-level fields a refusal is explained by, read leniently (a manifest
// from another splitter version may lack any of them).
#include <cstdint>
#include <optional>
#include <string>

namespace steadyscope::gate {

struct ManifestFacts {
  bool aborted = false;
  std::optional<int64_t> status;  // 0 SPLITTABLE, 1 DEGRADED, 2 NOT_SPLITTABLE
  std::string method;             // "annotation:tier", "generic:branch_descent", "none", ...
  std::optional<int64_t> nRoots;
  std::optional<double> coverage;        // coverage_selected_roots (annotation roots)
  std::optional<double> branchCoverage;  // call-tree roots
};

/// nullopt when the file cannot be read.
std::optional<ManifestFacts> readManifestFacts(const std::string& path);

/// Why the splitter refused, in plain words; empty when it did not.
std::string refusalSentence(const ManifestFacts& m);

}  // namespace steadyscope::gate
