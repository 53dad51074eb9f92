// Split and export on small fuzzed traces, with a disk that may fail: the
// first byte picks the splitter's options, the second which staged write
// fails (0: none), the rest is the trace text. Whatever happens, the target
// folder afterwards holds all four files (a success) or none (a failure):
// anything else aborts, which the fuzzer reports.
#include "io/load_tuning.hpp"
#include "fuzz_support.hpp"

#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/io/loader.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace steadyscope;
namespace fs = std::filesystem;

namespace {
size_t filesIn(const fs::path& dir) {
  std::error_code ec;
  size_t n = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  LoadOptions lo;
  lo.threads = 1;
  static const io::LoadTuning kSmall{.pieceBytes = 4096};
  lo.tuning = &kSmall;
  auto loaded = loadTraceFromString(std::string(reinterpret_cast<const char*>(data + 2), size - 2), "fuzz.json", lo);
  if (!loaded) return 0;
  analysis::SplitOptions o;
  o.threads = 1;
  o.llmInference = data[0] & 1;
  o.findSteadyState = true;
  o.allowDegraded = data[0] & 2;
  o.numSteps = 1 + ((data[0] >> 2) & 7);
  const fs::path target = fuzzsupport::tempDir("export") / "export";
  std::error_code ec;
  fs::remove_all(target, ec);
  o.outputDir = target.string();
  analysis::Splitter splitter(loaded.value());
  const analysis::SplitResult plan = splitter.plan(o);
  exporting::ExportRequest req;
  req.targetDir = target.string();
  req.mode = o.llmInference ? names::kChunkModes[(data[0] >> 5) % 3] : names::ChunkMode::Generic;
  const int failAt = data[1];  // the n-th staged write fails
  int writes = 0;
  if (failAt) req.fault = [&](const std::string&, uint64_t) { return ++writes == failAt ? ENOSPC : 0; };
  auto r = exporting::exportChunk(splitter, plan, o, req);
  const size_t files = filesIn(target);
  if (r ? files != 4 : files != 0) std::abort();  // an export appears whole or not at all
  return 0;
}
