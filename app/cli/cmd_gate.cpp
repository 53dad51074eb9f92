// steadyscope-cli gate DIR: the consumer's chunk-quality gate on a split
// directory, with the decision record and findings; `--trace TRACE` adds the
// evidence from the source trace (core/review), `--split TRACE` gates a split
// planned in memory. Exit status 0 accepted, 1 refused, 2 usage error, DIR not
// a readable directory or TRACE not loadable.
#include "cli_cache.hpp"
#include "commands.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/gate.hpp>
#include <steadyscope/io.hpp>
#include <steadyscope/review.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steadyscope::cli {

namespace {

// The --mode words, from the split vocabulary: "mixed, decode_only, prefilldecode or generic".
std::string modeWords(const char* sep, const char* lastSep) {
  std::string words;
  for (size_t i = 0; i < names::kChunkModes.size(); ++i) {
    if (i) words += i + 1 == names::kChunkModes.size() ? lastSep : sep;
    words += names::modeName(names::kChunkModes[i]);
  }
  return words;
}

std::string gateUsage() {
  return "Usage: steadyscope-cli gate DIR [--trace TRACE] [--mode M] [--threshold T] [--margin X]\n"
         "                            [--refuse-without-alternate] [--strict] [--json]\n"
         "                            [--num-steps N] [--llm-inference] [--threads N]\n"
         "       steadyscope-cli gate --split TRACE [options]\n"
         "\n"
         "Gates the steady-state chunk of a split directory exactly as the pipeline does\n"
         "and explains the decision.\n"
         "\n"
         "  --trace TRACE               the split's source trace: re-plan the split in memory,\n"
         "                              match chunks by file name and add the evidence (union\n"
         "                              busy ratio, steps without GPU work, dominant event,\n"
         "                              startup transient, recomputed statistics vs the CSV)\n"
         "  --split TRACE               no DIR: split TRACE in memory (--find-steady-state and\n"
         "                              default flags) and gate the live result with evidence\n"
         "  --num-steps N, --llm-inference\n"
         "                              flags of the in-memory split (--trace / --split only;\n"
         "                              --trace also tries the CSV's num_steps)\n"
         "  --no-cache                  parse TRACE even when the trace cache holds its model\n"
         "  --threads N                 " +
         threadsHelp() +
         "\n"
         "                              (--trace / --split only)\n"
         "  --mode M                    " +
         modeWords(" | ", " | ") +
         "\n"
         "                              (default: $INFERENCE_OPTIMIZER_STEADY_STATE_MODE, else " +
         std::string(names::modeName(names::ChunkMode::Mixed)) +
         ")\n"
         "  --threshold T               busy-ratio threshold in [0, 1] (default:\n"
         "                              $INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO, else 0.05)\n"
         "  --margin X                  alternate margin (default 0.10)\n"
         "  --refuse-without-alternate  refuse a low-quality chunk even when no alternate qualifies\n"
         "  --strict                    refuse when a finding bears on the verdict\n"
         "  --json                      print warnings, retry mode, decision record and findings as JSON\n"
         "\n"
         "Relative output_path values in " +
         std::string(names::kDetailsCsvFile) +
         " resolve against the current\n"
         "directory, as in the pipeline.\n"
         "\n"
         "Examples:\n"
         "  steadyscope-cli gate chunks\n"
         "  steadyscope-cli gate chunks --trace run.pt.trace.json.gz --mode decode_only\n"
         "  steadyscope-cli gate --split run.pt.trace.json.gz --llm-inference --json\n"
         "\n"
         "Exit status: 0 accepted, 1 refused, 2 usage error (also: DIR not a readable\n"
         "directory, TRACE not loadable).\n";
}

int usageError(const std::string& msg) {
  std::fprintf(stderr, "steadyscope-cli gate: %s\n\n%s", msg.c_str(), gateUsage().c_str());
  return 2;
}

const char* mark(gate::RuleOutcome o) {
  switch (o) {
    case gate::RuleOutcome::Passed: return "ok  ";
    case gate::RuleOutcome::Failed: return "FAIL";
    case gate::RuleOutcome::Skipped: return "skip";
    case gate::RuleOutcome::Info: return "    ";
  }
  return "    ";
}

void printText(const std::string& dir, const gate::GateResult& r, const std::vector<std::string>& notes = {}) {
  std::printf("%s: %s", dir.c_str(), r.finalAccepted() ? "ACCEPTED" : "REFUSED");
  if (r.accepted && r.strictRefused) std::printf(" (strict; the pipeline accepts it)");
  std::printf("\n  %s\n", r.summary.c_str());
  if (!r.selectedChunk.empty()) std::printf("  selected: %s\n", r.selectedChunk.c_str());
  std::printf("\nDecision record:\n");
  int n = 0;
  for (const auto& e : r.record)
    std::printf("  %2d [%s] %-12s %s\n", ++n, mark(e.outcome), e.rule.c_str(), e.sentence.c_str());
  if (!r.warnings.empty()) {
    std::printf("\nWarnings (trace_health_warnings):\n");
    for (const auto& w : r.warnings) std::printf("  %s\n", w.dump(JsonStyle::oneLine()).c_str());
  }
  std::printf("\nRetry: %s\n", r.retry ? r.retry->toMode.c_str() : "none");
  if (!notes.empty()) {
    std::printf("\nSource trace:\n");
    for (const auto& note : notes) std::printf("  %s\n", note.c_str());
  }
  if (!r.findings.empty()) {
    std::printf("\nFindings (never change the pipeline verdict; --strict refuses on those marked *):\n");
    for (const auto& f : r.findings)
      std::printf("  %s %s: %s\n", f.affectsVerdict ? "*" : "-", f.code.c_str(), f.sentence.c_str());
  }
}

// The gate's command line as given; resolveGateArgs checks and converts it.
struct GateArgs {
  std::string dir;
  bool haveDir = false, json = false, llmInference = false;
  std::optional<std::string> modeArg, thresholdArg, marginArg, traceArg, splitArg, numStepsArg, threadsArg;
  gate::GateOptions opt;
};

// Reads the words; returns an exit status when the command ends here (--help,
// a usage error), nullopt to go on.
std::optional<int> parseGateArgs(const Args& args, GateArgs& g) {
  // Options that take a value, and where the value goes.
  const std::pair<const char*, std::optional<std::string>*> valued[] = {
      {"--mode", &g.modeArg},   {"--threshold", &g.thresholdArg}, {"--margin", &g.marginArg},  {"--trace", &g.traceArg},
      {"--split", &g.splitArg}, {"--num-steps", &g.numStepsArg},  {"--threads", &g.threadsArg}};
  const std::pair<const char*, bool*> switches[] = {{"--refuse-without-alternate", &g.opt.refuseWithoutAlternate},
                                                    {"--strict", &g.opt.strict},
                                                    {"--json", &g.json},
                                                    {"--llm-inference", &g.llmInference}};
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::optional<std::string> inlineValue;
    if (a.rfind("--", 0) == 0) {
      if (auto eq = a.find('='); eq != std::string::npos) {
        inlineValue = a.substr(eq + 1);
        a = a.substr(0, eq);
      }
    }
    if (a == "-h" || a == "--help") {
      std::fputs(gateUsage().c_str(), stdout);
      return 0;
    }
    auto v = std::find_if(std::begin(valued), std::end(valued), [&](const auto& o) { return a == o.first; });
    if (v != std::end(valued)) {
      if (inlineValue)
        *v->second = inlineValue;
      else if (i + 1 < args.size())
        *v->second = args[++i];
      else
        return usageError(a + " needs a value");
      continue;
    }
    auto sw = std::find_if(std::begin(switches), std::end(switches), [&](const auto& o) { return a == o.first; });
    if (sw != std::end(switches) && !inlineValue) {
      *sw->second = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + args[i] + "'");
    } else {
      if (g.haveDir) return usageError("more than one DIR given");
      g.dir = a;
      g.haveDir = true;
    }
  }
  return std::nullopt;
}

// The options that go together, and the numbers; 0 when all is well, else the usage error's status.
int resolveGateArgs(GateArgs& g, analysis::SplitOptions& so, unsigned& threads) {
  const bool withTrace = g.traceArg || g.splitArg;
  if (g.splitArg && g.haveDir) return usageError("--split gates an in-memory split: give no DIR");
  if (g.splitArg && g.traceArg) return usageError("--split and --trace cannot be combined");
  if (!g.haveDir && !g.splitArg) return usageError("no split directory given");
  if ((g.numStepsArg || g.llmInference) && !withTrace)
    return usageError("--num-steps and --llm-inference need --trace or --split");
  if (g.threadsArg && !withTrace) return usageError("--threads needs --trace or --split");
  if ((g.traceArg && g.traceArg->empty()) || (g.splitArg && g.splitArg->empty())) return usageError("empty trace path");
  so.findSteadyState = true;
  so.llmInference = g.llmInference;
  if (g.numStepsArg) {
    char* end = nullptr;
    const long long n = std::strtoll(g.numStepsArg->c_str(), &end, 10);
    if (g.numStepsArg->empty() || *end != '\0' || n < 1) return usageError("--num-steps must be an integer >= 1");
    so.numSteps = n;
  }
  if (g.modeArg) {
    auto m = gate::parseMode(*g.modeArg);
    if (!m) return usageError("--mode must be " + modeWords(", ", " or ") + ", not '" + *g.modeArg + "'");
    g.opt.mode = *m;
  } else {
    auto m = gate::modeFromEnvironment();
    if (!m) return usageError(m.error().message);
    g.opt.mode = *m;
  }
  if (g.thresholdArg) {
    auto t = gate::parsePyFloat(*g.thresholdArg);
    if (!t || !(*t >= 0.0 && *t <= 1.0)) return usageError("--threshold must be a number in [0, 1]");
    g.opt.threshold = *t;
  } else {
    g.opt.threshold = gate::thresholdFromEnvironment();
  }
  if (g.marginArg) {
    auto x = gate::parsePyFloat(*g.marginArg);
    if (!x || !std::isfinite(*x) || *x < 0) return usageError("--margin must be a finite number >= 0");
    g.opt.margin = *x;
  }
  if (g.threadsArg) {
    auto n = parseThreadCount(*g.threadsArg);
    if (!n) return usageError("--threads: " + threadCountError(*g.threadsArg));
    threads = so.threads = *n;
  }
  return 0;
}

// --split: plan the split in memory and gate the live result, with evidence.
int gateInMemorySplit(const TracePtr& trace, const std::string& tracePath, const analysis::SplitOptions& so,
                      const gate::GateOptions& opt, bool json) {
  analysis::Splitter splitter(trace);
  const analysis::SplitResult plan = splitter.plan(so);
  analysis::EvidenceContext ctx(splitter.eventIndex(so), so);
  gate::GateInput in = review::gateInputFromSplit(plan, so, &ctx, tracePath);
  gate::GateResult g = gate::evaluateGate(in, opt);
  std::vector<std::string> notes;
  notes.push_back(fmt::format("split in memory: {}{}", analysis::splitOutcomeName(plan.outcome),
                              plan.error.empty() ? "" : ": " + plan.error));
  for (const auto& w : plan.warnings) notes.push_back(w);
  if (json) {
    JsonValue j = g.toJson();
    j.set("split_outcome", std::string(analysis::splitOutcomeName(plan.outcome)));
    j.set("notes", JsonValue::stringList(notes));
    std::printf("%s\n", j.dump(JsonStyle::indented()).c_str());
  } else {
    printText(tracePath + " (split in memory)", g, notes);
  }
  return g.exitStatus();
}

// The "source_trace" object of --trace --json: which plan each chunk family matched.
JsonValue sourceTraceJson(const std::string& tracePath, const review::TraceReview& rv) {
  JsonValue fam = JsonValue::array();
  for (gate::Mode m : gate::kAllModes) {
    const auto& f = rv.families[gate::modeIndex(m)];
    if (f.chunk.empty()) continue;
    fam.push(JsonValue::object({{"mode", std::string(gate::modeName(m))},
                                {"chunk", f.chunk},
                                {"matched", f.matched},
                                {"num_steps", f.matched ? JsonValue(f.numSteps) : JsonValue()},
                                {"llm_inference", f.matched ? JsonValue(f.llmInference) : JsonValue()}}));
  }
  return JsonValue::object(
      {{"trace", tracePath}, {"plans", rv.plans}, {"families", fam}, {"notes", JsonValue::stringList(rv.notes)}});
}

// DIR --trace TRACE: gate the directory with the evidence re-planned from its source trace.
int gateDirectoryWithTrace(const std::string& dir, const TracePtr& trace, const std::string& tracePath,
                           const analysis::SplitOptions& so, const gate::GateOptions& opt, bool json) {
  review::TraceReviewOptions tro;
  tro.review.gate = opt;
  tro.split = so;
  auto rv = review::reviewSplitDirectoryWithTrace(dir, trace, tro);
  if (!rv) {
    std::fprintf(stderr, "steadyscope-cli gate: %s\n", rv.error().describe().c_str());
    return 2;
  }
  if (json) {
    JsonValue j = rv->result.toJson();
    j.set("source_trace", sourceTraceJson(tracePath, *rv));
    std::printf("%s\n", j.dump(JsonStyle::indented()).c_str());
  } else {
    printText(dir, rv->result, rv->notes);
  }
  return rv->result.exitStatus();
}

// DIR alone: the pipeline's gate on what the directory holds.
int gateDirectory(const std::string& dir, const gate::GateOptions& opt, bool json) {
  gate::ReviewOptions ro;
  ro.gate = opt;
  auto r = gate::reviewSplitDirectory(dir, ro);
  if (!r) {
    std::fprintf(stderr, "steadyscope-cli gate: %s\n", r.error().describe().c_str());
    return 2;
  }
  if (json)
    std::printf("%s\n", r->toJson().dump(JsonStyle::indented()).c_str());
  else
    printText(dir, r.value());
  return r->exitStatus();
}

}  // namespace

int cmdGate(const Args& args) {
  GateArgs g;
  if (auto rc = parseGateArgs(args, g)) return *rc;
  analysis::SplitOptions so;
  unsigned threads = 0;
  if (int rc = resolveGateArgs(g, so, threads)) return rc;
  if (!g.traceArg && !g.splitArg) return gateDirectory(g.dir, g.opt, g.json);

  const std::string tracePath = g.traceArg ? *g.traceArg : *g.splitArg;
  LoadOptions load;
  load.threads = jobThreads(threads);
  load.cache = traceCache();
  auto loaded = loadTrace(tracePath, load);
  if (!loaded) {
    std::fprintf(stderr, "steadyscope-cli gate: %s\n", loaded.error().describe().c_str());
    return 2;
  }
  if (g.splitArg) return gateInMemorySplit(loaded.value(), tracePath, so, g.opt, g.json);
  return gateDirectoryWithTrace(g.dir, loaded.value(), tracePath, so, g.opt, g.json);
}

}  // namespace steadyscope::cli
