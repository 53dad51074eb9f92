// The root detection in plain words (SplitResult::story): the verdict and one line per cascade step.
#include "analysis/roots/detection_story.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/roots/coverage.hpp"

#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace steadyscope::analysis {

namespace {

// "ProfilerStep#12" -> "ProfilerStep#": a family is named without its counter.
std::string familyLabel(std::string_view name) {
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  return std::string(end > 0 ? name.substr(0, end) : name);
}

std::string plural(size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// What the candidate's roots are, e.g. "6 `ProfilerStep#` annotations".
std::string describeRoots(const Trace& t, const DetectionCandidate& c) {
  size_t n = 0;  // the loop's roots, bookends aside
  for (size_t k = 0; k < c.roots.size(); ++k) n += isBookendRootName(c.roots.name(t, k)) ? 0 : 1;
  if (n == 0) return "no roots";
  size_t first = 0;  // skip a warmup bookend for the example name
  while (first + 1 < n && isBookendRootName(c.roots.name(t, first))) ++first;
  const std::string example(c.roots.name(t, first));
  if (c.method == "annotation:tier")
    return fmt::format("{} like `{}`", plural(n, "serving-step annotation", "serving-step annotations"), example);
  if (c.method == "family:unknown_only") return fmt::format("{} `{}` annotations", n, familyLabel(example));
  std::string what;
  if (c.method == "generic:sibling_roots")
    what = fmt::format("{} of the top-level call `{}`", plural(n, "repeat", "repeats"), example);
  else if (c.tree && c.tree->period)
    what = fmt::format("{} of the calls inside `{}` ({} calls each)", plural(n, "repeat", "repeats"), example,
                       *c.tree->period);
  else
    what = fmt::format("{} of the call `{}`", plural(n, "repeat", "repeats"), example);
  if (c.tree && c.tree->bookends) what += " with the work before and after them";
  return what + " in the call tree";
}

// The figure the candidate was graded by: a call-tree candidate's own
// coverage (its audit, when it has one, only ranks it), else its audit's.
double coverageOf(const DetectionCandidate& c) {
  if (c.tree) return c.tree->coverage;
  return c.coverage ? c.coverage->coveredSelected : 0.0;
}

using names::kSplitNeedsText;
using names::percentText;

std::string coverageSentence(const Trace& t, const DetectionCandidate& c) {
  std::string s = fmt::format("{} cover {} of the GPU time", describeRoots(t, c), percentText(coverageOf(c)));
  if (!c.tree && c.coverage && c.coverage->coveredSelected >= kCoverageGate && c.coverage->spanShare < kMinSpanShare)
    s += fmt::format(", but only {} of that lies inside them (half is needed)", percentText(c.coverage->spanShare));
  return s;
}

std::string attemptLine(const Trace& t, const Detection& d, const CascadeStep& st) {
  if (!st.candidate) return fmt::format("{}: nothing found", st.name);
  const DetectionCandidate& c = d.tried[*st.candidate];
  return fmt::format("{}: {} ({})", st.name, coverageSentence(t, c),
                     c.status == SplitStatus::Splittable ? "enough"
                     : c.status == SplitStatus::Degraded ? "enough for a degraded split"
                                                         : "not enough");
}

}  // namespace

DetectionStory explainDetection(const Trace& t, const Detection& d, bool allowDegraded) {
  DetectionStory s;
  for (const CascadeStep& st : d.steps) s.attempts.push_back(attemptLine(t, d, st));
  if (!d.treeFailure.empty())
    s.attempts.push_back("call tree: could not be built the way the reference builds it (" + d.treeFailure + ")");
  const DetectionCandidate& c = d.chosen;
  s.splits = c.status == SplitStatus::Splittable || (c.status == SplitStatus::Degraded && allowDegraded);
  if (c.roots.empty()) {
    s.verdict = d.treeFailure.empty()
                    ? "Refused: no annotation family and no repeating pattern in the call tree explains the GPU work."
                    : "Refused: the trace has no annotation family and its call tree could not be built.";
    return s;
  }
  const std::string cov = coverageSentence(t, c);
  if (d.trim.trimmed) s.verdict = "The first step was dropped as a startup transient; the rest: ";
  if (c.status == SplitStatus::Splittable)
    s.verdict += fmt::format("Split: {}.", cov);
  else if (c.status == SplitStatus::Degraded)
    s.verdict += allowDegraded ? fmt::format("Split (degraded): {}; 95 % makes a full split.", cov)
                               : fmt::format(
                                     "Refused: {}; that is enough only for a degraded split (95 % makes a "
                                     "full split; allow degraded splits to use it).",
                                     cov);
  else
    s.verdict += fmt::format("Refused: {}; {}.", cov, kSplitNeedsText);
  if (!s.splits && d.usedCallTree && !c.tree) {
    const bool treeFound =
        std::any_of(d.tried.begin(), d.tried.end(), [](const auto& x) { return x.tree.has_value(); });
    s.verdict += treeFound ? " The repeating patterns of the call tree cover less."
                           : " The call tree has no repeating pattern either.";
  }
  return s;
}

}  // namespace steadyscope::analysis
