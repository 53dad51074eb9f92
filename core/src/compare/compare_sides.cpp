// One side's GPU events summed per launching op and kernel name over its
// compared steps, the two sides joined by op name, and the whole comparison of
// two loaded traces (both splits planned side by side, nothing written).
#include <steadyscope/compare.hpp>

#include <steadyscope/core/analysis/workload_kind.hpp>

#include "util/side_by_side.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace steadyscope::compare {

namespace {

struct Sums {
  uint64_t count = 0;
  int64_t ns = 0;
};

// What one side adds up. Ops are keyed by the name's StrId; `noOp` is the slot
// past the string pool.
struct SideSums {
  std::vector<Sums> perOp;
  std::unordered_map<uint64_t, Sums> perKernel;  // op slot << 32 | kernel name id
  std::vector<int64_t> stepNs;
  SideFigures fig;
};

// The compared step whose window holds time `t`, or -1. Windows are in start
// order and may overlap; maxEnd[k] is the largest end among windows 0..k.
int stepOf(const SideSteps& s, const std::vector<int64_t>& maxEnd, int64_t t) {
  auto it = std::upper_bound(s.windows.begin(), s.windows.end(), t,
                             [](int64_t v, const SideSteps::Window& w) { return v < w.beginNs; });
  for (auto k = it - s.windows.begin(); k-- > 0;) {
    if (maxEnd[static_cast<size_t>(k)] <= t) break;
    if (t < s.windows[static_cast<size_t>(k)].endNs) return static_cast<int>(k);
  }
  return -1;
}

struct Span {
  uint32_t device;
  int64_t b, e;
};

// The union of the spans on each device, summed (spans are sorted here).
int64_t busyNs(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& x, const Span& y) { return x.device != y.device ? x.device < y.device : x.b < y.b; });
  int64_t total = 0;
  for (size_t i = 0; i < spans.size();) {
    int64_t b = spans[i].b, e = spans[i].e;
    size_t j = i + 1;
    for (; j < spans.size() && spans[j].device == spans[i].device && spans[j].b <= e; ++j) e = std::max(e, spans[j].e);
    total += e - b;
    i = j;
  }
  return total;
}

// Each lane's device: its pid, numbered.
std::vector<uint32_t> laneDevices(const Trace& t) {
  std::map<JsonKey, uint32_t> ids;
  std::vector<uint32_t> out;
  for (const Lane& l : t.lanes) out.push_back(ids.try_emplace(l.pid, static_cast<uint32_t>(ids.size())).first->second);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void addSideFigures(SideSums& s, const Trace& t, const SideSteps& steps, int64_t attributedNs,
                    std::vector<Span>& spans) {
  SideFigures& f = s.fig;
  f.file = t.path;
  f.stepSource = steps.source;
  f.totalSteps = steps.totalSteps;
  f.firstStep = steps.first;
  f.steps = steps.windows.size();
  f.availableSteps = steps.available;
  for (size_t k = 0; k < steps.windows.size(); ++k) {
    f.stepUs.push_back(steps.windows[k].durUs);
    f.stepGpuUs.push_back(static_cast<double>(s.stepNs[k]) / 1000.0);
  }
  if (!f.stepUs.empty()) f.stepMedianUs = median(f.stepUs);
  int64_t gpuNs = 0;
  for (int64_t ns : s.stepNs) gpuNs += ns;
  f.gpuUs = static_cast<double>(gpuNs) / 1000.0;
  f.gpuBusyUs = static_cast<double>(busyNs(spans)) / 1000.0;
  f.gpuBusyPerStepUs = f.steps ? f.gpuBusyUs / static_cast<double>(f.steps) : 0.0;
  f.attributedShare = gpuNs > 0 ? static_cast<double>(attributedNs) / static_cast<double>(gpuNs) : 0.0;
}

// Every GPU event whose launch (or, without one, its own start) falls in a compared step.
SideSums sumSide(const Trace& t, const Attribution& a, const SideSteps& steps) {
  SideSums s;
  const size_t noOp = t.strings.size();
  s.perOp.resize(noOp + 1);
  s.stepNs.assign(steps.windows.size(), 0);
  std::vector<int64_t> maxEnd;
  for (const auto& w : steps.windows) maxEnd.push_back(std::max(maxEnd.empty() ? INT64_MIN : maxEnd.back(), w.endNs));
  const std::vector<uint32_t> device = laneDevices(t);
  std::vector<Span> spans;
  int64_t attributedNs = 0;
  for (size_t k = 0; k < a.gpu.size(); ++k) {
    const EventIdx g = a.gpu[k], l = a.launch[k];
    const int step = stepOf(steps, maxEnd, t.tsNs[l != kNoEvent ? l : g]);
    if (step < 0) continue;
    const int64_t ns = std::max<int64_t>(t.durNs[g], 0);
    const size_t slot = a.op[k] == kNoEvent ? noOp : t.name[a.op[k]];
    s.perOp[slot].count += 1;
    s.perOp[slot].ns += ns;
    Sums& kernel = s.perKernel[(static_cast<uint64_t>(slot) << 32) | t.name[g]];
    kernel.count += 1;
    kernel.ns += ns;
    s.stepNs[static_cast<size_t>(step)] += ns;
    if (slot != noOp) attributedNs += ns;
    ++s.fig.gpuEvents;
    s.fig.withoutLaunch += l == kNoEvent;
    s.fig.launchOutsideOp += l != kNoEvent && a.op[k] == kNoEvent;
    spans.push_back({device[t.lane[g]], t.tsNs[g], t.tsNs[g] + ns});
  }
  addSideFigures(s, t, steps, attributedNs, spans);
  return s;
}

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// The rows of both sides, joined by op name, then kernel name.
class RowJoin {
 public:
  void add(bool sideB, const Trace& t, const SideSums& s) {
    const size_t noOp = t.strings.size();
    auto opName = [&](size_t slot) {
      return slot == noOp ? std::string(kNoOp) : std::string(t.strings.view(static_cast<StrId>(slot)));
    };
    for (size_t slot = 0; slot < s.perOp.size(); ++slot) {
      if (!s.perOp[slot].count) continue;
      OpRow& r = row(opName(slot));
      (sideB ? r.bCount : r.aCount) += s.perOp[slot].count;
      (sideB ? r.bGpuUs : r.aGpuUs) += us(s.perOp[slot].ns);
    }
    for (const auto& [key, sums] : s.perKernel) {
      const size_t rowIdx = index_.at(opName(static_cast<size_t>(key >> 32)));
      KernelRow& k = kernels_[rowIdx][std::string(t.strings.view(static_cast<StrId>(key & 0xffffffffu)))];
      (sideB ? k.bCount : k.aCount) += sums.count;
      (sideB ? k.bGpuUs : k.aGpuUs) += us(sums.ns);
    }
  }
  std::vector<OpRow> rows(size_t stepsA, size_t stepsB);

 private:
  OpRow& row(const std::string& op) {
    auto [it, fresh] = index_.try_emplace(op, rows_.size());
    if (fresh) {
      rows_.push_back({});
      rows_.back().op = op;
      kernels_.emplace_back();
    }
    return rows_[it->second];
  }
  std::unordered_map<std::string, size_t> index_;
  std::vector<OpRow> rows_;
  std::vector<std::map<std::string, KernelRow>> kernels_;
};

std::vector<OpRow> RowJoin::rows(size_t stepsA, size_t stepsB) {
  for (size_t i = 0; i < rows_.size(); ++i) {
    OpRow& r = rows_[i];
    r.aUsPerStep = stepsA ? r.aGpuUs / static_cast<double>(stepsA) : 0.0;
    r.bUsPerStep = stepsB ? r.bGpuUs / static_cast<double>(stepsB) : 0.0;
    r.deltaUsPerStep = r.bUsPerStep - r.aUsPerStep;
    for (auto& [name, k] : kernels_[i]) {
      k.name = name;
      r.kernels.push_back(k);
    }
    std::stable_sort(r.kernels.begin(), r.kernels.end(),
                     [](const KernelRow& x, const KernelRow& y) { return x.aGpuUs + x.bGpuUs > y.aGpuUs + y.bGpuUs; });
  }
  std::sort(rows_.begin(), rows_.end(), [](const OpRow& x, const OpRow& y) {
    const double dx = std::fabs(x.deltaUsPerStep), dy = std::fabs(y.deltaUsPerStep);
    return dx != dy ? dx > dy : x.op < y.op;
  });
  return std::move(rows_);
}

// The split `compare` plans: find steady state, for the workload the trace holds, nothing written.
analysis::SplitResult planSplit(const TracePtr& trace, unsigned threads) {
  analysis::SplitOptions o;
  o.findSteadyState = true;
  o.outputDir = trace->baseName;  // names the planned chunks only
  o.llmInference = analysis::llmInferenceFor(analysis::WorkloadKind::Auto, *trace);
  o.threads = threads;
  analysis::Splitter splitter(trace);
  return splitter.plan(o);
}

}  // namespace

Comparison compareSides(const Trace& a, const Attribution& attrA, const SideSteps& stepsA, const Trace& b,
                        const Attribution& attrB, const SideSteps& stepsB) {
  const SideSums sa = sumSide(a, attrA, stepsA), sb = sumSide(b, attrB, stepsB);
  RowJoin join;
  join.add(false, a, sa);
  join.add(true, b, sb);
  Comparison c;
  c.a = sa.fig;
  c.b = sb.fig;
  c.wholeTrace = stepsA.source == "whole_trace";
  c.ops = join.rows(c.a.steps, c.b.steps);
  return c;
}

Expected<Comparison> compareTraces(const TracePtr& a, const TracePtr& b, const CompareOptions& options,
                                   JobControl* control) {
  auto cancelled = [&](const char* stage) { return control && !control->enterStage(stage); };
  if (cancelled("Split and attribute both traces")) return makeError(Error::Kind::Cancelled, a->path, "cancelled");
  const unsigned each = std::max(1u, jobThreads(options.threads) / 2);
  analysis::SplitResult splitA, splitB;
  Attribution attrA, attrB;
  auto side = [&](const TracePtr& t, analysis::SplitResult& split, Attribution& attr) {
    if (!options.wholeTrace) split = planSplit(t, each);
    attr = attribute(*t);
  };
  const bool big = a->size() + b->size() > 200000;
  runSideBySide(
      options.threads, big, [&] { side(b, splitB, attrB); }, [&] { side(a, splitA, attrA); });
  if (cancelled("Compare")) return makeError(Error::Kind::Cancelled, a->path, "cancelled");
  auto steps = chooseSteps(*a, &splitA, *b, &splitB, options);
  if (!steps) return steps.error();
  return compareSides(*a, attrA, steps->first, *b, attrB, steps->second);
}

}  // namespace steadyscope::compare
