#include "split_many.hpp"

#include "split_load.hpp"
#include "tables.hpp"
#include "thread_count.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/gate.hpp>
#include <steadyscope/job.hpp>
#include <steadyscope/review.hpp>
#include <steadyscope/split.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

namespace steadyscope::cli {

namespace {

// A chunk as the table shows it: its busy ratio and how the gate sees it.
struct ChunkLine {
  std::string file;  // relative to the trace's folder
  int64_t gpuEvents = 0;
  double busyRatio = 0.0;
  std::string verdict;  // selected (the gate's pick), ok, or low (no GPU work or under the threshold)
};

struct TraceReport {
  std::string trace;
  size_t position = 0;  // among the traces given
  std::string folder;   // DIR/NAME as given to the splitter
  std::string outcome;  // the splitter's word (split, refused, no_gpu_work) or error
  bool failed = false;
  std::string message;  // why it failed, or the splitter's refusal in words
  std::string gate;     // accepted / refused ("" when failed)
  std::vector<ChunkLine> chunks;
  std::vector<std::string> log;
  job::RankRow row;  // the job view's figures of the trace (steadyscope/job.hpp)
};

TraceReport failure(TraceReport r, std::string message) {
  r.outcome = analysis::splitOutcomeName(analysis::SplitOutcome::Error);
  r.failed = true;
  r.message = std::move(message);
  r.row = job::failedRow(r.trace, r.position, r.message);
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
TraceReport splitOne(const std::string& trace, size_t position, const std::string& folder, analysis::SplitOptions o,
                     const std::optional<analysis::WorkloadKind>& kind, unsigned threads,
                     const gate::GateOptions& gopt) {
  TraceReport rep{trace, position, folder};
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
  rep.row = job::rankRowOf(*loaded.value(), position, r, g);
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

// The job row's columns after the chunk table's own: its `file` is `trace`, and the gate's chunk's
// figures are named so that they do not clash with each chunk's own cells. No skew_us: it compares
// ranks, so tables merged from slices of a job (docs/cluster.md) would each hold their own; the
// reader takes it from first_step_ts_us (job::summarise).
std::vector<std::string> jobColumns(std::vector<std::string> cells, bool header) {
  const std::vector<std::string> names = job::rowColumns();
  std::vector<std::string> out;
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k] == "file" || names[k] == "skew_us") continue;
    const bool renamed = header && (names[k] == "busy_ratio" || names[k] == "num_gpu_events");
    out.push_back(renamed ? "selected_" + cells[k] : cells[k]);
  }
  return out;
}

// One row per chunk; a trace without chunks (refused, failed) has one row with the chunk cells
// empty. Each row ends with its trace's job row.
TextTable tableRows(const std::vector<TraceReport>& reports) {
  TextTable rows = {
      {"trace", "output_dir", "outcome", "gate", "chunk", "num_gpu_events", "busy_ratio", "chunk_verdict", "message"}};
  const std::vector<std::string> jobHeader = jobColumns(job::rowColumns(), true);
  rows[0].insert(rows[0].end(), jobHeader.begin(), jobHeader.end());
  for (const auto& r : reports) {
    const std::vector<std::string> jobCells = jobColumns(job::rowCells(r.row), false);
    if (r.chunks.empty()) rows.push_back({r.trace, r.folder, r.outcome, r.gate, "", "", "", "", r.message});
    for (const auto& c : r.chunks)
      rows.push_back({r.trace, r.folder, r.outcome, r.gate, c.file, std::to_string(c.gpuEvents), ratioText(c.busyRatio),
                      c.verdict, r.message});
    for (size_t k = rows.size() - std::max<size_t>(1, r.chunks.size()); k < rows.size(); ++k)
      rows[k].insert(rows[k].end(), jobCells.begin(), jobCells.end());
  }
  return rows;
}

// The printed table: the chunk columns only (the job's figures: summary.tsv, --json, `job`).
TextTable chunkColumnsOnly(TextTable rows) {
  for (auto& row : rows) row.resize(9);
  return rows;
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
                            {"log", JsonValue::stringList(r.log)},
                            {"job_row", job::rowJson(r.row)}});
}

// Runs every trace on budget.jobs threads, each trace's line printed as it finishes.
std::vector<TraceReport> runAll(const SplitArgs& sa, const std::vector<std::string>& folders, const JobBudget& budget,
                                const gate::GateOptions& gopt) {
  std::vector<TraceReport> reports(sa.traces.size());
  std::mutex printing;
  FILE* lines = sa.json ? stderr : stdout;  // --json keeps stdout for the JSON document
  job::runEach(sa.traces.size(), budget, [&](size_t i) {
    reports[i] = splitOne(sa.traces[i], i, sa.options.outputDir + "/" + folders[i], sa.options, sa.kind,
                          budget.threadsPerJob, gopt);
    std::lock_guard<std::mutex> lock(printing);
    std::fprintf(lines, "%s\n", reportLine(reports[i]).c_str());
    std::fflush(lines);
  });
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
  const JobBudget budget = job::budgetForRanks(sa.traces, sa.threads, sa.jobs, sa.memoryBudget);
  std::fprintf(sa.json ? stderr : stdout, "Splitting %zu traces into %s, %s\n", sa.traces.size(), dir.c_str(),
               budget.describe().c_str());
  std::vector<TraceReport> reports = runAll(sa, outputFolders(sa.traces), budget, *gopt);
  std::vector<job::RankRow> jobRows;
  for (const auto& r : reports) jobRows.push_back(r.row);
  const job::JobSummary summary = job::summarise(jobRows);  // the skew needs every rank
  for (size_t i = 0; i < reports.size(); ++i) reports[i].row = jobRows[i];
  const auto rows = tableRows(reports);
  const std::string tsvPath = sa.summaryPath.empty() ? dir + "/summary.tsv" : sa.summaryPath;
  if (auto parent = std::filesystem::path(tsvPath).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ec);
  auto written = writeFileAtomic(tsvPath, tsvText(rows));
  if (sa.json) {
    JsonValue all = JsonValue::array();
    for (const auto& r : reports) all.push(reportJson(r));
    const JsonValue job = *job::jobJson(jobRows, summary).find("job");
    std::printf("%s\n", JsonValue::object({{"traces", all}, {"job", job}}).dump(JsonStyle::indented()).c_str());
  } else {
    std::printf("\n");
    printTable(chunkColumnsOnly(rows));
  }
  if (!written) {
    std::fprintf(stderr, "%s: error: %s\n", prog.c_str(), written.error().describe().c_str());
    return 1;
  }
  const bool anyFailed = std::any_of(reports.begin(), reports.end(), [](const TraceReport& r) { return r.failed; });
  return anyFailed ? 1 : 0;
}

}  // namespace steadyscope::cli
