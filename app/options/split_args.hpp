#pragma once
// argparse-compatible parsing of the `split` flags (shared by `split` and `bench split`).
#include "args.hpp"

#include <steadyscope/split.hpp>

#include <optional>

#include <string>
#include <vector>

namespace steadyscope::cli {

/// The parsed `split` command line. `threads` is --threads N for the loader
/// and the splitter (0: not given, jobThreads()); it also sets options.threads.
struct SplitArgs {
  std::string trace;                // the first trace
  std::vector<std::string> traces;  // every trace given (one unless manyTraces)
  unsigned jobs = 0;                // -j/--jobs N (manyTraces only; 0: not given)
  std::string summaryPath;          // --summary FILE (manyTraces only; "": DIR/summary.tsv)
  uint64_t memoryBudget = 0;        // --memory-budget SIZE in bytes (manyTraces only; 0: the free memory)
  analysis::SplitOptions options;
  /// --kind K: decides options.llmInference once the trace is loaded (withKind).
  std::optional<analysis::WorkloadKind> kind;
  unsigned threads = 0;
  bool json = false;
  bool help = false;
};

/// Returns 0 on success; on a usage error prints argparse-style usage + error
/// to stderr and returns 2. `prog` is the program name used in messages.
/// `manyTraces`: several positional traces and -j/--jobs are accepted
/// (`split` with many traces, split_many.hpp); otherwise they are unrecognized.
int parseSplitArgs(const Args& args, const std::string& prog, bool outputRequired, SplitArgs& out,
                   bool manyTraces = false);
void printSplitHelp(const std::string& prog);

/// `o` with --llm-inference as --kind decides it for `trace` (unchanged without --kind).
analysis::SplitOptions withKind(analysis::SplitOptions o, const std::optional<analysis::WorkloadKind>& kind,
                                const Trace& trace);

}  // namespace steadyscope::cli
