// The `split` command line (newest `split_trace` flags, argparse's behaviour and
// messages), shared by `steadyscope-cli split`, `export` and `bench split`.
#include "split_args.hpp"

#include "thread_count.hpp"

#include <steadyscope/job.hpp>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::cli {

namespace {

const char* kUsageLine =
    "usage: %s [-h] -o OUTPUT_DIR [-i ITERATIONS] [--store-single-iteration] [--find-steady-state]\n"
    "       [--num-steps NUM_STEPS] [--CONC CONC] [--OSL OSL] [--R R] [--divide-phases] [--no-gap-fill]\n"
    "       [--allow-degraded] [--llm-inference] [--max-num-seq MAX_NUM_SEQ] [--busy-ratio-column]\n"
    "       [--fix FIXES] [--kind {auto,llm,generic}] [--json] [--threads THREADS]\n"
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

namespace {
// The --help paragraph of the many-trace form.
void printSplitManyHelp() {
  std::printf(
      "\nMany traces (every rank of a distributed job):\n"
      "  steadyscope-cli split RANK0.json RANK1.json ... -o DIR [-j JOBS] [options]\n"
      "                        splits each trace into DIR/NAME, NAME being the trace's base name\n"
      "                        (.pt.trace, .json.gz, .json removed); traces that share it go to\n"
      "                        DIR/PARENT_NAME (PARENT: the folder holding the file), and a name\n"
      "                        still shared gets _2, _3, ... in command-line order. One line per\n"
      "                        trace as it finishes, then a table, also written to DIR/summary.tsv\n"
      "                        (--json: the table as JSON on stdout, the lines on stderr).\n"
      "  -j, --jobs JOBS       traces split at once (default: the CPUs this process may use / the\n"
      "                        threads one split uses (--threads), no more than the free memory\n"
      "                        holds); the jobs share those CPUs. Exit status 0 when every trace was\n"
      "                        split or refused as the reference would, 1 when any failed, 2 usage error.\n"
      "  --memory-budget SIZE  at most this much memory for the traces split at once (8G, 512M;\n"
      "                        default: the free memory); fewer jobs run together, even with -j\n"
      "  --summary SUMMARY     write the table to SUMMARY instead of DIR/summary.tsv (several commands\n"
      "                        sharing one DIR, docs/cluster.md); -j or --summary with one trace\n"
      "                        also gives this form.\n");
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
      "  --no-cache            parse the trace even when the trace cache holds its model\n"
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
  std::printf(
      ", all\n"
      "                        (legacy-categories: the 2021 names Kernel, Memcpy, Memset count as GPU work;\n"
      "                        the reference, and the default, find no GPU work in such a trace)\n"
      "  --kind {auto,llm,generic}\n"
      "                        the workload: llm = --llm-inference, generic = without it, auto = as the\n"
      "                        pipeline chooses (llm when an event is named like a serving step annotation)\n"
      "  --json                print the structured result as JSON instead of the log\n");
  std::printf("  --threads THREADS     %s\n", threadsHelp().c_str());
  std::printf(
      "\nExamples:\n"
      "  %s run.pt.trace.json.gz -o chunks --find-steady-state\n"
      "  %s serve.json.gz -o chunks --find-steady-state --llm-inference --num-steps 16\n"
      "  %s run.json -o steps -i 10:20 --store-single-iteration\n",
      prog.c_str(), prog.c_str(), prog.c_str());
  printSplitManyHelp();
}

namespace {

// What parsing has gathered so far; the flags' handlers write into it.
struct ParseState {
  SplitArgs& out;
  bool manyTraces = false;  // several traces and -j/--jobs accepted
  bool haveOutput = false;
  std::string fixList;  // every --fix, joined; parsed once all flags are in
};

// A flag's handler stores its value, or returns what is wrong with it in
// argparse's words (the caller prefixes "argument NAME: ").
using FlagError = std::optional<std::string>;
using FlagHandler = FlagError (*)(ParseState&, const std::string&);

struct Flag {
  const char* longName;
  const char* shortName;  // nullptr: long form only
  bool takesValue;
  FlagHandler apply;
  bool manyTracesOnly = false;  // the many-trace form's own flags (split_many.hpp)
};

FlagError setTrue(bool& dst) {
  dst = true;
  return std::nullopt;
}

FlagError setText(std::string& dst, const std::string& v) {
  dst = v;
  return std::nullopt;
}

template <class T>
FlagError intInto(const std::string& v, T& dst) {
  auto x = parseInt(v);
  if (!x) return "invalid int value: '" + v + "'";
  dst = *x;
  return std::nullopt;
}

FlagError floatInto(const std::string& v, std::optional<double>& dst) {
  auto x = parseFloat(v);
  if (!x) return "invalid float value: '" + v + "'";
  dst = *x;
  return std::nullopt;
}

// In argparse's order: prefix matches of an abbreviated long option are listed in it.
const Flag kFlags[] = {
    {"--help", "-h", false, [](ParseState& s, const std::string&) { return setTrue(s.out.help); }},
    {"--output-dir", "-o", true,
     [](ParseState& s, const std::string& v) -> FlagError {
       s.out.options.outputDir = v;
       s.haveOutput = true;
       return std::nullopt;
     }},
    {"--iterations", "-i", true,
     [](ParseState& s, const std::string& v) { return setText(s.out.options.iterations, v); }},
    {"--store-single-iteration", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.storeSingleIteration); }},
    {"--find-steady-state", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.findSteadyState); }},
    {"--num-steps", nullptr, true,
     [](ParseState& s, const std::string& v) { return intInto(v, s.out.options.numSteps); }},
    {"--CONC", nullptr, true, [](ParseState& s, const std::string& v) { return intInto(v, s.out.options.conc.conc); }},
    {"--OSL", nullptr, true, [](ParseState& s, const std::string& v) { return floatInto(v, s.out.options.conc.osl); }},
    {"--R", nullptr, true, [](ParseState& s, const std::string& v) { return floatInto(v, s.out.options.conc.r); }},
    {"--divide-phases", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.dividePhases); }},
    {"--no-gap-fill", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.noGapFill); }},
    {"--allow-degraded", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.allowDegraded); }},
    {"--llm-inference", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.llmInference); }},
    {"--max-num-seq", nullptr, true,
     [](ParseState& s, const std::string& v) { return intInto(v, s.out.options.maxNumSeq); }},
    {"--busy-ratio-column", nullptr, false,
     [](ParseState& s, const std::string&) { return setTrue(s.out.options.busyRatioColumn); }},
    {"--fix", nullptr, true,
     [](ParseState& s, const std::string& v) -> FlagError {
       s.fixList += (s.fixList.empty() ? "" : ",") + v;
       return std::nullopt;
     }},
    {"--kind", nullptr, true,
     [](ParseState& s, const std::string& v) -> FlagError {
       s.out.kind = analysis::parseWorkloadKind(v);
       if (!s.out.kind) return "invalid choice: '" + v + "' (choose from 'auto', 'llm', 'generic')";
       return std::nullopt;
     }},
    {"--json", nullptr, false, [](ParseState& s, const std::string&) { return setTrue(s.out.json); }},
    {"--jobs", "-j", true,
     [](ParseState& s, const std::string& v) -> FlagError {
       auto n = parseThreadCount(v);
       if (!n) return jobCountError(v);
       s.out.jobs = *n;
       return std::nullopt;
     },
     true},
    {"--memory-budget", nullptr, true,
     [](ParseState& s, const std::string& v) -> FlagError {
       auto bytes = parseByteSize(v);
       if (!bytes) return memoryBudgetError(v);
       s.out.memoryBudget = *bytes;
       return std::nullopt;
     },
     true},
    {"--summary", nullptr, true, [](ParseState& s, const std::string& v) { return setText(s.out.summaryPath, v); },
     true},
    {"--threads", nullptr, true,
     [](ParseState& s, const std::string& v) -> FlagError {
       auto n = parseThreadCount(v);
       if (!n) return threadCountError(v);
       s.out.threads = *n;
       s.out.options.threads = *n;
       return std::nullopt;
     }},
};

// argparse reports "-o/--output-dir" with the short form first.
std::string displayName(const Flag& f) {
  return f.shortName ? std::string(f.shortName) + "/" + f.longName : std::string(f.longName);
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string list;
  for (const auto& s : items) list += (list.empty() ? "" : sep) + s;
  return list;
}

// One command-line word that starts with '-' (not a negative number, not "--").
struct FlagMatch {
  const Flag* flag = nullptr;  // nullptr: not a known flag (an "unrecognized argument")
  std::optional<std::string> inlineValue;
  std::optional<std::string> error;  // an ambiguous abbreviation
};

// "--name" or "--name=value"; a unique prefix of a long name selects it, as in argparse.
FlagMatch matchLong(const std::string& a) {
  FlagMatch m;
  std::string name = a;
  if (auto eq = a.find('='); eq != std::string::npos) {
    name = a.substr(0, eq);
    m.inlineValue = a.substr(eq + 1);
  }
  std::vector<const Flag*> cands;
  for (const Flag& f : kFlags) {
    if (name == f.longName) {
      cands = {&f};
      break;
    }
    if (std::string(f.longName).rfind(name, 0) == 0) cands.push_back(&f);
  }
  if (cands.size() > 1) {
    std::vector<std::string> names;
    for (const Flag* c : cands) names.emplace_back(c->longName);
    m.error = "ambiguous option: " + name + " could match " + joined(names, ", ");
  } else if (cands.size() == 1) {
    m.flag = cands.front();
  }
  return m;
}

// "-o", "-oVALUE" or "-o=VALUE"; a flag without a value takes no attached text.
FlagMatch matchShort(const std::string& a) {
  FlagMatch m;
  for (const Flag& f : kFlags) {
    if (f.shortName && a.compare(0, 2, f.shortName) == 0) {
      m.flag = &f;
      if (a.size() > 2) m.inlineValue = a[2] == '=' ? a.substr(3) : a.substr(2);
      break;
    }
  }
  if (m.flag && !m.flag->takesValue && m.inlineValue) m.flag = nullptr;
  return m;
}

bool isFlagWord(const std::string& a) { return !a.empty() && a[0] == '-' && a != "-" && !looksNegativeNumber(a); }

// After every word is read: argparse's required, unrecognized and --fix checks, in its order.
int finishSplitArgs(const std::string& prog, bool outputRequired, ParseState& st,
                    const std::vector<std::string>& positionals, std::vector<std::string> unknown) {
  std::vector<std::string> missing;
  if (outputRequired && !st.haveOutput) missing.push_back("-o/--output-dir");
  if (positionals.empty()) missing.insert(missing.begin(), "trace");
  if (!missing.empty()) return usageError(prog, "the following arguments are required: " + joined(missing, ", "));
  if (!st.manyTraces)
    for (size_t k = 1; k < positionals.size(); ++k) unknown.push_back(positionals[k]);
  if (!unknown.empty()) return usageError(prog, "unrecognized arguments: " + joined(unknown, " "));
  if (st.out.kind && st.out.options.llmInference)
    return usageError(prog, "argument --kind: not allowed with argument --llm-inference");
  st.out.trace = positionals.front();
  st.out.traces = st.manyTraces ? positionals : std::vector<std::string>{positionals.front()};
  if (!st.fixList.empty()) {
    if (auto e = analysis::parseFixList(st.fixList, st.out.options.fixes))
      return usageError(prog, "argument --fix: " + *e);
  }
  return 0;
}

}  // namespace

int parseSplitArgs(const Args& args, const std::string& prog, bool outputRequired, SplitArgs& out, bool manyTraces) {
  ParseState st{out, manyTraces};
  std::vector<std::string> positionals, unknown;
  bool onlyPositional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (onlyPositional || !isFlagWord(a)) {
      positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      onlyPositional = true;
      continue;
    }
    FlagMatch m = a.rfind("--", 0) == 0 ? matchLong(a) : matchShort(a);
    if (m.error) return usageError(prog, *m.error);
    if (!m.flag || (!manyTraces && m.flag->manyTracesOnly)) {
      unknown.push_back(a);
      continue;
    }
    const std::string name = displayName(*m.flag);
    if (!m.flag->takesValue && m.inlineValue)
      return usageError(prog, "argument " + name + ": ignored explicit argument '" + *m.inlineValue + "'");
    std::string value;
    if (m.flag->takesValue && m.inlineValue) {
      value = *m.inlineValue;
    } else if (m.flag->takesValue) {
      if (i + 1 >= args.size() || isFlagWord(args[i + 1]))
        return usageError(prog, "argument " + name + ": expected one argument");
      value = args[++i];
    }
    if (FlagError e = m.flag->apply(st, value)) return usageError(prog, "argument " + name + ": " + *e);
    if (out.help) return 0;
  }
  return finishSplitArgs(prog, outputRequired, st, positionals, std::move(unknown));
}

analysis::SplitOptions withKind(analysis::SplitOptions o, const std::optional<analysis::WorkloadKind>& kind,
                                const Trace& trace) {
  if (kind) o.llmInference = analysis::llmInferenceFor(*kind, trace);
  return o;
}

}  // namespace steadyscope::cli
