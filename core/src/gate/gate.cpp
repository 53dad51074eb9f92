// The chunk-quality gate: spec §6.3 steps 1–3, §6.4 row reading, §6.5 rules,
// §6.6 warnings, §6.7 retry extraction; plus the decision record and the
// findings computed from rows and caller-supplied evidence.
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/gate.hpp>

#include <steadyscope/core/util/pynum.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace steadyscope::gate {

// ---- names -------------------------------------------------------------------

std::string_view modeName(Mode m) {
  switch (m) {
    case Mode::Mixed: return "mixed";
    case Mode::DecodeOnly: return "decode_only";
    case Mode::PrefillDecode: return "prefilldecode";
    case Mode::Generic: return "generic";
  }
  return "mixed";
}

std::string_view modeChunkLabel(Mode m) {
  switch (m) {
    case Mode::Mixed: return "mixed_steady_state";
    case Mode::DecodeOnly: return "decode_only_steady_state";
    case Mode::PrefillDecode: return "prefilldecode_steady_state";
    case Mode::Generic: return "steady_state";
  }
  return "mixed_steady_state";
}

std::string modeFilePrefix(Mode m) { return std::string(modeChunkLabel(m)) + "_"; }

std::optional<Mode> parseMode(std::string_view name) {
  for (Mode m : kAllModes)
    if (modeName(m) == name) return m;
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

std::string_view ruleOutcomeName(RuleOutcome o) {
  switch (o) {
    case RuleOutcome::Passed: return "passed";
    case RuleOutcome::Failed: return "failed";
    case RuleOutcome::Skipped: return "skipped";
    case RuleOutcome::Info: return "info";
  }
  return "info";
}

bool isAutoRetryCode(std::string_view code) {
  return code == "steady_state_chunk_empty" || code == "steady_state_chunk_missing" ||
         code == "steady_state_chunk_low_quality";
}

// ---- numbers in sentences ------------------------------------------------------

std::string formatNumber(double v) {
  if (!std::isfinite(v)) return pyReprDouble(v);
  std::string r = pyReprDouble(v);
  if (r.size() <= 10) return r;
  std::string g = fmt::format("{:.4g}", v);
  return g;
}

namespace {

// Two numbers that are compared in one sentence: never print them alike
// unless they are equal.
std::pair<std::string, std::string> formatPair(double a, double b) {
  std::string sa = formatNumber(a), sb = formatNumber(b);
  if (sa == sb && !(a == b)) {
    sa = pyReprDouble(a);
    sb = pyReprDouble(b);
  }
  return {sa, sb};
}

std::string quoteCell(const std::optional<std::string>& cell) {
  if (!cell) return "missing";
  return "'" + *cell + "'";
}

JsonValue cellJson(const std::optional<std::string>& cell) { return cell ? JsonValue(*cell) : JsonValue(); }

JsonValue optDouble(const std::optional<double>& v) { return v ? JsonValue(*v) : JsonValue(); }

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

// ---- retry (§6.7) ----------------------------------------------------------------

namespace {
std::string_view pyStrip(std::string_view s) {
  auto sp = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' ||
           c == '\x1e' || c == '\x1f';
  };
  while (!s.empty() && sp(s.front())) s.remove_prefix(1);
  while (!s.empty() && sp(s.back())) s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<RetryPlan> extractRetryMode(const JsonValue& result) {
  if (!result.isObject()) return std::nullopt;
  const JsonValue* warnings = result.find("trace_health_warnings");
  if (!warnings || !warnings->isArray()) return std::nullopt;
  for (const JsonValue& w : warnings->items()) {
    if (!w.isObject()) continue;
    const JsonValue* code = w.find("code");
    if (!code || !code->isString() || !isAutoRetryCode(code->asString())) continue;
    const JsonValue* nonEmpty = w.find("non_empty_modes");
    const JsonValue* available = w.find("available_modes");
    const JsonValue* modes = nullptr;
    if (nonEmpty && nonEmpty->truthy())
      modes = nonEmpty;
    else if (available && available->truthy())
      modes = available;
    if (!modes) continue;  // [] — nothing to return from this warning
    if (!modes->isArray()) continue;
    for (const JsonValue& m : modes->items()) {
      if (!m.isString()) continue;
      std::string_view s = pyStrip(m.asString());
      if (s.empty()) continue;
      RetryPlan p;
      p.toMode = std::string(s);
      const JsonValue* from = w.find("requested_mode");
      p.fromMode = (from && from->isString()) ? from->asString() : "mixed";
      p.sourceWarningCode = code->asString();
      return p;
    }
  }
  return std::nullopt;
}

std::optional<RetryPlan> planRetry(const JsonValue& result) {
  if (result.isObject()) {
    const JsonValue* st = result.find("status");
    if (st && st->isString() && st->asString() == "ok") return std::nullopt;
  }
  return extractRetryMode(result);
}

// ---- the gate ------------------------------------------------------------------

namespace {

using Readings = std::array<std::optional<RowReading>, 4>;

struct Alternate {
  Mode mode;
  double ratio;
};

std::string joinModes(const std::vector<std::string>& modes) {
  std::string out;
  for (size_t k = 0; k < modes.size(); ++k) {
    if (k) out += ", ";
    out += modes[k];
  }
  return out;
}

std::string fileName(const std::string& p) {
  auto k = p.find_last_of('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

class Decider {
 public:
  Decider(const GateInput& in, const GateOptions& opt, const Readings& rd, GateResult& res)
      : in_(in), opt_(opt), rd_(rd), res_(res) {}

  void run() {
    res_.options = opt_;
    collect();
    if (res_.refusal == Refusal::None && res_.accepted) gate();
    // The retry the orchestrator would perform.
    res_.retry = planRetry(res_.pipelineResult());
    if (!res_.accepted) {
      if (res_.retry)
        add("retry", "",
            JsonValue::object(
                {{"to_mode", res_.retry->toMode}, {"source_warning_code", res_.retry->sourceWarningCode}}),
            RuleOutcome::Info,
            fmt::format("the orchestrator retries once with mode {} (from {} of {})", res_.retry->toMode,
                        res_.nonEmptyModes.empty() ? "available_modes" : "non_empty_modes",
                        res_.retry->sourceWarningCode));
      else
        add("retry", "", JsonValue::object(), RuleOutcome::Info,
            res_.refusal == Refusal::NoSteadyState ? "no retry: trace_split_no_steady_state is not in the retry set"
                                                   : "no retry: the warning names no mode to retry with");
    }
  }

 private:
  void add(std::string rule, std::string subject, JsonValue inputs, RuleOutcome o, std::string sentence) {
    RuleEvaluation r;
    r.rule = std::move(rule);
    r.subject = std::move(subject);
    r.inputs = std::move(inputs);
    r.outcome = o;
    r.sentence = std::move(sentence);
    res_.record.push_back(std::move(r));
  }

  JsonValue ctx(const std::optional<std::string>& s) const { return s ? JsonValue(*s) : JsonValue(); }

  std::vector<std::string> availableModes() const {
    std::vector<std::string> out;
    for (Mode m : kAllModes)
      if (in_.listing.count(m) > 0) out.emplace_back(modeName(m));
    return out;
  }

  void collect() {
    const SplitListing& L = in_.listing;
    size_t dup = 0;
    JsonValue counts = JsonValue::object();
    for (Mode m : kAllModes) {
      counts.set(std::string(modeName(m)), static_cast<int64_t>(L.count(m)));
      const auto& v = L.of(m);
      for (size_t a = 0; a < v.size(); ++a)
        for (size_t b = 0; b < a; ++b)
          if (v[a] == v[b]) {
            ++dup;
            break;
          }
    }
    JsonValue inputs = JsonValue::object({{"split_dir", L.splitDir}, {"chunks_by_mode", counts}});
    std::string s = fmt::format("found {} mixed, {} decode_only, {} prefilldecode and {} generic chunk entries",
                                L.count(Mode::Mixed), L.count(Mode::DecodeOnly), L.count(Mode::PrefillDecode),
                                L.count(Mode::Generic));
    if (dup) {
      inputs.set("listed_twice", static_cast<int64_t>(dup));
      s += fmt::format(" ({} file(s) listed twice: a .trace.json[.gz] name matches two patterns, §8 B11)", dup);
    }
    add("collect", "", std::move(inputs), RuleOutcome::Info, s);

    auto avail = availableModes();
    if (avail.empty()) {
      JsonValue w = JsonValue::object();
      w.set("code", "trace_split_no_steady_state");
      w.set("severity", "warning");
      w.set("trace_input", ctx(in_.traceInput));
      w.set("split_dir", L.splitDir);
      w.set("split_returncode", in_.splitReturnCode ? JsonValue(*in_.splitReturnCode) : JsonValue());
      w.set("mixed_count", 0);
      w.set("decode_only_count", 0);
      w.set("prefilldecode_count", 0);
      w.set("message", "The split produced no steady-state chunk of any mode");
      res_.warnings.push_back(std::move(w));
      refuse(Refusal::NoSteadyState, "trace_split_no_steady_state: the split directory has no steady-state chunk",
             "refused: the split directory has no steady-state chunk of any mode (trace_split_no_steady_state)");
      add("any_chunk", "", JsonValue::object(), RuleOutcome::Failed, res_.summary);
      return;
    }
    add("any_chunk", "", JsonValue::object({{"available_modes", JsonValue::stringList(avail)}}), RuleOutcome::Passed,
        fmt::format("chunks exist for {}", joinModes(avail)));

    Mode req = opt_.mode;
    std::string reqName(modeName(req));
    if (L.count(req) == 0) {
      JsonValue w = JsonValue::object();
      w.set("code", "steady_state_chunk_missing");
      w.set("severity", "blocking");
      w.set("requested_mode", reqName);
      w.set("requested_chunk_label", std::string(modeChunkLabel(req)));
      w.set("available_modes", JsonValue::stringList(avail));
      w.set("remediation", fmt::format("Set INFERENCE_OPTIMIZER_STEADY_STATE_MODE to one of: {}", joinModes(avail)));
      w.set("trace_input", ctx(in_.traceInput));
      w.set("split_dir", L.splitDir);
      res_.warnings.push_back(std::move(w));
      std::string sentence = fmt::format("refused: there is no {} chunk; available: {} (steady_state_chunk_missing)",
                                         reqName, joinModes(avail));
      refuse(Refusal::ChunkMissing,
             fmt::format("steady_state_chunk_missing: no {} chunk in {}", modeChunkLabel(req), L.splitDir), sentence);
      add("mode_present", reqName,
          JsonValue::object({{"requested_mode", reqName}, {"available_modes", JsonValue::stringList(avail)}}),
          RuleOutcome::Failed, sentence);
      return;
    }
    res_.selectedChunk = L.of(req).front();
    add("mode_present", reqName, JsonValue::object({{"requested_mode", reqName}}), RuleOutcome::Passed,
        fmt::format("{} has {} chunk entr{}", reqName, L.count(req), L.count(req) == 1 ? "y" : "ies"));
    add("select", reqName, JsonValue::object({{"selected_chunk", res_.selectedChunk}}), RuleOutcome::Info,
        fmt::format("selected {}, the first {} entry", fileName(res_.selectedChunk), reqName));
  }

  void refuse(Refusal r, std::string error, std::string summary) {
    res_.accepted = false;
    res_.refusal = r;
    res_.errorMessage = std::move(error);
    res_.summary = std::move(summary);
  }

  void pass(std::string summary) {
    res_.accepted = true;
    res_.summary = std::move(summary);
  }

  JsonValue readingInputs(Mode m) const {
    const auto& row = in_.rows[modeIndex(m)];
    const auto& r = rd_[modeIndex(m)];
    JsonValue o = JsonValue::object();
    if (row) {
      o.set("row", row->where());
      o.set("row_match", std::string(rowMatchName(in_.rowMatch[modeIndex(m)])));
      o.set("num_gpu_events_cell", cellJson(row->numGpuEvents));
      o.set("gpu_duration_cell", cellJson(row->gpuDuration));
      o.set("gpu_busy_duration_cell", cellJson(row->gpuBusyDuration));
      o.set("busy_ratio_cell", row->hasBusyRatioColumn ? cellJson(row->busyRatio) : JsonValue("no column"));
    }
    if (r) {
      o.set("num_gpu_events", r->numGpuEvents);
      o.set("gpu_duration", r->gpuDuration);
      o.set("gpu_busy_duration", r->gpuBusyDuration);
      o.set("busy_ratio", optDouble(r->busyRatio));
      o.set("ratio_source", std::string(ratioSourceName(r->source)));
      if (!r->notes.empty()) o.set("reading_notes", JsonValue::stringList(r->notes));
    }
    return o;
  }

  void gate() {
    Mode req = opt_.mode;
    std::string reqName(modeName(req));
    // §6.4: no readable CSV -> the pipeline passes silently.
    if (in_.details != DetailsState::Readable) {
      std::string why = in_.details == DetailsState::Absent ? "execution_details.csv is absent"
                                                            : "execution_details.csv cannot be read";
      if (!in_.detailsProblem.empty()) why += " (" + in_.detailsProblem + ")";
      pass("passed unchecked: " + why + ", and the pipeline then does not check the chunk (§6.4)");
      add("details_csv", "", JsonValue::object({{"problem", in_.detailsProblem}}), RuleOutcome::Skipped, res_.summary);
      return;
    }
    add("details_csv", "", JsonValue::object(), RuleOutcome::Passed, "execution_details.csv was read");

    const auto& selRow = in_.rows[modeIndex(req)];
    const auto& selRd = rd_[modeIndex(req)];
    if (!selRow || !selRd) {
      pass(
          "passed unchecked: no row of execution_details.csv names the selected chunk (rows are matched by "
          "resolved output_path), so the pipeline does not check it (§8 B12)");
      add("row_match", reqName, JsonValue::object({{"selected_chunk", res_.selectedChunk}}), RuleOutcome::Skipped,
          res_.summary);
      return;
    }
    add("row_match", reqName,
        JsonValue::object({{"row", selRow->where()},
                           {"matched_by", std::string(rowMatchName(in_.rowMatch[modeIndex(req)]))},
                           {"output_path", cellJson(selRow->outputPath)}}),
        RuleOutcome::Passed,
        fmt::format("the selected chunk's row is {} (matched by {})", selRow->where(),
                    rowMatchName(in_.rowMatch[modeIndex(req)])));

    const RowReading& sel = *selRd;
    const bool zero = sel.numGpuEvents == 0;
    if (zero) res_.lowQuality = true;
    {
      JsonValue i = JsonValue::object(
          {{"num_gpu_events_cell", cellJson(selRow->numGpuEvents)}, {"num_gpu_events", sel.numGpuEvents}});
      if (zero)
        add("gpu_events", reqName, std::move(i), RuleOutcome::Failed,
            "refused: the chunk has 0 GPU events (refused whatever its busy ratio)");
      else
        add("gpu_events", reqName, std::move(i), RuleOutcome::Passed,
            fmt::format("the chunk has {} GPU events", sel.numGpuEvents));
    }

    const std::optional<double> rSel = sel.busyRatio;
    if (!zero) {
      if (!rSel) {
        pass(
            "passed unchecked: the chunk has GPU events but no busy ratio (no usable busy_ratio cell and "
            "gpu_duration is not > 0), and the pipeline then skips the quality check");
        add("busy_ratio", reqName, readingInputs(req), RuleOutcome::Skipped, res_.summary);
        return;
      }
      add("busy_ratio", reqName, readingInputs(req), RuleOutcome::Info,
          fmt::format("busy ratio {} from the {}", formatNumber(*rSel), ratioSourceName(sel.source)));
      auto [a, t] = formatPair(*rSel, opt_.threshold);
      JsonValue ti = JsonValue::object({{"busy_ratio", *rSel}, {"threshold", opt_.threshold}});
      if (*rSel >= opt_.threshold) {
        pass(fmt::format("passed: busy ratio {} >= threshold {}", a, t));
        add("threshold", reqName, std::move(ti), RuleOutcome::Passed, res_.summary);
        return;
      }
      res_.lowQuality = true;
      add("threshold", reqName, std::move(ti), RuleOutcome::Failed,
          fmt::format("low quality: busy ratio {} < threshold {}", a, t));
    } else {
      add("busy_ratio", reqName, readingInputs(req), RuleOutcome::Info,
          rSel ? fmt::format("busy ratio {} from the {} (reported only: a chunk without GPU events is refused)",
                             formatNumber(*rSel), ratioSourceName(sel.source))
               : std::string("no busy ratio (reported as null)"));
    }

    // Alternates: the first chunk of every other family with chunks.
    std::vector<Alternate> qualifying;
    JsonValue altRatios = JsonValue::object();
    for (Mode m : kAllModes) {
      if (m == req || in_.listing.count(m) == 0) continue;
      std::string name(modeName(m));
      const auto& row = in_.rows[modeIndex(m)];
      const auto& rd = rd_[modeIndex(m)];
      if (!row || !rd) {
        add("alternate", name, JsonValue::object({{"chunk", in_.listing.of(m).front()}}), RuleOutcome::Skipped,
            fmt::format("{}: no row names its first chunk; not considered", name));
        continue;
      }
      if (!rd->busyRatio) {
        add("alternate", name, readingInputs(m), RuleOutcome::Skipped,
            fmt::format("{}: no busy ratio; not considered", name));
        continue;
      }
      double r = *rd->busyRatio;
      altRatios.set(name, r);
      JsonValue i = readingInputs(m);
      bool ok = false;
      std::string s;
      if (zero) {
        ok = r > 0;
        s = fmt::format(
            "{}: busy ratio {} {} 0: {} (the selected chunk has no GPU work, so threshold and margin "
            "do not apply)",
            name, formatNumber(r), ok ? ">" : "<=", ok ? "qualifies" : "does not qualify");
      } else {
        double diff = r - *rSel;  // IEEE double subtraction, as specified
        i.set("threshold", opt_.threshold);
        i.set("margin", opt_.margin);
        i.set("difference", diff);
        bool clears = r >= opt_.threshold;
        bool beats = diff >= opt_.margin;
        ok = clears && beats;
        auto [rs, ts] = formatPair(r, opt_.threshold);
        auto [ds, ms] = formatPair(diff, opt_.margin);
        if (!clears)
          s = fmt::format("{}: busy ratio {} < threshold {}: does not qualify", name, rs, ts);
        else
          s = fmt::format("{}: busy ratio {} >= threshold {} and {} - {} = {} {} margin {}: {}", name, rs, ts,
                          formatNumber(r), formatNumber(*rSel), pyReprDouble(diff), beats ? ">=" : "<", ms,
                          ok ? "qualifies" : "does not qualify");
      }
      add("alternate", name, std::move(i), ok ? RuleOutcome::Passed : RuleOutcome::Failed, s);
      if (ok) qualifying.push_back({m, r});
    }
    std::stable_sort(qualifying.begin(), qualifying.end(),
                     [](const Alternate& a, const Alternate& b) { return a.ratio > b.ratio; });
    for (const auto& q : qualifying) res_.nonEmptyModes.emplace_back(modeName(q.mode));

    std::string offered;
    for (size_t k = 0; k < qualifying.size(); ++k)
      offered += fmt::format(fmt::runtime(k ? ", {} at {}" : "{} offered at {}"), modeName(qualifying[k].mode),
                             formatNumber(qualifying[k].ratio));

    bool refuseIt = zero || !qualifying.empty() || opt_.refuseWithoutAlternate;
    JsonValue vi = JsonValue::object({{"non_empty_modes", JsonValue::stringList(res_.nonEmptyModes)},
                                      {"refuse_without_alternate", opt_.refuseWithoutAlternate}});
    std::string sentence;
    if (zero) {
      sentence = "refused: the chunk has 0 GPU events; " +
                 (qualifying.empty() ? std::string("no alternate has GPU work") : offered);
    } else {
      auto [a, t] = formatPair(*rSel, opt_.threshold);
      if (!qualifying.empty())
        sentence = fmt::format("low quality: busy ratio {} < {}; {}", a, t, offered);
      else if (opt_.refuseWithoutAlternate)
        sentence = fmt::format(
            "refused: busy ratio {} < {} and no alternate qualifies (refuse-without-alternate, "
            "§8 Q2)",
            a, t);
      else
        sentence = fmt::format(
            "passed: busy ratio {} < {} but no alternate qualifies, and the pipeline passes such "
            "a chunk to avoid a retry loop (§8 Q2)",
            a, t);
    }
    if (!refuseIt) {
      pass(sentence);
      add("verdict", reqName, std::move(vi), RuleOutcome::Passed, sentence);
      return;
    }

    // §6.6 steady_state_chunk_low_quality (also for 0 events, §8 Q4).
    JsonValue w = JsonValue::object();
    w.set("code", "steady_state_chunk_low_quality");
    w.set("severity", "blocking");
    w.set("requested_mode", reqName);
    w.set("selected_chunk", res_.selectedChunk);
    w.set("num_gpu_events", sel.numGpuEvents);
    w.set("gpu_busy_duration", sel.gpuBusyDuration);
    w.set("gpu_duration", sel.gpuDuration);
    w.set("busy_ratio", optDouble(rSel));
    w.set("threshold", opt_.threshold);
    w.set("non_empty_modes", JsonValue::stringList(res_.nonEmptyModes));
    w.set("alternate_busy_ratios", altRatios);
    w.set("available_modes", JsonValue::stringList(availableModes()));
    if (!res_.nonEmptyModes.empty())
      w.set("remediation", fmt::format("Set INFERENCE_OPTIMIZER_STEADY_STATE_MODE={} to analyse a chunk with more "
                                       "GPU work (qualifying modes, best first: {})",
                                       res_.nonEmptyModes.front(), joinModes(res_.nonEmptyModes)));
    else
      w.set("remediation",
            "No other mode offers a better chunk; capture a longer or busier trace, or set "
            "INFERENCE_OPTIMIZER_STEADY_STATE_MODE to another mode");
    std::string msg =
        zero ? fmt::format("Selected {} chunk {} has no GPU events", reqName, fileName(res_.selectedChunk))
             : fmt::format("Selected {} chunk {} has busy ratio {} below the threshold {}", reqName,
                           fileName(res_.selectedChunk), pyReprDouble(*rSel), pyReprDouble(opt_.threshold));
    w.set("message", msg);
    res_.warnings.push_back(std::move(w));
    refuse(Refusal::LowQuality, "steady_state_chunk_low_quality: " + msg, sentence);
    add("verdict", reqName, std::move(vi), RuleOutcome::Failed, sentence);
  }

  const GateInput& in_;
  const GateOptions& opt_;
  const Readings& rd_;
  GateResult& res_;
};

GateResult decide(const GateInput& in, const GateOptions& opt, const Readings& rd) {
  GateResult res;
  Decider(in, opt, rd, res).run();
  return res;
}

bool sameVerdict(const GateResult& a, const GateResult& b) {
  return a.accepted == b.accepted && a.refusal == b.refusal && a.lowQuality == b.lowQuality &&
         a.nonEmptyModes == b.nonEmptyModes;
}

void addFinding(GateResult& res, std::string code, Mode m, const std::string& chunk, bool affects, std::string sentence,
                JsonValue details = JsonValue::object()) {
  Finding f;
  f.code = std::move(code);
  f.subject = std::string(modeName(m));
  f.chunk = chunk;
  f.affectsVerdict = affects;
  f.sentence = std::move(sentence);
  f.details = std::move(details);
  res.findings.push_back(std::move(f));
}

}  // namespace

GateResult evaluateGate(const GateInput& in, const GateOptions& opt) {
  Readings rd;
  for (Mode m : kAllModes)
    if (in.listing.count(m) > 0 && in.rows[modeIndex(m)]) rd[modeIndex(m)] = readRow(*in.rows[modeIndex(m)]);

  GateResult res = decide(in, opt, rd);

  // Per-family summaries.
  for (Mode m : kAllModes) {
    ChunkSummary c;
    c.mode = m;
    c.listed = in.listing.count(m);
    if (c.listed) c.chunk = in.listing.of(m).front();
    c.row = in.rows[modeIndex(m)];
    c.match = c.row ? in.rowMatch[modeIndex(m)] : RowMatch::None;
    c.reading = rd[modeIndex(m)];
    c.selected = c.listed && m == opt.mode && !res.selectedChunk.empty();
    c.offered = std::find(res.nonEmptyModes.begin(), res.nonEmptyModes.end(), modeName(m)) != res.nonEmptyModes.end();
    res.chunks.push_back(std::move(c));
  }

  // Findings from rows and evidence: on every family's first chunk; they bear
  // on the verdict for the selected chunk and for offered alternates.
  const bool gateRan = res.refusal != Refusal::ChunkMissing && res.refusal != Refusal::NoSteadyState;
  Readings recomputed = rd;
  bool usedRounding = false, usedEvidence = false;
  std::vector<std::string> roundingNotes;
  for (Mode m : kAllModes) {
    const auto& r = rd[modeIndex(m)];
    const ChunkSummary& c = res.chunks[modeIndex(m)];
    if (!c.listed || !gateRan) continue;
    const bool affects = c.selected || c.offered;
    const std::string name(modeName(m));
    const auto& ev = in.evidence[modeIndex(m)];
    if (r) {
      const auto& row = *in.rows[modeIndex(m)];
      if (r->source == RatioSource::ColumnNonFiniteClamped)
        addFinding(res, "busy_ratio_non_finite", m, c.chunk, affects,
                   fmt::format("{}: busy_ratio reads '{}' ({}); the pipeline clamps it to 1.0, so it clears any "
                               "threshold",
                               name, row.busyRatio.value_or(""), row.where()),
                   JsonValue::object({{"cell", cellJson(row.busyRatio)}, {"quotient", optDouble(r->quotient)}}));
      if (r->busyRatio && *r->busyRatio < 0)
        addFinding(res, "busy_ratio_negative", m, c.chunk, affects,
                   fmt::format("{}: busy ratio {} is negative ({})", name, formatNumber(*r->busyRatio), row.where()),
                   JsonValue::object({{"busy_ratio", *r->busyRatio}}));
      if (r->busyRatio && *r->busyRatio > 1) {
        std::string s = fmt::format(
            "{}: busy ratio {} is above 1: gpu_busy_duration sums overlapping streams "
            "(§8 B16)",
            name, formatNumber(*r->busyRatio));
        JsonValue d = JsonValue::object({{"busy_ratio", *r->busyRatio}});
        if (ev && ev->unionBusyRatio) {
          s += fmt::format("; the union of its GPU intervals / gpu_duration is {}", formatNumber(*ev->unionBusyRatio));
          d.set("union_busy_ratio", *ev->unionBusyRatio);
        } else {
          s += "; the union-based ratio needs the source trace";
        }
        addFinding(res, "busy_ratio_above_one", m, c.chunk, affects, s, d);
      }
      if (r->numGpuEvents > 0 && r->gpuBusyDuration == 0)
        addFinding(res, "gpu_events_without_busy_time", m, c.chunk, affects,
                   fmt::format("{}: {} GPU events but zero GPU busy time", name, r->numGpuEvents),
                   JsonValue::object({{"num_gpu_events", r->numGpuEvents}}));
      if (r->numGpuEvents < 0 || r->gpuDuration < 0 || r->gpuBusyDuration < 0 || !std::isfinite(r->gpuDuration) ||
          !std::isfinite(r->gpuBusyDuration))
        addFinding(res, "invalid_statistic", m, c.chunk, affects,
                   fmt::format("{}: impossible statistics at {}: num_gpu_events {}, gpu_duration {}, "
                               "gpu_busy_duration {}",
                               name, row.where(), r->numGpuEvents, formatNumber(r->gpuDuration),
                               formatNumber(r->gpuBusyDuration)));
      if (r->source == RatioSource::Column && r->quotient && std::fabs(*r->columnValue - *r->quotient) > 0.005 + 1e-9)
        addFinding(res, "busy_ratio_disagrees", m, c.chunk, affects,
                   fmt::format("{}: busy_ratio {} disagrees with gpu_busy_duration / gpu_duration = {} beyond the "
                               "CSV's rounding; the pipeline uses the column",
                               name, formatNumber(*r->columnValue), formatNumber(*r->quotient)),
                   JsonValue::object({{"busy_ratio", *r->columnValue}, {"quotient", *r->quotient}}));

      // Recomputation for the rounding / statistics check.
      RowReading& x = *recomputed[modeIndex(m)];
      if (ev && ev->gpuDuration && ev->gpuBusyDuration) {
        usedEvidence = true;
        if (ev->numGpuEvents) x.numGpuEvents = *ev->numGpuEvents;
        x.gpuDuration = *ev->gpuDuration;
        x.gpuBusyDuration = *ev->gpuBusyDuration;
        x.quotient = x.gpuDuration > 0 ? std::optional<double>(x.gpuBusyDuration / x.gpuDuration) : std::nullopt;
        x.busyRatio = x.quotient;
        x.source = x.quotient ? RatioSource::Quotient : RatioSource::Undefined;
      } else if (r->source == RatioSource::Column && r->quotient &&
                 std::fabs(*r->columnValue - *r->quotient) <= 0.005 + 1e-9 && *r->columnValue != *r->quotient) {
        usedRounding = true;
        x.busyRatio = r->quotient;
        x.source = RatioSource::Quotient;
        roundingNotes.push_back(fmt::format("{} busy_ratio prints {} but gpu_busy_duration / gpu_duration = {}", name,
                                            row.busyRatio.value_or(""), pyReprDouble(*r->quotient)));
      }
      if (ev && (ev->numGpuEvents || ev->gpuDuration || ev->gpuBusyDuration)) {
        std::vector<std::string> diffs;
        if (ev->numGpuEvents && *ev->numGpuEvents != r->numGpuEvents)
          diffs.push_back(
              fmt::format("num_gpu_events {} in the CSV, {} in the trace", r->numGpuEvents, *ev->numGpuEvents));
        auto near = [](double csv, double exact) { return std::fabs(csv - exact) <= 0.005 + 1e-9 * std::fabs(exact); };
        if (ev->gpuDuration && !near(r->gpuDuration, *ev->gpuDuration))
          diffs.push_back(fmt::format("gpu_duration {} in the CSV, {} in the trace", formatNumber(r->gpuDuration),
                                      pyReprDouble(*ev->gpuDuration)));
        if (ev->gpuBusyDuration && !near(r->gpuBusyDuration, *ev->gpuBusyDuration))
          diffs.push_back(fmt::format("gpu_busy_duration {} in the CSV, {} in the trace",
                                      formatNumber(r->gpuBusyDuration), pyReprDouble(*ev->gpuBusyDuration)));
        if (!diffs.empty()) {
          std::string s = name + ": the CSV disagrees with the source trace: ";
          for (size_t k = 0; k < diffs.size(); ++k) s += (k ? "; " : "") + diffs[k];
          addFinding(res, "statistics_disagree", m, c.chunk, affects, s);
        }
      }
    }
    if (ev) {
      if (ev->stepsWithoutGpu && *ev->stepsWithoutGpu > 0) {
        JsonValue d = JsonValue::object({{"steps_without_gpu", *ev->stepsWithoutGpu}});
        if (ev->steps) d.set("steps", *ev->steps);
        JsonValue idx = JsonValue::array();
        for (int k : ev->emptyStepIndices) idx.push(k);
        d.set("empty_step_indices", idx);
        addFinding(res, "steps_without_gpu_work", m, c.chunk, affects,
                   ev->steps
                       ? fmt::format("{}: {} of {} steps inside the chunk have no GPU work", name, *ev->stepsWithoutGpu,
                                     *ev->steps)
                       : fmt::format("{}: {} steps inside the chunk have no GPU work", name, *ev->stepsWithoutGpu),
                   d);
      }
      if (ev->largestEventShare && *ev->largestEventShare > opt.dominantEventShare)
        addFinding(res, "dominant_gpu_event", m, c.chunk, affects,
                   fmt::format("{}: one GPU event{} holds {:.0f}% of the chunk's GPU busy time", name,
                               ev->largestEventName ? " (" + *ev->largestEventName + ")" : std::string(),
                               *ev->largestEventShare * 100.0),
                   JsonValue::object({{"largest_event_share", *ev->largestEventShare},
                                      {"largest_event_name",
                                       ev->largestEventName ? JsonValue(*ev->largestEventName) : JsonValue()}}));
      if (ev->startupTransientInside && *ev->startupTransientInside)
        addFinding(res, "startup_transient_inside", m, c.chunk, affects,
                   fmt::format("{}: the startup transient lies inside the chunk's window", name));
    }
  }

  if (gateRan && (usedRounding || usedEvidence)) {
    GateResult alt = decide(in, opt, recomputed);
    if (!sameVerdict(res, alt)) {
      std::string s;
      if (usedEvidence) {
        s = fmt::format("with the statistics recomputed from the source trace the verdict changes: {}", alt.summary);
        addFinding(res, "recomputed_verdict_differs", opt.mode, res.selectedChunk, true, s,
                   JsonValue::object({{"recomputed_summary", alt.summary}}));
      } else {
        s = "the CSV's 2-decimal rounding decides the verdict: ";
        for (size_t k = 0; k < roundingNotes.size(); ++k) s += (k ? "; " : "") + roundingNotes[k];
        s += fmt::format("; recomputed from the durations: {}", alt.summary);
        addFinding(res, "csv_rounding_decides", opt.mode, res.selectedChunk, true, s,
                   JsonValue::object({{"recomputed_summary", alt.summary},
                                      {"recomputed_accepted", alt.accepted},
                                      {"recomputed_non_empty_modes", JsonValue::stringList(alt.nonEmptyModes)}}));
      }
    }
  }
  // Durations printed with 2 decimals (no busy_ratio column): the exact ratio
  // lies in an interval around the quotient. If the verdict can change inside
  // that interval, say so (a split gated in memory can then disagree with the
  // same split gated from its CSV).
  const bool roundingAlreadySaid = std::any_of(res.findings.begin(), res.findings.end(),
                                               [](const Finding& f) { return f.code == "csv_rounding_decides"; });
  if (gateRan && !usedEvidence && !roundingAlreadySaid) {
    auto twoDecimals = [](const std::optional<std::string>& cell) {
      if (!cell) return false;
      std::string_view t = *cell;
      while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.remove_suffix(1);
      auto dot = t.find('.');
      return dot != std::string_view::npos && t.size() - dot - 1 == 2;
    };
    Readings low = rd, high = rd;
    std::vector<std::string> notes;
    for (Mode m : kAllModes) {
      const auto& r = rd[modeIndex(m)];
      if (!r || !r->quotient || !in.rows[modeIndex(m)]) continue;
      const bool roundedColumn = r->source == RatioSource::Column && r->columnValue &&
                                 std::fabs(*r->columnValue - *r->quotient) <= 0.005 + 1e-9;
      if (r->source != RatioSource::Quotient && !roundedColumn) continue;
      const auto& row = *in.rows[modeIndex(m)];
      if (!twoDecimals(row.gpuDuration) && !twoDecimals(row.gpuBusyDuration) && !roundedColumn) continue;
      double b = r->gpuBusyDuration, d = r->gpuDuration;
      double lo = std::max(0.0, b - 0.005) / (d + 0.005);
      double hi = d > 0.005 ? (b + 0.005) / (d - 0.005) : *r->quotient;
      if (roundedColumn) {  // the column is the exact ratio rounded to 2 decimals
        lo = std::max(lo, *r->columnValue - 0.005);
        hi = std::min(hi, *r->columnValue + 0.005);
        if (lo > hi) std::swap(lo, hi);
      }
      bool sel = m == opt.mode;
      (*low[modeIndex(m)]).busyRatio = sel ? lo : hi;   // worst case for the selected chunk
      (*high[modeIndex(m)]).busyRatio = sel ? hi : lo;  // best case
      notes.push_back(fmt::format("{} {} / {} lies in [{}, {}]", modeName(m), formatNumber(b), formatNumber(d),
                                  pyReprDouble(lo), pyReprDouble(hi)));
    }
    if (!notes.empty()) {
      GateResult a = decide(in, opt, low), b = decide(in, opt, high);
      if (!sameVerdict(res, a) || !sameVerdict(res, b)) {
        const GateResult& other = sameVerdict(res, a) ? b : a;
        std::string s =
            "the CSV's 2-decimal rounding of the durations may decide the verdict: the exact busy ratio of ";
        for (size_t k = 0; k < notes.size(); ++k) s += (k ? "; " : "") + notes[k];
        s += fmt::format(
            "; within that range the gate can also say: {} (gate with the source trace, "
            "`--trace`, to decide)",
            other.summary);
        addFinding(res, "csv_rounding_decides", opt.mode, res.selectedChunk, true, s,
                   JsonValue::object({{"source", "durations"},
                                      {"recomputed_summary", other.summary},
                                      {"recomputed_accepted", other.accepted}}));
      }
    }
  }

  finalizeStrict(res);
  return res;
}

void finalizeStrict(GateResult& res) {
  // Idempotent: drop an earlier strict rule, then re-evaluate.
  res.record.erase(
      std::remove_if(res.record.begin(), res.record.end(), [](const RuleEvaluation& r) { return r.rule == "strict"; }),
      res.record.end());
  std::vector<std::string> codes;
  for (const auto& f : res.findings)
    if (f.affectsVerdict) codes.push_back(f.code);
  res.strictRefused = res.options.strict && res.accepted && !codes.empty();
  if (!res.options.strict || codes.empty()) return;
  RuleEvaluation r;
  r.rule = "strict";
  r.inputs = JsonValue::object({{"findings", JsonValue::stringList(codes)}});
  if (res.accepted) {
    r.outcome = RuleOutcome::Failed;
    r.sentence =
        fmt::format("refused under --strict: {} finding(s) bear on the verdict ({})", codes.size(), joinModes(codes));
  } else {
    r.outcome = RuleOutcome::Info;
    r.sentence = fmt::format("already refused; --strict would also refuse for {}", joinModes(codes));
  }
  res.record.push_back(std::move(r));
}

// ---- serialisation ---------------------------------------------------------------

JsonValue GateResult::pipelineResult() const {
  JsonValue o = JsonValue::object();
  o.set("status", accepted ? "ok" : "error");
  if (!accepted) o.set("error", errorMessage);
  o.set("trace_health_warnings", JsonValue::array(warnings));
  return o;
}

JsonValue GateResult::recordJson() const {
  JsonValue a = JsonValue::array();
  for (const auto& r : record)
    a.push(JsonValue::object({{"rule", r.rule},
                              {"subject", r.subject},
                              {"inputs", r.inputs},
                              {"outcome", std::string(ruleOutcomeName(r.outcome))},
                              {"sentence", r.sentence}}));
  return a;
}

JsonValue GateResult::findingsJson() const {
  JsonValue a = JsonValue::array();
  for (const auto& f : findings)
    a.push(JsonValue::object({{"code", f.code},
                              {"subject", f.subject},
                              {"chunk", f.chunk},
                              {"affects_verdict", f.affectsVerdict},
                              {"sentence", f.sentence},
                              {"details", f.details}}));
  return a;
}

namespace {
std::string_view refusalName(Refusal r) {
  switch (r) {
    case Refusal::None: return "none";
    case Refusal::NoSteadyState: return "trace_split_no_steady_state";
    case Refusal::ChunkMissing: return "steady_state_chunk_missing";
    case Refusal::LowQuality: return "steady_state_chunk_low_quality";
  }
  return "none";
}
}  // namespace

JsonValue GateResult::toJson() const {
  JsonValue o = JsonValue::object();
  o.set("verdict", finalAccepted() ? "accepted" : "refused");
  o.set("pipeline_verdict", accepted ? "accepted" : "refused");
  o.set("refusal", std::string(refusalName(refusal)));
  o.set("low_quality", lowQuality);
  o.set("strict", options.strict);
  o.set("strict_refused", strictRefused);
  o.set("exit_status", exitStatus());
  o.set("requested_mode", std::string(modeName(options.mode)));
  o.set("threshold", options.threshold);
  o.set("margin", options.margin);
  o.set("refuse_without_alternate", options.refuseWithoutAlternate);
  o.set("selected_chunk", selectedChunk.empty() ? JsonValue() : JsonValue(selectedChunk));
  o.set("summary", summary);
  o.set("result", pipelineResult());
  o.set("retry_mode", retry ? JsonValue(retry->toMode) : JsonValue());
  o.set("retry", retry ? JsonValue::object({{"from_mode", retry->fromMode},
                                            {"to_mode", retry->toMode},
                                            {"source_warning_code", retry->sourceWarningCode}})
                       : JsonValue());
  o.set("decision_record", recordJson());
  o.set("findings", findingsJson());
  JsonValue cs = JsonValue::array();
  for (const auto& c : chunks) {
    JsonValue j = JsonValue::object();
    j.set("mode", std::string(modeName(c.mode)));
    j.set("chunk", c.chunk.empty() ? JsonValue() : JsonValue(c.chunk));
    j.set("listed", static_cast<int64_t>(c.listed));
    j.set("row_match", std::string(rowMatchName(c.match)));
    j.set("row", c.row ? JsonValue(c.row->where()) : JsonValue());
    if (c.reading) {
      j.set("num_gpu_events", c.reading->numGpuEvents);
      j.set("gpu_duration", c.reading->gpuDuration);
      j.set("gpu_busy_duration", c.reading->gpuBusyDuration);
      j.set("busy_ratio", c.reading->busyRatio ? JsonValue(*c.reading->busyRatio) : JsonValue());
      j.set("ratio_source", std::string(ratioSourceName(c.reading->source)));
    }
    j.set("selected", c.selected);
    j.set("offered", c.offered);
    cs.push(std::move(j));
  }
  o.set("chunks", cs);
  return o;
}

}  // namespace steadyscope::gate
