// steadyscope-gen: writes deterministic synthetic Kineto traces and prints the
// ground truth it planted. See docs/generator.md.
#include "generator.hpp"
#include "options.hpp"
#include "sink.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>

using namespace steadyscope::gen;

namespace {

// Step count for --target-bytes: measure pilot runs into a null sink and
// scale. The serving mix depends on the output length, which scales with the
// step count, so the second pilot uses the output length of the first guess.
int stepsForTarget(const Options& opt) {
  constexpr int kPilotSteps = 1500;
  Options pilotOpt = opt;
  int steps = kPilotSteps;
  for (int round = 0; round < 2; ++round) {
    if (opt.osl == 0) pilotOpt.osl = std::clamp(steps / 6, 16, 1024);
    NullSink pilotSink;
    const Truth pilot = generateTrace(pilotOpt, kPilotSteps, pilotSink);
    const double perStep =
        static_cast<double>(pilot.jsonBytes) / static_cast<double>(std::max<std::uint64_t>(pilot.steps.total, 1));
    steps = static_cast<int>(std::clamp(static_cast<double>(opt.targetBytes) / std::max(perStep, 1.0), 1.0, 2.0e9));
  }
  return steps;
}

void writeTruthFile(const std::string& path, const std::string& json) {
  auto sink = openOutput(path, false, 0);
  sink->write(json.data(), json.size());
  sink->commit();
}

int run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  const int steps = opt.targetBytes > 0 ? stepsForTarget(opt) : opt.steps;
  auto sink = openOutput(opt.out, opt.gzip(), opt.gzipLevel);
  Truth truth = generateTrace(opt, steps, *sink);
  sink->commit();
  truth.storedBytes = sink->storedBytes();
  const std::string json = truthJson(opt, truth);
  if (!opt.truthPath.empty()) writeTruthFile(opt.truthPath, json);
  if (!opt.quiet) std::fputs(json.c_str(), stdout);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "steadyscope-gen: %s: %llu events, %.1f MB JSON (%.1f MB stored) in %.2f s, %.0f MB/s\n",
               opt.out.c_str(), static_cast<unsigned long long>(truth.counts.total),
               static_cast<double>(truth.jsonBytes) / 1e6, static_cast<double>(truth.storedBytes) / 1e6, secs,
               static_cast<double>(truth.jsonBytes) / 1e6 / std::max(secs, 1e-9));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int exitCode = 0;
  const auto opt = parseOptions(argc, argv, exitCode);
  if (!opt) return exitCode;
  try {
    return run(*opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "steadyscope-gen: error: %s\n", e.what());
    return 1;
  }
}
