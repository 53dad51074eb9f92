// Command-line options of steadyscope-gen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::gen {

enum class Style { Vllm, Sglang, Atom, Diffusion, Training };
// None: training without any step annotation (the steps live only in the call tree).
enum class Annotation { Native, Detailed, None };

struct Options {
  std::string out;
  std::string truthPath;
  Style style = Style::Vllm;
  Annotation annotation = Annotation::Native;
  int steps = 300;
  std::uint64_t seed = 1;
  std::uint64_t targetBytes = 0;  // 0: use `steps`
  // serving schedule
  int conc = 16;
  int isl = 2048;
  int osl = 0;  // 0: scaled with the step count
  int tokenBudget = 2048;
  int layers = 4;
  double idleStepFrac = 0.01;
  double idleGapFrac = 0.01;
  // training
  double firstCollectiveFactor = 1.0;
  double collectiveUs = 300.0;
  int warmupSteps = 2;
  bool pythonFunctions = false;  // python_function frames (with_stack)
  // distributed job: this trace is rank `rank` of `worldSize` (0: not given, the style's own header)
  int rank = 0;
  int worldSize = 0;
  double slowRankFactor = 1.0;  // training: compute kernels this many times longer (a straggler)
  // awkward shapes
  double graphSteps = 0.0;
  bool bePairs = false;
  double badDur = 0.0;
  bool stringIds = false;
  bool oldCategories = false;
  bool unsorted = false;
  int unsortedWindow = 16;
  bool overlapKernels = false;
  bool epoch = false;
  // output
  int gzipLevel = 1;
  bool quiet = false;

  bool gzip() const;
  bool distributed() const { return worldSize > 0; }
  /// The seed of the per-event jitter: the user's seed, mixed with the rank when one is given,
  /// so ranks share the schedule (the same batches) but not the kernels' exact durations.
  std::uint64_t jitterSeed() const;
};

// Parses argv. On error or --help, prints to stderr/stdout and returns the
// process exit code in `exitCode`; the optional is empty then.
std::optional<Options> parseOptions(int argc, char** argv, int& exitCode);

const char* styleName(Style s);
const char* annotationName(Annotation a);

}  // namespace steadyscope::gen
