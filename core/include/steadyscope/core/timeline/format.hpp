#pragma once
// Number and time formatting shared by the timeline, the panes and the CLI:
// units chosen by magnitude (ns/µs/ms/s), thousands separators, axis ticks.
#include <cstdint>
#include <string>
#include <string_view>

namespace steadyscope::timeline {

/// "850 ns", "12.3 µs", "4.56 ms", "1.234 s" (3 significant digits or more).
std::string formatDuration(double ns);
/// "1,234,567".
std::string formatCount(uint64_t n);
/// "1 step", "0 steps", "1,234 steps": the count and the noun's form that agrees with it.
std::string formatCountOf(uint64_t n, std::string_view one, std::string_view many);
/// "0.031" (3 decimals).
std::string formatRatio(double r);

/// A round tick step (1, 2, 5 x 10^k ns) so ticks are at least `minPx` apart.
double niceTickStep(double nsPerPx, double minPx);
/// Label of a tick at `relNs` from the origin, precise enough for `stepNs`.
std::string formatTick(double relNs, double stepNs);

}  // namespace steadyscope::timeline
