// `steadyscope-cli export TRACE --mode M -o DIR [--force] [split flags]`: split
// TRACE as the pipeline does and export the mode's chunk with its
// execution_details row and a provenance manifest (core/export).
#include "cli_cache.hpp"
#include "commands.hpp"
#include "split_args.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/export.hpp>
#include <steadyscope/io.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <optional>

namespace steadyscope::cli {

namespace {

const char* kProg = "steadyscope-cli export";

void printExportHelp() {
  std::printf(
      "usage: %s TRACE --mode MODE -o OUTPUT_DIR [--force] [--plain-json] [--timing]\n"
      "       [split flags]\n\n"
      "Split TRACE and export one chunk: the chunk trace (its events copied verbatim, plus the\n"
      "process and thread names a viewer needs), execution_details.csv and .json with that\n"
      "chunk's row (output_path absolute), and steadyscope-export.json (source sha256, parameters,\n"
      "the gate's verdict and findings). The four files appear together or not at all.\n\n"
      "  --mode MODE           mixed | decode_only | prefilldecode | generic (the gate's modes)\n"
      "  -o, --output-dir DIR  target folder (created when missing)\n"
      "  --force               replace an earlier export's files (the source trace is never replaced)\n"
      "  --plain-json          write the chunk as .json instead of .json.gz\n"
      "  --timing              print how long each stage took\n"
      "  --no-cache            parse TRACE even when the trace cache holds its model\n\n"
      "The split runs with --find-steady-state --num-steps 32, plus --llm-inference for mixed,\n"
      "decode_only and prefilldecode; every split flag may be added (see `steadyscope-cli split\n"
      "--help`), e.g. --num-steps 16, --allow-degraded, --fix dedupe-gpu-events.\n"
      "The gate's threshold comes from $INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO (default 0.05).\n\n"
      "Examples:\n"
      "  %s run.pt.trace.json.gz --mode mixed -o export/\n"
      "  %s train.json.gz --mode generic -o export/ --num-steps 8 --force\n"
      "  steadyscope-cli gate export/ --mode mixed      # the same verdict as on the split\n\n"
      "Exit status: 0 exported, 1 not exported (no such chunk, files exist, write failed), 2 usage error.\n",
      kProg, kProg, kProg);
}

struct ExportArgs {
  std::optional<names::ChunkMode> mode;
  bool force = false;
  bool plainJson = false;
  bool timing = false;
  SplitArgs split;
};

int usage(const std::string& msg) {
  std::fprintf(stderr, "%s: error: %s (see --help)\n", kProg, msg.c_str());
  return 2;
}

// Takes the export's own flags out of `args`; the rest are the split's.
int takeExportFlags(Args& args, ExportArgs& ea) {
  Args rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::optional<std::string> modeText;
    if (a == "--mode") {
      if (i + 1 >= args.size()) return usage("argument --mode: expected one argument");
      modeText = args[++i];
    } else if (a.rfind("--mode=", 0) == 0) {
      modeText = a.substr(7);
    } else if (a == "--force") {
      ea.force = true;
    } else if (a == "--plain-json") {
      ea.plainJson = true;
    } else if (a == "--timing") {
      ea.timing = true;
    } else {
      rest.push_back(a);
    }
    if (modeText) {
      ea.mode = gate::parseMode(*modeText);
      if (!ea.mode)
        return usage("argument --mode: '" + *modeText + "' is not one of mixed, decode_only, prefilldecode, generic");
    }
  }
  args = std::move(rest);
  return 0;
}

int parseExportArgs(Args args, ExportArgs& ea) {
  if (int rc = takeExportFlags(args, ea)) return rc;
  for (const auto& a : args)
    if (a == "-h" || a == "--help") {
      ea.split.help = true;
      return 0;
    }
  if (!ea.mode) return usage("the following arguments are required: --mode");
  // The pipeline's split (seed): steady state over 32 steps, --llm-inference for the LLM modes.
  ea.split.options.findSteadyState = true;
  ea.split.options.numSteps = 32;
  ea.split.options.llmInference = *ea.mode != names::ChunkMode::Generic;
  return parseSplitArgs(args, kProg, true, ea.split);
}

void printReport(const exporting::ExportReport& r, const std::string& trace) {
  std::printf("Exported %s\n", r.files.chunk.c_str());
  std::printf("  %lld events of the chunk + %lld process/thread-name metadata events for viewers\n",
              static_cast<long long>(r.eventCount), static_cast<long long>(r.addedMetadata));
  std::printf("  with %s, %s, %s\n", paths::fileName(r.files.detailsCsv).c_str(),
              paths::fileName(r.files.detailsJson).c_str(), paths::fileName(r.files.manifest).c_str());
  std::printf("  source %s, sha256 %s\n", trace.c_str(), r.sha256.c_str());
  std::printf("  gate on the split: %s — %s\n", r.gate.finalAccepted() ? "ACCEPTED" : "REFUSED",
              r.gate.summary.c_str());
}

void printTiming(const exporting::ExportTimings& s, double load, double split) {
  std::printf(
      "timing: export %.4f s after the split (checks %.4f, figures %.4f, chunk %.4f, details %.4f, manifest %.4f, "
      "publish %.4f); waited %.4f s for the sha256; load %.3f s, split %.3f s\n",
      s.total(), s.checks, s.figures, s.chunk, s.details, s.manifest, s.publish, s.digestWait, load, split);
}

}  // namespace

int cmdExport(const Args& args) {
  ExportArgs ea;
  if (int rc = parseExportArgs(args, ea)) return rc;
  if (ea.split.help) {
    printExportHelp();
    return 0;
  }
  auto gateOptions = gate::gateOptionsFromEnvironment();
  if (!gateOptions) return usage(gateOptions.error().describe());
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  LoadOptions load;
  load.threads = jobThreads(ea.split.threads);
  load.cache = traceCache();
  auto loaded = loadTrace(ea.split.trace, load);
  if (!loaded) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, loaded.error().describe().c_str());
    return 1;
  }
  startSourceDigest(*loaded.value());  // beside the split, on its own thread
  auto t1 = Clock::now();
  ea.split.options = withKind(ea.split.options, ea.split.kind, *loaded.value());
  analysis::Splitter splitter(loaded.value());
  const analysis::SplitResult plan = splitter.plan(ea.split.options);
  auto t2 = Clock::now();
  exporting::ExportRequest req;
  req.mode = *ea.mode;
  req.targetDir = ea.split.options.outputDir;
  req.force = ea.force;
  req.gzip = !ea.plainJson;
  req.gate = gateOptions.value();
  req.toolVersion = versionString();
  auto rep = exporting::exportChunk(splitter, plan, ea.split.options, req);
  if (!rep) {
    std::fprintf(stderr, "%s: error: %s\n", kProg, rep.error().describe().c_str());
    return 1;
  }
  printReport(rep.value(), ea.split.trace);
  using Sec = std::chrono::duration<double>;
  if (ea.timing) printTiming(rep->seconds, Sec(t1 - t0).count(), Sec(t2 - t1).count());
  return 0;
}

}  // namespace steadyscope::cli
