// Stage 3: tiles, chunk selection, statistics, chunk files (spec §4.1–§4.5).
#include "analysis/chunks/extraction.hpp"
#include <steadyscope/core/util/atomic_file.hpp>
#include "analysis/pyfmt.hpp"
#include "io/gzip_blocks.hpp"
#include "util/big_alloc.hpp"

#include <simdjson.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
  index.sortByTime(cpu);
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

// A chunk file's text cut into blocks by event text, about kBlockBytes each:
// the head (`{`, the keys before traceEvents, `"traceEvents": [`) opens the
// first, the events follow in order (the listed, then the extra ones, each as
// its source text), the tail (`]`, the keys after, `}`) closes the last. The
// cut depends only on the events, so the gzip bytes do not depend on threads.
class ChunkText {
 public:
  static constexpr size_t kBlockBytes = size_t(1) << 20;

  ChunkText(const Trace& trace, const ChunkContent& content)
      : trace_(trace), content_(content), listed_(content.events ? content.events->size() : trace.size()) {
    count_ = listed_ + (content.extra ? content.extra->size() : 0);
    frame();
    starts_.push_back(0);
    size_t bytes = 0;
    for (size_t pos = 0; pos < count_; ++pos) {
      if (bytes >= kBlockBytes) {
        starts_.push_back(pos);
        bytes = 0;
      }
      bytes += trace.length[eventAt(pos)] + 2;
    }
  }

  size_t blocks() const { return starts_.size(); }

  Expected<void> produce(size_t k, EventText& text, std::string& out) const {
    if (k == 0) out.append(head_);
    const size_t end = k + 1 < starts_.size() ? starts_[k + 1] : count_;
    std::string_view raw;
    for (size_t pos = starts_[k]; pos < end; ++pos) {
      if (pos > 0) out.append(", ");
      if (!text.read(eventAt(pos), raw)) return makeError(Error::Kind::Io, trace_.path, text.error());
      out.append(raw);
    }
    if (k + 1 == starts_.size()) out.append(tail_);
    return {};
  }

 private:
  EventIdx eventAt(size_t pos) const {
    if (pos >= listed_) return (*content_.extra)[pos - listed_];
    return content_.events ? (*content_.events)[pos] : static_cast<EventIdx>(pos);
  }

  // The top-level keys in their order, traceEvents at its place.
  void frame() {
    std::string* at = &head_;
    at->append("{");
    bool firstKey = true;
    auto sep = [&] {
      if (!firstKey) at->append(", ");
      firstKey = false;
    };
    const size_t pos = std::min(trace_.traceEventsPosition, trace_.topLevel.size());
    for (size_t k = 0; k <= trace_.topLevel.size(); ++k) {
      if (k == pos) {
        sep();
        head_.append("\"traceEvents\": [");
        at = &tail_;
        at->append("]");
      }
      if (k == trace_.topLevel.size()) break;
      const TopLevelEntry& e = trace_.topLevel[k];
      if (e.key == "traceEvents") continue;
      sep();
      at->append(e.rawKey).append(": ").append(e.rawValue);
    }
    tail_.append("}");
  }

  const Trace& trace_;
  const ChunkContent& content_;
  size_t listed_ = 0, count_ = 0;
  std::string head_, tail_;
  std::vector<size_t> starts_;  // each block's first event position
};

Expected<void> cancelledWrite(AtomicFileWriter& out) {
  out.abort();
  return makeError(Error::Kind::Cancelled, out.path(), "cancelled");
}

// Plain JSON: the blocks one after the other, written as they are.
Expected<void> writePlain(const ChunkText& chunk, EventText& text, AtomicFileWriter& out, JobControl* control) {
  std::string block;
  for (size_t k = 0; k < chunk.blocks(); ++k) {
    if (control && control->cancelled()) return cancelledWrite(out);
    block.clear();
    if (auto p = chunk.produce(k, text, block); !p) return p;
    if (auto w = out.write(block); !w) return w;
  }
  return {};
}

}  // namespace

Expected<void> writeChunk(const Trace& trace, const ChunkContent& content, AtomicFileWriter& out, JobControl* control) {
  const ChunkText chunk(trace, content);
  if (!content.gzip) {
    EventText text(trace);
    return writePlain(chunk, text, out, control);
  }
  // One reader per worker (a reader serves one thread; readers of a gzip source share its spans).
  std::vector<std::unique_ptr<EventText>> texts(std::max(1u, content.threads));
  io::GzipBlockJob job;
  job.blocks = chunk.blocks();
  job.threads = static_cast<unsigned>(texts.size());
  job.control = control;
  job.produce = [&](size_t k, unsigned worker, std::string& block) {
    if (!texts[worker]) texts[worker] = std::make_unique<EventText>(trace);
    return chunk.produce(k, *texts[worker], block);
  };
  job.sink = [&](std::string_view bytes) { return out.write(bytes); };
  auto w = io::writeGzipBlocks(job);
  if (w) return w;
  if (w.error().kind == Error::Kind::Cancelled) return cancelledWrite(out);
  Error e = w.error();
  if (e.file.empty()) e.file = out.path();
  return e;
}

Expected<void> prepareChunkFile(const Trace& trace, const EventList* events, const std::string& path,
                                AtomicFileWriter& file, unsigned threads) {
  if (auto o = file.open(path); !o) return o;
  ChunkContent content;
  content.events = events;
  content.threads = threads;
  if (auto w = writeChunk(trace, content, file); !w) return w;
  return file.prepare();
}

Expected<void> prepareChunkCopy(const AtomicFileWriter& made, const std::string& path, AtomicFileWriter& file) {
  const int in = ::open(made.temporaryPath().c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return makeError(Error::Kind::Io, path, std::string("cannot read the chunk it copies: ") + std::strerror(errno));
  auto copy = [&]() -> Expected<void> {
    if (auto o = file.open(path); !o) return o;
    std::string block(1u << 20, '\0');
    for (;;) {
      const ssize_t n = ::read(in, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return makeError(Error::Kind::Io, path, std::string("cannot read the chunk it copies: ") + std::strerror(errno));
      if (n == 0) return file.prepare();
      if (auto w = file.write(std::string_view(block.data(), size_t(n))); !w) return w;
    }
  };
  auto done = copy();
  ::close(in);
  if (!done) file.abort();
  return done;
}

Expected<void> writeChunkFile(const Trace& trace, const EventList* events, const std::string& path, unsigned threads) {
  AtomicFileWriter file;
  if (auto p = prepareChunkFile(trace, events, path, file, threads); !p) return p;
  return file.publish();
}

}  // namespace steadyscope::analysis
