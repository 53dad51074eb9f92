// Tiers 1–2 of the root cascade (spec §2.3–§2.5): known serving annotations, then unknown annotation families.
#include "analysis/roots/annotation_tiers.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/roots/coverage.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace steadyscope::analysis {

namespace {

std::string rootFamily(const Trace& t, const RootList& roots) {
  std::vector<std::string> sk;
  std::vector<uint8_t> seen(t.strings.size(), 0);  // each distinct name once
  for (EventIdx r : roots) {
    if (seen[t.name[r]]) continue;
    seen[t.name[r]] = 1;
    sk.push_back(nameSkeleton(t.nameOf(r)));
  }
  std::sort(sk.begin(), sk.end());
  sk.erase(std::unique(sk.begin(), sk.end()), sk.end());
  std::string out;
  for (size_t i = 0; i < sk.size(); ++i) {
    if (i) out += ", ";
    out += sk[i];
  }
  return out;
}

void gradeCandidate(DetectionCandidate& c, bool knownTier) {
  const CoverageReport& cov = *c.coverage;
  if (cov.passes && (knownTier || c.roots.size() >= kMinRoots))
    c.status = SplitStatus::Splittable;
  else if (cov.coveredSelected >= kCoverageFloor)
    c.status = SplitStatus::Degraded;
  else
    c.status = SplitStatus::NotSplittable;
}

}  // namespace

std::optional<DetectionCandidate> detectKnownAnnotations(const EventIndex& index, unsigned threads) {
  const Trace& t = index.trace();
  DetectionCandidate c;
  c.method = "annotation:tier";
  c.phaseConfidence = "high";
  // The matchers are pure functions of the name: test each distinct name once.
  std::vector<uint8_t> memo(t.strings.size(), 0);  // by StrId: 0 untested, 1 no, 2 yes
  auto matching = [&](bool (*match)(std::string_view)) {
    std::fill(memo.begin(), memo.end(), uint8_t{0});
    for (EventIdx a : index.annotations) {
      uint8_t& m = memo[t.name[a]];
      if (!m) m = match(t.nameOf(a)) ? 2 : 1;
      if (m == 2) c.roots.push_back(a);
    }
  };
  matching(matchesDetailedPattern);
  c.tier = "detailed";
  if (c.roots.empty()) {
    c.tier = "native";
    matching(matchesNativePattern);
  }
  if (c.roots.empty()) return std::nullopt;
  c.coverage = auditRoots(index, c.roots, threads);
  gradeCandidate(c, true);
  c.diagnostics.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  c.diagnostics.set("root_family", JsonValue::string(rootFamily(t, c.roots)));
  c.diagnostics.set("root_family_known", JsonValue::boolean(true));
  c.diagnostics.set("suspiciously_few_roots", JsonValue::boolean(c.roots.size() < kMinRoots));
  return c;
}

std::optional<DetectionCandidate> detectUnknownFamilies(const EventIndex& index, unsigned threads) {
  const Trace& t = index.trace();
  std::vector<std::string> order;
  std::unordered_map<std::string, RootList> groups;
  for (EventIdx a : index.annotations) {
    std::string sk = nameSkeleton(t.nameOf(a));
    auto [it, fresh] = groups.try_emplace(sk);
    if (fresh) order.push_back(sk);
    it->second.push_back(a);
  }
  const std::string* best = nullptr;
  double bestTime = 0.0;
  for (const std::string& sk : order) {
    const auto& members = groups[sk];
    if (members.size() < kMinRoots) continue;
    double gt = attributeGpuTime(index, members).gpuTime;
    if (!(gt > 0)) continue;
    if (!best || gt > bestTime) {
      best = &sk;
      bestTime = gt;
    }
  }
  if (!best) return std::nullopt;
  DetectionCandidate c;
  c.method = "family:unknown_only";
  c.phaseConfidence = "unknown";
  c.roots = groups[*best];
  c.coverage = auditRoots(index, c.roots, threads);
  gradeCandidate(c, false);
  c.diagnostics.set("n_roots", JsonValue::integer(static_cast<int64_t>(c.roots.size())));
  c.diagnostics.set("root_family", JsonValue::string(*best));
  c.diagnostics.set("root_family_known", JsonValue::boolean(false));
  c.diagnostics.set("suspiciously_few_roots", JsonValue::boolean(c.roots.size() < kMinRoots));
  return c;
}

}  // namespace steadyscope::analysis
