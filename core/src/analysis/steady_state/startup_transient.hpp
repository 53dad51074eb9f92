#pragma once
// The startup-transient trim (spec §3.9): when the first root's collective
// kernels ran far longer than in the later roots, the first root is dropped
// and the candidate audited again. The kernels by ts it reads can be made
// ahead, while the cascade searches the call tree (KernelsAhead).
#include <steadyscope/core/analysis/detection_types.hpp>
#include "analysis/event_index.hpp"
#include <steadyscope/core/analysis/roots.hpp>
#include "util/thread_group.hpp"

#include <algorithm>
#include <optional>

namespace steadyscope::analysis {

// The index's kernels (kernel / memcpy / memset) with their ts, in (ts,
// index) order: the kernels starting inside a span are one contiguous range,
// found by two binary searches.
class KernelsByTs {
 public:
  explicit KernelsByTs(const EventIndex& index);
  template <typename Fn>
  void forEachInRoot(const EventIndex& index, const RootList& roots, size_t k, Fn&& fn) const {
    const double a = index.tsUs(roots[k]), b = roots.endPy(index, k).asDouble();
    if (!(a < b)) return;
    auto before = [&](EventIdx x, double v) { return index.tsUs(x) < v; };
    const auto lo = std::lower_bound(kernels_.begin(), kernels_.end(), a, before);
    for (auto it = lo; it != kernels_.end() && index.tsUs(*it) < b; ++it) fn(*it);
  }

 private:
  // Event ids only, their ts read again where searched: the (ts, id) pairs
  // the sort needs live only while it is made, beside the tree tiers.
  Column<EventIdx> kernels_;  // big: on huge pages, reused blocks
};

// KernelsByTs made ahead, on a thread of the idle class, while the cascade
// builds and searches the call tree: it fills the moments a core would
// otherwise idle (the build's shorter side, the links after it) instead of
// taking a core from the tree's two-thread passes. The startup-transient
// check, which needs it, runs only after the cascade. Made here instead when
// it was not started, or failed.
class KernelsAhead {
 public:
  explicit KernelsAhead(const EventIndex& index) : index_(index) {}
  KernelsAhead(const KernelsAhead&) = delete;
  KernelsAhead& operator=(const KernelsAhead&) = delete;
  ~KernelsAhead() = default;  // worker_, the last member, joins first
  /// Starts the list on a helper thread when the check may need it and the trace is big.
  void start(unsigned threads);
  /// The list: the helper's when it made one, else made here.
  const KernelsByTs& get();

 private:
  static constexpr size_t kBig = size_t(1) << 16;  // kernels: below, a thread costs more than it saves
  const EventIndex& index_;
  std::optional<KernelsByTs> aside_;
  ThreadGroup worker_;
};

struct TrimOptions {
  /// Fix for spec §8 B2/B20: after a trim keep the pre-trim status instead of
  /// re-grading from the new coverage alone.
  bool keepsStatus = false;
  /// Threads the audit and the totals may use (0: jobThreads()).
  unsigned threads = 0;
};

/// §3.9 on a candidate (modifies it in place); returns what it decided.
TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const TrimOptions& options = {});
/// The same with the kernels by ts the cascade started ahead.
TrimInfo trimStartupTransient(const EventIndex& index, DetectionCandidate& cand, const TrimOptions& options,
                              KernelsAhead& kernels);

}  // namespace steadyscope::analysis
