#include "options.hpp"

#include <steadyscope/common.hpp>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string_view>

namespace steadyscope::gen {

namespace {

const char* kUsage = R"(steadyscope-gen: deterministic synthetic PyTorch-profiler (Kineto) traces

Usage: steadyscope-gen -o OUT.json[.gz] [options]

Output
  -o, --out PATH            output file; a .gz suffix writes gzip (ISA-L deflate).
                            Written to a temporary file and renamed when complete.
  --gzip-level N            ISA-L level 0..3 (default 1)
  --truth PATH              also write the planted ground truth as JSON to PATH
  --quiet                   do not print the ground truth on stdout

Workload
  --style S                 vllm | sglang | atom | diffusion | training (default vllm)
  --annotation A            native | detailed step annotations (vllm/sglang/atom);
                            none (training only): no ProfilerStep#N or other
                            user_annotation, the steps live only in the call tree
  --steps N                 number of steps (default 300)
  --seed S                  random seed (default 1); same seed -> same bytes
  --target-bytes B          choose the step count so the JSON is about B bytes
                            (suffixes K, M, G allowed; overrides --steps)
  --conc N                  serving: peak concurrency (default 16)
  --isl N                   serving: max input length in tokens (default 2048)
  --osl N                   serving: max output length (default: steps/6, 16..1024)
  --token-budget N          serving: tokens per step (chunked prefill; default 2048)
  --layers N                graph pieces / DiT blocks / layers per step (default 4)
  --idle-steps FRAC         serving: chance of an empty (0-request) step (default 0.01)
  --idle-gaps FRAC          chance of a long idle gap before a step (default 0.01)
  --warmup-steps N          training/diffusion: slower leading steps (default 2)
  --collective-us US        training: all-reduce kernel duration (default 300)
  --first-collective-factor F
                            training: multiply step 0's all-reduce by F (default 1)
  --python-functions        training: python_function frames on the CPU thread
                            (train.py main > per step train_step > module
                            frames around the cpu_ops; with_stack 1)

Distributed job
  --rank R --world-size W   the trace is rank R (0..W-1) of W: distributedInfo
                            says so, the clock starts R x 37 us later, kernel
                            durations are jittered per rank (same schedule), and
                            training's first all-reduce waits for the last rank
                            ((W-1-R) x half a collective longer)
  --slow-rank-factor F      training: this rank's compute kernels take F times as
                            long (a straggler; default 1)

Awkward shapes
  --graph-steps FRAC        fraction of eligible steps (decode-only; every step for
                            training/diffusion) replayed as one cudaGraphLaunch with
                            no GPU events at all
  --be-pairs                write cpu_op events as B/E pairs instead of X
  --bad-dur FRAC            fraction of cpu_op events with a missing or negative dur
  --string-ids              pid/tid as strings ("1234", "stream 7")
  --old-categories          2021 category names (Kernel, Memcpy, Runtime, Operator)
  --unsorted                shuffle events within bounded windows (deterministic)
  --unsorted-window N       window size for --unsorted (default 16 events)
  --overlap-kernels         let some kernels on one stream overlap their predecessor
  --epoch                   epoch-scale timestamps (~1.77e15 us) instead of small ones

  -h, --help                this text
  -V, --version             print the version and the git revision

Example:
  steadyscope-gen -o run.pt.trace.json.gz --style vllm --steps 2000 --seed 1
)";

template <class T>
bool parseNumber(std::string_view s, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    char* end = nullptr;
    const std::string tmp(s);
    out = static_cast<T>(std::strtod(tmp.c_str(), &end));
    return !tmp.empty() && end && *end == '\0';
  } else {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  }
}

bool parseBytes(std::string_view s, std::uint64_t& out) {
  std::uint64_t mult = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K':
      case 'k': mult = 1ULL << 10; break;
      case 'M':
      case 'm': mult = 1ULL << 20; break;
      case 'G':
      case 'g': mult = 1ULL << 30; break;
      default: break;
    }
    if (mult != 1) s.remove_suffix(1);
  }
  double v = 0;
  if (!parseNumber(s, v) || v < 0) return false;
  out = static_cast<std::uint64_t>(v * static_cast<double>(mult));
  return true;
}

bool parseStyle(std::string_view s, Style& out) {
  static const std::map<std::string_view, Style> names = {{"vllm", Style::Vllm},
                                                          {"sglang", Style::Sglang},
                                                          {"atom", Style::Atom},
                                                          {"diffusion", Style::Diffusion},
                                                          {"training", Style::Training}};
  auto it = names.find(s);
  if (it == names.end()) return false;
  out = it->second;
  return true;
}

bool parseAnnotation(std::string_view s, Annotation& out) {
  if (s == "native")
    out = Annotation::Native;
  else if (s == "detailed")
    out = Annotation::Detailed;
  else if (s == "none")
    out = Annotation::None;
  else
    return false;
  return true;
}

bool inUnit(double v) { return v >= 0.0 && v <= 1.0; }

using ValueHandler = std::function<bool(Options&, std::string_view)>;
using FlagHandler = std::function<void(Options&)>;

const std::map<std::string_view, ValueHandler>& valueOptions() {
  static const std::map<std::string_view, ValueHandler> m = {
      {"--out",
       [](Options& o, std::string_view v) {
         o.out = v;
         return !v.empty();
       }},
      {"--truth",
       [](Options& o, std::string_view v) {
         o.truthPath = v;
         return !v.empty();
       }},
      {"--gzip-level",
       [](Options& o, std::string_view v) {
         return parseNumber(v, o.gzipLevel) && o.gzipLevel >= 0 && o.gzipLevel <= 3;
       }},
      {"--style", [](Options& o, std::string_view v) { return parseStyle(v, o.style); }},
      {"--annotation", [](Options& o, std::string_view v) { return parseAnnotation(v, o.annotation); }},
      {"--steps", [](Options& o, std::string_view v) { return parseNumber(v, o.steps) && o.steps > 0; }},
      {"--seed", [](Options& o, std::string_view v) { return parseNumber(v, o.seed); }},
      {"--target-bytes", [](Options& o, std::string_view v) { return parseBytes(v, o.targetBytes); }},
      {"--conc", [](Options& o, std::string_view v) { return parseNumber(v, o.conc) && o.conc > 0; }},
      {"--isl", [](Options& o, std::string_view v) { return parseNumber(v, o.isl) && o.isl > 1; }},
      {"--osl", [](Options& o, std::string_view v) { return parseNumber(v, o.osl) && o.osl > 1; }},
      {"--token-budget",
       [](Options& o, std::string_view v) { return parseNumber(v, o.tokenBudget) && o.tokenBudget > 0; }},
      {"--layers",
       [](Options& o, std::string_view v) { return parseNumber(v, o.layers) && o.layers > 0 && o.layers <= 1000; }},
      {"--idle-steps",
       [](Options& o, std::string_view v) { return parseNumber(v, o.idleStepFrac) && inUnit(o.idleStepFrac); }},
      {"--idle-gaps",
       [](Options& o, std::string_view v) { return parseNumber(v, o.idleGapFrac) && inUnit(o.idleGapFrac); }},
      {"--warmup-steps",
       [](Options& o, std::string_view v) { return parseNumber(v, o.warmupSteps) && o.warmupSteps >= 0; }},
      {"--collective-us",
       [](Options& o, std::string_view v) { return parseNumber(v, o.collectiveUs) && o.collectiveUs > 0; }},
      {"--first-collective-factor",
       [](Options& o, std::string_view v) {
         return parseNumber(v, o.firstCollectiveFactor) && o.firstCollectiveFactor > 0;
       }},
      {"--graph-steps",
       [](Options& o, std::string_view v) { return parseNumber(v, o.graphSteps) && inUnit(o.graphSteps); }},
      {"--bad-dur", [](Options& o, std::string_view v) { return parseNumber(v, o.badDur) && inUnit(o.badDur); }},
      {"--rank", [](Options& o, std::string_view v) { return parseNumber(v, o.rank) && o.rank >= 0; }},
      {"--slow-rank-factor",
       [](Options& o, std::string_view v) {
         return parseNumber(v, o.slowRankFactor) && o.slowRankFactor > 0 && o.slowRankFactor <= 100;
       }},
      {"--world-size",
       [](Options& o, std::string_view v) {
         return parseNumber(v, o.worldSize) && o.worldSize >= 1 && o.worldSize <= 1 << 20;
       }},
      {"--unsorted-window",
       [](Options& o, std::string_view v) { return parseNumber(v, o.unsortedWindow) && o.unsortedWindow >= 2; }},
  };
  return m;
}

const std::map<std::string_view, FlagHandler>& flagOptions() {
  static const std::map<std::string_view, FlagHandler> m = {
      {"--be-pairs", [](Options& o) { o.bePairs = true; }},
      {"--string-ids", [](Options& o) { o.stringIds = true; }},
      {"--old-categories", [](Options& o) { o.oldCategories = true; }},
      {"--unsorted", [](Options& o) { o.unsorted = true; }},
      {"--overlap-kernels", [](Options& o) { o.overlapKernels = true; }},
      {"--epoch", [](Options& o) { o.epoch = true; }},
      {"--python-functions", [](Options& o) { o.pythonFunctions = true; }},
      {"--quiet", [](Options& o) { o.quiet = true; }},
  };
  return m;
}

std::optional<Options> fail(int& exitCode, const std::string& msg) {
  std::fprintf(stderr, "steadyscope-gen: %s (see --help)\n", msg.c_str());
  exitCode = 2;
  return std::nullopt;
}

}  // namespace

bool Options::gzip() const { return out.size() >= 3 && out.compare(out.size() - 3, 3, ".gz") == 0; }

std::optional<Options> parseOptions(int argc, char** argv, int& exitCode) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;
    bool hasInline = false;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      exitCode = 0;
      return std::nullopt;
    }
    if (arg == "-V" || arg == "--version") {
      std::printf("steadyscope-gen %s (git %s)\n", steadyscope::versionString(), steadyscope::gitRevision());
      exitCode = 0;
      return std::nullopt;
    }
    if (arg == "-o") arg = "--out";
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      hasInline = true;
    }
    if (auto f = flagOptions().find(arg); f != flagOptions().end() && !hasInline) {
      f->second(o);
      continue;
    }
    auto v = valueOptions().find(arg);
    if (v == valueOptions().end()) return fail(exitCode, "unknown option '" + std::string(arg) + "'");
    if (!hasInline) {
      if (i + 1 >= argc) return fail(exitCode, "missing value for " + std::string(arg));
      value = argv[++i];
    }
    if (!v->second(o, value)) return fail(exitCode, "bad value '" + std::string(value) + "' for " + std::string(arg));
  }
  if (o.out.empty()) return fail(exitCode, "no output file (-o)");
  // Only the training loop has a call tree that marks its steps.
  if (o.annotation == Annotation::None && o.style != Style::Training)
    return fail(exitCode, "--annotation none needs --style training");
  if (o.pythonFunctions && o.style != Style::Training)
    return fail(exitCode, "--python-functions needs --style training");
  if (o.rank > 0 && !o.distributed()) return fail(exitCode, "--rank needs --world-size");
  if (o.slowRankFactor != 1.0 && o.style != Style::Training)
    return fail(exitCode, "--slow-rank-factor needs --style training");
  if (o.distributed() && o.rank >= o.worldSize) return fail(exitCode, "--rank must be below --world-size");
  return o;
}

std::uint64_t Options::jitterSeed() const {
  if (!distributed()) return seed;
  return seed ^ (0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(rank + 1));
}

const char* styleName(Style s) {
  switch (s) {
    case Style::Vllm: return "vllm";
    case Style::Sglang: return "sglang";
    case Style::Atom: return "atom";
    case Style::Diffusion: return "diffusion";
    case Style::Training: return "training";
  }
  return "?";
}

const char* annotationName(Annotation a) {
  switch (a) {
    case Annotation::Native: return "native";
    case Annotation::Detailed: return "detailed";
    case Annotation::None: return "none";
  }
  return "?";
}

}  // namespace steadyscope::gen
