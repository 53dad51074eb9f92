// steadyscope-cli gate DIR: the consumer's chunk-quality gate on a split
// directory, with the decision record and findings; `--trace TRACE` adds the
// evidence from the source trace (core/review), `--split TRACE` gates a split
// planned in memory. Exit status 0 accepted, 1 refused, 2 usage error, DIR not
// a readable directory or TRACE not loadable.
#include "commands.hpp"

#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/split_gate.hpp>
#include <steadyscope/core/review/trace_review.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::cli {

namespace {

const char* kGateUsage =
    "Usage: steadyscope-cli gate DIR [--trace TRACE] [--mode M] [--threshold T] [--margin X]\n"
    "                            [--refuse-without-alternate] [--strict] [--json]\n"
    "                            [--num-steps N] [--llm-inference]\n"
    "       steadyscope-cli gate --split TRACE [options]\n"
    "\n"
    "Gates the steady-state chunk of a split directory exactly as the pipeline does\n"
    "(spec §6) and explains the decision.\n"
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
    "  --mode M                    mixed | decode_only | prefilldecode | generic\n"
    "                              (default: $INFERENCE_OPTIMIZER_STEADY_STATE_MODE, else mixed)\n"
    "  --threshold T               busy-ratio threshold in [0, 1] (default:\n"
    "                              $INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO, else 0.05)\n"
    "  --margin X                  alternate margin (default 0.10)\n"
    "  --refuse-without-alternate  refuse a low-quality chunk even when no alternate qualifies\n"
    "  --strict                    refuse when a finding bears on the verdict\n"
    "  --json                      print warnings, retry mode, decision record and findings as JSON\n"
    "\n"
    "Relative output_path values in execution_details.csv resolve against the current\n"
    "directory, as in the pipeline. Exit status: 0 accepted, 1 refused, 2 usage error\n"
    "(also: DIR not a readable directory, TRACE not loadable).\n";

int usageError(const std::string& msg) {
  std::fprintf(stderr, "steadyscope-cli gate: %s\n\n%s", msg.c_str(), kGateUsage);
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

}  // namespace

int cmdGate(const Args& args) {
  std::string dir;
  bool haveDir = false, json = false, llmInference = false;
  std::optional<std::string> modeArg, thresholdArg, marginArg, traceArg, splitArg, numStepsArg;
  gate::GateOptions opt;

  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::optional<std::string> inlineValue;
    if (a.rfind("--", 0) == 0) {
      auto eq = a.find('=');
      if (eq != std::string::npos) {
        inlineValue = a.substr(eq + 1);
        a = a.substr(0, eq);
      }
    }
    auto value = [&](const char* name) -> std::optional<std::string> {
      if (inlineValue) return inlineValue;
      if (i + 1 >= args.size()) return std::nullopt;
      (void)name;
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kGateUsage, stdout);
      return 0;
    } else if (a == "--mode") {
      if (!(modeArg = value("--mode"))) return usageError("--mode needs a value");
    } else if (a == "--threshold") {
      if (!(thresholdArg = value("--threshold"))) return usageError("--threshold needs a value");
    } else if (a == "--margin") {
      if (!(marginArg = value("--margin"))) return usageError("--margin needs a value");
    } else if (a == "--refuse-without-alternate" && !inlineValue) {
      opt.refuseWithoutAlternate = true;
    } else if (a == "--strict" && !inlineValue) {
      opt.strict = true;
    } else if (a == "--json" && !inlineValue) {
      json = true;
    } else if (a == "--trace") {
      if (!(traceArg = value("--trace"))) return usageError("--trace needs a value");
    } else if (a == "--split") {
      if (!(splitArg = value("--split"))) return usageError("--split needs a value");
    } else if (a == "--num-steps") {
      if (!(numStepsArg = value("--num-steps"))) return usageError("--num-steps needs a value");
    } else if (a == "--llm-inference" && !inlineValue) {
      llmInference = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + args[i] + "'");
    } else {
      if (haveDir) return usageError("more than one DIR given");
      dir = a;
      haveDir = true;
    }
  }
  if (splitArg && haveDir) return usageError("--split gates an in-memory split: give no DIR");
  if (splitArg && traceArg) return usageError("--split and --trace cannot be combined");
  if (!haveDir && !splitArg) return usageError("no split directory given");
  if ((numStepsArg || llmInference) && !splitArg && !traceArg)
    return usageError("--num-steps and --llm-inference need --trace or --split");
  if ((traceArg && traceArg->empty()) || (splitArg && splitArg->empty())) return usageError("empty trace path");
  analysis::SplitOptions so;
  so.findSteadyState = true;
  so.llmInference = llmInference;
  if (numStepsArg) {
    char* end = nullptr;
    const long long n = std::strtoll(numStepsArg->c_str(), &end, 10);
    if (numStepsArg->empty() || *end != '\0' || n < 1) return usageError("--num-steps must be an integer >= 1");
    so.numSteps = n;
  }

  if (modeArg) {
    auto m = gate::parseMode(*modeArg);
    if (!m) return usageError("--mode must be mixed, decode_only, prefilldecode or generic, not '" + *modeArg + "'");
    opt.mode = *m;
  } else {
    auto m = gate::modeFromEnvironment();
    if (!m) return usageError(m.error().message);
    opt.mode = *m;
  }
  if (thresholdArg) {
    auto t = gate::parsePyFloat(*thresholdArg);
    if (!t || !(*t >= 0.0 && *t <= 1.0)) return usageError("--threshold must be a number in [0, 1]");
    opt.threshold = *t;
  } else {
    opt.threshold = gate::thresholdFromEnvironment();
  }
  if (marginArg) {
    auto x = gate::parsePyFloat(*marginArg);
    if (!x || !std::isfinite(*x) || *x < 0) return usageError("--margin must be a finite number >= 0");
    opt.margin = *x;
  }

  if (traceArg || splitArg) {
    const std::string tracePath = traceArg ? *traceArg : *splitArg;
    auto loaded = loadTrace(tracePath);
    if (!loaded) {
      std::fprintf(stderr, "steadyscope-cli gate: %s\n", loaded.error().describe().c_str());
      return 2;
    }
    TracePtr trace = loaded.value();
    if (splitArg) {
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
      JsonValue fam = JsonValue::array();
      for (gate::Mode m : gate::kAllModes) {
        const auto& f = rv->families[gate::modeIndex(m)];
        if (f.chunk.empty()) continue;
        fam.push(JsonValue::object({{"mode", std::string(gate::modeName(m))},
                                    {"chunk", f.chunk},
                                    {"matched", f.matched},
                                    {"num_steps", f.matched ? JsonValue(f.numSteps) : JsonValue()},
                                    {"llm_inference", f.matched ? JsonValue(f.llmInference) : JsonValue()}}));
      }
      j.set("source_trace", JsonValue::object({{"trace", tracePath},
                                               {"plans", rv->plans},
                                               {"families", fam},
                                               {"notes", JsonValue::stringList(rv->notes)}}));
      std::printf("%s\n", j.dump(JsonStyle::indented()).c_str());
    } else {
      printText(dir, rv->result, rv->notes);
    }
    return rv->result.exitStatus();
  }

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

}  // namespace steadyscope::cli
