#pragma once
// Template bodies for annotation.hpp (included from there).
namespace steadyscope::analysis {

namespace detail {
__extension__ typedef __int128 Int128;
// int(mean(values)) of Python ints: exact floor for non-negative sums,
// truncation toward zero otherwise.
inline int64_t intMean(Int128 sum, int64_t n) {
  if (n <= 0) return 0;
  Int128 q = sum / n;  // C++ truncates toward zero, like int() of the exact mean
  return static_cast<int64_t>(q);
}
}  // namespace detail

template <typename It>
PhaseSummary summarizePhase(It first, It last) {
  PhaseSummary p;
  detail::Int128 bs = 0, req = 0;
  int64_t n = 0;
  for (It it = first; it != last; ++it) {
    const StepDetails& s = *it;
    if (s.prefillOnly())
      ++p.numPrefill;
    else if (s.prefillDecode())
      ++p.numPrefillDecode;
    else if (s.decodeOnly())
      ++p.numDecode;
    bs += s.batchSize;
    req += s.numRequests;
    ++n;
  }
  p.avgBs = detail::intMean(bs, n);
  p.avgConc = detail::intMean(req, n);
  return p;
}

}  // namespace steadyscope::analysis
