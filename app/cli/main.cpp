// steadyscope-cli: the headless front end of the Steadyscope core.
#include "commands.hpp"

#include <steadyscope/core/version.hpp>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char* kUsage =
    "Usage: steadyscope-cli <command> [options]\n"
    "\n"
    "Commands:\n"
    "  info TRACE [--json]        event counts, GPU events, lanes, devices, anomalies\n"
    "  split TRACE -o OUTDIR ...  split a trace into steady-state chunks (TraceLens-compatible)\n"
    "  gate DIR [--mode M] ...    gate the chunks of a split directory and explain the verdict\n"
    "  export TRACE --mode M -o DIR  export one chunk with its execution_details row and a manifest\n"
    "  bench load|split FILE      measure loading / splitting against raw baselines\n"
    "\n"
    "Options:\n"
    "  -h, --help                 show this help (or `steadyscope-cli <command> --help`)\n"
    "  -V, --version              print the version\n";

}  // namespace

int main(int argc, char** argv) {
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
    std::printf("steadyscope-cli %s\n", steadyscope::versionString());
    return 0;
  }
  steadyscope::cli::Args rest(argv + 2, argv + argc);
  if (cmd == "info") return steadyscope::cli::cmdInfo(rest);
  if (cmd == "bench") return steadyscope::cli::cmdBench(rest);
  if (cmd == "split") return steadyscope::cli::cmdSplit(rest);
  if (cmd == "gate") return steadyscope::cli::cmdGate(rest);
  if (cmd == "export") return steadyscope::cli::cmdExport(rest);
  std::fprintf(stderr, "steadyscope-cli: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return 2;
}
