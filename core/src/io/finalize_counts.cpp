// Counts per ph and per category, the trace's span and the per-event anomalies.
#include "io/finalize.hpp"

#include <algorithm>
#include <string>

namespace steadyscope::io {

namespace {

void storeCounts(Trace& tr, const std::array<uint64_t, 11>& phCount, const std::vector<uint64_t>& catCount) {
  for (size_t k = 0; k < phCount.size(); ++k) {
    if (!phCount[k]) continue;
    Ph ph = static_cast<Ph>(k);
    std::string key = ph == Ph::Missing ? "None" : ph == Ph::Other ? "other" : phName(ph);
    tr.stats.perPh[key] += phCount[k];
  }
  for (size_t c = 0; c < catCount.size(); ++c) {
    if (!catCount[c]) continue;
    std::string key = tr.categories[c] == kNoStr ? "None" : std::string(tr.strings.view(tr.categories[c]));
    tr.stats.perCat[key] += catCount[c];
    if (isGpuWork(tr.categoryClass[c])) tr.stats.gpuEvents += catCount[c];
  }
}

}  // namespace

void countEvents(Trace& tr, Anomalies& anomalies) {
  const size_t n = tr.size();
  std::vector<uint64_t> catCount(tr.categories.size(), 0);
  std::array<uint64_t, 11> phCount{};
  int64_t firstTs = INT64_MAX, lastEnd = INT64_MIN;
  for (EventIdx i = 0; i < n; ++i) {
    Ph ph = tr.ph[i];
    ++phCount[static_cast<size_t>(ph)];
    ++catCount[tr.cat[i]];
    uint16_t fl = tr.flags[i];
    if (ph == Ph::Missing)
      addAnomaly(anomalies, A_PhMissing, i);
    else if (ph == Ph::Other)
      addAnomaly(anomalies, A_PhUnknown, i);
    if (ph == Ph::Complete && !(fl & ev::HasDur)) addAnomaly(anomalies, A_DurMissing, i);
    if ((fl & ev::HasDur) && tr.durNs[i] < 0) addAnomaly(anomalies, A_DurNegative, i);
    if (ph != Ph::Metadata && !(fl & ev::HasTs)) addAnomaly(anomalies, A_TsMissing, i);
    if (!inLane(fl, ph)) tr.depth[i] = 0;  // the depth stage writes the others
    if (ph != Ph::Metadata && (fl & ev::HasTs) && tr.tsNs[i] > 0) {
      firstTs = std::min(firstTs, tr.tsNs[i]);
      int64_t d = (fl & ev::HasDur) && tr.durNs[i] > 0 ? tr.durNs[i] : 0;
      lastEnd = std::max(lastEnd, tr.tsNs[i] + d);
    }
  }
  storeCounts(tr, phCount, catCount);
  tr.stats.firstTsNs = firstTs == INT64_MAX ? 0 : firstTs;
  tr.stats.lastEndNs = lastEnd == INT64_MIN ? 0 : lastEnd;
}

}  // namespace steadyscope::io
