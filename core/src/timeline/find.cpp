#include <steadyscope/core/timeline/find.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace steadyscope::timeline {

std::vector<uint8_t> matchNames(const StringPool& pool, const std::function<bool(std::string_view)>& matches) {
  std::vector<uint8_t> hit(pool.size(), 0);
  for (size_t s = 1; s < pool.size(); ++s) {
    const std::string_view v = pool.view(StrId(s));
    if (!v.empty() && matches(v)) hit[s] = 1;
  }
  return hit;
}

FindResults findEvents(const Trace& trace, const TimelineIndex& index, const std::vector<uint8_t>& nameHit) {
  FindResults out;
  out.rowMatches.resize(index.rows.size());
  out.nameHit = nameHit;
  std::unordered_map<StrId, NameStats> acc;
  auto hit = [&](EventIdx e) { return trace.name[e] < nameHit.size() && nameHit[trace.name[e]]; };
  for (size_t r = 0; r < index.rows.size(); ++r) {
    const SliceRow& row = index.rows[r];
    for (uint32_t k = 0; k < row.events.size(); ++k) {
      const EventIdx e = row.events[k];
      if (!hit(e)) continue;
      out.rowMatches[r].push_back(k);
      out.events.push_back(e);
      const int64_t d = row.end[k] - row.start[k];
      out.totalNs += d;
      NameStats& s = acc[trace.name[e]];
      if (s.count == 0) s.name = trace.name[e], s.minNs = s.maxNs = d;
      s.minNs = std::min(s.minNs, d);
      s.maxNs = std::max(s.maxNs, d);
      ++s.count;
      s.totalNs += d;
    }
  }
  std::sort(out.events.begin(), out.events.end(), [&](EventIdx a, EventIdx b) {
    return trace.tsNs[a] != trace.tsNs[b] ? trace.tsNs[a] < trace.tsNs[b] : a < b;
  });
  for (auto& [k, v] : acc) out.perName.push_back(v);
  std::sort(out.perName.begin(), out.perName.end(), [](const NameStats& a, const NameStats& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
  });
  return out;
}

void appendRowMatchMarks(const TimelineIndex& index, const FindResults& found, uint32_t rowId, const TimeMapper& map,
                         std::vector<MatchMark>& out) {
  if (rowId >= found.rowMatches.size() || rowId >= index.rows.size()) return;
  const std::vector<uint32_t>& m = found.rowMatches[rowId];
  const SliceRow& row = index.rows[rowId];
  if (m.empty()) return;
  const double w = map.widthPx();
  const int64_t endNs = map.endNs();
  const uint32_t p0 = uint32_t(row.firstOverlapping(map.beginNs()));
  size_t k = size_t(std::lower_bound(m.begin(), m.end(), p0) - m.begin());
  auto startOf = [&](size_t j) { return row.start[m[j]]; };
  while (k < m.size() && startOf(k) <= endNs) {
    const double x0 = map.toPx(startOf(k)), x1 = map.toPx(row.end[m[k]]);
    if (x1 < -10.0) {
      ++k;
      continue;
    }
    float a = float(std::max(-10.0, x0)), b = float(std::min(w + 10.0, x1));
    if (x1 - x0 < 1.0) {
      // Narrow matches: one mark for the pixel column, then jump past it.
      const double col = std::floor(x0);
      a = float(col);
      b = float(col + 1.0);
      const int64_t next = map.nsAt(col + 1.0);
      k = size_t(std::lower_bound(m.begin() + ptrdiff_t(k + 1), m.end(), next,
                                  [&](uint32_t pos, int64_t t) { return row.start[pos] < t; }) -
                 m.begin());
    } else {
      ++k;
    }
    if (!out.empty() && a <= out.back().x1 + 0.5f && out.back().x0 <= a)
      out.back().x1 = std::max(out.back().x1, b);  // touching marks drawn once
    else
      out.push_back({a, b});
  }
}

size_t firstMatchFrom(const Trace& trace, const FindResults& found, int64_t ts) {
  return size_t(std::lower_bound(found.events.begin(), found.events.end(), ts,
                                 [&](EventIdx e, int64_t t) { return trace.tsNs[e] < t; }) -
                found.events.begin());
}

}  // namespace steadyscope::timeline
