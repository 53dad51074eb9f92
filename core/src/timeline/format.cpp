#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/timeline/overlays.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace steadyscope::timeline {

const char* stepKindName(StepKind k) {
  switch (k) {
    case StepKind::DecodeOnly: return "decode-only";
    case StepKind::PrefillDecode: return "prefill-decode";
    case StepKind::PrefillOnly: return "prefill-only";
    case StepKind::Generic: return "generic step";
  }
  return "generic step";
}

size_t TimelineOverlays::firstStepEndingAfter(int64_t t) const {
  return size_t(
      std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const StepBand& s) { return v < s.endNs; }) -
      steps.begin());
}

int64_t TimelineOverlays::stepAt(int64_t t) const {
  const size_t i = firstStepEndingAfter(t);
  if (i < steps.size() && steps[i].beginNs <= t) return int64_t(i);
  return -1;
}

namespace {
std::string withUnit(double v, const char* unit) {
  char buf[64];
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 1 : a >= 10 ? 2 : 3;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit);
  return buf;
}
}  // namespace

std::string formatDuration(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
  }
  if (a < 1e6) return withUnit(ns / 1e3, "\xC2\xB5s");
  if (a < 1e9) return withUnit(ns / 1e6, "ms");
  return withUnit(ns / 1e9, "s");
}

std::string formatCount(uint64_t n) {
  std::string digits = std::to_string(n), out;
  int k = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (k && k % 3 == 0) out.push_back(',');
    out.push_back(*it);
    ++k;
  }
  return {out.rbegin(), out.rend()};
}

std::string formatCountOf(uint64_t n, std::string_view one, std::string_view many) {
  return formatCount(n) + ' ' + std::string(n == 1 ? one : many);
}

std::string formatRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", r);
  return buf;
}

double niceTickStep(double nsPerPx, double minPx) {
  const double raw = std::max(nsPerPx * minPx, 1.0);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10.0 * mag;
}

std::string formatTick(double relNs, double stepNs) {
  const char* unit = "ns";
  double div = 1.0;
  if (stepNs >= 1e8) {
    unit = "s";
    div = 1e9;
  } else if (stepNs >= 1e5) {
    unit = "ms";
    div = 1e6;
  } else if (stepNs >= 1e2) {
    unit = "\xC2\xB5s";
    div = 1e3;
  }
  const double stepInUnit = stepNs / div;
  int decimals = 0;
  while (decimals < 6 &&
         std::fabs(stepInUnit * std::pow(10.0, decimals) - std::round(stepInUnit * std::pow(10.0, decimals))) > 1e-6)
    ++decimals;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, relNs / div, unit);
  return buf;
}

int64_t TimelineOverlays::positionOfStep(int32_t index) const {
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].index == index) return int64_t(i);
  return -1;
}

int TimelineOverlays::chunkRow(size_t chunk) const {
  if (chunk >= chunks.size()) return -1;
  std::vector<const std::string*> seen;
  for (size_t c = 0; c <= chunk; ++c) {
    const auto it = std::find_if(seen.begin(), seen.end(), [&](const std::string* m) { return *m == chunks[c].mode; });
    if (c == chunk) return it == seen.end() ? int(seen.size()) : int(it - seen.begin());
    if (it == seen.end()) seen.push_back(&chunks[c].mode);
  }
  return -1;
}

int TimelineOverlays::chunkRowCount() const {
  int rows = 0;
  for (size_t c = 0; c < chunks.size(); ++c) rows = std::max(rows, chunkRow(c) + 1);
  return rows;
}

}  // namespace steadyscope::timeline
