#include "split_many.hpp"

#include "split_load.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/gate.hpp>
#include <steadyscope/review.hpp>
#include <steadyscope/split.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <sched.h>

namespace steadyscope::cli {

namespace {

// The memory budget's figures, measured on generated and real traces (docs/BENCHMARKS.md,
// "Many traces in one command"), each at the end of its range that over-estimates the memory:
// a split's peak anonymous memory per event plus what it needs whatever the size (the gzip
// path's buffers), the JSON text per event, and how much gzip shrinks that text at the most.
constexpr double kSplitPeakBytesPerEvent = 100.0;
constexpr double kSplitFixedBytes = 64.0 * 1024 * 1024;
constexpr double kJsonBytesPerEvent = 200.0;
constexpr double kCompressedToJson = 20.0;

// A chunk as the table shows it: its busy ratio and how the gate sees it.
struct ChunkLine {
  std::string file;  // relative to the trace's folder
  int64_t gpuEvents = 0;
  double busyRatio = 0.0;
  std::string verdict;  // selected (the gate's pick), ok, or low (no GPU work or under the threshold)
};

struct TraceReport {
  std::string trace;
  std::string folder;   // DIR/NAME as given to the splitter
  std::string outcome;  // the splitter's word (split, refused, no_gpu_work) or error
  bool failed = false;
  std::string message;  // why it failed, or the splitter's refusal in words
  std::string gate;     // accepted / refused ("" when failed)
  std::vector<ChunkLine> chunks;
  std::vector<std::string> log;
};

// The peak memory one split of `path` is expected to need (0 when the size is unknown).
uint64_t estimatedPeakBytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  const bool compressed = !path.ends_with("json");
  const double json = static_cast<double>(size) * (compressed ? kCompressedToJson : 1.0);
  return static_cast<uint64_t>(kSplitFixedBytes + json / kJsonBytesPerEvent * kSplitPeakBytesPerEvent);
}

TraceReport failure(TraceReport r, std::string message) {
  r.outcome = analysis::splitOutcomeName(analysis::SplitOutcome::Error);
  r.failed = true;
  r.message = std::move(message);
  return r;
}

// The chunks of a written split with the gate's view of each.
void addChunks(TraceReport& rep, const analysis::SplitResult& r, const gate::GateResult& g, double threshold) {
  for (const auto& c : r.chunks) {
    ChunkLine line{c.fileName, c.stats.numGpuEvents, c.busyRatio, ""};
    if (!g.selectedChunk.empty() && c.outputPath == g.selectedChunk)
      line.verdict = "selected";
    else
      line.verdict = c.stats.numGpuEvents > 0 && c.busyRatio >= threshold ? "ok" : "low";
    rep.chunks.push_back(std::move(line));
  }
}

// Load, plan, write and gate one trace into `folder` on `threads` threads.
TraceReport splitOne(const std::string& trace, const std::string& folder, analysis::SplitOptions o,
                     const std::optional<analysis::WorkloadKind>& kind, unsigned threads,
                     const gate::GateOptions& gopt) {
  TraceReport rep{trace, folder};
  if (!hasTraceSuffix(trace)) return failure(rep, "Unknown file type: " + trace);
  std::string note;
  auto loaded = loadForSplit(trace, threads, note);
  if (!loaded) return failure(rep, loaded.error().describe());
  o.outputDir = folder;
  o.threads = threads;
  o = withKind(std::move(o), kind, *loaded.value());
  analysis::Splitter splitter(loaded.value());
  analysis::SplitResult r = splitter.plan(o);
  if (!note.empty()) r.warnings.push_back(note);
  rep.log = r.log;
  for (const auto& w : r.warnings) rep.log.push_back("Warning: " + w);
  if (r.outcome == analysis::SplitOutcome::Error) return failure(rep, r.error + " (nothing written)");
  if (auto w = splitter.write(r, nullptr, threads); !w) return failure(rep, w.error().describe());
  rep.outcome = analysis::splitOutcomeName(r.outcome);
  if (r.outcome == analysis::SplitOutcome::Refused) rep.message = r.story.verdict;
  const gate::GateResult g = gate::evaluateGate(review::gateInputFromSplit(r, o), gopt);
  rep.gate = g.accepted ? "accepted" : "refused";
  addChunks(rep, r, g, gopt.threshold);
  return rep;
}

std::string ratioText(double v) { return fmt::format("{:.4f}", v); }

// "rank0.json: split, 3 chunks (mixed_… 0.9312 selected, …), gate accepted".
std::string reportLine(const TraceReport& r) {
  std::string line = fmt::format("{}: {}", r.trace, r.outcome);
  if (r.failed) return line + ": " + r.message;
  line += fmt::format(", {} chunk{}", r.chunks.size(), r.chunks.size() == 1 ? "" : "s");
  for (size_t k = 0; k < r.chunks.size(); ++k)
    line += fmt::format("{}{} {} {}", k ? ", " : " (", r.chunks[k].file, ratioText(r.chunks[k].busyRatio),
                        r.chunks[k].verdict);
  if (!r.chunks.empty()) line += ")";
  line += ", gate " + r.gate;
  if (!r.message.empty()) line += ": " + r.message;
  return line;
}

// TSV cells hold no tab or newline.
std::string cell(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// One row per chunk; a trace without chunks (refused, failed) has one row with the chunk cells empty.
std::vector<std::vector<std::string>> tableRows(const std::vector<TraceReport>& reports) {
  std::vector<std::vector<std::string>> rows = {
      {"trace", "output_dir", "outcome", "gate", "chunk", "num_gpu_events", "busy_ratio", "chunk_verdict", "message"}};
  for (const auto& r : reports) {
    if (r.chunks.empty()) rows.push_back({r.trace, r.folder, r.outcome, r.gate, "", "", "", "", r.message});
    for (const auto& c : r.chunks)
      rows.push_back({r.trace, r.folder, r.outcome, r.gate, c.file, std::to_string(c.gpuEvents), ratioText(c.busyRatio),
                      c.verdict, r.message});
  }
  return rows;
}

std::string summaryTsv(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (const auto& row : rows) {
    for (size_t k = 0; k < row.size(); ++k) out += (k ? "\t" : "") + cell(row[k]);
    out += '\n';
  }
  return out;
}

// The table, columns aligned (the message, last, is not padded).
void printTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t k = 0; k + 1 < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t k = 0; k < row.size(); ++k)
      line += k + 1 < row.size() ? fmt::format("{:<{}}  ", row[k], width[k]) : row[k];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

JsonValue reportJson(const TraceReport& r) {
  JsonValue chunks = JsonValue::array();
  for (const auto& c : r.chunks)
    chunks.push(JsonValue::object({{"file", c.file},
                                   {"num_gpu_events", c.gpuEvents},
                                   {"busy_ratio", JsonValue::real(c.busyRatio)},
                                   {"verdict", c.verdict}}));
  return JsonValue::object({{"trace", r.trace},
                            {"output_dir", r.folder},
                            {"outcome", r.outcome},
                            {"failed", r.failed},
                            {"gate", r.gate.empty() ? JsonValue() : JsonValue(r.gate)},
                            {"message", r.message},
                            {"chunks", chunks},
                            {"log", JsonValue::stringList(r.log)}});
}

// The CPUs this process may run on (a batch scheduler's share of the node), else the hardware's count.
unsigned usableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// The jobs and their threads for these traces on this machine.
JobBudget budgetFor(const SplitArgs& sa) {
  JobBudgetInput in;
  in.hardwareThreads = usableCpus();
  in.threadsPerSplit = sa.threads;
  in.requestedJobs = sa.jobs;
  in.traces = sa.traces.size();
  in.availableBytes = availableMemoryBytes();
  for (const auto& t : sa.traces) in.bytesPerJob = std::max(in.bytesPerJob, estimatedPeakBytes(t));
  return planJobs(in);
}

// Runs every trace on budget.jobs threads, each trace's line printed as it finishes.
std::vector<TraceReport> runAll(const SplitArgs& sa, const std::vector<std::string>& folders, const JobBudget& budget,
                                const gate::GateOptions& gopt) {
  std::vector<TraceReport> reports(sa.traces.size());
  std::atomic<size_t> next{0};
  std::mutex printing;
  FILE* lines = sa.json ? stderr : stdout;  // --json keeps stdout for the JSON document
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < sa.traces.size();) {
      reports[i] = splitOne(sa.traces[i], sa.options.outputDir + "/" + folders[i], sa.options, sa.kind,
                            budget.threadsPerJob, gopt);
      std::lock_guard<std::mutex> lock(printing);
      std::fprintf(lines, "%s\n", reportLine(reports[i]).c_str());
      std::fflush(lines);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < budget.jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  return reports;
}

}  // namespace

std::vector<std::string> outputFolders(const std::vector<std::string>& traces) {
  std::vector<std::string> names;
  std::map<std::string, int> count;
  for (const auto& t : traces) count[referenceBaseName(t)]++;
  for (const auto& t : traces) {
    std::string base = referenceBaseName(t);
    if (count[base] > 1) {
      std::error_code ec;
      const auto full = std::filesystem::absolute(t, ec).lexically_normal();
      const std::string parent = ec ? std::string() : full.parent_path().filename().string();
      if (!parent.empty()) base = parent + "_" + base;
    }
    names.push_back(base);
  }
  std::map<std::string, int> seen;
  for (auto& n : names)
    if (int k = ++seen[n]; k > 1) n += "_" + std::to_string(k);
  return names;
}

int splitMany(const SplitArgs& sa, const std::string& prog) {
  auto gopt = gate::gateOptionsFromEnvironment();
  if (!gopt) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), gopt.error().describe().c_str());
    return 2;
  }
  const std::string& dir = sa.options.outputDir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "%s: error: %s: cannot create the output directory: %s\n", prog.c_str(), dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const JobBudget budget = budgetFor(sa);
  std::fprintf(sa.json ? stderr : stdout, "Splitting %zu traces into %s, %s\n", sa.traces.size(), dir.c_str(),
               budget.describe().c_str());
  const std::vector<TraceReport> reports = runAll(sa, outputFolders(sa.traces), budget, *gopt);
  const auto rows = tableRows(reports);
  const std::string tsvPath = sa.summaryPath.empty() ? dir + "/summary.tsv" : sa.summaryPath;
  if (auto parent = std::filesystem::path(tsvPath).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ec);
  auto written = writeFileAtomic(tsvPath, summaryTsv(rows));
  if (sa.json) {
    JsonValue all = JsonValue::array();
    for (const auto& r : reports) all.push(reportJson(r));
    std::printf("%s\n", JsonValue::object({{"traces", all}}).dump(JsonStyle::indented()).c_str());
  } else {
    std::printf("\n");
    printTable(rows);
  }
  if (!written) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), written.error().describe().c_str());
    return 1;
  }
  const bool anyFailed = std::any_of(reports.begin(), reports.end(), [](const TraceReport& r) { return r.failed; });
  return anyFailed ? 1 : 0;
}

}  // namespace steadyscope::cli
