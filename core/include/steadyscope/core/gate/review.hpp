#pragma once
// Reviewing a split directory written by the reference splitter (any layout:
// with or without busy_ratio, relative or absolute output_path, Aug-2026 or
// newest, with or without split_manifest.json) or by Steadyscope: collect the
// chunks as the pipeline does (§6.3), match rows as the pipeline does (§6.4),
// gate, and add the directory-level findings (missing/unreadable CSV, rows
// that only match by file name because the directory moved, chunk files named
// in the details but missing on disk). Input files are only read.
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/gate.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::gate {

/// §6.3 `_collect_split_chunks`: recursive search of `splitDir` for
/// `{prefix}*.{ext}`, ext in trace.json.gz, json.gz, trace.json, json (in that
/// order, each list sorted by path, concatenated: B11 duplicates kept). Paths
/// are `splitDir` as given joined with the path below it. Hidden directories
/// are not searched and directory symlinks are not followed (docs/gate.md).
/// Error (Io) when `splitDir` is not a readable directory.
Expected<SplitListing> collectSplitChunks(const std::string& splitDir);

/// The rows of an execution_details table as the pipeline's DictReader sees
/// them (a BOM stays part of the first column's name, as in Python).
std::vector<ChunkRow> chunkRowsFromTable(const CsvTable& table);

struct ReviewOptions {
  GateOptions gate;
  /// Relative output_path values resolve against this directory; default: the
  /// process's working directory, which is what the pipeline does (§8 B12).
  std::optional<std::string> workingDirectory;
  /// Evidence from the source trace, per family (first chunk); see ChunkFacts.
  std::array<std::optional<ChunkFacts>, 4> evidence;
  std::optional<std::string> traceInput;
  std::optional<int> splitReturnCode;
};

/// Gates the split directory. Error only when `splitDir` is not a readable
/// directory; every problem inside it is a verdict plus findings.
Expected<GateResult> reviewSplitDirectory(const std::string& splitDir, const ReviewOptions& options);

}  // namespace steadyscope::gate
