// Split + gate on small fuzzed traces: the first byte picks the splitter's
// options (so the annotation tiers, the call-tree tiers and the steady-state
// search are all reached), the rest is the trace text. The plan is gated for
// every mode with its chunk evidence; nothing is written.
#include "io/load_tuning.hpp"
#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/review/split_gate.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

using namespace steadyscope;

namespace {
analysis::SplitOptions optionsFrom(uint8_t b) {
  analysis::SplitOptions o;
  o.outputDir = "fuzz-out";
  o.threads = 1;
  o.llmInference = b & 1;
  o.findSteadyState = b & 2;
  o.allowDegraded = b & 4;
  o.dividePhases = b & 8;
  o.numSteps = 1 + ((b >> 4) & 7);
  o.storeSingleIteration = b & 128;
  return o;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  LoadOptions lo;
  lo.threads = 1;
  static const io::LoadTuning kSmall{.pieceBytes = 4096};
  lo.tuning = &kSmall;
  auto loaded = loadTraceFromString(std::string(reinterpret_cast<const char*>(data + 1), size - 1), "fuzz.json", lo);
  if (!loaded) return 0;
  analysis::Splitter splitter(loaded.value());
  const analysis::SplitOptions o = optionsFrom(data[0]);
  const analysis::SplitResult r = splitter.plan(o);
  (void)analysis::splitResultToJson(r);
  analysis::EvidenceContext ctx(splitter.eventIndex(o), o);
  const gate::GateInput input = review::gateInputFromSplit(r, o, &ctx);
  for (gate::Mode m : gate::kAllModes) {
    gate::GateOptions go;
    go.mode = m;
    (void)gate::evaluateGate(input, go);
  }
  return 0;
}
