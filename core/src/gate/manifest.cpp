#include <steadyscope/core/gate/manifest.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace steadyscope::gate {

namespace {

// The text after `"key":` at the manifest's top level (its keys are unique
// and its only nested values are arrays of numbers), or nullopt.
std::optional<std::string_view> valueOf(std::string_view text, std::string_view key) {
  const std::string quoted = fmt::format("\"{}\"", key);
  for (size_t k = text.find(quoted); k != std::string_view::npos; k = text.find(quoted, k + 1)) {
    size_t p = k + quoted.size();
    while (p < text.size() && (text[p] == ' ' || text[p] == '\n')) ++p;
    if (p >= text.size() || text[p] != ':') continue;
    ++p;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\n')) ++p;
    const size_t end = text.find_first_of(",}\n", p);
    return text.substr(p, end == std::string_view::npos ? std::string_view::npos : end - p);
  }
  return std::nullopt;
}

std::optional<double> numberOf(std::string_view text, std::string_view key) {
  auto v = valueOf(text, key);
  if (!v || v->empty() || v->front() == 'n' || v->front() == '"') return std::nullopt;
  const std::string s(*v);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end != s.c_str() && std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

// A whole number that fits an int64_t; a hostile manifest's 1e300 or 2.5
// reads as absent rather than as an undefined conversion.
std::optional<int64_t> integerOf(std::string_view text, std::string_view key) {
  const auto d = numberOf(text, key);
  if (!d || *d != std::trunc(*d) || std::fabs(*d) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(*d);
}

}  // namespace

std::optional<ManifestFacts> readManifestFacts(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  ManifestFacts m;
  if (auto a = valueOf(text, "aborted")) m.aborted = a->substr(0, 4) == "true";
  m.status = integerOf(text, "status");
  m.nRoots = integerOf(text, "n_roots");
  if (auto v = valueOf(text, "method"); v && v->size() >= 2 && v->front() == '"')
    m.method = std::string(v->substr(1, v->find('"', 1) - 1));
  m.coverage = numberOf(text, "coverage_selected_roots");
  m.branchCoverage = numberOf(text, "branch_coverage");
  return m;
}

std::string refusalSentence(const ManifestFacts& m) {
  if (!m.aborted) return {};
  const std::optional<double> cov = m.method.rfind("generic:", 0) == 0 ? m.branchCoverage : m.coverage;
  if (m.method == "none" || !m.nRoots || *m.nRoots == 0 || !cov)
    return "The splitter refused the trace: no annotation family and no repeating pattern in the call tree "
           "explains its GPU work.";
  const char* kind = m.method == "annotation:tier"         ? "serving-step annotations"
                     : m.method == "family:unknown_only"   ? "step annotations"
                     : m.method == "generic:sibling_roots" ? "repeating top-level calls"
                                                           : "repeating calls in the call tree";
  const bool degraded = m.status && *m.status == 1;
  return fmt::format("The splitter refused the trace: {} {} cover {} of the GPU time; {}.", *m.nRoots, kind,
                     names::percentText(*cov),
                     degraded ? "that is enough only for a degraded split" : names::kSplitNeedsText);
}

}  // namespace steadyscope::gate
