#include <steadyscope/core/timeline/ab_compare.hpp>
#include <steadyscope/core/timeline/range_stats.hpp>
#include "util/name_normaliser.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace steadyscope::timeline {

namespace {

/// The GPU spans of a side: its own, or its window on every device.
std::vector<GpuSpan> spansOf(const AbSideInput& in) {
  if (!in.gpuSpans.empty()) return in.gpuSpans;
  std::vector<GpuSpan> spans;
  for (size_t d = 0; d < in.index->devices.size(); ++d) spans.push_back({in.beginNs, in.endNs, -1, int32_t(d)});
  return spans;
}

void addKernels(const Trace& t, const std::vector<EventIdx>& gpu, AbSideFigures& f) {
  std::unordered_map<StrId, size_t> byName;  // normalise each distinct name once
  std::unordered_map<std::string, size_t> byKey;
  for (EventIdx e : gpu) {
    auto [it, fresh] = byName.try_emplace(t.name[e], 0);
    if (fresh) {
      std::string key = names::normalizeNameForComparison(t.nameOf(e));
      auto [k, newKey] = byKey.try_emplace(key, f.kernels.size());
      if (newKey) f.kernels.push_back({std::move(key), std::string(t.nameOf(e)), 0, 0});
      it->second = k->second;
    }
    AbKernel& k = f.kernels[it->second];
    ++k.count;
    k.totalNs += std::max<int64_t>(0, t.durNs[e]);
  }
  std::sort(f.kernels.begin(), f.kernels.end(), [](const AbKernel& a, const AbKernel& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.key < b.key;
  });
}

void addCategories(const AbSideInput& in, const std::vector<EventIdx>& gpu, AbSideFigures& f) {
  const Trace& t = *in.trace;
  std::map<std::string_view, AbCategory> acc;
  auto add = [&](EventIdx e, int64_t ns) {
    AbCategory& c = acc[t.catOf(e)];
    ++c.count;
    c.totalNs += ns;
  };
  for (EventIdx e : gpu) add(e, std::max<int64_t>(0, t.durNs[e]));
  for (const SliceRow& row : in.index->rows) {
    for (size_t i = row.firstOverlapping(in.beginNs); i < row.events.size() && row.start[i] < in.endNs; ++i) {
      const EventIdx e = row.events[i];
      if (isGpuWork(t.classOf(e)) || row.end[i] <= in.beginNs) continue;
      add(e, std::min(row.end[i], in.endNs) - std::max(row.start[i], in.beginNs));
      ++f.events;
    }
  }
  for (auto& [name, c] : acc) {
    c.category = std::string(name);
    f.categories.push_back(std::move(c));
  }
  std::sort(f.categories.begin(), f.categories.end(), [](const AbCategory& a, const AbCategory& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.category < b.category;
  });
}

}  // namespace

AbSideFigures abSideFigures(const AbSideInput& in) {
  AbSideFigures f;
  f.label = in.label;
  if (!in.trace || !in.index || in.endNs < in.beginNs) return f;
  f.durationNs = in.endNs - in.beginNs;
  const std::vector<GpuSpan> spans = spansOf(in);
  for (const GpuSpan& sp : spans) {
    if (sp.device < 0 || size_t(sp.device) >= in.index->devices.size() || sp.endNs <= sp.beginNs) continue;
    f.gpuTimeNs += sp.endNs - sp.beginNs;
    f.gpuUnionNs += in.index->devices[size_t(sp.device)].busy.busyIn(sp.beginNs, sp.endNs);
  }
  const std::vector<EventIdx> gpu = gpuEventsInSpans(*in.trace, *in.index, spans);
  f.gpuEvents = gpu.size();
  f.events = gpu.size();
  addKernels(*in.trace, gpu, f);
  addCategories(in, gpu, f);
  return f;
}

double KernelDelta::relative() const {
  if (nsA == 0) return nsB == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return double(nsB - nsA) / double(nsA);
}

std::vector<KernelDelta> compareKernels(const AbSideFigures& a, const AbSideFigures& b) {
  std::map<std::string, KernelDelta> byKey;
  for (const AbKernel& k : a.kernels) {
    KernelDelta& d = byKey[k.key];
    d.key = k.key;
    d.name = k.name;
    d.countA = k.count;
    d.nsA = k.totalNs;
  }
  for (const AbKernel& k : b.kernels) {
    KernelDelta& d = byKey[k.key];
    if (d.key.empty()) {
      d.key = k.key;
      d.name = k.name;
    }
    d.countB = k.count;
    d.nsB = k.totalNs;
  }
  std::vector<KernelDelta> out;
  out.reserve(byKey.size());
  for (auto& [key, d] : byKey) out.push_back(std::move(d));
  std::stable_sort(out.begin(), out.end(), [](const KernelDelta& x, const KernelDelta& y) {
    return std::llabs(x.deltaNs()) > std::llabs(y.deltaNs());
  });
  return out;
}

}  // namespace steadyscope::timeline
