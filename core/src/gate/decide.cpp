// The pipeline's decision (spec §6.3 steps 1–3, §6.5, §6.6, §6.7 retry): one
// named step per rule, each adding its entry to the decision record.
#include "internal.hpp"

#include <steadyscope/core/util/pynum.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace steadyscope::gate {

std::string formatNumber(double v) {
  if (!std::isfinite(v)) return pyReprDouble(v);
  std::string r = pyReprDouble(v);
  if (r.size() <= 10) return r;
  return fmt::format("{:.4g}", v);
}

namespace detail {

std::string joinList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k) out += ", ";
    out += items[k];
  }
  return out;
}

std::pair<std::string, std::string> formatPair(double a, double b) {
  std::string sa = formatNumber(a), sb = formatNumber(b);
  if (sa == sb && !(a == b)) {
    sa = pyReprDouble(a);
    sb = pyReprDouble(b);
  }
  return {sa, sb};
}

JsonValue cellJson(const std::optional<std::string>& cell) { return cell ? JsonValue(*cell) : JsonValue(); }

JsonValue optDouble(const std::optional<double>& v) { return v ? JsonValue(*v) : JsonValue(); }

namespace {

// Python's posix os.path.basename, as the pipeline names the chunk: only '/'
// separates (a backslash is part of a Linux file name).
std::string posixBaseName(const std::string& p) {
  const size_t k = p.rfind('/');
  return k == std::string::npos ? p : p.substr(k + 1);
}

struct Alternate {
  Mode mode;
  double ratio;
};

class Decider {
 public:
  Decider(const GateInput& in, const GateOptions& opt, const Readings& rd, GateResult& res)
      : in_(in), opt_(opt), rd_(rd), res_(res), req_(opt.mode), reqName_(modeName(opt.mode)) {}

  void run() {
    res_.options = opt_;
    if (collect() && detailsReadable() && selectedRowMatched()) checkSelected();
    recordRetry();
  }

 private:
  // ---- the record ----

  void add(std::string rule, std::string subject, JsonValue inputs, RuleOutcome o, std::string sentence) {
    RuleEvaluation r;
    r.rule = std::move(rule);
    r.subject = std::move(subject);
    r.inputs = std::move(inputs);
    r.outcome = o;
    r.sentence = std::move(sentence);
    res_.record.push_back(std::move(r));
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

  JsonValue traceInputJson() const { return in_.traceInput ? JsonValue(*in_.traceInput) : JsonValue(); }

  std::vector<std::string> availableModes() const {
    std::vector<std::string> out;
    for (Mode m : kAllModes)
      if (in_.listing.count(m) > 0) out.emplace_back(modeName(m));
    return out;
  }

  // ---- §6.3: which chunk ----

  /// The chunks found, a chunk of any mode, one of the requested mode; false
  /// when the pipeline refuses here.
  bool collect() {
    recordListing();
    const auto avail = availableModes();
    if (avail.empty()) {
      refuseNoSteadyState();
      return false;
    }
    add("any_chunk", "", JsonValue::object({{"available_modes", JsonValue::stringList(avail)}}), RuleOutcome::Passed,
        fmt::format("chunks exist for {}", joinList(avail)));
    const SplitListing& L = in_.listing;
    if (L.count(req_) == 0) {
      refuseChunkMissing(avail);
      return false;
    }
    res_.selectedChunk = L.of(req_).front();
    add("mode_present", reqName_, JsonValue::object({{"requested_mode", reqName_}}), RuleOutcome::Passed,
        fmt::format("{} has {} chunk entr{}", reqName_, L.count(req_), L.count(req_) == 1 ? "y" : "ies"));
    add("select", reqName_, JsonValue::object({{"selected_chunk", res_.selectedChunk}}), RuleOutcome::Info,
        fmt::format("selected {}, the first {} entry", posixBaseName(res_.selectedChunk), reqName_));
    return true;
  }

  void recordListing() {
    const SplitListing& L = in_.listing;
    size_t dup = 0;
    JsonValue counts = JsonValue::object();
    for (Mode m : kAllModes) {
      counts.set(modeName(m), static_cast<int64_t>(L.count(m)));
      const auto& v = L.of(m);
      for (auto a = v.begin(); a != v.end(); ++a)
        if (std::find(v.begin(), a, *a) != a) ++dup;  // listed earlier too
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
  }

  void refuseNoSteadyState() {
    JsonValue w = JsonValue::object();
    w.set("code", "trace_split_no_steady_state");
    w.set("severity", "warning");
    w.set("trace_input", traceInputJson());
    w.set("split_dir", in_.listing.splitDir);
    w.set("split_returncode", in_.splitReturnCode ? JsonValue(*in_.splitReturnCode) : JsonValue());
    w.set("mixed_count", 0);
    w.set("decode_only_count", 0);
    w.set("prefilldecode_count", 0);
    w.set("message", "The split produced no steady-state chunk of any mode");
    res_.warnings.push_back(std::move(w));
    const char* what = in_.splitInMemory ? "the split made" : "the split directory has";
    refuse(Refusal::NoSteadyState, fmt::format("trace_split_no_steady_state: {} no steady-state chunk", what),
           fmt::format("refused: {} no steady-state chunk of any mode (trace_split_no_steady_state)", what));
    add("any_chunk", "", JsonValue::object(), RuleOutcome::Failed, res_.summary);
  }

  void refuseChunkMissing(const std::vector<std::string>& avail) {
    JsonValue w = JsonValue::object();
    w.set("code", "steady_state_chunk_missing");
    w.set("severity", "blocking");
    w.set("requested_mode", reqName_);
    w.set("requested_chunk_label", names::chunkLabel(req_));
    w.set("available_modes", JsonValue::stringList(avail));
    w.set("remediation", fmt::format("Set INFERENCE_OPTIMIZER_STEADY_STATE_MODE to one of: {}", joinList(avail)));
    w.set("trace_input", traceInputJson());
    w.set("split_dir", in_.listing.splitDir);
    res_.warnings.push_back(std::move(w));
    std::string sentence = fmt::format("refused: there is no {} chunk; available: {} (steady_state_chunk_missing)",
                                       reqName_, joinList(avail));
    refuse(Refusal::ChunkMissing,
           fmt::format("steady_state_chunk_missing: no {} chunk in {}", names::chunkLabel(req_), in_.listing.splitDir),
           sentence);
    add("mode_present", reqName_,
        JsonValue::object({{"requested_mode", reqName_}, {"available_modes", JsonValue::stringList(avail)}}),
        RuleOutcome::Failed, sentence);
  }

  // ---- §6.4: the selected chunk's row ----

  /// No readable CSV: the pipeline passes silently.
  bool detailsReadable() {
    if (in_.details != DetailsState::Readable) {
      std::string why = fmt::format("{} {}", names::kDetailsCsvFile,
                                    in_.details == DetailsState::Absent ? "is absent" : "cannot be read");
      if (!in_.detailsProblem.empty()) why += " (" + in_.detailsProblem + ")";
      pass("passed — not checked: " + why + ", so the pipeline does not look at the chunk's numbers (§6.4)");
      add("details_csv", "", JsonValue::object({{"problem", in_.detailsProblem}}), RuleOutcome::Skipped, res_.summary);
      return false;
    }
    add("details_csv", "", JsonValue::object(), RuleOutcome::Passed,
        fmt::format("{} was read", names::kDetailsCsvFile));
    return true;
  }

  bool selectedRowMatched() {
    const auto& row = in_.rows[modeIndex(req_)];
    if (!row || !rd_[modeIndex(req_)]) {
      pass(
          "passed — not checked: no row of execution_details.csv names the selected chunk (rows are matched by "
          "resolved output_path), so the pipeline does not check it (§8 B12)");
      add("row_match", reqName_, JsonValue::object({{"selected_chunk", res_.selectedChunk}}), RuleOutcome::Skipped,
          res_.summary);
      return false;
    }
    const std::string_view matchedBy = rowMatchName(in_.rowMatch[modeIndex(req_)]);
    add("row_match", reqName_,
        JsonValue::object(
            {{"row", row->where()}, {"matched_by", matchedBy}, {"output_path", cellJson(row->outputPath)}}),
        RuleOutcome::Passed, fmt::format("the selected chunk's row is {} (matched by {})", row->where(), matchedBy));
    return true;
  }

  JsonValue readingInputs(Mode m) const {
    const auto& row = in_.rows[modeIndex(m)];
    const auto& r = rd_[modeIndex(m)];
    JsonValue o = JsonValue::object();
    if (row) {
      o.set("row", row->where());
      o.set("row_match", rowMatchName(in_.rowMatch[modeIndex(m)]));
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
      o.set("ratio_source", ratioSourceName(r->source));
      if (!r->notes.empty()) o.set("reading_notes", JsonValue::stringList(r->notes));
    }
    return o;
  }

  // ---- §6.5: quality of the selected chunk ----

  void checkSelected() {
    const RowReading& sel = *rd_[modeIndex(req_)];
    const bool zero = sel.numGpuEvents == 0;
    JsonValue i = JsonValue::object({{"num_gpu_events_cell", cellJson(in_.rows[modeIndex(req_)]->numGpuEvents)},
                                     {"num_gpu_events", sel.numGpuEvents}});
    if (zero) {
      res_.lowQuality = true;
      add("gpu_events", reqName_, std::move(i), RuleOutcome::Failed,
          "refused: the chunk has 0 GPU events (refused whatever its busy ratio)");
      add("busy_ratio", reqName_, readingInputs(req_), RuleOutcome::Info,
          sel.busyRatio
              ? fmt::format("busy ratio {} from the {} (reported only: a chunk without GPU events is refused)",
                            formatNumber(*sel.busyRatio), ratioSourceName(sel.source))
              : std::string("no busy ratio (reported as null)"));
    } else {
      add("gpu_events", reqName_, std::move(i), RuleOutcome::Passed,
          fmt::format("the chunk has {} GPU events", sel.numGpuEvents));
      if (!belowThreshold(sel)) return;
    }
    decideLowQuality(sel);
  }

  /// The busy-ratio and threshold rules of a chunk with GPU events; true when
  /// the ratio is under the threshold (the alternates decide next).
  bool belowThreshold(const RowReading& sel) {
    if (!sel.busyRatio) {
      pass(
          "passed — not checked: the chunk has GPU events but no busy ratio (no usable busy_ratio cell and "
          "gpu_duration is not > 0), and the pipeline then skips the quality check");
      add("busy_ratio", reqName_, readingInputs(req_), RuleOutcome::Skipped, res_.summary);
      return false;
    }
    const double r = *sel.busyRatio;
    add("busy_ratio", reqName_, readingInputs(req_), RuleOutcome::Info,
        fmt::format("busy ratio {} from the {}", formatNumber(r), ratioSourceName(sel.source)));
    auto [a, t] = formatPair(r, opt_.threshold);
    JsonValue ti = JsonValue::object({{"busy_ratio", r}, {"threshold", opt_.threshold}});
    if (r >= opt_.threshold) {
      pass(fmt::format("passed: busy ratio {} >= threshold {}", a, t));
      add("threshold", reqName_, std::move(ti), RuleOutcome::Passed, res_.summary);
      return false;
    }
    res_.lowQuality = true;
    add("threshold", reqName_, std::move(ti), RuleOutcome::Failed,
        fmt::format("low quality: busy ratio {} < threshold {}", a, t));
    return true;
  }

  // ---- §6.5 alternates and the verdict, §6.6 the warning ----

  void decideLowQuality(const RowReading& sel) {
    const bool zero = sel.numGpuEvents == 0;
    JsonValue altRatios = JsonValue::object();
    std::vector<Alternate> qualifying;
    for (Mode m : kAllModes)
      if (m != req_ && in_.listing.count(m) > 0)
        if (auto a = judgeAlternate(m, zero, sel.busyRatio, altRatios)) qualifying.push_back(*a);
    std::stable_sort(qualifying.begin(), qualifying.end(),
                     [](const Alternate& a, const Alternate& b) { return a.ratio > b.ratio; });
    for (const auto& q : qualifying) res_.nonEmptyModes.emplace_back(modeName(q.mode));

    const std::string sentence = verdictSentence(zero, sel.busyRatio, qualifying);
    JsonValue vi = JsonValue::object({{"non_empty_modes", JsonValue::stringList(res_.nonEmptyModes)},
                                      {"refuse_without_alternate", opt_.refuseWithoutAlternate}});
    if (!zero && qualifying.empty() && !opt_.refuseWithoutAlternate) {
      pass(sentence);
      add("verdict", reqName_, std::move(vi), RuleOutcome::Passed, sentence);
      return;
    }
    const std::string msg = warnLowQuality(sel, std::move(altRatios));
    refuse(Refusal::LowQuality, "steady_state_chunk_low_quality: " + msg, sentence);
    add("verdict", reqName_, std::move(vi), RuleOutcome::Failed, sentence);
  }

  /// The first chunk of another family with chunks: does it qualify (its rule
  /// recorded; its ratio added to `altRatios` when it has one)?
  std::optional<Alternate> judgeAlternate(Mode m, bool zero, std::optional<double> rSel, JsonValue& altRatios) {
    const std::string name(modeName(m));
    const auto& rd = rd_[modeIndex(m)];
    if (!in_.rows[modeIndex(m)] || !rd) {
      add("alternate", name, JsonValue::object({{"chunk", in_.listing.of(m).front()}}), RuleOutcome::Skipped,
          fmt::format("{}: no row names its first chunk; not considered", name));
      return std::nullopt;
    }
    if (!rd->busyRatio) {
      add("alternate", name, readingInputs(m), RuleOutcome::Skipped,
          fmt::format("{}: no busy ratio; not considered", name));
      return std::nullopt;
    }
    const double r = *rd->busyRatio;
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
      const double diff = r - *rSel;  // IEEE double subtraction, as specified
      i.set("threshold", opt_.threshold);
      i.set("margin", opt_.margin);
      i.set("difference", diff);
      const bool clears = r >= opt_.threshold, beats = diff >= opt_.margin;
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
    if (!ok) return std::nullopt;
    return Alternate{m, r};
  }

  std::string verdictSentence(bool zero, std::optional<double> rSel, const std::vector<Alternate>& qualifying) const {
    std::string offered;
    for (size_t k = 0; k < qualifying.size(); ++k)
      offered += fmt::format(fmt::runtime(k ? ", {} at {}" : "{} offered at {}"), modeName(qualifying[k].mode),
                             formatNumber(qualifying[k].ratio));
    if (zero)
      return "refused: the chunk has 0 GPU events; " +
             (qualifying.empty() ? std::string("no alternate has GPU work") : offered);
    auto [a, t] = formatPair(*rSel, opt_.threshold);
    if (!qualifying.empty()) return fmt::format("refused, low quality: busy ratio {} < {}; {}", a, t, offered);
    if (opt_.refuseWithoutAlternate)
      return fmt::format("refused: busy ratio {} < {} and no alternate qualifies (refuse-without-alternate, §8 Q2)", a,
                         t);
    return fmt::format(
        "passed: busy ratio {} < {} but no alternate qualifies, and the pipeline passes such "
        "a chunk to avoid a retry loop (§8 Q2)",
        a, t);
  }

  /// §6.6 steady_state_chunk_low_quality (also for 0 events, §8 Q4); returns its message.
  std::string warnLowQuality(const RowReading& sel, JsonValue altRatios) {
    const bool zero = sel.numGpuEvents == 0;
    JsonValue w = JsonValue::object();
    w.set("code", "steady_state_chunk_low_quality");
    w.set("severity", "blocking");
    w.set("requested_mode", reqName_);
    w.set("selected_chunk", res_.selectedChunk);
    w.set("num_gpu_events", sel.numGpuEvents);
    w.set("gpu_busy_duration", sel.gpuBusyDuration);
    w.set("gpu_duration", sel.gpuDuration);
    w.set("busy_ratio", optDouble(sel.busyRatio));
    w.set("threshold", opt_.threshold);
    w.set("non_empty_modes", JsonValue::stringList(res_.nonEmptyModes));
    w.set("alternate_busy_ratios", std::move(altRatios));
    w.set("available_modes", JsonValue::stringList(availableModes()));
    if (!res_.nonEmptyModes.empty())
      w.set("remediation", fmt::format("Set INFERENCE_OPTIMIZER_STEADY_STATE_MODE={} to analyse a chunk with more "
                                       "GPU work (qualifying modes, best first: {})",
                                       res_.nonEmptyModes.front(), joinList(res_.nonEmptyModes)));
    else
      w.set("remediation",
            "No other mode offers a better chunk; capture a longer or busier trace, or set "
            "INFERENCE_OPTIMIZER_STEADY_STATE_MODE to another mode");
    const std::string chunk = posixBaseName(res_.selectedChunk);
    std::string msg = zero ? fmt::format("Selected {} chunk {} has no GPU events", reqName_, chunk)
                           : fmt::format("Selected {} chunk {} has busy ratio {} below the threshold {}", reqName_,
                                         chunk, pyReprDouble(*sel.busyRatio), pyReprDouble(opt_.threshold));
    w.set("message", msg);
    res_.warnings.push_back(std::move(w));
    return msg;
  }

  // ---- §6.7: the orchestrator's retry ----

  void recordRetry() {
    res_.retry = planRetry(res_.pipelineResult());
    if (res_.accepted) return;
    if (res_.retry)
      add("retry", "",
          JsonValue::object({{"to_mode", res_.retry->toMode}, {"source_warning_code", res_.retry->sourceWarningCode}}),
          RuleOutcome::Info,
          fmt::format("the orchestrator retries once with mode {}, the first of the modes its warning {}",
                      res_.retry->toMode,
                      res_.nonEmptyModes.empty() ? "names as available" : "names as having GPU work"));
    else
      add("retry", "", JsonValue::object(), RuleOutcome::Info,
          res_.refusal == Refusal::NoSteadyState
              ? "no retry: the pipeline retries only with another mode's chunk, and there is none"
              : "no retry: the warning names no mode to retry with");
  }

  const GateInput& in_;
  const GateOptions& opt_;
  const Readings& rd_;
  GateResult& res_;
  const Mode req_;
  const std::string reqName_;
};

}  // namespace

GateResult decide(const GateInput& in, const GateOptions& opt, const Readings& rd) {
  GateResult res;
  Decider(in, opt, rd, res).run();
  return res;
}

bool sameVerdict(const GateResult& a, const GateResult& b) {
  return a.accepted == b.accepted && a.refusal == b.refusal && a.lowQuality == b.lowQuality &&
         a.nonEmptyModes == b.nonEmptyModes;
}

}  // namespace detail
}  // namespace steadyscope::gate
