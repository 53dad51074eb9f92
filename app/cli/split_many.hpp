#pragma once
// `steadyscope-cli split RANK0.json RANK1.json … -o DIR [-j N]`: every trace of
// a distributed job split into its own folder under DIR, a few at a time, one
// line per trace as it finishes and a table at the end (DIR/summary.tsv).
// The per-trace flags are parsed by split_args.hpp, as for one trace.
#include "split_args.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::cli {

/// The folder under DIR for each trace, in input order: the trace's base name
/// (the splitter's: .pt.trace, .json.gz, .json removed); traces that share it
/// get PARENT_BASE, PARENT being the name of the folder holding the file; any
/// name still shared gets _2, _3, … in command-line order (the first keeps it).
std::vector<std::string> outputFolders(const std::vector<std::string>& traces);

/// Splits sa.traces into sa.options.outputDir; exit status 0 when every trace
/// was split or refused as the reference would, 1 when any failed to load,
/// split or write, 2 for a usage error.
int splitMany(const SplitArgs& sa, const std::string& prog);

}  // namespace steadyscope::cli
