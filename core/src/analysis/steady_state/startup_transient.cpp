// The startup-transient trim (spec §3.9): the first root's kernels against the later roots' medians.
#include "analysis/steady_state/startup_transient.hpp"
#include "util/idle_thread.hpp"
#include "analysis/pyfmt.hpp"
#include "analysis/roots/annotation.hpp"
#include "analysis/roots/coverage.hpp"

#include "util/phase_timer.hpp"
#include "util/side_by_side.hpp"
#include <steadyscope/core/util/threads.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace steadyscope::analysis {

namespace {

// A kernel with its ts read once: a trace of epoch ns past 2^53 takes the
// exact slow path for every ts, too dear to pay on every comparison.
struct Keyed {
  double ts;
  EventIdx e;
};

// (ts, id); a NaN ts sorts last: it starts no span's kernel.
bool keyedLess(const Keyed& a, const Keyed& b) {
  const bool na = std::isnan(a.ts), nb = std::isnan(b.ts);
  if (na || nb) return na != nb ? nb : a.e < b.e;
  return a.ts != b.ts ? a.ts < b.ts : a.e < b.e;
}

}  // namespace

// Grouped by lane first: a stream's kernels are usually in ts order in the
// file already, so each group needs only a check, and the groups a merge.
KernelsByTs::KernelsByTs(const EventIndex& index) {
  const Trace& t = index.trace();
  std::vector<size_t> at(t.lanes.size() + 1, 0);
  for (EventIdx k : index.kernels) ++at[t.lane[k] + 1];
  for (size_t l = 1; l < at.size(); ++l) at[l] += at[l - 1];
  std::vector<size_t> runs;  // where each lane's kernels begin, and the end
  for (size_t l = 0; l + 1 < at.size(); ++l)
    if (at[l + 1] > at[l]) runs.push_back(at[l]);
  runs.push_back(index.kernels.size());
  Column<Keyed> grouped(index.kernels.size());
  for (EventIdx k : index.kernels) grouped[at[t.lane[k]]++] = {index.tsUs(k), k};
  auto it = [](Column<Keyed>& v, size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  for (size_t r = 0; r + 1 < runs.size(); ++r)
    if (!std::is_sorted(it(grouped, runs[r]), it(grouped, runs[r + 1]), keyedLess))
      std::sort(it(grouped, runs[r]), it(grouped, runs[r + 1]), keyedLess);  // a strict order: no ties to keep
  // Neighbouring groups merged in place until one is left: the merge's buffer is the smaller half.
  while (runs.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const size_t mid = runs[r + 1], end = r + 2 < runs.size() ? runs[r + 2] : mid;
      std::inplace_merge(it(grouped, runs[r]), it(grouped, mid), it(grouped, end), keyedLess);
      merged.push_back(end);
    }
    runs = std::move(merged);
  }
  kernels_.resize(grouped.size());
  for (size_t i = 0; i < grouped.size(); ++i) kernels_[i] = grouped[i].e;
}

void KernelsAhead::start(unsigned threads) {
  if (worker_.running() || !index_.hasCollectives || !sideBySide(threads, index_.kernels.size() >= kBig)) return;
  worker_.tryRun([this] {  // not started: get() makes the list itself
    runThisThreadOnlyWhenIdle();
    try {
      aside_.emplace(index_);
    } catch (...) {  // e.g. out of memory: get() tries again on the caller's thread, where it may throw
      aside_.reset();
    }
  });
}

const KernelsByTs& KernelsAhead::get() {
  if (worker_.running()) worker_.join();
  if (!aside_) aside_.emplace(index_);
  return *aside_;
}

namespace {

// Each name's total in roots [from, to), one entry per root that ran it, by
// its place in `pos` (names of root 0 only).
std::vector<std::vector<double>> laterTotals(const EventIndex& index, const KernelsByTs& kernels, const RootList& roots,
                                             const std::vector<uint32_t>& pos, size_t nNames, size_t from, size_t to) {
  const Trace& t = index.trace();
  std::vector<std::vector<double>> later(nNames);
  std::vector<double> tot(nNames);
  for (size_t r = from; r < to; ++r) {
    std::fill(tot.begin(), tot.end(), 0.0);
    kernels.forEachInRoot(index, roots, r, [&](EventIdx e) {
      if (const uint32_t p = pos[t.name[e]]; p != UINT32_MAX) tot[p] += index.durUs(e);
    });
    for (size_t k = 0; k < nNames; ++k)
      if (tot[k] > 0) later[k].push_back(tot[k]);
  }
  return later;
}

// The median as Python's statistics.median gives it; reorders `v`, which
// holds no NaN (totals above zero only).
double median(std::vector<double>& v) {
  const size_t m = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(m / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (m % 2) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2.0;
}

constexpr size_t kRootsForTwoHalves = 4096;  // below, a thread costs more than it saves

// Each kernel name's time in root 0 against its median over the later roots:
// the largest ratio of a collective (and its name) and of any other kernel.
void compareFirstRoot(const EventIndex& index, const RootList& roots, TrimInfo& info, KernelsAhead& ahead,
                      unsigned threads) {
  const Trace& t = index.trace();
  PhaseTimer timer("STEADYSCOPE_SPLIT_TIMING", "split");
  const KernelsByTs& kernels = ahead.get();
  timer.mark("    trim: kernels");
  // first: per-name totals of root 0 in first-occurrence order.
  std::vector<StrId> names;
  std::vector<uint32_t> pos(t.strings.size(), UINT32_MAX);  // by name: index into names
  std::vector<double> first;
  kernels.forEachInRoot(index, roots, 0, [&](EventIdx e) {
    uint32_t& p = pos[t.name[e]];
    if (p == UINT32_MAX) {
      p = static_cast<uint32_t>(names.size());
      names.push_back(t.name[e]);
      first.push_back(0.0);
    }
    first[p] += index.durUs(e);
  });
  // Two halves of the roots side by side: a median does not care in which order its values came.
  const size_t mid = 1 + (roots.size() - 1) / 2;
  std::vector<std::vector<double>> later, second;
  runSideBySide(
      threads, roots.size() >= kRootsForTwoHalves,
      [&] { second = laterTotals(index, kernels, roots, pos, names.size(), mid, roots.size()); },
      [&] { later = laterTotals(index, kernels, roots, pos, names.size(), 1, mid); });
  for (size_t k = 0; k < names.size(); ++k) later[k].insert(later[k].end(), second[k].begin(), second[k].end());
  timer.mark("    trim: totals");
  for (size_t k = 0; k < names.size(); ++k) {
    auto& v = later[k];
    if (v.empty()) continue;
    const double med = median(v);
    const double ratio = first[k] / med;
    if (index.collectiveName[names[k]]) {
      if (!info.collectiveRatio || ratio > *info.collectiveRatio) {
        info.collectiveRatio = ratio;
        info.kernel = std::string(t.strings.view(names[k]));
      }
    } else if (ratio > info.noiseRatio) {
      info.noiseRatio = ratio;
    }
  }
}

}  // namespace

TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const TrimOptions& options,
                              KernelsAhead& kernels) {
  const Trace& t = index.trace();
  TrimInfo info;
  if (cand.roots.size() < 2 || cand.status == SplitStatus::NotSplittable || !index.hasCollectives) return info;
  if (isBookendRootName(cand.roots.name(t, 0))) return info;
  info.ran = true;
  compareFirstRoot(index, cand.roots, info, kernels, options.threads);
  info.trimmed = info.collectiveRatio && *info.collectiveRatio >= 5.0 &&
                 *info.collectiveRatio >= 5.0 * std::max(info.noiseRatio, 1.0);
  if (!info.trimmed) {
    cand.diagnostics.set("startup_transient_trimmed", JsonValue::boolean(false));
    return info;
  }
  info.before = cand.coverage;
  cand.roots.eraseFront();
  cand.coverage = auditRoots(index, cand.roots, options.threads);
  if (!options.keepsStatus) cand.status = gradeCoverage(cand.coverage->coveredSelected);
  cand.diagnostics.set("startup_transient_trimmed", JsonValue::boolean(true));
  cand.diagnostics.set("startup_transient_kernel", JsonValue::string(info.kernel));
  cand.diagnostics.set("startup_transient_collective_ratio", JsonValue::real(pyRound(*info.collectiveRatio, 1)));
  cand.diagnostics.set("startup_transient_noise_ratio", JsonValue::real(pyRound(info.noiseRatio, 1)));
  return info;
}

TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const TrimOptions& options) {
  KernelsAhead kernels(index);
  return trimStartupTransient(index, cand, options, kernels);
}

}  // namespace steadyscope::analysis
