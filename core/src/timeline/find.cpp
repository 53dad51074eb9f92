#include <steadyscope/core/timeline/find.hpp>

#include <algorithm>
#include <cmath>

namespace steadyscope::timeline {

std::vector<uint8_t> matchNames(const StringPool& pool, const std::function<bool(std::string_view)>& matches) {
  std::vector<uint8_t> hit(pool.size(), 0);
  for (size_t s = 1; s < pool.size(); ++s) {
    const std::string_view v = pool.view(StrId(s));
    if (!v.empty() && matches(v)) hit[s] = 1;
  }
  return hit;
}

namespace {
// The rows' matches are each in start order: a k-way merge by (ts, file order)
// instead of sorting them all (a few rows, millions of matches).
void mergeRows(const Trace& trace, const TimelineIndex& index, FindResults& out) {
  using Head = std::pair<size_t, size_t>;  // (row, position in rowMatches[row])
  auto later = [&](const Head& a, const Head& b) {
    const EventIdx ea = index.rows[a.first].events[out.rowMatches[a.first][a.second]];
    const EventIdx eb = index.rows[b.first].events[out.rowMatches[b.first][b.second]];
    return trace.tsNs[ea] != trace.tsNs[eb] ? trace.tsNs[ea] > trace.tsNs[eb] : ea > eb;
  };
  std::vector<Head> heap;
  for (size_t r = 0; r < out.rowMatches.size(); ++r)
    if (!out.rowMatches[r].empty()) heap.emplace_back(r, 0);
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Head& h = heap.back();
    out.events.push_back(index.rows[h.first].events[out.rowMatches[h.first][h.second]]);
    if (++h.second < out.rowMatches[h.first].size())
      std::push_heap(heap.begin(), heap.end(), later);
    else
      heap.pop_back();
  }
}
}  // namespace

namespace {
// The drawn events `hit` accepts, row by row, with their per-name figures.
template <class Hit>
FindResults collectMatches(const Trace& trace, const TimelineIndex& index, Hit hit) {
  FindResults out;
  out.rowMatches.resize(index.rows.size());
  out.rowStarts.resize(index.rows.size());
  std::vector<NameStats> byName(trace.strings.size());  // per StrId: cheaper than a hash map per match
  size_t total = 0;
  for (size_t r = 0; r < index.rows.size(); ++r) {
    const SliceRow& row = index.rows[r];
    for (uint32_t k = 0; k < row.events.size(); ++k) {
      if (!hit(row.events[k])) continue;
      const StrId name = trace.name[row.events[k]];
      out.rowMatches[r].push_back(k);
      out.rowStarts[r].push_back(row.start[k]);
      const int64_t d = row.end[k] - row.start[k];
      out.totalNs += d;
      if (name >= byName.size()) continue;
      NameStats& s = byName[name];
      if (s.count == 0) s.name = name, s.minNs = s.maxNs = d;
      s.minNs = std::min(s.minNs, d);
      s.maxNs = std::max(s.maxNs, d);
      ++s.count;
      s.totalNs += d;
    }
    total += out.rowMatches[r].size();
  }
  out.events.reserve(total);
  mergeRows(trace, index, out);
  for (const NameStats& s : byName)
    if (s.count) out.perName.push_back(s);
  std::sort(out.perName.begin(), out.perName.end(), [](const NameStats& a, const NameStats& b) {
    return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
  });
  return out;
}
}  // namespace

FindResults findEvents(const Trace& trace, const TimelineIndex& index, const std::vector<uint8_t>& nameHit) {
  FindResults out = collectMatches(trace, index, [&](EventIdx e) {
    const StrId name = trace.name[e];
    return name < nameHit.size() && nameHit[name];
  });
  out.nameHit = nameHit;
  return out;
}

FindResults findEventSet(const Trace& trace, const TimelineIndex& index, const std::vector<EventIdx>& events) {
  std::vector<uint8_t> mask(trace.size(), 0);
  for (EventIdx e : events)
    if (e < mask.size()) mask[e] = 1;
  FindResults out = collectMatches(trace, index, [&](EventIdx e) { return mask[e] != 0; });
  out.eventHit = std::move(mask);
  return out;
}

void appendRowMatchMarks(const TimelineIndex& index, const FindResults& found, uint32_t rowId, const TimeMapper& map,
                         std::vector<MatchMark>& out) {
  if (rowId >= found.rowMatches.size() || rowId >= index.rows.size()) return;
  const std::vector<uint32_t>& m = found.rowMatches[rowId];
  const std::vector<int64_t>& st = found.rowStarts[rowId];
  const SliceRow& row = index.rows[rowId];
  if (m.empty()) return;
  const double w = map.widthPx();
  const int64_t endNs = map.endNs();
  const uint32_t p0 = uint32_t(row.firstOverlapping(map.beginNs()));
  size_t k = size_t(std::lower_bound(m.begin(), m.end(), p0) - m.begin());
  auto startOf = [&](size_t j) { return st[j]; };
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
      // Galloping from here: a dense column costs the log of its matches, not of the row's.
      size_t lo = k + 1, step = 1, hi = k + 1;
      while (hi < m.size() && st[hi] < next) {
        lo = hi + 1;
        hi = std::min(m.size(), hi + (step *= 2));
      }
      k = size_t(std::lower_bound(st.begin() + ptrdiff_t(lo), st.begin() + ptrdiff_t(hi), next) - st.begin());
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
