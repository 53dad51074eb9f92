// `steadyscope-cli split TRACE -o OUTDIR [...]`: the TraceLens-compatible splitter
// (newest `split_trace` command line, spec §5.1) plus --json, --busy-ratio-column, --fix.
#include "commands.hpp"
#include "split_args.hpp"

#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/io/loader.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

namespace steadyscope::cli {

namespace {

const char* kUsageLine =
    "usage: %s [-h] -o OUTPUT_DIR [-i ITERATIONS] [--store-single-iteration] [--find-steady-state]\n"
    "       [--num-steps NUM_STEPS] [--CONC CONC] [--OSL OSL] [--R R] [--divide-phases] [--no-gap-fill]\n"
    "       [--allow-degraded] [--llm-inference] [--max-num-seq MAX_NUM_SEQ] [--busy-ratio-column]\n"
    "       [--fix FIXES] [--json]\n"
    "       trace\n";

int usageError(const std::string& prog, const std::string& msg) {
  std::fprintf(stderr, kUsageLine, prog.c_str());
  std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), msg.c_str());
  return 2;
}

// argparse's negative-number test: ^-\d+$ or ^-\d*\.\d+$ (hand-written: GCC 12
// warns falsely inside <regex> under the sanitizers, and warnings are errors).
bool looksNegativeNumber(const std::string& s) {
  if (s.size() < 2 || s[0] != '-') return false;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 1, n = s.size();
  size_t intDigits = 0;
  while (i < n && digit(s[i])) {
    ++i;
    ++intDigits;
  }
  if (i == n) return intDigits > 0;
  if (s[i] != '.') return false;
  ++i;
  size_t frac = 0;
  while (i < n && digit(s[i])) {
    ++i;
    ++frac;
  }
  return i == n && frac > 0;
}

// Python int() / float() of a command-line value.
std::optional<int64_t> parseInt(const std::string& s) {
  std::string t = s;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  size_t i = 0;
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  t = t.substr(i);
  if (t.empty()) return std::nullopt;
  std::string digits;
  size_t k = 0;
  if (t[0] == '+' || t[0] == '-') digits += t[k++];
  bool lastUs = true;
  for (; k < t.size(); ++k) {
    if (std::isdigit(static_cast<unsigned char>(t[k]))) {
      digits += t[k];
      lastUs = false;
    } else if (t[k] == '_' && !lastUs)
      lastUs = true;
    else
      return std::nullopt;
  }
  if (lastUs) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(digits.c_str(), &end, 10);
  if (errno || *end) return std::nullopt;
  return v;
}

std::optional<double> parseFloat(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  while (end && *end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (!end || *end || end == s.c_str()) return std::nullopt;
  return v;
}

}  // namespace

void printSplitHelp(const std::string& prog) {
  std::printf(kUsageLine, prog.c_str());
  std::printf(
      "\nSplit a GPU profiler trace into steady-state chunks (TraceLens split_trace compatible).\n\n"
      "positional arguments:\n"
      "  trace                 trace file (.json, .json.gz, .zip: the first .json member is read)\n\n"
      "options:\n"
      "  -h, --help            show this help message and exit\n"
      "  -o, --output-dir OUTPUT_DIR\n"
      "                        output directory (created when detection succeeds)\n"
      "  -i, --iterations ITERATIONS\n"
      "                        'all' (default), N, or A:B\n"
      "  --store-single-iteration\n"
      "                        one chunk per root of the range\n"
      "  --find-steady-state   steady-state window(s)\n"
      "  --num-steps NUM_STEPS window length for steady state (default 32)\n"
      "  --CONC CONC           expected peak concurrency\n"
      "  --OSL OSL             output sequence length (ideal prefill-decode ratio with CONC and R)\n"
      "  --R R                 OSL range ratio, clamped to [0, 1]\n"
      "  --divide-phases       per-phase chunk folders\n"
      "  --no-gap-fill         do not build global tiles\n"
      "  --allow-degraded      also split DEGRADED detection results\n"
      "  --llm-inference       shape-based phases/steady state when serving annotations are absent\n"
      "  --max-num-seq MAX_NUM_SEQ\n"
      "                        batch-size threshold for prefill-bearing steps\n"
      "  --busy-ratio-column   add busy_ratio = gpu_busy_duration / gpu_duration after gpu_busy_duration\n"
      "  --fix FIXES           comma-separated opt-in fixes of reference quirks (docs/splitter-decisions.md):\n"
      "                        ");
  auto names = analysis::fixNames();
  for (size_t i = 0; i < names.size(); ++i) std::printf("%s%s", i ? ", " : "", names[i].c_str());
  std::printf(", all\n  --json                print the structured result as JSON instead of the log\n");
}

int parseSplitArgs(const Args& args, const std::string& prog, bool outputRequired, SplitArgs& out) {
  struct Opt {
    const char* longName;
    const char* shortName;
    bool takesValue;
    const char* dest;
  };
  static const Opt opts[] = {
      {"--help", "-h", false, "help"},
      {"--output-dir", "-o", true, "output_dir"},
      {"--iterations", "-i", true, "iterations"},
      {"--store-single-iteration", nullptr, false, "store_single_iteration"},
      {"--find-steady-state", nullptr, false, "find_steady_state"},
      {"--num-steps", nullptr, true, "num_steps"},
      {"--CONC", nullptr, true, "CONC"},
      {"--OSL", nullptr, true, "OSL"},
      {"--R", nullptr, true, "R"},
      {"--divide-phases", nullptr, false, "divide_phases"},
      {"--no-gap-fill", nullptr, false, "no_gap_fill"},
      {"--allow-degraded", nullptr, false, "allow_degraded"},
      {"--llm-inference", nullptr, false, "llm_inference"},
      {"--max-num-seq", nullptr, true, "max_num_seq"},
      {"--busy-ratio-column", nullptr, false, "busy_ratio_column"},
      {"--fix", nullptr, true, "fix"},
      {"--json", nullptr, false, "json"},
  };
  auto argName = [](const Opt& o) {
    std::string s = o.longName;
    if (o.shortName) s = std::string(o.longName) + "/" + o.shortName;
    return s;
  };
  // argparse reports "-o/--output-dir" with the short form first.
  auto displayName = [](const Opt& o) {
    return o.shortName ? std::string(o.shortName) + "/" + o.longName : std::string(o.longName);
  };
  (void)argName;
  std::vector<std::string> positionals, unknown;
  bool haveOutput = false;
  std::string fixList;
  auto apply = [&](const Opt& o, const std::string& v) -> int {
    std::string d = o.dest;
    auto& so = out.options;
    if (d == "help")
      out.help = true;
    else if (d == "output_dir") {
      so.outputDir = v;
      haveOutput = true;
    } else if (d == "iterations")
      so.iterations = v;
    else if (d == "store_single_iteration")
      so.storeSingleIteration = true;
    else if (d == "find_steady_state")
      so.findSteadyState = true;
    else if (d == "divide_phases")
      so.dividePhases = true;
    else if (d == "no_gap_fill")
      so.noGapFill = true;
    else if (d == "allow_degraded")
      so.allowDegraded = true;
    else if (d == "llm_inference")
      so.llmInference = true;
    else if (d == "busy_ratio_column")
      so.busyRatioColumn = true;
    else if (d == "json")
      out.json = true;
    else if (d == "fix")
      fixList += (fixList.empty() ? "" : ",") + v;
    else if (d == "num_steps" || d == "CONC" || d == "max_num_seq") {
      auto x = parseInt(v);
      if (!x) return usageError(prog, "argument " + displayName(o) + ": invalid int value: '" + v + "'");
      if (d == "num_steps")
        so.numSteps = *x;
      else if (d == "CONC")
        so.conc.conc = *x;
      else
        so.maxNumSeq = *x;
    } else if (d == "OSL" || d == "R") {
      auto x = parseFloat(v);
      if (!x) return usageError(prog, "argument " + displayName(o) + ": invalid float value: '" + v + "'");
      if (d == "OSL")
        so.conc.osl = *x;
      else
        so.conc.r = *x;
    }
    return 0;
  };
  bool onlyPositional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (onlyPositional || a.empty() || a[0] != '-' || a == "-" || looksNegativeNumber(a)) {
      positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositional = true;
      continue;
    }
    const Opt* hit = nullptr;
    std::optional<std::string> inlineValue;
    if (a.rfind("--", 0) == 0) {
      std::string name = a, val;
      auto eq = a.find('=');
      if (eq != std::string::npos) {
        name = a.substr(0, eq);
        inlineValue = a.substr(eq + 1);
      }
      std::vector<const Opt*> cands;
      for (const Opt& o : opts) {
        if (name == o.longName) {
          cands = {&o};
          break;
        }
        if (std::string(o.longName).rfind(name, 0) == 0) cands.push_back(&o);
      }
      if (cands.size() > 1) {
        std::string list;
        for (const Opt* c : cands) list += (list.empty() ? "" : ", ") + std::string(c->longName);
        return usageError(prog, "ambiguous option: " + name + " could match " + list);
      }
      if (cands.empty()) {
        unknown.push_back(a);
        continue;
      }
      hit = cands.front();
    } else {
      for (const Opt& o : opts) {
        if (o.shortName && a.compare(0, 2, o.shortName) == 0) {
          hit = &o;
          if (a.size() > 2) inlineValue = a[2] == '=' ? a.substr(3) : a.substr(2);
          break;
        }
      }
      if (!hit) {
        unknown.push_back(a);
        continue;
      }
      if (!hit->takesValue && inlineValue) {
        unknown.push_back(a);
        continue;
      }
    }
    if (!hit->takesValue) {
      if (inlineValue)
        return usageError(prog, "argument " + displayName(*hit) + ": ignored explicit argument '" + *inlineValue + "'");
      if (int rc = apply(*hit, "")) return rc;
      if (out.help) return 0;
      continue;
    }
    std::string value;
    if (inlineValue) {
      value = *inlineValue;
    } else {
      if (i + 1 >= args.size()) return usageError(prog, "argument " + displayName(*hit) + ": expected one argument");
      const std::string& nx = args[i + 1];
      if (!nx.empty() && nx[0] == '-' && nx != "-" && !looksNegativeNumber(nx))
        return usageError(prog, "argument " + displayName(*hit) + ": expected one argument");
      value = nx;
      ++i;
    }
    if (int rc = apply(*hit, value)) return rc;
  }
  if (out.help) return 0;
  std::vector<std::string> missing;
  if (outputRequired && !haveOutput) missing.push_back("-o/--output-dir");
  if (positionals.empty()) missing.insert(missing.begin(), "trace");
  if (!missing.empty()) {
    std::string list;
    for (const auto& s : missing) list += (list.empty() ? "" : ", ") + s;
    return usageError(prog, "the following arguments are required: " + list);
  }
  for (size_t k = 1; k < positionals.size(); ++k) unknown.push_back(positionals[k]);
  if (!unknown.empty()) {
    std::string list;
    for (const auto& s : unknown) list += (list.empty() ? "" : " ") + s;
    return usageError(prog, "unrecognized arguments: " + list);
  }
  out.trace = positionals.front();
  if (!fixList.empty()) {
    if (auto e = analysis::parseFixList(fixList, out.options.fixes)) return usageError(prog, "argument --fix: " + *e);
  }
  return 0;
}

int cmdSplit(const Args& args) {
  const std::string prog = "steadyscope-cli split";
  SplitArgs sa;
  if (int rc = parseSplitArgs(args, prog, true, sa)) return rc;
  if (sa.help) {
    printSplitHelp(prog);
    return 0;
  }
  // Reference suffix rules (spec §1.1): json.gz, json, zip (member read from the archive, §8 B1).
  const std::string& p = sa.trace;
  auto ends = [&](const char* s) {
    std::string_view suf(s);
    return p.size() >= suf.size() && p.compare(p.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (!ends("json") && !ends("json.gz") && !ends(".zip")) {
    std::fprintf(stderr, "%s: error: Unknown file type: %s\n", prog.c_str(), p.c_str());
    return 1;
  }
  auto loaded = loadTrace(p, {});
  if (!loaded) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), loaded.error().describe().c_str());
    return 1;
  }
  analysis::Splitter splitter(loaded.value());
  analysis::SplitResult r = splitter.plan(sa.options);
  if (sa.json) {
    std::fputs(analysis::splitResultToJson(r).dump(JsonStyle::pythonFile()).c_str(), stdout);
    std::fputc('\n', stdout);
  } else {
    for (const auto& l : r.log) std::printf("%s\n", l.c_str());
    for (const auto& w : r.warnings) std::printf("Warning: %s\n", w.c_str());
  }
  if (r.outcome == analysis::SplitOutcome::Error) {
    std::fprintf(stderr, "%s: error: %s (nothing written)\n", prog.c_str(), r.error.c_str());
    return 1;
  }
  if (auto w = splitter.write(r); !w) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), w.error().describe().c_str());
    return 1;
  }
  return 0;
}

}  // namespace steadyscope::cli
