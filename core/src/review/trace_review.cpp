// The review of a split directory against its source trace (see trace_review.hpp).
#include <steadyscope/core/review/trace_review.hpp>

#include <steadyscope/core/gate/csv.hpp>
#include "gate/trace_findings.hpp"
#include <steadyscope/core/review/split_gate.hpp>
#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace steadyscope::review {

namespace {

class TraceReviewer {
 public:
  TraceReviewer(const std::string& splitDir, TracePtr trace, const TraceReviewOptions& options)
      : splitDir_(splitDir), trace_(std::move(trace)), options_(options) {}

  TraceMatch run(const gate::SplitListing& listing) {
    for (gate::Mode m : gate::kAllModes)
      if (listing.count(m)) {
        out_.families[gate::modeIndex(m)].chunk = listing.of(m).front();
        wanted_[gate::modeIndex(m)] = paths::fileName(listing.of(m).front());
      }
    out_.tracePath = trace_->path;
    matchPlans();
    return std::move(out_);
  }

 private:
  /// --num-steps candidates from the CSV rows of the families' chunks.
  std::vector<int64_t> csvStepCounts() const {
    std::vector<int64_t> out;
    auto table = gate::readCsvFile(paths::join(splitDir_, names::kDetailsCsvFile));
    if (!table) return out;
    for (const auto& rec : table->records) {
      auto path = table->cell(rec, "output_path");
      auto steps = table->cell(rec, "num_steps");
      if (!path || !steps) continue;
      if (std::find(wanted_.begin(), wanted_.end(), paths::fileName(*path)) == wanted_.end()) continue;
      auto v = gate::parsePyFloat(*steps);
      if (!v || !std::isfinite(*v) || *v < 1 || *v > 1e9) continue;
      const auto n = static_cast<int64_t>(*v);
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    return out;
  }

  /// (--num-steps, --llm-inference) of the plans to try, in order: the
  /// given flags, the CSV's step counts, then each with --llm-inference toggled.
  std::vector<std::pair<int64_t, bool>> planVariants(const analysis::SplitOptions& base) const {
    std::vector<std::pair<int64_t, bool>> plans = {{base.numSteps, base.llmInference}};
    for (int64_t n : csvStepCounts())
      if (n != base.numSteps) plans.emplace_back(n, base.llmInference);
    const size_t direct = plans.size();
    for (size_t k = 0; k < direct; ++k) plans.emplace_back(plans[k].first, !plans[k].second);
    return plans;
  }

  bool anyUnmatched() const {
    return std::any_of(out_.families.begin(), out_.families.end(),
                       [](const FamilyMatch& f) { return !f.chunk.empty() && !f.matched; });
  }

  void matchPlans() {
    analysis::SplitOptions base = options_.split;
    base.findSteadyState = true;
    base.outputDir = splitDir_;
    analysis::Splitter splitter(trace_);
    std::optional<analysis::EvidenceContext> ctx;
    for (const auto& [numSteps, llm] : planVariants(base)) {
      if (!anyUnmatched() || out_.plans >= options_.maxPlans) break;
      analysis::SplitOptions o = base;
      o.numSteps = numSteps;
      o.llmInference = llm;
      const analysis::SplitResult r = splitter.plan(o);
      ++out_.plans;
      if (r.outcome != analysis::SplitOutcome::Split) {
        out_.lastProblem = fmt::format("the re-run split of {} ended with '{}'{}", trace_->path,
                                       analysis::splitOutcomeName(r.outcome), r.error.empty() ? "" : ": " + r.error);
        continue;
      }
      if (!ctx) {  // on the index the plans use (the same fixes for all)
        ctx.emplace(splitter.eventIndex(base), base);
        ctx->options() = options_.evidence;
        ctx->options().extraction = analysis::extractionOptionsOf(base);
      }
      matchFamilies(r, *ctx, numSteps, llm);
    }
  }

  void matchFamilies(const analysis::SplitResult& r, analysis::EvidenceContext& ctx, int64_t numSteps, bool llm) {
    for (gate::Mode m : gate::kAllModes) {
      FamilyMatch& f = out_.families[gate::modeIndex(m)];
      if (f.chunk.empty() || f.matched) continue;
      const std::string& want = wanted_[gate::modeIndex(m)];
      const auto c = std::find_if(r.chunks.begin(), r.chunks.end(),
                                  [&](const analysis::ChunkPlan& p) { return paths::fileName(p.fileName) == want; });
      if (c == r.chunks.end()) continue;
      f.matched = true;
      f.plannedFile = c->fileName;
      f.numSteps = numSteps;
      f.llmInference = llm;
      f.evidence = ctx.evidenceFor(r, *c);
      out_.notes.push_back(fmt::format("{}: {} matched a re-run split of {} (--num-steps {}{})", gate::modeName(m),
                                       want, trace_->path, numSteps, llm ? ", --llm-inference" : ""));
    }
  }

  const std::string& splitDir_;
  TracePtr trace_;
  const TraceReviewOptions& options_;
  TraceMatch out_;
  std::array<std::string, 4> wanted_;  // file names of the families' first chunks
};

/// The transient's reason for matched families; evidence_unavailable for the others.
void addFamilyFindings(const TraceMatch& match, TraceReview& out) {
  gate::GateResult& result = out.result;
  for (gate::Mode m : gate::kAllModes) {
    const FamilyMatch& f = match.families[gate::modeIndex(m)];
    if (f.chunk.empty()) continue;
    if (f.matched) {
      if (f.evidence && f.evidence->startupTransientInside.value_or(false))
        gate::explainStartupTransient(result, m, transientReason(*f.evidence));
      continue;
    }
    std::string s = fmt::format(
        "{}: no chunk of {} re-run split(s) of {} is named {}; no evidence from the source "
        "trace for it (split with other flags, or from another trace?)",
        gate::modeName(m), match.plans, match.tracePath, paths::fileName(f.chunk));
    if (!match.lastProblem.empty()) s += "; " + match.lastProblem;
    out.notes.push_back(s);
    gate::addEvidenceUnavailable(result, m, f.chunk, std::move(s), match.plans);
  }
}

}  // namespace

Expected<TraceMatch> matchSplitDirectory(const std::string& splitDir, TracePtr trace,
                                         const TraceReviewOptions& options) {
  if (trace && trace->partial)
    return makeError(Error::Kind::Format, trace->path,
                     "the trace was read only in part (" + trace->partial->reason +
                         "); reviewing a split against it needs the whole trace");
  auto listing = gate::collectSplitChunks(splitDir);
  if (!listing) return listing.error();
  return TraceReviewer(splitDir, std::move(trace), options).run(listing.value());
}

Expected<TraceReview> gateWithTraceMatch(const std::string& splitDir, const TraceMatch& match,
                                         const gate::ReviewOptions& options) {
  gate::ReviewOptions ro = options;
  if (!ro.traceInput) ro.traceInput = match.tracePath;
  for (gate::Mode m : gate::kAllModes) {
    const FamilyMatch& f = match.families[gate::modeIndex(m)];
    if (f.matched && f.evidence) ro.evidence[gate::modeIndex(m)] = gateFacts(*f.evidence);
  }
  auto res = gate::reviewSplitDirectory(splitDir, ro);
  if (!res) return res.error();
  TraceReview out;
  out.result = std::move(res.value());
  out.families = match.families;
  out.plans = match.plans;
  out.notes = match.notes;
  addFamilyFindings(match, out);
  gate::addTraceRoundingFinding(out.result);
  gate::dedupeFindings(out.result);
  return out;
}

Expected<TraceReview> reviewSplitDirectoryWithTrace(const std::string& splitDir, TracePtr trace,
                                                    const TraceReviewOptions& options) {
  auto match = matchSplitDirectory(splitDir, std::move(trace), options);
  if (!match) return match.error();
  return gateWithTraceMatch(splitDir, match.value(), options.review);
}

}  // namespace steadyscope::review
