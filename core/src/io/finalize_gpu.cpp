// GPU busy time: the union of each device's kernel / memcpy / memset intervals.
#include "io/finalize.hpp"

#include <steadyscope/core/util/intervals.hpp>
#include "util/nearly_sorted.hpp"

namespace steadyscope::io {

void buildGpuBusy(Trace& tr, KernelIntervals& kernels, LoadTimer& timer) {
  Column<Interval> aside;
  for (auto& [pid, iv] : kernels.perDevice()) {
    // Streams interleave in the file, but each is nearly in time order.
    auto byBegin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
    sortNearlySorted(iv, byBegin, aside);
    timer.mark("  gpu: sort");
    // The union in place: kernels rarely overlap, so the union is nearly as
    // long as the input, and a second array would be as many fresh pages.
    // Only intervals with dur > 0 are collected, so the rule's dropping of
    // empty intervals changes nothing here.
    iv.resize(mergeSortedInPlace(iv));
    DeviceBusy db;
    db.pid = pid;
    db.intervals = std::move(iv);
    db.busyNs = totalLength(db.intervals);
    if (!db.intervals.empty()) {
      db.firstNs = db.intervals.front().begin;
      db.lastNs = db.intervals.back().end;
    }
    tr.gpuBusy.push_back(std::move(db));
  }
}

}  // namespace steadyscope::io
