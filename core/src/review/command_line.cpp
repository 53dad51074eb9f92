#include <steadyscope/core/review/command_line.hpp>

#include <fmt/format.h>

namespace steadyscope::review {

namespace {
/// Shortest text that reads back as the same double (what Python's repr gives).
std::string number(double v) { return fmt::format("{}", v); }

void addValue(std::vector<std::string>& argv, const char* flag, std::string value) {
  argv.emplace_back(flag);
  argv.push_back(std::move(value));
}
}  // namespace

std::vector<std::string> splitCommandArgs(const analysis::SplitOptions& o, const std::string& trace,
                                          const std::string& outDir) {
  const analysis::SplitOptions def;
  std::vector<std::string> argv = {"steadyscope-cli", "split", trace, "-o", outDir};
  if (o.iterations != def.iterations) addValue(argv, "--iterations", o.iterations);
  if (o.storeSingleIteration) argv.emplace_back("--store-single-iteration");
  if (o.findSteadyState) argv.emplace_back("--find-steady-state");
  addValue(argv, "--num-steps", std::to_string(o.numSteps));
  if (o.conc.conc) addValue(argv, "--CONC", std::to_string(*o.conc.conc));
  if (o.conc.osl) addValue(argv, "--OSL", number(*o.conc.osl));
  if (o.conc.r) addValue(argv, "--R", number(*o.conc.r));
  if (o.dividePhases) argv.emplace_back("--divide-phases");
  if (o.noGapFill) argv.emplace_back("--no-gap-fill");
  if (o.allowDegraded) argv.emplace_back("--allow-degraded");
  if (o.llmInference) argv.emplace_back("--llm-inference");
  if (o.maxNumSeq) addValue(argv, "--max-num-seq", std::to_string(*o.maxNumSeq));
  if (o.busyRatioColumn) argv.emplace_back("--busy-ratio-column");
  std::string fixes;
  for (const std::string& f : analysis::enabledFixNames(o.fixes)) fixes += (fixes.empty() ? "" : ",") + f;
  if (!fixes.empty()) addValue(argv, "--fix", fixes);
  return argv;
}

std::vector<std::string> gateCommandArgs(const gate::GateOptions& g, const std::string& dir, const std::string& trace,
                                         const analysis::SplitOptions& split) {
  const gate::GateOptions def;
  std::vector<std::string> argv = {"steadyscope-cli", "gate", dir};
  if (!trace.empty()) {
    addValue(argv, "--trace", trace);
    addValue(argv, "--num-steps", std::to_string(split.numSteps));
    if (split.llmInference) argv.emplace_back("--llm-inference");
  }
  addValue(argv, "--mode", std::string(gate::modeName(g.mode)));
  addValue(argv, "--threshold", number(g.threshold));
  if (g.margin != def.margin) addValue(argv, "--margin", number(g.margin));
  if (g.refuseWithoutAlternate) argv.emplace_back("--refuse-without-alternate");
  if (g.strict) argv.emplace_back("--strict");
  return argv;
}

std::string shellQuote(std::string_view word) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./:,=+@%").find(c) != std::string_view::npos;
  };
  bool bare = !word.empty();
  for (char c : word) bare = bare && plain(c);
  if (bare) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shellLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& w : argv) line += (line.empty() ? "" : " ") + shellQuote(w);
  return line;
}

}  // namespace steadyscope::review
