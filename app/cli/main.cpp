// steadyscope-cli: the headless front end of the Steadyscope core.
#include "cmd_bench.hpp"
#include "cli_cache.hpp"
#include "commands.hpp"

#include <steadyscope/common.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char* kUsage =
    "Usage: steadyscope-cli <command> [options]\n"
    "\n"
    "The command-line side of Steadyscope: reads PyTorch-profiler / Kineto traces (.json,\n"
    ".json.gz, .zip, .json.zst), splits them into steady-state chunks as AMD TraceLens does,\n"
    "and gates the chunks as the pipeline does. Each command has its own --help.\n"
    "\n"
    "Commands:\n"
    "  info TRACE [--json]        event counts, GPU events, lanes, devices, anomalies\n"
    "  split TRACE -o OUTDIR ...  split a trace into steady-state chunks (TraceLens-compatible)\n"
    "  gate DIR [--mode M] ...    gate the chunks of a split directory and explain the verdict\n"
    "  export TRACE --mode M -o DIR  export one chunk with its execution_details row and a manifest\n"
    "  job RANK... [--json]       every rank of a distributed job side by side: steps, skew,\n"
    "                             comm/compute overlap, each rank's chunk and verdict\n"
    "  compare A B [--steps R]    two traces op by op: each launching op's GPU time per step\n"
    "  bench load|split FILE      measure loading / splitting against raw baselines\n"
    "\n"
    "Options:\n"
    "  -h, --help                 show this help (or `steadyscope-cli <command> --help`)\n"
    "  -V, --version              print the version and the git revision\n"
    "  --no-cache                 (with any command) parse each trace even when the trace cache\n"
    "                             holds its model ($XDG_CACHE_HOME/steadyscope/traces)\n"
    "\n"
    "Environment:\n"
    "  STEADYSCOPE_CACHE_LIMIT    the trace cache's size cap, as --memory-budget takes a size (8G,\n"
    "                             512M; default 10 GB; 0 stores nothing)\n"
    "\n"
    "Examples:\n"
    "  steadyscope-cli info run.pt.trace.json.gz\n"
    "  steadyscope-cli split run.pt.trace.json.gz -o chunks --find-steady-state\n"
    "  steadyscope-cli gate chunks --trace run.pt.trace.json.gz\n"
    "  steadyscope-cli job rank*.pt.trace.json.gz\n"
    "  steadyscope-cli compare h100.json.gz mi300.json.gz\n"
    "  steadyscope-cli bench load run.pt.trace.json.gz\n"
    "\n"
    "Exit status: 0 success, 1 failure (bad input, refused chunk), 2 usage error.\n";

int run(const std::string& cmd, const steadyscope::cli::Args& rest) {
  if (cmd == "info") return steadyscope::cli::cmdInfo(rest);
  if (cmd == "bench") return steadyscope::cli::cmdBench(rest);
  if (cmd == "split") return steadyscope::cli::cmdSplit(rest);
  if (cmd == "gate") return steadyscope::cli::cmdGate(rest);
  if (cmd == "export") return steadyscope::cli::cmdExport(rest);
  if (cmd == "job") return steadyscope::cli::cmdJob(rest);
  if (cmd == "compare") return steadyscope::cli::cmdCompare(rest);
  std::fprintf(stderr, "steadyscope-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  steadyscope::reportOutOfMemoryOnTerminate("steadyscope-cli");
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "-V" || cmd == "--version") {
    std::printf("steadyscope-cli %s (git %s)\n", steadyscope::versionString(), steadyscope::gitRevision());
    return 0;
  }
  steadyscope::cli::Args rest(argv + 2, argv + argc);
  steadyscope::cli::takeNoCacheOption(rest);
  const int rc = run(cmd, rest);
  steadyscope::cli::closeTraceCache();
  return rc;
}
