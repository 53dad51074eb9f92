#pragma once
// A distributed job side by side: one row per rank trace (steps, skew, GPU,
// communication and compute busy time, the split's outcome and the gate's
// verdict) and the job's figures over the rows. Nothing is written; a rank's
// trace is dropped once its row is made. Times in µs. No Qt.
//
//   std::vector<job::RankRow> rows;
//   for (size_t k = 0; k < files.size(); ++k) rows.push_back(job::rankRow(files[k], k, options));
//   job::JobSummary s = job::summarise(rows);   // also fills each row's skew_us
//   puts(job::jobJson(rows, s).dump().c_str());
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/analysis/workload_kind.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/io/trace_cache.hpp>
#include <steadyscope/core/util/error.hpp>
#include <steadyscope/core/util/job_budget.hpp>
#include <steadyscope/core/util/json_value.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace steadyscope::job {

/// One rank. Figures that need the loaded trace are meaningful only when `loaded`.
struct RankRow {
  int64_t rank = 0;  // distributedInfo.rank, else the position among the files
  bool rankFromTrace = false;
  std::optional<int64_t> worldSize;  // distributedInfo.world_size
  std::string file;
  bool loaded = false;
  uint64_t events = 0;
  uint64_t gpuEvents = 0;               // kernels, memcpys, memsets
  uint64_t steps = 0;                   // the splitter's roots
  std::vector<double> stepDurationsUs;  // each root's duration, in order (not in JSON or TSV)
  std::optional<double> stepMedianUs, stepP90Us, firstStepTsUs;
  std::optional<double> skewUs;  // set by summarise
  double gpuBusyUs = 0, commBusyUs = 0, computeBusyUs = 0, overlapUs = 0;
  std::string splitStatus;  // split, refused, no_gpu_work, error
  std::string chunkMode;    // the gate's selected chunk's mode ("" when none)
  std::optional<double> busyRatio;
  std::optional<int64_t> numGpuEvents;
  std::string verdict;  // accepted, low_quality, refused ("" when not gated)
  std::string reason;   // why the rank failed, has no figures or was refused ("" otherwise)
};

struct JobSummary {
  std::optional<int64_t> stragglerRank;  // the largest step median
  std::optional<double> stepSpread;      // largest step median / smallest
  std::vector<int64_t> worldSizes;       // distinct, ascending
  bool worldSizeMismatch = false;        // ranks of different jobs
  size_t failedRanks = 0;                // rows without figures (did not load)
};

/// Union lengths in ns over the whole trace: every GPU event, communication
/// kernels (name contains nccl or rccl, any case), the other kernels, and comm ∩ compute.
struct BusyFigures {
  int64_t gpuNs = 0, commNs = 0, computeNs = 0, overlapNs = 0;
};
BusyFigures busyFigures(const Trace& trace);
bool isCommunicationKernel(std::string_view name);

struct RankOptions {
  analysis::SplitOptions split;  // findSteadyState on by default
  std::optional<analysis::WorkloadKind> kind = analysis::WorkloadKind::Auto;
  gate::GateOptions gate;
  bool gateModeByWorkload = true;             // mixed for LLM inference, generic otherwise (else gate.mode)
  unsigned threads = 0;                       // loader and splitter (0: jobThreads())
  const std::atomic<bool>* cancel = nullptr;  // when set and true, the load and split stop at their next stage
  TraceCache* cache = nullptr;                // the loads read back / store models here (null: always parse)
  RankOptions() { split.findSteadyState = true; }
};

/// Loads `path`, plans its split in memory, gates it: the rank's row. A file
/// that does not load gets a row with the reason; nothing is thrown.
RankRow rankRow(const std::string& path, size_t position, const RankOptions& options);
/// The row of a trace already planned and gated (the many-trace split).
RankRow rankRowOf(const Trace& trace, size_t position, const analysis::SplitResult& split,
                  const gate::GateResult& gate);
RankRow failedRow(const std::string& path, size_t position, std::string reason);

/// The job's figures; fills each row's skewUs (its first step minus the earliest rank's).
JobSummary summarise(std::vector<RankRow>& rows);

/// The CPUs and memory budget for loading these rank files together (D-031): `threadsPerTrace`
/// is --threads (0: not given), `requestedJobs` -j (0: what fits), `memoryBudget` the user's
/// cap on the ranks' peaks together, which holds even against -j (0: the memory the machine has
/// available now, which only limits the default).
JobBudget budgetForRanks(const std::vector<std::string>& paths, unsigned threadsPerTrace, unsigned requestedJobs,
                         uint64_t memoryBudget = 0);
/// Calls run(i) for every i < count on budget.jobs threads (this one among them),
/// each index once, in increasing order of start.
void runEach(size_t count, const JobBudget& budget, const std::function<void(size_t)>& run);

/// The job rows of a many-rank split's summary.tsv (docs/cluster.md): one per trace, in
/// table order, figures empty where the table has none; no step durations (the table has
/// none). Call summarise for the skew. Errors name the file and the line.
Expected<std::vector<RankRow>> readSummaryTsv(const std::string& path);

/// {"ranks": [rows], "job": {...}}; a row's figures are null when it did not load.
JsonValue rowJson(const RankRow& row);
JsonValue jobJson(const std::vector<RankRow>& rows, const JobSummary& summary);
/// The TSV columns (the JSON names) and a row's cells (empty when unknown).
std::vector<std::string> rowColumns();
std::vector<std::string> rowCells(const RankRow& row);

}  // namespace steadyscope::job
