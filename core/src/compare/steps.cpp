// Which steps each side compares: the steady-state chunk's when both sides
// have one, else every step, or the ranges the user picked; then both cut to
// the same count so that step i of A faces step i of B.
#include <steadyscope/compare.hpp>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

namespace steadyscope::compare {

namespace {

std::optional<size_t> parseIndex(std::string_view s) {
  size_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

int64_t usToNs(double us) { return std::llround(us * 1000.0); }

// The first steady-state chunk's roots (mixed for serving traces, the one window otherwise).
const std::vector<size_t>* steadyRoots(const analysis::SplitResult& s) {
  for (const auto& c : s.chunks)
    if (c.kind == analysis::ChunkKind::SteadyState && !c.roots.empty()) return &c.roots;
  return nullptr;
}

// A step's window of launch times: its gap-filled tile, else its own span.
SideSteps::Window windowOf(const analysis::RootInfo& r) {
  if (r.tile) return {usToNs(r.tile->a.asDouble()), usToNs(r.tile->b.asDouble()), r.durUs};
  return {usToNs(r.tsUs), usToNs(r.tsUs + r.durUs), r.durUs};
}

std::string rangeText(size_t b, size_t e) { return std::to_string(b) + ":" + std::to_string(e); }

Error sideError(const Trace& t, std::string message) {
  return makeError(Error::Kind::Format, t.path, std::move(message));
}

Expected<SideSteps> sideSteps(const Trace& t, const analysis::SplitResult& s, const std::optional<StepRange>& range,
                              bool useSteady) {
  if (s.outcome == analysis::SplitOutcome::NoGpuWork)
    return sideError(t, "no GPU work (kernels, memcpys, memsets) to compare");
  if (s.outcome == analysis::SplitOutcome::Error) return sideError(t, "the split failed: " + s.error);
  SideSteps out;
  const size_t n = s.roots.size();
  out.totalSteps = n;
  if (n == 0)
    return sideError(t,
                     "no steps found (no ProfilerStep#N, step annotation or call-tree step); "
                     "--whole-trace compares every GPU event");
  std::vector<size_t> picked;
  if (range) {
    const size_t b = range->begin.value_or(0), e = range->end.value_or(n);
    if (b >= e || e > n)
      return sideError(t, "steps " + rangeText(b, e) + " out of range: the trace has " + std::to_string(n) +
                              " steps (" + rangeText(0, n) + ")");
    for (size_t k = b; k < e; ++k) picked.push_back(k);
    out.source = "range";
  } else if (const std::vector<size_t>* steady = useSteady ? steadyRoots(s) : nullptr) {
    picked = *steady;
    out.source = "steady_state";
  } else {
    for (size_t k = 0; k < n; ++k) picked.push_back(k);
    out.source = "all_steps";
  }
  out.first = picked.front();
  for (size_t k : picked) out.windows.push_back(windowOf(s.roots[k]));
  out.available = out.windows.size();
  return out;
}

SideSteps wholeTraceSteps(const Trace& t) {
  SideSteps out;
  out.source = "whole_trace";
  const double spanUs = static_cast<double>(t.stats.lastEndNs - t.stats.firstTsNs) / 1000.0;
  out.windows.push_back({INT64_MIN, INT64_MAX, spanUs});
  out.available = 1;
  return out;
}

}  // namespace

std::optional<StepRange> parseStepRange(std::string_view text) {
  if (text == "all") return StepRange{};
  const size_t colon = text.find(':');
  if (colon == text.npos) {
    auto k = parseIndex(text);
    if (!k) return std::nullopt;
    return StepRange{*k, *k + 1};
  }
  StepRange r;
  const std::string_view lo = text.substr(0, colon), hi = text.substr(colon + 1);
  if (!lo.empty() && !(r.begin = parseIndex(lo))) return std::nullopt;
  if (!hi.empty() && !(r.end = parseIndex(hi))) return std::nullopt;
  return r;
}

Expected<std::pair<SideSteps, SideSteps>> chooseSteps(const Trace& a, const analysis::SplitResult* splitA,
                                                      const Trace& b, const analysis::SplitResult* splitB,
                                                      const CompareOptions& options) {
  if (options.wholeTrace) return std::pair{wholeTraceSteps(a), wholeTraceSteps(b)};
  if (!splitA || !splitB)
    return makeError(Error::Kind::Internal, splitA ? b.path : a.path, "no split to take the steps from");
  const bool bothSteady = steadyRoots(*splitA) && steadyRoots(*splitB);
  auto sa = sideSteps(a, *splitA, options.stepsA, bothSteady);
  if (!sa) return sa.error();
  auto sb = sideSteps(b, *splitB, options.stepsB, bothSteady);
  if (!sb) return sb.error();
  const size_t n = std::min(sa->windows.size(), sb->windows.size());
  sa->windows.resize(n);
  sb->windows.resize(n);
  return std::pair{std::move(sa.value()), std::move(sb.value())};
}

}  // namespace steadyscope::compare
