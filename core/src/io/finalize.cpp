// finalize(): the stages of finalize.hpp on the load's threads.
#include "io/finalize.hpp"
#include "util/thread_group.hpp"

#include <steadyscope/core/model/anomaly_kinds.hpp>

#include <algorithm>
#include <vector>

namespace steadyscope::io {

namespace {

/// Lanes, B/E pairs, then this thread's share of the depth stage.
void laneStages(Trace& tr, PairResult& pairs, const DurReader& durOf, DepthQueue& depth) {
  LoadTimer timer;
  buildLanes(tr, durOf);
  timer.mark("  lanes: built+sorted");
  pairBeginEnd(tr, pairs, durOf);
  timer.mark("  lanes: B/E pairs");
  depth.publish(tr);
  depth.work(tr, pairs, durOf);
  timer.mark("  lanes: depth");
}

/// Counts, links, flows and GPU unions; they read no column the lane stages write.
void eventStages(Trace& tr, Anomalies& anomalies, LoadTimer& timer) {
  countEvents(tr, anomalies);
  timer.mark("  counts");
  LinkIds ids(tr.size());
  KernelIntervals kernels(tr);
  collectIdsAndKernels(tr, ids, kernels);
  timer.mark("  gpu: intervals+ids");
  flagLinkAnomalies(tr, ids, anomalies);
  timer.mark("  links: anomalies");
  buildGpuBusy(tr, kernels, timer);
  timer.mark("  gpu: unions");
}

}  // namespace

void mergeAnomalies(Anomalies& dst, const Anomalies& src, int64_t base) {
  for (int k = 0; k < A_Count; ++k) {
    if (!src[k].count) continue;
    int64_t first = base + src[k].first;
    if (!dst[k].count || first < dst[k].first) dst[k].first = first;
    dst[k].count += src[k].count;
  }
}

void finalize(Trace& tr, Anomalies& anomalies, unsigned threads) {
  PairResult pairs;
  const DurReader durOf(tr.durNs, pairs);
  DepthQueue depth;
  tr.depth.resize(tr.size());  // address space only until written
  LoadTimer timer;
  if (threads <= 1) {
    laneStages(tr, pairs, durOf, depth);
    eventStages(tr, anomalies, timer);
  } else {
    // The lane stages on a helper thread, the event stages here: they write
    // disjoint columns and members. Threads beyond two only join the depth
    // stage, which the lane thread starts once the lanes are paired.
    ThreadGroup laneThread([&] { depth.abandon(); });
    laneThread.run([&] { laneStages(tr, pairs, durOf, depth); });
    ThreadGroup depthHelpers;
    const size_t extra = std::min<size_t>(threads - 2, tr.lanes.size() > 2 ? tr.lanes.size() - 2 : 0);
    for (size_t k = 0; k < extra; ++k)
      depthHelpers.run([&] {
        depth.waitReady();
        depth.work(tr, pairs, durOf);
      });
    eventStages(tr, anomalies, timer);
    depth.waitReady();
    depth.work(tr, pairs, durOf);
    timer.mark("  depth (shared)");
    laneThread.join();
    depthHelpers.join();
  }
  applyPairs(tr, pairs);
  mergeAnomalies(anomalies, pairs.anomalies, 0);
  for (int k = 0; k < A_Count; ++k) {
    if (!anomalies[k].count) continue;
    const AnomalyKind* kind = findAnomalyKind(kAnomalyCodes[k]);
    tr.anomalies.push_back({kAnomalyCodes[k], kind ? std::string(kind->meaning) : std::string(), anomalies[k].count,
                            anomalies[k].first});
  }
}

}  // namespace steadyscope::io
