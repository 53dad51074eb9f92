#pragma once
// The command line that reproduces a split and its gate outside the window:
// `steadyscope-cli split TRACE -o DIR … && steadyscope-cli gate DIR …`. The
// flags are spelt as the CLI's parsers read them (app/cli/cmd_split.cpp,
// cmd_gate.cpp); this is the one place that turns options into words, so
// "Copy as command" cannot drift from the options a result was made with.
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/gate.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::review {

/// {"steadyscope-cli", "split", TRACE, "-o", DIR, flags…}: every option of
/// `o` that differs from the CLI's default, --num-steps always (outputDir and
/// threads are not part of it).
std::vector<std::string> splitCommandArgs(const analysis::SplitOptions& o, const std::string& trace,
                                          const std::string& outDir);

/// {"steadyscope-cli", "gate", DIR, "--mode", M, "--threshold", T, …}: mode
/// and threshold always (the CLI would read them from the environment
/// otherwise), margin, strict and refuse-without-alternate when set. With a
/// non-empty `trace`, `--trace TRACE` and the split's --num-steps and
/// --llm-inference, so the gate gets the trace's evidence.
std::vector<std::string> gateCommandArgs(const gate::GateOptions& g, const std::string& dir,
                                         const std::string& trace = {}, const analysis::SplitOptions& split = {});

/// A word as a POSIX shell reads it back: bare when it is plain, else in single quotes.
std::string shellQuote(std::string_view word);
/// The words quoted and joined by spaces.
std::string shellLine(const std::vector<std::string>& argv);

}  // namespace steadyscope::review
