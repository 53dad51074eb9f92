// `steadyscope-cli split TRACE -o OUTDIR [...]`: the TraceLens-compatible splitter
// (newest `split_trace` command line, spec §5.1) plus --json, --busy-ratio-column, --fix.
#include "commands.hpp"
#include "split_args.hpp"
#include "split_load.hpp"
#include "split_many.hpp"

#include <steadyscope/io.hpp>
#include <steadyscope/split.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

namespace steadyscope::cli {

int cmdSplit(const Args& args) {
  const std::string prog = "steadyscope-cli split";
  SplitArgs sa;
  if (int rc = parseSplitArgs(args, prog, true, sa, true)) return rc;
  if (sa.help) {
    printSplitHelp(prog);
    return 0;
  }
  if (sa.traces.size() > 1 || sa.jobs || !sa.summaryPath.empty()) return splitMany(sa, prog);
  const std::string& p = sa.trace;
  if (!hasTraceSuffix(p)) {
    std::fprintf(stderr, "%s: error: Unknown file type: %s\n", prog.c_str(), p.c_str());
    return 1;
  }
  std::string note;
  auto loaded = loadForSplit(p, jobThreads(sa.threads), note);
  if (!loaded) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), loaded.error().describe().c_str());
    return 1;
  }
  sa.options = withKind(sa.options, sa.kind, *loaded.value());
  analysis::Splitter splitter(loaded.value());
  analysis::SplitResult r = splitter.plan(sa.options);
  if (!note.empty()) r.warnings.push_back(note);
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
  if (auto w = splitter.write(r, nullptr, sa.options.threads); !w) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), w.error().describe().c_str());
    return 1;
  }
  return 0;
}

}  // namespace steadyscope::cli
