// `steadyscope-cli job RANK… [-j N] [--json] [--tsv FILE]`: every rank of a
// distributed job side by side, one row per rank, without writing chunks
// (the rows: steadyscope/job.hpp; the many-trace runner: job::runEach).
#include "cli_cache.hpp"
#include "commands.hpp"
#include "tables.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/job.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace steadyscope::cli {

namespace {

const char* kProg = "steadyscope-cli job";

struct JobArgs {
  std::vector<std::string> ranks;
  unsigned jobs = 0;
  unsigned threads = 0;
  uint64_t memoryBudget = 0;
  bool json = false;
  bool help = false;
  std::string tsvPath;
  job::RankOptions options;
};

void printJobHelp() {
  std::printf(
      "Usage: steadyscope-cli job RANK... [-j JOBS] [--memory-budget SIZE] [--json] [--tsv FILE]\n"
      "                           [--threads N]\n"
      "                           [--num-steps N] [--kind {auto,llm,generic}] [--mode MODE]\n"
      "\n"
      "Every rank of a distributed job side by side: one row per rank trace (.json, .json.gz,\n"
      ".zip, .json.zst) with its steps (median, p90, skew of the first step against the earliest\n"
      "rank), its GPU busy time (all GPU events; communication kernels, nccl/rccl; compute\n"
      "kernels; their overlap), its steady-state split planned in memory (nothing is written) and\n"
      "the gate's verdict on the chosen chunk. Then the straggler (the largest step median) and the\n"
      "spread of step medians. A rank that does not load gets its row with the reason; ranks that\n"
      "disagree on distributedInfo.world_size are flagged. Times in microseconds (the table: ms).\n"
      "\n"
      "Options:\n"
      "  -j, --jobs JOBS       ranks loaded at once (default: as many as the CPUs and the free\n"
      "                        memory hold, as for split RANK... -o DIR)\n"
      "  --memory-budget SIZE  at most this much memory for the ranks loaded at once (8G, 512M;\n"
      "                        default: the free memory); fewer load together, even with -j\n"
      "  --json                print {\"ranks\": [...], \"job\": {...}} instead of the table\n"
      "  --tsv FILE            also write the rows as TSV to FILE (atomically)\n"
      "  --threads THREADS     %s\n"
      "  --num-steps N         steady-state window length (default 32)\n"
      "  --kind {auto,llm,generic}\n"
      "                        the workload (default auto: llm when serving step annotations exist)\n"
      "  --mode MODE           the gate's mode (default: INFERENCE_OPTIMIZER_STEADY_STATE_MODE when\n"
      "                        set, else mixed for LLM inference and generic for other workloads)\n"
      "  -h, --help            show this help\n"
      "  --no-cache            parse each rank even when each rank cache holds its model\n"
      "\n"
      "Examples:\n"
      "  steadyscope-cli job rank*.pt.trace.json.gz\n"
      "  steadyscope-cli job rank0.json rank1.json --json\n"
      "  steadyscope-cli job ranks/*.json.gz -j 4 --tsv job.tsv\n"
      "\n"
      "Exit status: 0 every rank loaded, 1 a rank failed to load or the TSV could not be written,\n"
      "2 usage error.\n",
      threadsHelp().c_str());
}

int usage(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n(see %s --help)\n", kProg, message.c_str(), kProg);
  return 2;
}

// One option's value into `a`; "" when it was fine, else what is wrong.
std::string applyOption(const std::string& name, const std::string& value, JobArgs& a) {
  if (name == "-j" || name == "--jobs") {
    auto n = parseThreadCount(value);
    if (!n) return jobCountError(value);
    a.jobs = *n;
  } else if (name == "--threads") {
    auto n = parseThreadCount(value);
    if (!n) return threadCountError(value);
    a.threads = *n;
  } else if (name == "--memory-budget") {
    auto bytes = parseByteSize(value);
    if (!bytes) return memoryBudgetError(value);
    a.memoryBudget = *bytes;
  } else if (name == "--tsv") {
    a.tsvPath = value;
  } else if (name == "--num-steps") {
    char* end = nullptr;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || n < 1) return "expected a positive number of steps, not '" + value + "'";
    a.options.split.numSteps = n;
  } else if (name == "--kind") {
    a.options.kind = analysis::parseWorkloadKind(value);
    if (!a.options.kind) return "expected auto, llm or generic, not '" + value + "'";
  } else if (name == "--mode") {
    auto m = gate::parseMode(value);
    if (!m) return "expected mixed, decode_only, prefilldecode or generic, not '" + value + "'";
    a.options.gate.mode = *m;
    a.options.gateModeByWorkload = false;
  }
  return {};
}

int parseJobArgs(const Args& args, JobArgs& a) {
  static const std::vector<std::string> kValued = {"-j",     "--jobs", "--threads", "--tsv", "--num-steps",
                                                   "--kind", "--mode", "--memory-budget"};
  for (size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i], value;
    if (word == "-h" || word == "--help") {
      a.help = true;
      return 0;
    }
    if (word == "--json") {
      a.json = true;
      continue;
    }
    if (word.empty() || word[0] != '-' || word == "-") {
      a.ranks.push_back(word);
      continue;
    }
    if (std::string e = takeOption(args, i, kValued, word, value); !e.empty()) return usage(e);
    if (std::string e = applyOption(word, value, a); !e.empty()) return usage("argument " + word + ": " + e);
  }
  if (a.ranks.empty()) return usage("the following arguments are required: RANK");
  return 0;
}

std::string ms(const std::optional<double>& us) { return us ? fmt::format("{:.3f}", *us / 1000.0) : std::string(); }

// The readable table: the figures a user reads first, times in ms.
TextTable readableTable(const std::vector<job::RankRow>& rows) {
  TextTable t = {{"rank", "file", "steps", "median_ms", "p90_ms", "skew_ms", "gpu_busy_ms", "comm_ms", "compute_ms",
                  "overlap_ms", "split", "chunk", "busy_ratio", "verdict", "reason"}};
  for (const auto& r : rows) {
    auto loadedMs = [&](double us) { return r.loaded ? ms(us) : std::string(); };
    t.push_back({std::to_string(r.rank), r.file, r.loaded ? std::to_string(r.steps) : "", ms(r.stepMedianUs),
                 ms(r.stepP90Us), ms(r.skewUs), loadedMs(r.gpuBusyUs), loadedMs(r.commBusyUs),
                 loadedMs(r.computeBusyUs), loadedMs(r.overlapUs), r.splitStatus, r.chunkMode,
                 r.busyRatio ? fmt::format("{:.4f}", *r.busyRatio) : "", r.verdict, r.reason});
  }
  return t;
}

void printSummary(const std::vector<job::RankRow>& rows, const job::JobSummary& s) {
  std::printf("\n");
  if (s.stragglerRank) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.rank == *s.stragglerRank; });
    std::printf("Straggler: rank %lld, step median %s ms", static_cast<long long>(*s.stragglerRank),
                ms(it->stepMedianUs).c_str());
    if (s.stepSpread) std::printf(", %.3fx the fastest rank's", *s.stepSpread);
    std::printf("\n");
  } else {
    std::printf("Straggler: none (no rank has steps)\n");
  }
  if (s.worldSizeMismatch) {
    std::string sizes;
    for (int64_t w : s.worldSizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(w);
    std::printf("Warning: the ranks disagree on the world size (%s): they come from different jobs\n", sizes.c_str());
  }
  if (s.failedRanks) std::printf("%zu of %zu ranks did not load\n", s.failedRanks, rows.size());
}

std::vector<job::RankRow> computeRows(const JobArgs& a) {
  const JobBudget budget = job::budgetForRanks(a.ranks, a.threads, a.jobs, a.memoryBudget);
  std::fprintf(stderr, "Reading %zu ranks, %s\n", a.ranks.size(), budget.describe().c_str());
  job::RankOptions o = a.options;
  o.threads = budget.threadsPerJob;
  o.cache = traceCache();
  std::vector<job::RankRow> rows(a.ranks.size());
  std::mutex printing;
  job::runEach(a.ranks.size(), budget, [&](size_t i) {
    rows[i] = job::rankRow(a.ranks[i], i, o);  // the trace is freed inside, once its row is made
    if (rows[i].loaded) return;
    std::lock_guard<std::mutex> lock(printing);
    std::fprintf(stderr, "%s: error: %s\n", kProg, rows[i].reason.c_str());
  });
  return rows;
}

}  // namespace

int cmdJob(const Args& args) {
  JobArgs a;
  if (int rc = parseJobArgs(args, a)) return rc;
  if (a.help) {
    printJobHelp();
    return 0;
  }
  auto gopt = gate::gateOptionsFromEnvironment();
  if (!gopt) return usage(gopt.error().describe());
  // An explicit --mode wins, then the environment's mode (as `gate` reads it), then the workload's.
  const char* envMode = std::getenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE");
  if (a.options.gateModeByWorkload) {
    a.options.gate.mode = gopt->mode;
    a.options.gateModeByWorkload = !(envMode && *envMode);
  }
  a.options.gate.threshold = gopt->threshold;
  std::vector<job::RankRow> rows = computeRows(a);
  const job::JobSummary summary = job::summarise(rows);
  int status = summary.failedRanks ? 1 : 0;
  if (!a.tsvPath.empty()) {
    TextTable t = {job::rowColumns()};
    for (const auto& r : rows) t.push_back(job::rowCells(r));
    if (auto w = writeFileAtomic(a.tsvPath, tsvText(t)); !w) {
      std::fprintf(stderr, "%s: error: %s\n", kProg, w.error().describe().c_str());
      status = 1;
    }
  }
  if (a.json) {
    std::printf("%s\n", job::jobJson(rows, summary).dump(JsonStyle::indented()).c_str());
  } else {
    printTable(readableTable(rows));
    printSummary(rows, summary);
  }
  return status;
}

}  // namespace steadyscope::cli
