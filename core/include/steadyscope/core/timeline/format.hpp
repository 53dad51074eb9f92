#pragma once
// Number and time formatting shared by the timeline, the panes and the CLI:
// units chosen by magnitude (ns/µs/ms/s), thousands separators, axis ticks.
#include <cstdint>
#include <string>

namespace steadyscope::timeline {

/// "850 ns", "12.3 µs", "4.56 ms", "1.234 s" (3 significant digits or more).
std::string formatDuration(double ns);
/// "1,234,567".
std::string formatCount(uint64_t n);
/// "0.031" (3 decimals).
std::string formatRatio(double r);

/// A round tick step (1, 2, 5 x 10^k ns) so ticks are at least `minPx` apart.
double niceTickStep(double nsPerPx, double minPx);
/// Label of a tick at `relNs` from the origin, precise enough for `stepNs`.
std::string formatTick(double relNs, double stepNs);

}  // namespace steadyscope::timeline
