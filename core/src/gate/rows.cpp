// Reading a row of execution_details.csv as the pipeline does (§6.4), and
// the gate's options from the environment (§6.5).
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/gate.hpp>

#include <steadyscope/core/util/pynum.hpp>

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace steadyscope::gate {

std::optional<Mode> parseMode(std::string_view name) {
  const auto m = names::parseModeName(name);
  if (m && modeName(*m) == name) return m;
  return std::nullopt;
}

std::string_view ratioSourceName(RatioSource s) {
  switch (s) {
    case RatioSource::Column: return "busy_ratio column";
    case RatioSource::ColumnNonFiniteClamped: return "busy_ratio column, non-finite, clamped to 1.0";
    case RatioSource::Quotient: return "gpu_busy_duration / gpu_duration";
    case RatioSource::Undefined: return "undefined";
  }
  return "undefined";
}

std::string_view rowMatchName(RowMatch m) {
  switch (m) {
    case RowMatch::None: return "none";
    case RowMatch::ByOutputPath: return "output_path";
    case RowMatch::ByFileName: return "file_name";
    case RowMatch::Supplied: return "supplied";
  }
  return "none";
}

namespace {

std::string quoteCell(const std::optional<std::string>& cell) {
  if (!cell) return "missing";
  return "'" + *cell + "'";
}

double readNumberCell(const std::optional<std::string>& cell, std::string_view column,
                      std::vector<std::string>& notes) {
  if (!cell) {
    notes.push_back(fmt::format("{} is missing; read as 0", column));
    return 0.0;
  }
  if (cell->empty()) {
    notes.push_back(fmt::format("{} is empty; read as 0", column));
    return 0.0;
  }
  auto v = parsePyFloat(*cell);
  if (!v) {
    notes.push_back(fmt::format("{} '{}' is not a number; read as 0", column, *cell));
    return 0.0;
  }
  return *v;
}

}  // namespace

// ---- rows ------------------------------------------------------------------------

ChunkRow ChunkRow::fromValues(std::string outputPath, int64_t numGpuEvents, double gpuDuration, double gpuBusyDuration,
                              std::optional<double> busyRatio) {
  ChunkRow r;
  r.outputPath = std::move(outputPath);
  r.numGpuEvents = std::to_string(numGpuEvents);
  r.gpuDuration = pyReprDouble(gpuDuration);
  r.gpuBusyDuration = pyReprDouble(gpuBusyDuration);
  if (busyRatio) {
    r.hasBusyRatioColumn = true;
    r.busyRatio = pyReprDouble(*busyRatio);
  }
  return r;
}

std::string ChunkRow::where() const {
  if (sourceFile.empty()) return "in-memory row";
  return fmt::format("{} line {}", sourceFile, sourceLine);
}

RowReading readRow(const ChunkRow& row) {
  RowReading r;
  // num_gpu_events: the integer part of the parsed value.
  double ev = readNumberCell(row.numGpuEvents, "num_gpu_events", r.notes);
  if (!std::isfinite(ev)) {
    r.notes.push_back(fmt::format("num_gpu_events {} is not finite; read as 0", quoteCell(row.numGpuEvents)));
    ev = 0.0;
  }
  if (ev >= 9.2e18)
    r.numGpuEvents = std::numeric_limits<int64_t>::max();
  else if (ev <= -9.2e18)
    r.numGpuEvents = std::numeric_limits<int64_t>::min();
  else
    r.numGpuEvents = static_cast<int64_t>(std::trunc(ev));
  r.gpuDuration = readNumberCell(row.gpuDuration, "gpu_duration", r.notes);
  r.gpuBusyDuration = readNumberCell(row.gpuBusyDuration, "gpu_busy_duration", r.notes);
  if (r.gpuDuration > 0) r.quotient = r.gpuBusyDuration / r.gpuDuration;

  std::optional<double> col;
  if (row.hasBusyRatioColumn) {
    if (!row.busyRatio)
      r.notes.push_back("busy_ratio is missing from the row; gpu_busy_duration / gpu_duration is used (§8 Q5)");
    else if (row.busyRatio->empty())
      r.notes.push_back("busy_ratio is empty; gpu_busy_duration / gpu_duration is used (§8 Q5)");
    else if (!(col = parsePyFloat(*row.busyRatio)))
      r.notes.push_back(fmt::format("busy_ratio '{}' is not a number; gpu_busy_duration / gpu_duration is used (§8 Q5)",
                                    *row.busyRatio));
  }
  if (col) {
    r.columnValue = col;
    if (!std::isfinite(*col)) {
      r.busyRatio = 1.0;
      r.source = RatioSource::ColumnNonFiniteClamped;
      r.notes.push_back(
          fmt::format("busy_ratio '{}' is not finite; clamped to 1.0 as the pipeline does", *row.busyRatio));
    } else {
      r.busyRatio = *col;
      r.source = RatioSource::Column;
    }
  } else if (r.quotient) {
    r.busyRatio = r.quotient;
    r.source = RatioSource::Quotient;
  } else {
    r.source = RatioSource::Undefined;
  }
  return r;
}

// ---- environment -----------------------------------------------------------------

double thresholdFromString(const std::optional<std::string>& value) {
  if (!value) return 0.05;
  auto v = parsePyFloat(*value);  // trims whitespace like .strip()
  if (!v || !(*v >= 0.0 && *v <= 1.0)) return 0.05;
  return *v;
}

double thresholdFromEnvironment() {
  const char* e = std::getenv("INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO");
  return thresholdFromString(e ? std::optional<std::string>(e) : std::nullopt);
}

Expected<Mode> modeFromEnvironment() {
  const char* e = std::getenv("INFERENCE_OPTIMIZER_STEADY_STATE_MODE");
  std::string_view s = e ? e : "";
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return Mode::Mixed;
  if (auto m = parseMode(s)) return *m;
  Error err;
  err.kind = Error::Kind::Usage;
  err.message = fmt::format(
      "INFERENCE_OPTIMIZER_STEADY_STATE_MODE='{}' is not a mode (mixed, decode_only, prefilldecode, generic)", s);
  err.code = "bad_mode";
  return err;
}

Expected<GateOptions> gateOptionsFromEnvironment() {
  auto m = modeFromEnvironment();
  if (!m) return m.error();
  GateOptions o;
  o.mode = *m;
  o.threshold = thresholdFromEnvironment();
  return o;
}

}  // namespace steadyscope::gate
