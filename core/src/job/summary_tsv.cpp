// A many-rank split's summary.tsv read back into job rows, so a job split on a
// cluster opens without reloading its traces. The table has a row per chunk;
// every row of a trace repeats its job cells, so the first one is taken.
#include <steadyscope/job.hpp>

#include <charconv>
#include <fstream>
#include <map>
#include <set>

namespace steadyscope::job {

namespace {

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> cells;
  size_t from = 0;
  for (size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1)
    cells.push_back(line.substr(from, tab - from));
  cells.push_back(line.substr(from));
  if (!cells.empty() && !cells.back().empty() && cells.back().back() == '\r') cells.back().pop_back();
  return cells;
}

// The cells of one table row by column name ("" for a column the table lacks).
class Cells {
 public:
  Cells(const std::map<std::string, size_t>& index, std::vector<std::string> cells)
      : index_(index), cells_(std::move(cells)) {}
  const std::string& text(const char* name) const {
    static const std::string kEmpty;
    const auto it = index_.find(name);
    return it == index_.end() || it->second >= cells_.size() ? kEmpty : cells_[it->second];
  }
  template <class T>
  std::optional<T> number(const char* name) const {
    const std::string& s = text(name);
    T v{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
  }

 private:
  const std::map<std::string, size_t>& index_;
  std::vector<std::string> cells_;
};

RankRow rowOf(const Cells& c, size_t position) {
  RankRow r;
  r.rank = c.number<int64_t>("rank").value_or(static_cast<int64_t>(position));
  r.rankFromTrace = false;  // the table does not say where the rank came from
  r.file = c.text("trace");
  r.loaded = c.number<uint64_t>("events").has_value();
  r.events = c.number<uint64_t>("events").value_or(0);
  r.gpuEvents = c.number<uint64_t>("gpu_events").value_or(0);
  r.steps = c.number<uint64_t>("steps").value_or(0);
  r.stepMedianUs = c.number<double>("step_median_us");
  r.stepP90Us = c.number<double>("step_p90_us");
  r.firstStepTsUs = c.number<double>("first_step_ts_us");
  r.gpuBusyUs = c.number<double>("gpu_busy_us").value_or(0);
  r.commBusyUs = c.number<double>("comm_busy_us").value_or(0);
  r.computeBusyUs = c.number<double>("compute_busy_us").value_or(0);
  r.overlapUs = c.number<double>("overlap_us").value_or(0);
  r.splitStatus = c.text("split_status").empty() ? c.text("outcome") : c.text("split_status");
  r.chunkMode = c.text("chunk_mode");
  r.busyRatio = c.number<double>("selected_busy_ratio");
  r.numGpuEvents = c.number<int64_t>("selected_num_gpu_events");
  r.verdict = c.text("verdict");
  r.reason = c.text("reason").empty() ? c.text("message") : c.text("reason");
  return r;
}

}  // namespace

Expected<std::vector<RankRow>> readSummaryTsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(Error::Kind::Io, path, "cannot open the file");
  std::string line;
  if (!std::getline(in, line)) return makeError(Error::Kind::Format, path, "the file is empty");
  std::map<std::string, size_t> index;
  const std::vector<std::string> header = splitTabs(line);
  for (size_t k = 0; k < header.size(); ++k) index.emplace(header[k], k);
  if (!index.count("trace") || !index.count("rank")) {
    Error e = makeError(Error::Kind::Format, path,
                        "not a many-rank summary.tsv: no trace and rank columns (split the ranks with "
                        "steadyscope-cli split RANK… -o DIR)");
    e.line = 1;
    return e;
  }
  std::vector<RankRow> rows;
  std::set<std::string> seen;
  for (uint64_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    Cells cells(index, splitTabs(line));
    if (!seen.insert(cells.text("trace")).second) continue;  // another chunk of a trace already read
    rows.push_back(rowOf(cells, rows.size()));
  }
  return rows;
}

}  // namespace steadyscope::job
