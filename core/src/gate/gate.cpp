// The chunk-quality gate: read each family's first row (§6.4), decide as the
// pipeline does (decide.cpp), summarise the families, add the findings
// (findings.cpp) and apply --strict.
#include "internal.hpp"

#include <algorithm>

namespace steadyscope::gate {

namespace {

detail::Readings readRows(const GateInput& in) {
  detail::Readings rd;
  for (Mode m : kAllModes)
    if (in.listing.count(m) > 0 && in.rows[modeIndex(m)]) rd[modeIndex(m)] = readRow(*in.rows[modeIndex(m)]);
  return rd;
}

std::vector<ChunkSummary> summarize(const GateInput& in, const GateOptions& opt, const detail::Readings& rd,
                                    const GateResult& res) {
  std::vector<ChunkSummary> out;
  for (Mode m : kAllModes) {
    ChunkSummary c;
    c.mode = m;
    c.listed = in.listing.count(m);
    if (c.listed) c.chunk = in.listing.of(m).front();
    c.row = in.rows[modeIndex(m)];
    c.match = c.row ? in.rowMatch[modeIndex(m)] : RowMatch::None;
    c.reading = rd[modeIndex(m)];
    c.selected = c.listed && m == opt.mode && !res.selectedChunk.empty();
    c.offered = std::find(res.nonEmptyModes.begin(), res.nonEmptyModes.end(), modeName(m)) != res.nonEmptyModes.end();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

GateResult evaluateGate(const GateInput& in, const GateOptions& opt) {
  const detail::Readings rd = readRows(in);
  GateResult res = detail::decide(in, opt, rd);
  res.chunks = summarize(in, opt, rd, res);
  if (!in.splitRefusal.empty()) {
    Finding f;
    f.code = "split_refused";
    f.affectsVerdict = false;  // the pipeline's verdict is the missing chunk; this says why
    f.sentence = in.splitRefusal;
    res.findings.insert(res.findings.begin(), std::move(f));
  }
  detail::addRowFindings(in, opt, rd, res);
  finalizeStrict(res);
  return res;
}

}  // namespace steadyscope::gate
