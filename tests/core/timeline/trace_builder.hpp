#pragma once
// Builds small (or large) Trace objects by hand for timeline tests, without
// JSON: lanes per (pid, tid), depth as given, GPU busy union per pid.
#include <steadyscope/core/model/trace.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

namespace steadyscope::testing {

class TraceBuilder {
 public:
  TraceBuilder() : t_(std::make_shared<Trace>()) {}

  EventIdx add(int pid, int tid, const std::string& name, const std::string& cat, int64_t tsNs, int64_t durNs,
               uint16_t depth = 0, int64_t corr = -1) {
    Trace& t = *t_;
    const EventIdx i = EventIdx(t.tsNs.size());
    t.tsNs.push_back(tsNs);
    t.durNs.push_back(durNs);
    t.offset.push_back(0);
    t.length.push_back(0);
    t.name.push_back(t.strings.intern(name));
    t.cat.push_back(catIndex(cat));
    t.ph.push_back(Ph::Complete);
    uint16_t f = ev::HasTs | ev::HasDur;
    if (corr >= 0) f |= ev::HasCorr;
    t.flags.push_back(f);
    t.lane.push_back(laneIndex(pid, tid));
    t.depth.push_back(depth);
    t.corr.push_back(corr >= 0 ? corr : 0);
    t.extId.push_back(0);
    return i;
  }

  TracePtr finish() {
    Trace& t = *t_;
    for (EventIdx i = 0; i < t.size(); ++i) t.lanes[t.lane[i]].events.push_back(i);
    std::map<int64_t, std::vector<Interval>> perPid;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (Lane& l : t.lanes) {
      std::stable_sort(l.events.begin(), l.events.end(), [&](EventIdx a, EventIdx b) { return t.tsNs[a] < t.tsNs[b]; });
      for (EventIdx e : l.events) {
        l.maxDepth = std::max(l.maxDepth, t.depth[e]);
        first = std::min(first, t.tsNs[e]);
        last = std::max(last, t.tsNs[e] + t.durNs[e]);
        if (isGpuWork(t.classOf(e))) {
          l.gpu = true;
          ++t.stats.gpuEvents;
          perPid[l.pid.i].push_back({t.tsNs[e], t.tsNs[e] + t.durNs[e]});
        }
      }
    }
    for (auto& [pid, iv] : perPid) {
      std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
      DeviceBusy d;
      d.pid = {JsonKey::Type::Int, pid, 0.0};
      for (const Interval& x : iv) {
        if (!d.intervals.empty() && x.begin <= d.intervals.back().end)
          d.intervals.back().end = std::max(d.intervals.back().end, x.end);
        else
          d.intervals.push_back(x);
      }
      for (const Interval& x : d.intervals) d.busyNs += x.end - x.begin;
      d.firstNs = d.intervals.front().begin;
      d.lastNs = d.intervals.back().end;
      t.gpuBusy.push_back(std::move(d));
    }
    t.stats.firstTsNs = first == INT64_MAX ? 0 : first;
    t.stats.lastEndNs = last == INT64_MIN ? 0 : last;
    t.path = "built-by-hand";
    return t_;
  }

  Trace& trace() { return *t_; }

 private:
  uint16_t catIndex(const std::string& cat) {
    Trace& t = *t_;
    const StrId id = t.strings.intern(cat);
    for (size_t k = 0; k < t.categories.size(); ++k)
      if (t.categories[k] == id) return uint16_t(k);
    t.categories.push_back(id);
    t.categoryClass.push_back(classifyCategory(cat));
    return uint16_t(t.categories.size() - 1);
  }
  uint32_t laneIndex(int pid, int tid) {
    auto it = lanes_.find({pid, tid});
    if (it != lanes_.end()) return it->second;
    Lane l;
    l.pid = {JsonKey::Type::Int, pid, 0.0};
    l.tid = {JsonKey::Type::Int, tid, 0.0};
    t_->lanes.push_back(l);
    const uint32_t id = uint32_t(t_->lanes.size() - 1);
    lanes_[{pid, tid}] = id;
    return id;
  }
  std::shared_ptr<Trace> t_;
  std::map<std::pair<int, int>, uint32_t> lanes_;
};

/// A GPU stream with `n` kernels of `durNs` every `periodNs` from t0 (pid 0,
/// tid 7), plus one CPU launch per kernel on (pid 100, tid 100) with the same
/// correlation.
inline TracePtr makeRegularTrace(size_t n, int64_t periodNs = 1000, int64_t durNs = 600, bool withCpu = false) {
  TraceBuilder b;
  for (size_t k = 0; k < n; ++k) {
    const int64_t ts = 1'000'000 + int64_t(k) * periodNs;
    if (withCpu) b.add(100, 100, "cudaLaunchKernel", "cuda_runtime", ts - 200, 150, 0, int64_t(k));
    b.add(0, 7, k % 3 ? "gemm_kernel" : "elementwise_kernel", "kernel", ts, durNs, 0, int64_t(k));
  }
  return b.finish();
}

}  // namespace steadyscope::testing
