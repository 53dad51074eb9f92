// Stage 2: steady-state window finders (spec §3.2–§3.8).
#include "analysis/steady_state/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace steadyscope::analysis {

const char* steadyModeName(SteadyMode m) {
  switch (m) {
    case SteadyMode::Mixed: return "mixed";
    case SteadyMode::DecodeOnly: return "decode_only";
    case SteadyMode::MaxPrefillDecode: return "max_prefilldecode";
  }
  return "?";
}

RegionScan scanRegions(std::span<const int64_t> v, int64_t numSteps, int64_t minRun) {
  RegionScan out;
  const auto n = static_cast<int64_t>(v.size());
  if (n == 0) return out;
  const double tolFrac = n >= numSteps ? 0.1 : 0.2;
  const int64_t peak = *std::max_element(v.begin(), v.end());
  out.peak = peak;
  const double tol = std::max(1.0, tolFrac * static_cast<double>(peak));
  auto near = [&](int64_t x) {
    int64_t d = x - peak;
    return static_cast<double>(d < 0 ? -d : d) <= tol;
  };
  bool started = false;
  int64_t count = 0, regionStart = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (near(v[static_cast<size_t>(i)])) {
      if (!started) ++count;
    } else if (started) {
      --count;
    }
    if (count > minRun && !started) {
      started = true;
      regionStart = i - count + 1;
    }
    if (count <= 0 && started) {
      out.regions.push_back({regionStart, i});
      started = false;
      count = 0;
    }
  }
  if (started) out.regions.push_back({regionStart, n});
  if (out.regions.empty()) {
    const int64_t delta = std::min(n, std::max<int64_t>(8, numSteps - n));
    const int64_t s = std::max<int64_t>(0, delta / 2);  // delta >= 0: floor == trunc
    const int64_t e = std::max(s + 1, std::min(n, n - delta / 2));
    out.regions.push_back({s, e});
    out.fellBack = true;
  }
  return out;
}

ReferenceRatio referenceRatio(std::span<const StepDetails> steps, std::span<const Region> regions) {
  ReferenceRatio r;
  int64_t sumPd = 0, sumSize = 0, bestSize = -1;
  for (size_t k = 0; k < regions.size(); ++k) {
    const Region& g = regions[k];
    int64_t pd = 0;
    for (int64_t i = g.start; i < g.end; ++i)
      if (steps[static_cast<size_t>(i)].prefillBearing()) ++pd;
    r.pdPerRegion.push_back(pd);
    sumPd += pd;
    sumSize += g.size();
    if (g.size() > bestSize) {
      bestSize = g.size();
      r.largestIndex = k;
      r.largest = g.size() > 0 ? static_cast<double>(pd) / static_cast<double>(g.size()) : 0.0;
    }
  }
  r.average = sumSize > 0 ? static_cast<double>(sumPd) / static_cast<double>(sumSize) : 0.0;
  return r;
}

int64_t candidateStride(int64_t numSteps) {
  const int64_t divider = std::max<int64_t>(1, std::min<int64_t>(numSteps / 2, 10));
  int64_t q = numSteps / divider;
  if ((numSteps % divider != 0) && ((numSteps < 0) != (divider < 0))) --q;  // floor division
  return std::max<int64_t>(1, q);
}

IdealRatio idealRatio(const ConcOslR& c) {
  IdealRatio out;
  if (!c.conc || !c.osl || !c.r) return out;
  out.applies = true;
  double r = *c.r;
  if (r < 0.0 || r > 1.0) {
    out.rClamped = true;
    r = std::max(0.0, std::min(1.0, r));
  }
  out.r = r;
  const double denom = *c.osl * (1.0 + r);
  if (denom == 0.0 || std::isnan(denom)) {
    out.divisionByZero = true;
    return out;
  }
  out.ideal = static_cast<double>(2 * *c.conc) / denom;
  if (out.ideal == 0.0 || std::isnan(out.ideal)) {
    out.divisionByZero = true;  // 1/ideal raises (ZeroDivisionError / ValueError from ceil(nan))
    return out;
  }
  const double inv = std::ceil(1.0 / out.ideal);
  out.minSteps = inv >= 9.2e18 ? INT64_MAX : inv <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(inv);
  return out;
}

namespace {

// Longest run of `target` labels inside `g`; strictly longer replaces.
std::optional<Region> longestRun(const std::vector<int>& labels, int target, const Region& g) {
  std::optional<Region> best;
  int64_t i = g.start;
  while (i < g.end) {
    if (labels[static_cast<size_t>(i)] != target) {
      ++i;
      continue;
    }
    int64_t j = i;
    while (j < g.end && labels[static_cast<size_t>(j)] == target) ++j;
    if (!best || j - i > best->size()) best = Region{i, j};
    i = j;
  }
  return best;
}

Region largestRegion(const std::vector<Region>& regions) {
  Region best = regions.front();
  for (const Region& g : regions)
    if (g.size() > best.size()) best = g;
  return best;
}

std::vector<Region> candidateWindows(const Region& g, int64_t n, int64_t stride) {
  std::vector<Region> out;
  if (g.end - g.start >= n) {
    for (int64_t s = g.start; s <= g.end - n; s += stride) out.push_back({s, s + n});
  } else {
    out.push_back(g);
  }
  return out;
}

/// §3.6 mixed: the pool is the candidates holding a prefill-bearing step (all of
/// them when none does); minimise (|pd_ratio - target|, -avg), earliest on ties.
void chooseMixedWindow(ModeSelection& sel) {
  bool anyPd =
      std::any_of(sel.candidates.begin(), sel.candidates.end(), [](const Candidate& c) { return c.pdCount > 0; });
  sel.poolFallback = !anyPd;
  const Candidate* best = nullptr;
  for (Candidate& cand : sel.candidates) {
    cand.eligible = !anyPd || cand.pdCount > 0;
    if (!cand.eligible) continue;
    if (!best || cand.distance < best->distance ||
        (cand.distance == best->distance && cand.avgRequests > best->avgRequests))
      best = &cand;
  }
  if (best) sel.window = best->window;
}

// The mixed window (§3.3–§3.5): the CONC/OSL/R target when given, every
// candidate window of the largest region with its score, the best one.
void mixedWindow(ModeSelection& sel, std::span<const StepDetails> steps, const ConcurrencyOptions& options) {
  const ConcOslR& c = options.conc;
  if (c.conc && *c.conc != sel.scan.peak)
    sel.warnings.push_back("CONC=" + std::to_string(*c.conc) + " differs from the observed global max concurrency " +
                           std::to_string(sel.scan.peak));
  IdealRatio ideal = idealRatio(c);
  if (ideal.applies) {
    if (ideal.rClamped) sel.warnings.push_back("R clamped into [0, 1]");
    if (ideal.divisionByZero) {
      sel.crashed = true;
      sel.warnings.push_back("division by zero computing the ideal ratio from CONC/OSL/R (the reference crashes here)");
      return;
    }
    if (sel.numStepsUsed < ideal.minSteps) sel.numStepsUsed = ideal.minSteps;
    sel.target = ideal.ideal;
    sel.idealUsed = true;
  }
  const int64_t n = sel.numStepsUsed;
  sel.stride = candidateStride(n);
  const auto windows = candidateWindows(sel.largest, n, sel.stride);
  sel.candidates.reserve(windows.size());
  for (const Region& w : windows) {
    Candidate cand;
    cand.window = w;
    int64_t sumReq = 0;
    for (int64_t i = w.start; i < w.end; ++i) {
      const StepDetails& s = steps[static_cast<size_t>(i)];
      if (s.prefillBearing()) ++cand.pdCount;
      sumReq += s.numRequests;
    }
    const auto len = static_cast<double>(w.size());
    cand.pdRatio = static_cast<double>(cand.pdCount) / len;
    cand.avgRequests = static_cast<double>(sumReq) / len;
    cand.distance = std::fabs(cand.pdRatio - sel.target);
    sel.candidates.push_back(cand);
  }
  chooseMixedWindow(sel);
}

// decode_only / max_prefilldecode (§3.6): the longest run of that phase in the largest region.
void phaseRunWindow(ModeSelection& sel, std::span<const StepDetails> steps, SteadyMode mode,
                    const ConcurrencyOptions& options) {
  // labels 1 = prefill_bearing, 0 = decode, 2 = idle (B18 fix only).
  std::vector<int> labels(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].prefillBearing())
      labels[i] = 1;
    else if (options.idleBreaksRuns && steps[i].generationRequests <= 0)
      labels[i] = 2;
    else
      labels[i] = 0;
  }
  const int target = mode == SteadyMode::DecodeOnly ? 0 : 1;
  sel.run = longestRun(labels, target, sel.largest);
  if (sel.run) sel.window = {sel.run->start, std::min(sel.run->end, sel.run->start + options.numSteps)};
}

}  // namespace

ModeSelection concurrencyFinder(std::span<const StepDetails> steps, SteadyMode mode,
                                const ConcurrencyOptions& options) {
  ModeSelection sel;
  sel.mode = mode;
  sel.finder = "concurrency";
  sel.numStepsUsed = options.numSteps;
  if (steps.empty()) return sel;
  std::vector<int64_t> req(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) req[i] = steps[i].numRequests;
  sel.scan = scanRegions(req, options.numSteps, 5);
  if (sel.scan.fellBack)
    sel.warnings.push_back(
        "no steady state region found; discarding initial/final iterations and selecting middle region");
  sel.ratio = referenceRatio(steps, sel.scan.regions);
  sel.largest = sel.scan.regions[sel.ratio.largestIndex];
  sel.target = options.useLargestRegionRatio ? sel.ratio.largest : sel.ratio.average;

  if (mode == SteadyMode::Mixed)
    mixedWindow(sel, steps, options);
  else
    phaseRunWindow(sel, steps, mode, options);
  return sel;
}

namespace {

/// The durations of a sliding window, kept sorted so that the sums are
/// order-independent (equal multisets give equal results); each slide moves
/// one value out and one in instead of sorting the window anew.
class SortedWindow {
 public:
  SortedWindow(std::span<const double> all, size_t size) : all_(all), size_(size), w_(all.begin(), all.begin() + size) {
    anyNaN_ = std::any_of(all.begin(), all.end(), [](double x) { return std::isnan(x); });
    sortAll();
  }
  auto begin() const { return w_.begin(); }
  auto end() const { return w_.end(); }
  void slide() {
    if (++from_ + size_ > all_.size()) return;
    if (anyNaN_) {  // no order to keep: copy and sort as a plain window
      std::copy(all_.begin() + from_, all_.begin() + from_ + size_, w_.begin());
      sortAll();
      return;
    }
    w_.erase(std::lower_bound(w_.begin(), w_.end(), all_[from_ - 1]));
    const double in = all_[from_ + size_ - 1];
    w_.insert(std::upper_bound(w_.begin(), w_.end(), in), in);
  }

 private:
  void sortAll() { std::sort(w_.begin(), w_.end()); }
  std::span<const double> all_;
  size_t size_, from_ = 0;
  std::vector<double> w_;
  bool anyNaN_ = false;
};

}  // namespace

DurationSelection durationFinder(std::span<const double> durations, int64_t numSteps) {
  DurationSelection out;
  const auto n = static_cast<int64_t>(durations.size());
  if (n == 0) return out;
  const int64_t scan = std::min(std::max<int64_t>(numSteps, 4), n);
  out.scan = scan;
  int64_t bestPass = -1, bestAny = -1;
  double bestPassMean = 0, bestAnyCv = 0, passMeanCv = 0, anyMean = 0;
  SortedWindow w(durations, static_cast<size_t>(scan));
  for (int64_t s = 0; s + scan <= n; ++s, w.slide()) {
    long double sum = 0;
    for (double x : w) sum += x;
    const double mean = static_cast<double>(sum / static_cast<long double>(scan));
    long double ss = 0;
    const long double m = sum / static_cast<long double>(scan);
    for (double x : w) ss += (x - m) * (x - m);
    const double pstdev = static_cast<double>(std::sqrt(ss / static_cast<long double>(scan)));
    const double cv = mean == 0.0 ? 0.0 : pstdev / mean;
    if (cv < 0.15 && (bestPass < 0 || mean < bestPassMean)) {
      bestPass = s;
      bestPassMean = mean;
      passMeanCv = cv;
    }
    if (bestAny < 0 || cv < bestAnyCv) {
      bestAny = s;
      bestAnyCv = cv;
      anyMean = mean;
    }
  }
  int64_t bs = bestPass >= 0 ? bestPass : bestAny;
  out.passed = bestPass >= 0;
  out.mean = bestPass >= 0 ? bestPassMean : anyMean;
  out.cv = bestPass >= 0 ? passMeanCv : bestAnyCv;
  out.best = {bs, bs + scan};
  if (numSteps < scan) {
    const int64_t c = (out.best.start + out.best.end) / 2;
    const int64_t h = numSteps / 2;
    int64_t fs = std::max(out.best.start, c - h);
    const int64_t fe = std::min(fs + numSteps, n);
    fs = std::max<int64_t>(0, fe - numSteps);
    out.window = {fs, fe};
  } else {
    out.window = out.best;
  }
  return out;
}

std::vector<bool> classifyPrefillBearing(std::span<const std::optional<int64_t>> bs, std::optional<int64_t> maxNumSeq) {
  std::vector<bool> pb(bs.size(), false);
  bool any = std::any_of(bs.begin(), bs.end(), [](const auto& v) { return v.has_value(); });
  if (!any) return pb;
  std::optional<int64_t> threshold;
  if (maxNumSeq) {
    threshold = maxNumSeq;
  } else {
    std::set<int64_t> distinct;
    for (const auto& v : bs)
      if (v && *v > 0) distinct.insert(*v);
    std::vector<int64_t> u(distinct.begin(), distinct.end());
    if (u.size() >= 4 && std::any_of(u.begin() + 2, u.end(), [](int64_t x) { return x <= 64; }))
      u.erase(u.begin(), u.begin() + 2);
    if (u.size() >= 2) {
      double bestRatio = -1;
      size_t bi = 0;
      for (size_t i = 0; i + 1 < u.size(); ++i) {
        double ratio = static_cast<double>(u[i + 1]) / static_cast<double>(u[i]);
        if (ratio > bestRatio) {
          bestRatio = ratio;
          bi = i;
        }
      }
      if (bestRatio >= 2.0) threshold = u[bi];
    }
  }
  for (size_t i = 0; i < bs.size(); ++i) pb[i] = bs[i].has_value() && threshold.has_value() && *bs[i] > *threshold;
  return pb;
}

namespace {

// The shape finder's regions (§3.7.3): the decode steps' batch-size regions,
// widened over the prefill-bearing steps beside them.
void shapeRegions(std::span<const std::optional<int64_t>> bs, const std::vector<bool>& pb, int64_t numSteps,
                  ModeSelection& sel) {
  const auto n = static_cast<int64_t>(bs.size());
  std::vector<int64_t> decodeIdx, decodeBs;
  for (int64_t i = 0; i < n; ++i) {
    if (pb[static_cast<size_t>(i)]) continue;
    decodeIdx.push_back(i);
    if (bs[static_cast<size_t>(i)]) decodeBs.push_back(*bs[static_cast<size_t>(i)]);
  }
  if (decodeBs.empty()) {
    sel.scan.regions.push_back({0, std::min(numSteps, n)});
  } else {
    RegionScan ds = scanRegions(decodeBs, numSteps, 1);
    sel.scan.peak = ds.peak;
    sel.scan.fellBack = ds.fellBack;
    if (ds.fellBack)
      sel.warnings.push_back(
          "no steady state (decode baseline) region found; discarding initial/final iterations and selecting middle "
          "region");
    const auto nd = static_cast<int64_t>(decodeIdx.size());
    for (const Region& g : ds.regions) {
      int64_t start = decodeIdx[static_cast<size_t>(g.start)];
      int64_t end = decodeIdx[static_cast<size_t>(std::min(g.end - 1, nd - 1))] + 1;
      while (start > 0 && pb[static_cast<size_t>(start - 1)]) --start;
      while (end < n && pb[static_cast<size_t>(end)]) ++end;
      sel.scan.regions.push_back({start, end});
    }
  }
}

}  // namespace

ModeSelection shapeFinder(std::span<const std::optional<int64_t>> bs, SteadyMode mode, int64_t numSteps,
                          std::optional<int64_t> maxNumSeq) {
  ModeSelection sel;
  sel.mode = mode;
  sel.finder = "shapes";
  sel.numStepsUsed = numSteps;
  const auto n = static_cast<int64_t>(bs.size());
  if (n == 0) return sel;
  std::vector<bool> pb = classifyPrefillBearing(bs, maxNumSeq);
  shapeRegions(bs, pb, numSteps, sel);
  sel.largest = largestRegion(sel.scan.regions);
  sel.stride = candidateStride(numSteps);
  if (mode == SteadyMode::Mixed) {
    int64_t pbCount = 0;
    for (int64_t i = sel.largest.start; i < sel.largest.end; ++i) pbCount += pb[static_cast<size_t>(i)];
    sel.target = sel.largest.size() > 0 ? static_cast<double>(pbCount) / static_cast<double>(sel.largest.size()) : 0.0;
    for (const Region& w : candidateWindows(sel.largest, numSteps, sel.stride)) {
      Candidate cand;
      cand.window = w;
      int64_t sum = 0, cnt = 0;
      for (int64_t i = w.start; i < w.end; ++i) {
        cand.pdCount += pb[static_cast<size_t>(i)];
        if (bs[static_cast<size_t>(i)]) {
          sum += *bs[static_cast<size_t>(i)];
          ++cnt;
        }
      }
      cand.pdRatio = static_cast<double>(cand.pdCount) / static_cast<double>(w.size());
      cand.avgRequests = cnt ? static_cast<double>(sum) / static_cast<double>(cnt) : 0.0;  // avg_bs
      cand.distance = std::fabs(cand.pdRatio - sel.target);
      sel.candidates.push_back(cand);
    }
    chooseMixedWindow(sel);
    return sel;
  }
  std::vector<int> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = pb[static_cast<size_t>(i)] ? 1 : 0;
  sel.run = longestRun(labels, mode == SteadyMode::DecodeOnly ? 0 : 1, sel.largest);
  if (sel.run) sel.window = {sel.run->start, std::min(sel.run->end, sel.run->start + numSteps)};
  return sel;
}

}  // namespace steadyscope::analysis
