// `steadyscope-cli compare A B [--steps R] [--steps-a R] [--steps-b R] [--whole-trace]
// [--json] [--tsv FILE] [--top N] [--threads N] [--timings]`: two traces op by op, the GPU
// time of each launching op per step on both sides (steadyscope/compare.hpp, docs/compare.md).
#include "cli_cache.hpp"
#include "commands.hpp"
#include "tables.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/compare.hpp>
#include <steadyscope/io.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace steadyscope::cli {

namespace {

const char* kProg = "steadyscope-cli compare";

struct CompareArgs {
  std::vector<std::string> traces;
  compare::CompareOptions options;
  bool json = false, help = false, timings = false;
  size_t top = 25;
  std::string tsvPath;
};

void printCompareHelp() {
  std::printf(
      "Usage: steadyscope-cli compare A B [--steps RANGE] [--steps-a RANGE] [--steps-b RANGE]\n"
      "                               [--whole-trace] [--json] [--tsv FILE] [--top N]\n"
      "                               [--threads N] [--timings]\n"
      "\n"
      "Two traces (.json, .json.gz, .zip, .json.zst) op by op. Every GPU kernel, memcpy and memset\n"
      "is attributed to its launching op: its correlation id leads to the runtime launch\n"
      "(cudaLaunchKernel, hipLaunchKernel, cudaGraphLaunch, cudaMemcpyAsync, ...), and the innermost\n"
      "cpu_op around that launch on the launch's thread is the op; GPU events without a launch, or\n"
      "whose launch no cpu_op encloses, go to \"(no launching op)\". Both traces are split in memory\n"
      "(find steady state; nothing is written) and their steps aligned by index: the steady-state\n"
      "chunk's steps when both have one, else every step, cut to the shorter side's count. A GPU\n"
      "event belongs to the step its launch falls in. One row per op: its GPU events and GPU time on\n"
      "each side, per step, and B - A per step, by the largest change first. Times in microseconds.\n"
      "\n"
      "Options:\n"
      "  --steps RANGE         the steps of both sides, by index among each trace's steps:\n"
      "                        A:B (A to B-1), A: , :B, N (step N alone) or all\n"
      "  --steps-a RANGE       the steps of A alone (wins over --steps)\n"
      "  --steps-b RANGE       the steps of B alone (wins over --steps)\n"
      "  --whole-trace         every GPU event of both traces, steps ignored (per step: per trace)\n"
      "  --json                print {\"a\": {...}, \"b\": {...}, \"ops\": [...], \"kernels\": [...]}\n"
      "  --tsv FILE            also write the op rows as TSV to FILE (atomically)\n"
      "  --top N               rows of the printed table (default 25, 0: every row)\n"
      "  --threads THREADS     %s\n"
      "  --timings             print the load and compare times to stderr\n"
      "  -h, --help            show this help\n"
      "  --no-cache            parse each trace even when each trace cache holds its model\n"
      "\n"
      "Examples:\n"
      "  steadyscope-cli compare h100/run.json.gz mi300/run.json.gz\n"
      "  steadyscope-cli compare before.json after.json --steps 3:10 --json\n"
      "  steadyscope-cli compare a.json b.json --whole-trace --tsv ops.tsv\n"
      "\n"
      "Exit status: 0 compared, 1 a trace did not load, has no steps to compare or the TSV\n"
      "could not be written, 2 usage error.\n",
      threadsHelp().c_str());
}

int usage(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n(see %s --help)\n", kProg, message.c_str(), kProg);
  return 2;
}

std::string applyOption(const std::string& name, const std::string& value, CompareArgs& a,
                        std::optional<compare::StepRange>& both) {
  if (name == "--steps" || name == "--steps-a" || name == "--steps-b") {
    auto r = compare::parseStepRange(value);
    if (!r) return "expected A:B, A:, :B, N or all, not '" + value + "'";
    (name == "--steps" ? both : name == "--steps-a" ? a.options.stepsA : a.options.stepsB) = r;
  } else if (name == "--threads") {
    auto n = parseThreadCount(value);
    if (!n) return threadCountError(value);
    a.options.threads = *n;
  } else if (name == "--tsv") {
    a.tsvPath = value;
  } else if (name == "--top") {
    char* end = nullptr;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || n < 0) return "expected a number of rows (0: all), not '" + value + "'";
    a.top = static_cast<size_t>(n);
  }
  return {};
}

bool flag(const std::string& word, CompareArgs& a) {
  if (word == "-h" || word == "--help") return a.help = true;
  if (word == "--json") return a.json = true;
  if (word == "--timings") return a.timings = true;
  if (word == "--whole-trace") return a.options.wholeTrace = true;
  return false;
}

int parseCompareArgs(const Args& args, CompareArgs& a) {
  static const std::vector<std::string> kValued = {"--steps", "--steps-a", "--steps-b", "--threads", "--tsv", "--top"};
  std::optional<compare::StepRange> both;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i], value;
    if (flag(word, a)) {
      if (a.help) return 0;
      continue;
    }
    if (word.empty() || word[0] != '-' || word == "-") {
      a.traces.push_back(word);
      continue;
    }
    if (std::string e = takeOption(args, i, kValued, word, value); !e.empty()) return usage(e);
    if (std::string e = applyOption(word, value, a, both); !e.empty()) return usage("argument " + word + ": " + e);
  }
  if (a.traces.size() != 2) return usage("expected two traces, A and B, not " + std::to_string(a.traces.size()));
  if (!a.options.stepsA) a.options.stepsA = both;
  if (!a.options.stepsB) a.options.stepsB = both;
  if (a.options.wholeTrace && (a.options.stepsA || a.options.stepsB))
    return usage("--whole-trace takes every GPU event: it does not go with --steps");
  return 0;
}

std::string ms(double us) { return fmt::format("{:.3f} ms", us / 1000.0); }

void printSide(const char* label, const compare::SideFigures& f) {
  std::printf("%s: %s\n", label, f.file.c_str());
  if (f.stepSource == "whole_trace") {
    std::printf("   the whole trace (%s)", ms(f.stepMedianUs.value_or(0)).c_str());
  } else {
    std::printf("   steps %zu:%zu of %zu (%s", f.firstStep, f.firstStep + f.steps, f.totalSteps, f.stepSource.c_str());
    if (f.availableSteps > f.steps) std::printf(", %zu more not aligned", f.availableSteps - f.steps);
    std::printf("), step median %s", ms(f.stepMedianUs.value_or(0)).c_str());
  }
  std::printf(", GPU busy per step %s\n", ms(f.gpuBusyPerStepUs).c_str());
  std::printf(
      "   %llu GPU events, %s of GPU time; %.1f %% of it attributed to an op (%llu without a launch, "
      "%llu launched outside any op)\n",
      static_cast<unsigned long long>(f.gpuEvents), ms(f.gpuUs).c_str(), 100.0 * f.attributedShare,
      static_cast<unsigned long long>(f.withoutLaunch), static_cast<unsigned long long>(f.launchOutsideOp));
}

void printComparison(const compare::Comparison& c, size_t top) {
  printSide("A", c.a);
  printSide("B", c.b);
  std::printf("\n");
  TextTable t = {{"a_count", "b_count", "a_us_per_step", "b_us_per_step", "delta_us_per_step", "op"}};
  const size_t shown = top ? std::min(top, c.ops.size()) : c.ops.size();
  for (size_t i = 0; i < shown; ++i) {
    const compare::OpRow& r = c.ops[i];
    t.push_back({std::to_string(r.aCount), std::to_string(r.bCount), fmt::format("{:.3f}", r.aUsPerStep),
                 fmt::format("{:.3f}", r.bUsPerStep), fmt::format("{:+.3f}", r.deltaUsPerStep), r.op});
  }
  printTable(t);
  if (shown < c.ops.size())
    std::printf("... %zu more ops (--top 0, --json or --tsv for every row)\n", c.ops.size() - shown);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int cmdCompare(const Args& args) {
  CompareArgs a;
  if (int rc = parseCompareArgs(args, a)) return rc;
  if (a.help) {
    printCompareHelp();
    return 0;
  }
  LoadOptions load;
  load.threads = a.options.threads;
  load.cache = traceCache();
  TracePtr traces[2];
  double loadSeconds[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    auto loaded = loadTrace(a.traces[static_cast<size_t>(k)], load);
    if (!loaded) {
      std::fprintf(stderr, "%s: error: %s\n", kProg, loaded.error().describe().c_str());
      return 1;
    }
    traces[k] = loaded.value();
    loadSeconds[k] = secondsSince(t0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto c = compare::compareTraces(traces[0], traces[1], a.options);
  const double compareSeconds = secondsSince(t0);
  if (a.timings)  // the load and the compare apart: the compare's target is counted after both loads
    std::fprintf(stderr, "timings: load A %.3f s, load B %.3f s, compare %.3f s\n", loadSeconds[0], loadSeconds[1],
                 compareSeconds);
  if (!c) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, c.error().describe().c_str());
    return 1;
  }
  int status = 0;
  if (!a.tsvPath.empty()) {
    TextTable t = {compare::opColumns()};
    for (const auto& r : c->ops) t.push_back(compare::opCells(r));
    if (auto w = writeFileAtomic(a.tsvPath, tsvText(t)); !w) {
      std::fprintf(stderr, "%s: error: %s\n", kProg, w.error().describe().c_str());
      status = 1;
    }
  }
  if (a.json)
    std::printf("%s\n", compare::comparisonJson(*c).dump(JsonStyle::indented()).c_str());
  else
    printComparison(*c, a.top);
  return status;
}

}  // namespace steadyscope::cli
