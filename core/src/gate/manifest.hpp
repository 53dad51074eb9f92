#pragma once
// What a split directory's split_manifest.json says about the detection: the
// few top-level fields a refusal is explained by. The JSON must be valid (with
// Python's NaN and Infinity); a field that is missing or of another type
// reads as absent (a manifest from another splitter version may lack any).
#include <steadyscope/core/util/error.hpp>

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

/// An Io error when the file cannot be read; a Format error (code
/// "manifest_unreadable", with the byte offset where known) when it is not a
/// JSON object.
Expected<ManifestFacts> readManifestFacts(const std::string& path);

/// Why the splitter refused, in plain words; empty when it did not.
std::string refusalSentence(const ManifestFacts& m);

}  // namespace steadyscope::gate
