#pragma once
// Shared between the gate's sources (not installed): the pipeline's decision
// (decide.cpp), the findings (findings.cpp) and the helpers both print with.
#include <steadyscope/core/gate/gate.hpp>

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steadyscope::gate::detail {

/// The reading of each family's first chunk's row (nullopt: no chunk or no row).
using Readings = std::array<std::optional<RowReading>, 4>;

/// The pipeline's verdict (§6.3 steps 1–3, §6.5–§6.7) and its decision record
/// for `in` read as `rd`; no findings, no chunk summaries.
GateResult decide(const GateInput& in, const GateOptions& opt, const Readings& rd);
/// Same verdict, refusal, low-quality state and offered modes.
bool sameVerdict(const GateResult& a, const GateResult& b);

/// The findings from rows and evidence on every family's first chunk, and the
/// re-decisions with recomputed or rounding-bounded ratios; after decide().
void addRowFindings(const GateInput& in, const GateOptions& opt, const Readings& rd, GateResult& res);
void addFinding(GateResult& res, std::string code, Mode m, const std::string& chunk, bool affects, std::string sentence,
                JsonValue details = JsonValue::object());

/// "a, b, c".
std::string joinList(const std::vector<std::string>& items);
/// Two numbers compared in one sentence: never printed alike unless equal.
std::pair<std::string, std::string> formatPair(double a, double b);
/// A CSV cell as JSON: its text, or null when missing.
JsonValue cellJson(const std::optional<std::string>& cell);
JsonValue optDouble(const std::optional<double>& v);

}  // namespace steadyscope::gate::detail
