// execution_details.json / .csv (spec §4.9, §4.10): one entry and one row per chunk.
#include "analysis/pyfmt.hpp"
#include "analysis/split_stages.hpp"

namespace steadyscope::analysis {

namespace {

using CsvRow = std::vector<std::pair<std::string, CsvCell>>;

JsonValue detailsEntry(const ChunkPlan& c, bool busyRatioColumn) {
  JsonValue e = JsonValue::object();
  e.set("idx", c.idx);
  e.set("output_path", JsonValue::string(c.outputPath));
  e.set("event_count", JsonValue::integer(c.stats.eventCount));
  e.set("num_gpu_events", JsonValue::integer(c.stats.numGpuEvents));
  e.set("gpu_duration", JsonValue::number(c.stats.gpuDuration));
  e.set("gpu_busy_duration", JsonValue::number(c.stats.gpuBusyDuration));
  if (busyRatioColumn) e.set("busy_ratio", JsonValue::real(c.busyRatio));
  if (c.hasSteps) {
    JsonValue st = JsonValue::array();
    for (const auto& s : c.steps) st.push(stepJson(s));
    e.set("steps", std::move(st));
    e.set("phase", phaseJson(c.phase));
  }
  return e;
}

CsvRow detailsRow(const ChunkPlan& c, bool busyRatioColumn) {
  CsvRow row;
  row.emplace_back("idx", c.idx.type() == JsonValue::Type::Int ? CsvCell::integer(c.idx.asInt())
                                                               : CsvCell::string(c.idx.asString()));
  row.emplace_back("output_path", CsvCell::string(c.outputPath));
  row.emplace_back("event_count", CsvCell::integer(c.stats.eventCount));
  row.emplace_back("num_gpu_events", CsvCell::integer(c.stats.numGpuEvents));
  row.emplace_back("gpu_duration", CsvCell::number(c.stats.gpuDuration));
  row.emplace_back("gpu_busy_duration", CsvCell::number(c.stats.gpuBusyDuration));
  if (busyRatioColumn) row.emplace_back("busy_ratio", CsvCell::real(c.busyRatio));
  if (c.hasSteps) {
    row.emplace_back("phase_num_prefill", CsvCell::integer(c.phase.numPrefill));
    row.emplace_back("phase_num_prefilldecode", CsvCell::integer(c.phase.numPrefillDecode));
    row.emplace_back("phase_num_decode", CsvCell::integer(c.phase.numDecode));
    row.emplace_back("phase_avg_bs", CsvCell::integer(c.phase.avgBs));
    row.emplace_back("phase_avg_conc", CsvCell::integer(c.phase.avgConc));
  }
  row.emplace_back("num_steps", CsvCell::integer(c.hasSteps ? static_cast<int64_t>(c.steps.size()) : 0));
  return row;
}

}  // namespace

ExecutionDetails executionDetailsOf(const std::vector<ChunkPlan>& chunks, bool busyRatioColumn) {
  ExecutionDetails d{JsonValue::array(), {}};
  std::vector<CsvRow> rows;
  for (const ChunkPlan& c : chunks) {
    d.json.push(detailsEntry(c, busyRatioColumn));
    rows.push_back(detailsRow(c, busyRatioColumn));
  }
  if (!rows.empty()) d.csv = formatPandasCsv(rows);
  return d;
}

void fillExecutionDetails(SplitResult& r, bool busyRatioColumn) {
  ExecutionDetails d = executionDetailsOf(r.chunks, busyRatioColumn);
  r.executionDetails = std::move(d.json);
  r.executionDetailsCsv = std::move(d.csv);
}

}  // namespace steadyscope::analysis
