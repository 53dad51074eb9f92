// Findings: what the reference does not check, from the rows and from the
// evidence of the source trace, on every family's first chunk; and the
// re-decisions with recomputed or rounding-bounded ratios. They never change
// the pipeline's verdict; under --strict the verdict-bearing ones refuse.
#include "internal.hpp"

#include <steadyscope/core/util/pynum.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace steadyscope::gate {
namespace detail {

void addFinding(GateResult& res, std::string code, Mode m, const std::string& chunk, bool affects, std::string sentence,
                JsonValue details) {
  Finding f;
  f.code = std::move(code);
  f.subject = std::string(modeName(m));
  f.chunk = chunk;
  f.affectsVerdict = affects;
  f.sentence = std::move(sentence);
  f.details = std::move(details);
  res.findings.push_back(std::move(f));
}

namespace {

// A 2-decimal CSV value and the exact one it rounds.
constexpr double kHalfCent = 0.005;
bool withinRounding(double printed, double exact) { return std::fabs(printed - exact) <= kHalfCent + 1e-9; }
// Not the negation of withinRounding: a NaN is neither.
bool beyondRounding(double printed, double exact) { return std::fabs(printed - exact) > kHalfCent + 1e-9; }

bool hasTwoDecimals(const std::optional<std::string>& cell) {
  if (!cell) return false;
  std::string_view t = *cell;
  while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.remove_suffix(1);
  auto dot = t.find('.');
  return dot != std::string_view::npos && t.size() - dot - 1 == 2;
}

/// One family's first chunk: what its row and evidence show.
struct ChunkContext {
  Mode mode;
  std::string name;
  const std::string& chunk;
  bool affects;  // the selected chunk or an offered alternate
  const std::optional<ChunkFacts>& ev;
};

class FindingsPass {
 public:
  FindingsPass(const GateInput& in, const GateOptions& opt, const Readings& rd, GateResult& res)
      : in_(in), opt_(opt), rd_(rd), res_(res), recomputed_(rd) {}

  void run() {
    if (res_.refusal == Refusal::ChunkMissing || res_.refusal == Refusal::NoSteadyState) return;  // gate did not run
    for (Mode m : kAllModes) {
      const ChunkSummary& c = res_.chunks[modeIndex(m)];
      if (!c.listed) continue;
      const ChunkContext cc{m, std::string(modeName(m)), c.chunk, c.selected || c.offered, in_.evidence[modeIndex(m)]};
      if (const auto& r = rd_[modeIndex(m)]) {
        const ChunkRow& row = *in_.rows[modeIndex(m)];
        ratioFindings(cc, *r, row);
        statisticFindings(cc, *r, row);
        recompute(cc, *r, row);
        compareWithTrace(cc, *r);
      }
      if (cc.ev) evidenceFindings(cc, *cc.ev);
    }
    if (usedRounding_ || usedEvidence_) recomputedVerdict();
    const bool roundingSaid = std::any_of(res_.findings.begin(), res_.findings.end(),
                                          [](const Finding& f) { return f.code == "csv_rounding_decides"; });
    if (!usedEvidence_ && !roundingSaid) durationRounding();
  }

 private:
  void add(const ChunkContext& cc, std::string code, std::string sentence, JsonValue details = JsonValue::object()) {
    addFinding(res_, std::move(code), cc.mode, cc.chunk, cc.affects, std::move(sentence), std::move(details));
  }

  void ratioFindings(const ChunkContext& cc, const RowReading& r, const ChunkRow& row) {
    if (r.source == RatioSource::ColumnNonFiniteClamped)
      add(cc, "busy_ratio_non_finite",
          fmt::format("{}: busy_ratio reads '{}' ({}); the pipeline clamps it to 1.0, so it clears any threshold",
                      cc.name, row.busyRatio.value_or(""), row.where()),
          JsonValue::object({{"cell", cellJson(row.busyRatio)}, {"quotient", optDouble(r.quotient)}}));
    if (r.busyRatio && *r.busyRatio < 0)
      add(cc, "busy_ratio_negative",
          fmt::format("{}: busy ratio {} is negative ({})", cc.name, formatNumber(*r.busyRatio), row.where()),
          JsonValue::object({{"busy_ratio", *r.busyRatio}}));
    if (r.busyRatio && *r.busyRatio > 1) {
      std::string s = fmt::format(
          "{}: busy ratio {} is above 1: gpu_busy_duration sums overlapping streams "
          "(§8 B16)",
          cc.name, formatNumber(*r.busyRatio));
      JsonValue d = JsonValue::object({{"busy_ratio", *r.busyRatio}});
      if (cc.ev && cc.ev->unionBusyRatio) {
        s += fmt::format("; the union of its GPU intervals / gpu_duration is {}", formatNumber(*cc.ev->unionBusyRatio));
        d.set("union_busy_ratio", *cc.ev->unionBusyRatio);
      } else {
        s += "; the union-based ratio needs the source trace";
      }
      add(cc, "busy_ratio_above_one", s, d);
    }
  }

  void statisticFindings(const ChunkContext& cc, const RowReading& r, const ChunkRow& row) {
    if (r.numGpuEvents > 0 && r.gpuBusyDuration == 0)
      add(cc, "gpu_events_without_busy_time",
          fmt::format("{}: {} GPU events but zero GPU busy time", cc.name, r.numGpuEvents),
          JsonValue::object({{"num_gpu_events", r.numGpuEvents}}));
    if (r.numGpuEvents < 0 || r.gpuDuration < 0 || r.gpuBusyDuration < 0 || !std::isfinite(r.gpuDuration) ||
        !std::isfinite(r.gpuBusyDuration))
      add(cc, "invalid_statistic",
          fmt::format("{}: impossible statistics at {}: num_gpu_events {}, gpu_duration {}, gpu_busy_duration {}",
                      cc.name, row.where(), r.numGpuEvents, formatNumber(r.gpuDuration),
                      formatNumber(r.gpuBusyDuration)));
    if (r.source == RatioSource::Column && r.quotient && beyondRounding(*r.columnValue, *r.quotient))
      add(cc, "busy_ratio_disagrees",
          fmt::format("{}: busy_ratio {} disagrees with gpu_busy_duration / gpu_duration = {} beyond the "
                      "CSV's rounding; the pipeline uses the column",
                      cc.name, formatNumber(*r.columnValue), formatNumber(*r.quotient)),
          JsonValue::object({{"busy_ratio", *r.columnValue}, {"quotient", *r.quotient}}));
  }

  /// The reading with full-precision statistics (from the trace), or with
  /// the quotient where the column is its 2-decimal rounding.
  void recompute(const ChunkContext& cc, const RowReading& r, const ChunkRow& row) {
    RowReading& x = *recomputed_[modeIndex(cc.mode)];
    const auto& ev = cc.ev;
    if (ev && ev->gpuDuration && ev->gpuBusyDuration) {
      usedEvidence_ = true;
      if (ev->numGpuEvents) x.numGpuEvents = *ev->numGpuEvents;
      x.gpuDuration = *ev->gpuDuration;
      x.gpuBusyDuration = *ev->gpuBusyDuration;
      x.quotient = x.gpuDuration > 0 ? std::optional<double>(x.gpuBusyDuration / x.gpuDuration) : std::nullopt;
      x.busyRatio = x.quotient;
      x.source = x.quotient ? RatioSource::Quotient : RatioSource::Undefined;
    } else if (r.source == RatioSource::Column && r.quotient && withinRounding(*r.columnValue, *r.quotient) &&
               *r.columnValue != *r.quotient) {
      usedRounding_ = true;
      x.busyRatio = r.quotient;
      x.source = RatioSource::Quotient;
      roundingNotes_.push_back(fmt::format("{} busy_ratio prints {} but gpu_busy_duration / gpu_duration = {}", cc.name,
                                           row.busyRatio.value_or(""), pyReprDouble(*r.quotient)));
    }
  }

  void compareWithTrace(const ChunkContext& cc, const RowReading& r) {
    const auto& ev = cc.ev;
    if (!ev || !(ev->numGpuEvents || ev->gpuDuration || ev->gpuBusyDuration)) return;
    std::vector<std::string> diffs;
    if (ev->numGpuEvents && *ev->numGpuEvents != r.numGpuEvents)
      diffs.push_back(fmt::format("num_gpu_events {} in the CSV, {} in the trace", r.numGpuEvents, *ev->numGpuEvents));
    auto near = [](double csv, double exact) { return std::fabs(csv - exact) <= kHalfCent + 1e-9 * std::fabs(exact); };
    if (ev->gpuDuration && !near(r.gpuDuration, *ev->gpuDuration))
      diffs.push_back(fmt::format("gpu_duration {} in the CSV, {} in the trace", formatNumber(r.gpuDuration),
                                  pyReprDouble(*ev->gpuDuration)));
    if (ev->gpuBusyDuration && !near(r.gpuBusyDuration, *ev->gpuBusyDuration))
      diffs.push_back(fmt::format("gpu_busy_duration {} in the CSV, {} in the trace", formatNumber(r.gpuBusyDuration),
                                  pyReprDouble(*ev->gpuBusyDuration)));
    if (diffs.empty()) return;
    std::string s = cc.name + ": the CSV disagrees with the source trace: ";
    for (size_t k = 0; k < diffs.size(); ++k) s += (k ? "; " : "") + diffs[k];
    add(cc, "statistics_disagree", s);
  }

  void evidenceFindings(const ChunkContext& cc, const ChunkFacts& ev) {
    if (ev.stepsWithoutGpu && *ev.stepsWithoutGpu > 0) {
      JsonValue d = JsonValue::object({{"steps_without_gpu", *ev.stepsWithoutGpu}});
      if (ev.steps) d.set("steps", *ev.steps);
      JsonValue idx = JsonValue::array();
      for (int k : ev.emptyStepIndices) idx.push(k);
      d.set("empty_step_indices", idx);
      add(cc, "steps_without_gpu_work",
          ev.steps ? fmt::format("{}: {} of {} steps inside the chunk have no GPU work", cc.name, *ev.stepsWithoutGpu,
                                 *ev.steps)
                   : fmt::format("{}: {} steps inside the chunk have no GPU work", cc.name, *ev.stepsWithoutGpu),
          d);
    }
    if (ev.largestEventShare && *ev.largestEventShare > opt_.dominantEventShare)
      add(cc, "dominant_gpu_event",
          fmt::format("{}: one GPU event{} holds {:.0f}% of the chunk's GPU busy time", cc.name,
                      ev.largestEventName ? " (" + *ev.largestEventName + ")" : std::string(),
                      *ev.largestEventShare * 100.0),
          JsonValue::object(
              {{"largest_event_share", *ev.largestEventShare},
               {"largest_event_name", ev.largestEventName ? JsonValue(*ev.largestEventName) : JsonValue()},
               {"step_index", ev.largestEventStep ? JsonValue(*ev.largestEventStep) : JsonValue()}}));
    if (ev.startupTransientInside && *ev.startupTransientInside)
      add(cc, "startup_transient_inside",
          fmt::format("{}: the startup transient lies inside the chunk's window", cc.name),
          JsonValue::object({{"step_index", ev.transientStep ? JsonValue(*ev.transientStep) : JsonValue()}}));
  }

  /// The verdict with the recomputed readings, when it differs.
  void recomputedVerdict() {
    const GateResult alt = decide(in_, opt_, recomputed_);
    if (sameVerdict(res_, alt)) return;
    if (usedEvidence_) {
      addFinding(
          res_, "recomputed_verdict_differs", opt_.mode, res_.selectedChunk, true,
          fmt::format("with the statistics recomputed from the source trace the verdict changes: {}", alt.summary),
          JsonValue::object({{"recomputed_summary", alt.summary}}));
      return;
    }
    std::string s = "the CSV's 2-decimal rounding decides the verdict: ";
    for (size_t k = 0; k < roundingNotes_.size(); ++k) s += (k ? "; " : "") + roundingNotes_[k];
    s += fmt::format("; recomputed from the durations: {}", alt.summary);
    addFinding(res_, "csv_rounding_decides", opt_.mode, res_.selectedChunk, true, s,
               JsonValue::object({{"recomputed_summary", alt.summary},
                                  {"recomputed_accepted", alt.accepted},
                                  {"recomputed_non_empty_modes", JsonValue::stringList(alt.nonEmptyModes)}}));
  }

  /// Durations printed with 2 decimals: the exact ratio lies in an interval
  /// around the quotient. `low` holds each ratio's worst case for the
  /// selected chunk, `high` its best; returns one note per bounded family.
  std::vector<std::string> boundRatios(Readings& low, Readings& high) const {
    std::vector<std::string> notes;
    for (Mode m : kAllModes) {
      const auto& r = rd_[modeIndex(m)];
      if (!r || !r->quotient || !in_.rows[modeIndex(m)]) continue;
      const bool roundedColumn =
          r->source == RatioSource::Column && r->columnValue && withinRounding(*r->columnValue, *r->quotient);
      if (r->source != RatioSource::Quotient && !roundedColumn) continue;
      const auto& row = *in_.rows[modeIndex(m)];
      if (!hasTwoDecimals(row.gpuDuration) && !hasTwoDecimals(row.gpuBusyDuration) && !roundedColumn) continue;
      const double b = r->gpuBusyDuration, d = r->gpuDuration;
      double lo = std::max(0.0, b - kHalfCent) / (d + kHalfCent);
      double hi = d > kHalfCent ? (b + kHalfCent) / (d - kHalfCent) : *r->quotient;
      if (roundedColumn) {  // the column is the exact ratio rounded to 2 decimals
        lo = std::max(lo, *r->columnValue - kHalfCent);
        hi = std::min(hi, *r->columnValue + kHalfCent);
        if (lo > hi) std::swap(lo, hi);
      }
      const bool sel = m == opt_.mode;
      low[modeIndex(m)]->busyRatio = sel ? lo : hi;
      high[modeIndex(m)]->busyRatio = sel ? hi : lo;
      notes.push_back(fmt::format("{} {} / {} lies in [{}, {}]", modeName(m), formatNumber(b), formatNumber(d),
                                  pyReprDouble(lo), pyReprDouble(hi)));
    }
    return notes;
  }

  // If the verdict can change inside the rounding interval, say so (a split
  // gated in memory can then disagree with the same split gated from its CSV).
  void durationRounding() {
    Readings low = rd_, high = rd_;
    const std::vector<std::string> notes = boundRatios(low, high);
    if (notes.empty()) return;
    const GateResult a = decide(in_, opt_, low), b = decide(in_, opt_, high);
    if (sameVerdict(res_, a) && sameVerdict(res_, b)) return;
    const GateResult& other = sameVerdict(res_, a) ? b : a;
    std::string s = "the CSV's 2-decimal rounding of the durations may decide the verdict: the exact busy ratio of ";
    for (size_t k = 0; k < notes.size(); ++k) s += (k ? "; " : "") + notes[k];
    s += fmt::format("; within that range the gate can also say: {} (gate with the source trace, `--trace`, to decide)",
                     other.summary);
    addFinding(
        res_, "csv_rounding_decides", opt_.mode, res_.selectedChunk, true, s,
        JsonValue::object(
            {{"source", "durations"}, {"recomputed_summary", other.summary}, {"recomputed_accepted", other.accepted}}));
  }

  const GateInput& in_;
  const GateOptions& opt_;
  const Readings& rd_;
  GateResult& res_;
  Readings recomputed_;
  bool usedRounding_ = false, usedEvidence_ = false;
  std::vector<std::string> roundingNotes_;
};

}  // namespace

void addRowFindings(const GateInput& in, const GateOptions& opt, const Readings& rd, GateResult& res) {
  FindingsPass(in, opt, rd, res).run();
}

}  // namespace detail

void finalizeStrict(GateResult& res) {
  // Idempotent: drop an earlier strict rule, then re-evaluate.
  std::erase_if(res.record, [](const RuleEvaluation& r) { return r.rule == "strict"; });
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
    r.sentence = fmt::format("refused under --strict: {} finding(s) bear on the verdict ({})", codes.size(),
                             detail::joinList(codes));
  } else {
    r.outcome = RuleOutcome::Info;
    r.sentence = fmt::format("already refused; --strict would also refuse for {}", detail::joinList(codes));
  }
  res.record.push_back(std::move(r));
}

}  // namespace steadyscope::gate
