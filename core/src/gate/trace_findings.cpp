// Findings of a review against the source trace (see trace_findings.hpp).
#include "gate/trace_findings.hpp"

#include <set>
#include <tuple>

namespace steadyscope::gate {

namespace {

Finding traceFinding(std::string code, Mode m, std::string chunk, std::string sentence, JsonValue details) {
  Finding f;
  f.code = std::move(code);
  f.subject = std::string(modeName(m));
  f.chunk = std::move(chunk);
  f.affectsVerdict = false;
  f.sentence = std::move(sentence);
  f.details = std::move(details);
  return f;
}

}  // namespace

void addEvidenceUnavailable(GateResult& res, Mode m, const std::string& chunk, std::string sentence, int plans) {
  res.findings.push_back(
      traceFinding("evidence_unavailable", m, chunk, std::move(sentence), JsonValue::object({{"plans", plans}})));
}

void explainStartupTransient(GateResult& res, Mode m, const std::string& reason) {
  for (auto& f : res.findings)
    if (f.code == "startup_transient_inside" && f.subject == modeName(m)) f.details.set("reason", reason);
}

void addTraceRoundingFinding(GateResult& res) {
  const Finding* recomputed = nullptr;
  bool disagree = false, rounding = false;
  for (const auto& f : res.findings) {
    if (f.code == "recomputed_verdict_differs") recomputed = &f;
    if (f.code == "statistics_disagree") disagree = true;
    if (f.code == "csv_rounding_decides") rounding = true;
  }
  if (!recomputed || disagree || rounding) return;
  JsonValue d = recomputed->details;
  d.set("source", "trace");
  std::string s =
      "the CSV's 2-decimal rounding decides the verdict: its statistics agree with the source trace "
      "within the rounding, but " +
      recomputed->sentence;
  Finding f = traceFinding("csv_rounding_decides", res.options.mode, res.selectedChunk, std::move(s), std::move(d));
  f.affectsVerdict = true;
  res.findings.push_back(std::move(f));
}

void dedupeFindings(GateResult& res) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  std::vector<Finding> kept;
  for (auto& f : res.findings)
    if (seen.insert({f.code, f.subject, f.chunk, f.sentence}).second) kept.push_back(std::move(f));
  res.findings = std::move(kept);
  finalizeStrict(res);
}

}  // namespace steadyscope::gate
