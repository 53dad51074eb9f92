// The root cascade (spec §2.1, §2.6): tiers 1–5 in turn, the fallback, then the startup-transient trim.
#include "analysis/roots/detection.hpp"
#include "analysis/roots/annotation_tiers.hpp"
#include "analysis/roots/call_tree.hpp"
#include "analysis/roots/coverage.hpp"
#include "analysis/roots/tree_tiers.hpp"
#include "analysis/steady_state/startup_transient.hpp"

#include "util/phase_timer.hpp"

#include <optional>
#include <utility>
#include <variant>

namespace steadyscope::analysis {

double rankingCoverage(const DetectionCandidate& c) {
  if (c.coverage) return c.coverage->coveredSelected;
  return c.tree ? c.tree->coverage : 0.0;
}

namespace {

/// Records a cascade step; true when its candidate is SPLITTABLE (and chosen).
bool tryStep(Detection& d, const char* name, std::optional<DetectionCandidate> c) {
  CascadeStep step{name, std::nullopt};
  bool passed = false;
  if (c) {
    step.candidate = d.tried.size();
    passed = c->status == SplitStatus::Splittable;
    if (passed) {  // the diagnostics (a call-tree candidate's list a value per root) stay with the chosen one
      JsonValue diagnostics = std::exchange(c->diagnostics, JsonValue::object());
      d.chosen = *c;
      d.chosen.diagnostics = std::move(diagnostics);
    }
    d.tried.push_back(std::move(*c));
  }
  d.steps.push_back(std::move(step));
  return passed;
}

/// The first maximum of rankingCoverage among `tried` (optionally only the
/// candidates that are not NOT_SPLITTABLE), or null.
const DetectionCandidate* bestCovered(const std::vector<DetectionCandidate>& tried, bool usableOnly) {
  const DetectionCandidate* best = nullptr;
  for (const auto& c : tried) {
    if (usableOnly && c.status == SplitStatus::NotSplittable) continue;
    if (!best || rankingCoverage(c) > rankingCoverage(*best)) best = &c;
  }
  return best;
}

void chooseNone(Detection& d, const char* reason) {
  d.fallback = "none";
  d.chosen = DetectionCandidate{};
  d.chosen.method = "none";
  d.chosen.phaseConfidence = "unknown";
  d.chosen.status = SplitStatus::NotSplittable;
  d.reason = reason;
  d.chosen.diagnostics.set("reason", JsonValue::string(d.reason));
}

// Tiers 3-5 on the call tree; true when one of them is SPLITTABLE.
bool tryTreeTiers(const EventIndex& index, Detection& d, unsigned threads, KernelsAhead& kernels) {
  d.usedCallTree = true;
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  kernels.start(threads);  // at idle priority: the tree's own threads come first
  auto built = CallTree::build(index, threads);
  timer.mark("  tree: build");
  if (auto* why = std::get_if<std::string>(&built)) {
    d.treeFailure = *why;
    if (const DetectionCandidate* best = bestCovered(d.tried, false)) {
      d.fallback = "best annotation family";
      d.chosen = *best;
    } else {
      chooseNone(d, "tree build failed and no annotations");
    }
    return true;  // the cascade ends here
  }
  CallTree& tree = std::get<CallTree>(built);
  tree.reattachWorkerThreads();
  const std::vector<EventIdx>& entry = tree.entryRoots();
  timer.mark("  tree: reattach");
  const double g = index.totalGpuTime().asDouble();
  TreeNames names(index.trace());
  // Candidates move into the tried list (a call-tree one holds a span per root): the bookends read them there.
  auto branch = detectBranchDescent(tree, names, entry, g);
  timer.mark("  tree: branches");
  const std::optional<size_t> branchAt = branch ? std::optional(d.tried.size()) : std::nullopt;
  if (tryStep(d, "branch descent", std::move(branch))) return true;
  auto sibling = detectSiblingRoots(tree, names, entry, g);
  timer.mark("  tree: siblings");
  const std::optional<size_t> siblingAt = sibling ? std::optional(d.tried.size()) : std::nullopt;
  if (tryStep(d, "sibling roots", std::move(sibling))) return true;
  std::optional<DetectionCandidate> bookends;
  for (const std::optional<size_t>& at : {branchAt, siblingAt}) {
    if (!at || d.tried[*at].tree->coverage < kBookendFloor) continue;
    bookends = enhanceWithBookends(tree, d.tried[*at], g);
    if (bookends) {
      bookends->coverage = auditRoots(index, bookends->roots);
      break;
    }
  }
  return tryStep(d, "bookend enhancement", std::move(bookends));
}

}  // namespace

std::shared_ptr<const Detection> noDetection() {
  static const auto none = std::make_shared<const Detection>();
  return none;
}

Detection detectRoots(const EventIndex& index, const DetectionOptions& options) {
  Detection d;
  KernelsAhead kernels(index);
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  auto timed = [&](const char* what, bool passed) {
    timer.mark(what);
    return passed;
  };
  const bool done =
      timed("  known annotations", tryStep(d, "known annotations", detectKnownAnnotations(index, options.threads))) ||
      timed("  unknown families", tryStep(d, "unknown families", detectUnknownFamilies(index, options.threads))) ||
      tryTreeTiers(index, d, options.threads, kernels);
  if (!done) {
    if (const DetectionCandidate* usable = bestCovered(d.tried, true)) {
      d.fallback = "best usable";
      d.chosen = *usable;
    } else if (const DetectionCandidate* any = bestCovered(d.tried, false)) {
      d.fallback = "last resort";
      d.chosen = *any;
    } else {
      chooseNone(d, "no splittable annotations and no repeating call pattern");
    }
  }
  timer.mark("  tree tiers, fallback");
  d.trim = trimStartupTransient(index, d.chosen, {options.trimKeepsStatus, options.threads}, kernels);
  timer.mark("  trim");
  return d;
}

}  // namespace steadyscope::analysis
