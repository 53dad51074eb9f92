// The job's figures over its rows, and the rows as JSON and TSV cells: one
// column list for `job --json`, `job --tsv` and a many-rank split's summary.tsv.
#include <steadyscope/job.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace steadyscope::job {

namespace {

// A column: its JSON name, its value as JSON and as a TSV cell ("" when unknown).
struct Field {
  const char* name;
  std::function<JsonValue(const RankRow&)> json;
  std::function<std::string(const RankRow&)> cell;
};

JsonValue orNull(const std::optional<double>& v) { return v ? JsonValue::real(*v) : JsonValue(); }
std::string us(double v) { return fmt::format("{:.3f}", v); }
std::string usOr(const std::optional<double>& v) { return v ? us(*v) : std::string(); }

// Figures that need the trace: null / empty in a row that did not load.
Field loadedUs(const char* name, double RankRow::*field) {
  return {name, [field](const RankRow& r) { return r.loaded ? JsonValue::real(r.*field) : JsonValue(); },
          [field](const RankRow& r) { return r.loaded ? us(r.*field) : std::string(); }};
}
Field loadedCount(const char* name, uint64_t RankRow::*field) {
  return {
      name,
      [field](const RankRow& r) { return r.loaded ? JsonValue::integer(static_cast<int64_t>(r.*field)) : JsonValue(); },
      [field](const RankRow& r) { return r.loaded ? std::to_string(r.*field) : std::string(); }};
}
Field optionalUs(const char* name, std::optional<double> RankRow::*field) {
  return {name, [field](const RankRow& r) { return orNull(r.*field); },
          [field](const RankRow& r) { return usOr(r.*field); }};
}
Field text(const char* name, std::string RankRow::*field) {
  return {name, [field](const RankRow& r) { return r.*field; }, [field](const RankRow& r) { return r.*field; }};
}

const std::vector<Field>& columns() {
  static const std::vector<Field> kColumns = {
      {"rank", [](const RankRow& r) { return JsonValue::integer(r.rank); },
       [](const RankRow& r) { return std::to_string(r.rank); }},
      text("file", &RankRow::file),
      loadedCount("events", &RankRow::events),
      loadedCount("gpu_events", &RankRow::gpuEvents),
      loadedCount("steps", &RankRow::steps),
      optionalUs("step_median_us", &RankRow::stepMedianUs),
      optionalUs("step_p90_us", &RankRow::stepP90Us),
      optionalUs("first_step_ts_us", &RankRow::firstStepTsUs),
      optionalUs("skew_us", &RankRow::skewUs),
      loadedUs("gpu_busy_us", &RankRow::gpuBusyUs),
      loadedUs("comm_busy_us", &RankRow::commBusyUs),
      loadedUs("compute_busy_us", &RankRow::computeBusyUs),
      loadedUs("overlap_us", &RankRow::overlapUs),
      text("split_status", &RankRow::splitStatus),
      text("chunk_mode", &RankRow::chunkMode),
      {"busy_ratio", [](const RankRow& r) { return orNull(r.busyRatio); },
       [](const RankRow& r) { return r.busyRatio ? fmt::format("{:.4f}", *r.busyRatio) : std::string(); }},
      {"num_gpu_events", [](const RankRow& r) { return r.numGpuEvents ? JsonValue(*r.numGpuEvents) : JsonValue(); },
       [](const RankRow& r) { return r.numGpuEvents ? std::to_string(*r.numGpuEvents) : std::string(); }},
      text("verdict", &RankRow::verdict),
      text("reason", &RankRow::reason),
  };
  return kColumns;
}

}  // namespace

JobSummary summarise(std::vector<RankRow>& rows) {
  JobSummary s;
  std::optional<double> earliest, slowest, fastest;
  std::set<int64_t> sizes;
  for (const auto& r : rows) {
    if (!r.loaded) ++s.failedRanks;
    if (r.worldSize) sizes.insert(*r.worldSize);
    if (r.firstStepTsUs) earliest = std::min(earliest.value_or(*r.firstStepTsUs), *r.firstStepTsUs);
    if (!r.stepMedianUs) continue;
    if (!slowest || *r.stepMedianUs > *slowest) {
      slowest = r.stepMedianUs;
      s.stragglerRank = r.rank;
    }
    fastest = std::min(fastest.value_or(*r.stepMedianUs), *r.stepMedianUs);
  }
  for (auto& r : rows)
    if (r.firstStepTsUs) r.skewUs = *r.firstStepTsUs - *earliest;
  if (fastest && *fastest > 0) s.stepSpread = *slowest / *fastest;
  s.worldSizes.assign(sizes.begin(), sizes.end());
  s.worldSizeMismatch = sizes.size() > 1;
  return s;
}

JsonValue rowJson(const RankRow& row) {
  JsonValue o = JsonValue::object();
  for (const auto& c : columns()) o.set(c.name, c.json(row));
  return o;
}

JsonValue jobJson(const std::vector<RankRow>& rows, const JobSummary& s) {
  JsonValue ranks = JsonValue::array();
  for (const auto& r : rows) ranks.push(rowJson(r));
  JsonValue sizes = JsonValue::array();
  for (int64_t w : s.worldSizes) sizes.push(JsonValue::integer(w));
  JsonValue job = JsonValue::object({{"straggler_rank", s.stragglerRank ? JsonValue(*s.stragglerRank) : JsonValue()},
                                     {"step_spread", orNull(s.stepSpread)},
                                     {"ranks", JsonValue::integer(static_cast<int64_t>(rows.size()))},
                                     {"failed_ranks", JsonValue::integer(static_cast<int64_t>(s.failedRanks))},
                                     {"world_sizes", sizes},
                                     {"world_size_mismatch", s.worldSizeMismatch}});
  return JsonValue::object({{"ranks", ranks}, {"job", job}});
}

std::vector<std::string> rowColumns() {
  std::vector<std::string> names;
  for (const auto& c : columns()) names.emplace_back(c.name);
  return names;
}

std::vector<std::string> rowCells(const RankRow& row) {
  std::vector<std::string> cells;
  for (const auto& c : columns()) cells.push_back(c.cell(row));
  return cells;
}

}  // namespace steadyscope::job
