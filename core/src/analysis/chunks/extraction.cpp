// Stage 3: tiles, chunk selection, statistics, chunk files (spec §4.1–§4.5).
#include "analysis/chunks/extraction.hpp"
#include <steadyscope/core/util/atomic_file.hpp>
#include "analysis/pyfmt.hpp"
#include "util/big_alloc.hpp"

#include <isa-l/igzip_lib.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace steadyscope::analysis {

namespace {

PyNum pyMax(const PyNum& a, const PyNum& b) { return b > a ? b : a; }

PyNum pyMedian(Column<PyNum>& v) {  // reorders v
  const size_t n = v.size();
  // Python's statistics.median sorts stably: 5 and 5.0 tie, and which one lands
  // in the middle decides int vs real. When no two distinct values can tie —
  // all ints, or all reals that are neither zero (0.0 == -0.0) nor NaN —
  // equal values are identical, so a selection gives the sort's middle elements.
  bool allInt = true, allPlainReal = true;
  for (const PyNum& x : v) {
    if (x.isInt) {
      allPlainReal = false;
    } else {
      allInt = false;
      if (x.d == 0.0 || x.d != x.d) allPlainReal = false;
    }
  }
  auto less = [](const PyNum& x, const PyNum& y) { return x < y; };
  if (allInt || allPlainReal) {
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(v.begin(), mid, v.end(), less);
    if (n % 2) return *mid;
    const PyNum lower = *std::max_element(v.begin(), mid, less);
    return PyNum::fromReal((lower + *mid).asDouble() / 2.0);
  }
  std::stable_sort(v.begin(), v.end(), less);
  if (n % 2) return v[n / 2];
  return PyNum::fromReal((v[n / 2 - 1] + v[n / 2]).asDouble() / 2.0);
}

}  // namespace

TileSet buildTiles(const EventIndex& index, const RootList& roots) {
  const Trace& t = index.trace();
  TileSet out;
  std::vector<uint32_t> laneOrder;
  std::unordered_map<uint32_t, std::vector<uint32_t>> groups;  // lane -> root positions
  for (size_t k = 0; k < roots.size(); ++k) {
    const uint32_t lane = t.lane[roots[k]];
    auto [it, fresh] = groups.try_emplace(lane);
    if (fresh) laneOrder.push_back(lane);
    it->second.push_back(static_cast<uint32_t>(k));
  }
  // Lanes in id order: the entries then come out sorted by (lane, ts).
  std::sort(laneOrder.begin(), laneOrder.end());
  out.entries.reserve(roots.size());
  auto tsOf = [&](uint32_t k) { return index.tsPy(roots[k]); };
  auto endOf = [&](uint32_t k) { return roots.endPy(index, k); };
  for (uint32_t lane : laneOrder) {
    auto& g = groups[lane];
    auto byTs = [&](uint32_t a, uint32_t b) { return tsOf(a) < tsOf(b); };
    if (!std::is_sorted(g.begin(), g.end(), byTs)) std::stable_sort(g.begin(), g.end(), byTs);
    // Straight into the entries (no per-lane tile list: fresh memory is what
    // costs here); the last tile needs the median of the others' lengths.
    Column<PyNum> lengths;
    reserveFresh(lengths, g.size());
    auto emit = [&](uint32_t k, const Tile& tile) {
      out.entries.push_back({lane, index.tsUs(roots[k]), tile});
      out.maxEnd = out.maxEnd ? pyMax(*out.maxEnd, tile.b) : tile.b;
    };
    for (size_t j = 0; j + 1 < g.size(); ++j) {
      const PyNum ts = tsOf(g[j]), end = endOf(g[j]), next = tsOf(g[j + 1]);
      Tile tile{ts, next};
      if (!(next >= end)) {
        tile.b = end;
        ++out.overlaps;
      }
      lengths.push_back(tile.b - tile.a);
      emit(g[j], tile);
    }
    const uint32_t last = g.back();
    const PyNum lastTs = tsOf(last);
    emit(last,
         g.size() >= 2 ? Tile{lastTs, pyMax(endOf(last), lastTs + pyMedian(lengths))} : Tile{lastTs, endOf(last)});
  }
  // Sort by key; among equal keys keep the last written (a dict assignment).
  auto byKey = [](const TileSet::Entry& x, const TileSet::Entry& y) {
    return x.lane != y.lane ? x.lane < y.lane : x.tsUs < y.tsUs;
  };
  if (!std::is_sorted(out.entries.begin(), out.entries.end(), byKey))
    std::stable_sort(out.entries.begin(), out.entries.end(), byKey);
  size_t w = 0;
  for (size_t k = 0; k < out.entries.size(); ++k) {
    if (k + 1 < out.entries.size() && !byKey(out.entries[k], out.entries[k + 1])) continue;  // a later one wins
    out.entries[w++] = out.entries[k];
  }
  out.entries.resize(w);
  return out;
}

size_t TileSet::position(uint32_t lane, double tsUs) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), std::make_pair(lane, tsUs),
                             [](const Entry& e, const std::pair<uint32_t, double>& k) {
                               return e.lane != k.first ? e.lane < k.first : e.tsUs < k.second;
                             });
  if (it == entries.end() || it->lane != lane || it->tsUs != tsUs) return entries.size();
  return static_cast<size_t>(it - entries.begin());
}

const Tile* TileSet::find(uint32_t lane, double tsUs) const {
  const size_t p = position(lane, tsUs);
  return p < entries.size() ? &entries[p].tile : nullptr;
}

const Tile* TileSet::find(uint32_t lane, double tsUs, size_t& hint) const {
  size_t p = hint;
  if (!(p < entries.size() && entries[p].lane == lane && entries[p].tsUs == tsUs)) p = position(lane, tsUs);
  if (p == entries.size()) return nullptr;
  hint = p + 1;
  return &entries[p].tile;
}

Tile windowOf(const EventIndex& index, const TileSet& tiles, const RootList& roots, size_t k) {
  const EventIdx root = roots[k];
  if (const Tile* t = tiles.find(index.trace().lane[root], index.tsUs(root))) return *t;
  return {index.tsPy(root), roots.endPy(index, k)};
}

Tile windowOf(const EventIndex& index, const TileSet& tiles, const RootList& roots, size_t k, size_t& hint) {
  const EventIdx root = roots[k];
  if (const Tile* t = tiles.find(index.trace().lane[root], index.tsUs(root), hint)) return *t;
  return {index.tsPy(root), roots.endPy(index, k)};
}

const TileSet& chunkTiles(const EventIndex& index, const RootList& roots, const TileSet* globalTiles, TileSet& own) {
  if (globalTiles) return *globalTiles;
  own = buildTiles(index, roots);
  return own;
}

void addChunkKeys(const EventIndex& index, const RootList& roots, const TileSet* globalTiles, CorrKeySet& keys) {
  if (roots.empty()) return;
  const Trace& t = index.trace();
  TileSet own;
  const TileSet& tiles = chunkTiles(index, roots, globalTiles, own);
  double lo = INFINITY, hi = -INFINITY;
  size_t hint = 0;
  for (size_t k = 0; k < roots.size(); ++k) {
    const Tile w = windowOf(index, tiles, roots, k, hint);
    lo = std::min(lo, w.a.asDouble());
    hi = std::max(hi, w.b.asDouble());
  }
  for (uint32_t l = 0; l < t.lanes.size(); ++l)
    index.forEachInLane(l, lo, hi, [&](EventIdx e) {
      if (index.hasCorr(e) && index.isExtractionCpu(e)) keys.add(index.corrKey(e));
    });
}

namespace {

// The CPU events of one window [a, b) (b included for the last window), no
// longer than it, in (ts, index) order, into `cpu`.
void windowCpuEvents(const EventIndex& index, double a, double b, double len, bool last, EventList& cpu) {
  const Trace& t = index.trace();
  cpu.clear();
  for (uint32_t l = 0; l < t.lanes.size(); ++l) {
    index.forEachInLane(l, a, b, [&](EventIdx e) {
      if (!index.isExtractionCpu(e)) return;
      const double ts = index.tsUs(e);
      if (!(a <= ts && (ts < b || (last && ts == b)))) return;
      if (!(index.durUs(e) <= len)) return;
      cpu.push_back(e);
    });
  }
  std::sort(cpu.begin(), cpu.end(), [&](EventIdx x, EventIdx y) {
    const double tx = index.tsUs(x), ty = index.tsUs(y);
    return tx != ty ? tx < ty : x < y;
  });
}

// The window's correlation set, iterated in CPython set order (it fixes the
// order of the chunk's float sums); first-appearance order for non-integer
// ids, whose Python hash order is unspecified. `corrs` is scratch.
std::vector<CorrKey> corrSetOrder(const EventIndex& index, const EventList& cpu, std::vector<CorrKey>& corrs) {
  corrs.clear();
  bool allInt = true;
  std::vector<int64_t> ints;
  for (EventIdx e : cpu) {
    if (!index.hasCorr(e)) continue;
    CorrKey ck = index.corrKey(e);
    if (ck.tag != 0) allInt = false;
    corrs.push_back(ck);
    ints.push_back(ck.v);
  }
  std::vector<CorrKey> order;
  if (allInt) {
    for (int64_t v : cpythonSetOrder(ints)) order.push_back({v, 0});
  } else {
    for (const CorrKey& ck : corrs)
      if (std::find(order.begin(), order.end(), ck) == order.end()) order.push_back(ck);
  }
  return order;
}

}  // namespace

ChunkSelection selectChunk(const EventIndex& index, const RootList& roots, const TileSet* globalTiles,
                           const ExtractionOptions& options, const CorrGroupings* groups) {
  const Trace& t = index.trace();
  const CorrGroupings& byId = groups ? *groups : index.groupings();
  ChunkSelection sel;
  TileSet own;
  const TileSet& tiles = chunkTiles(index, roots, globalTiles, own);
  std::optional<PyNum> maxEnd = globalTiles ? globalTiles->maxEnd : std::nullopt;
  size_t hint = 0;
  for (size_t k = 0; k < roots.size(); ++k) {
    Tile w = windowOf(index, tiles, roots, k, hint);
    sel.windows.push_back(w);
    maxEnd = maxEnd ? pyMax(*maxEnd, w.b) : w.b;
  }
  std::unordered_set<EventIdx> seenGpu;
  EventList cpu;
  std::vector<CorrKey> corrs;
  PyNum busy = PyNum::fromInt(0), span = PyNum::fromInt(0);
  for (size_t k = 0; k < roots.size(); ++k) {
    const Tile& w = sel.windows[k];
    const double a = w.a.asDouble(), b = w.b.asDouble();
    const double lenD = (w.b - w.a).asDouble();
    const bool last = maxEnd && !(w.b < *maxEnd) && !(*maxEnd < w.b);
    windowCpuEvents(index, a, b, lenD, last, cpu);
    sel.events.insert(sel.events.end(), cpu.begin(), cpu.end());
    const std::vector<CorrKey> order = corrSetOrder(index, cpu, corrs);
    for (const CorrKey& ck : order) {
      for (EventIdx f : byId.flows.eventsOf(ck)) {
        if (options.flowsAc2gOnly && t.catOf(f) != "ac2g") continue;
        sel.events.push_back(f);
      }
    }
    std::optional<PyNum> lo, hi;
    for (const CorrKey& ck : order) {
      for (EventIdx g : byId.gpu.eventsOf(ck)) {
        if (options.dedupeGpuEvents && !seenGpu.insert(g).second) continue;
        sel.events.push_back(g);
        if (options.gpuAnnotationsNotWork && index.role(g) == CatRole::GpuUserAnnotation) continue;
        ++sel.stats.numGpuEvents;
        busy = busy + index.durPy(g);
        const PyNum ts = index.tsPy(g), end = index.endPy(g);
        if (!lo || ts < *lo) lo = ts;
        if (!hi || end > *hi) hi = end;
      }
    }
    if (lo) span = span + (*hi - *lo);
  }
  sel.events.insert(sel.events.end(), index.metadata.begin(), index.metadata.end());
  sel.stats.eventCount = static_cast<int64_t>(sel.events.size());
  sel.stats.gpuBusyDuration = busy;
  sel.stats.gpuDuration = span;
  return sel;
}

std::optional<int64_t> firstInputDim(EventText& text, const Trace& trace, EventIdx i) {
  if (!trace.has(i, ev::HasInputDims)) return std::nullopt;
  std::string_view raw;
  if (!text.read(i, raw)) return std::nullopt;
  // One parser and one padded buffer per thread, reused: this runs for every
  // selected attention / cpu_op event, and a fresh parser costs fresh pages.
  thread_local simdjson::ondemand::parser parser;
  thread_local std::string padded;
  padded.assign(raw);
  padded.append(simdjson::SIMDJSON_PADDING, ' ');
  simdjson::ondemand::document doc;
  if (parser.iterate(padded.data(), raw.size(), padded.size()).get(doc)) return std::nullopt;
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return std::nullopt;
  simdjson::ondemand::value args;
  if (obj.find_field_unordered("args").get(args)) return std::nullopt;
  simdjson::ondemand::value dims;
  if (args.find_field_unordered("Input Dims").get(dims)) return std::nullopt;
  simdjson::ondemand::array outer;
  if (dims.get_array().get(outer)) return std::nullopt;
  for (auto first : outer) {
    simdjson::ondemand::array inner;
    if (first.get_array().get(inner)) return std::nullopt;
    for (auto d : inner) {
      int64_t v = 0;
      if (d.get_int64().get(v)) return std::nullopt;
      return v;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<int64_t> batchOverrideValues(const EventIndex& index, const EventList& events, EventText& text) {
  const Trace& t = index.trace();
  std::unordered_map<StrId, bool> nameHit;
  std::vector<int64_t> values;
  for (EventIdx e : events) {
    auto [it, fresh] = nameHit.try_emplace(t.name[e], false);
    if (fresh) {
      std::string_view nm = t.nameOf(e);
      it->second = nm.find("vllm::unified_attention_with_output") != std::string_view::npos ||
                   nm.find("sgl_kernel::sgl_per_token_group_quant_8bit") != std::string_view::npos;
    }
    if (!it->second) continue;
    if (auto v = firstInputDim(text, t, e)) values.push_back(*v);
  }
  return cpythonSetOrder(values);
}

namespace {

// Buffers the text and hands it on about every MiB: compressed with ISA-L
// (level 1, gzip framing), or as it is for a plain .json chunk.
class ChunkSink {
 public:
  ChunkSink(AtomicFileWriter& out, bool gzip, JobControl* control) : out_(out), gzip_(gzip), control_(control) {
    if (gzip_) {
      isal_deflate_init(&strm_);
      levelBuf_.resize(ISAL_DEF_LVL1_DEFAULT);
      strm_.level = 1;
      strm_.level_buf = levelBuf_.data();
      strm_.level_buf_size = static_cast<uint32_t>(levelBuf_.size());
      strm_.gzip_flag = IGZIP_GZIP;
      outBuf_.resize(1 << 20);
    }
  }
  Expected<void> append(std::string_view s) {
    pending_.append(s);
    if (pending_.size() >= (1u << 20)) return flush(false);
    return {};
  }
  Expected<void> finish() { return flush(true); }

 private:
  Expected<void> flush(bool end) {
    if (control_ && control_->cancelled()) {
      out_.abort();
      return makeError(Error::Kind::Cancelled, out_.path(), "cancelled");
    }
    auto w = gzip_ ? deflate(end) : out_.write(pending_);
    if (!w) return w;
    pending_.clear();
    return {};
  }
  Expected<void> deflate(bool end) {
    strm_.next_in = reinterpret_cast<uint8_t*>(pending_.data());
    strm_.avail_in = static_cast<uint32_t>(pending_.size());
    strm_.end_of_stream = end ? 1 : 0;
    strm_.flush = NO_FLUSH;
    do {
      strm_.next_out = outBuf_.data();
      strm_.avail_out = static_cast<uint32_t>(outBuf_.size());
      if (isal_deflate(&strm_) != COMP_OK) return makeError(Error::Kind::Internal, "", "gzip compression failed");
      const size_t produced = outBuf_.size() - strm_.avail_out;
      if (produced) {
        auto w = out_.write(std::string_view(reinterpret_cast<const char*>(outBuf_.data()), produced));
        if (!w) return w;
      }
    } while (strm_.avail_in > 0 || strm_.avail_out == 0 || (end && strm_.internal_state.state != ZSTATE_END));
    return {};
  }
  AtomicFileWriter& out_;
  bool gzip_;
  JobControl* control_;
  isal_zstream strm_{};
  std::vector<uint8_t> levelBuf_;
  std::vector<uint8_t> outBuf_;
  std::string pending_;
};

// The traceEvents array: the listed events, then the extra ones, each as its source text.
Expected<void> putEvents(const Trace& trace, const ChunkContent& content, ChunkSink& sink) {
  EventText text(trace);
  std::string_view raw;
  bool first = true;
  auto putList = [&](const EventList* list, size_t n) -> Expected<void> {
    for (size_t k = 0; k < n; ++k) {
      const EventIdx e = list ? (*list)[k] : static_cast<EventIdx>(k);
      if (!first)
        if (auto s = sink.append(", "); !s) return s;
      first = false;
      if (!text.read(e, raw)) return makeError(Error::Kind::Io, trace.path, text.error());
      if (auto s = sink.append(raw); !s) return s;
    }
    return {};
  };
  if (auto s = sink.append("\"traceEvents\": ["); !s) return s;
  if (auto s = putList(content.events, content.events ? content.events->size() : trace.size()); !s) return s;
  if (content.extra)
    if (auto s = putList(content.extra, content.extra->size()); !s) return s;
  return sink.append("]");
}

}  // namespace

Expected<void> writeChunk(const Trace& trace, const ChunkContent& content, AtomicFileWriter& out, JobControl* control) {
  ChunkSink sink(out, content.gzip, control);
  Expected<void> st;
  if (!(st = sink.append("{"))) return st;
  bool firstKey = true;
  auto sep = [&]() -> Expected<void> {
    if (!firstKey) return sink.append(", ");
    firstKey = false;
    return {};
  };
  const size_t pos = std::min(trace.traceEventsPosition, trace.topLevel.size());
  for (size_t k = 0; k <= trace.topLevel.size(); ++k) {
    if (k == pos && (!(st = sep()) || !(st = putEvents(trace, content, sink)))) return st;
    if (k == trace.topLevel.size()) break;
    const TopLevelEntry& e = trace.topLevel[k];
    if (e.key == "traceEvents") continue;
    if (!(st = sep()) || !(st = sink.append(e.rawKey)) || !(st = sink.append(": ")) || !(st = sink.append(e.rawValue)))
      return st;
  }
  if (!(st = sink.append("}"))) return st;
  return sink.finish();
}

Expected<void> prepareChunkFile(const Trace& trace, const EventList* events, const std::string& path,
                                AtomicFileWriter& file) {
  if (auto o = file.open(path); !o) return o;
  ChunkContent content;
  content.events = events;
  if (auto w = writeChunk(trace, content, file); !w) return w;
  return file.prepare();
}

Expected<void> writeChunkFile(const Trace& trace, const EventList* events, const std::string& path) {
  AtomicFileWriter file;
  if (auto p = prepareChunkFile(trace, events, path, file); !p) return p;
  return file.publish();
}

}  // namespace steadyscope::analysis
