#include <steadyscope/core/io/loader.hpp>

#include "io/event_parser.hpp"
#include "io/gzip_index.hpp"
#include "io/json_scan.hpp"
#include "io/source.hpp"

#include <steadyscope/core/util/nearly_sorted.hpp>
#include <steadyscope/core/util/phase_timer.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace steadyscope {

namespace {

using namespace io;

Error scanToError(const std::string& path, const ScanError& e) {
  // "no traceEvents" is about the whole object: no byte offset to point at.
  Error err = makeError(Error::Kind::Format, path, e.message,
                        e.code == "no_trace_events" ? std::nullopt : std::optional<uint64_t>(e.offset));
  err.code = e.code;
  return err;
}

uint64_t memAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return UINT64_MAX;
}

/// Adds `src` (event indices offset by `base`) into `dst`, keeping the earliest first event.
void mergeAnomalies(std::array<AnomalyCounter, A_Count>& dst, const std::array<AnomalyCounter, A_Count>& src,
                    int64_t base) {
  for (int k = 0; k < A_Count; ++k) {
    if (!src[k].count) continue;
    int64_t first = base + src[k].first;
    if (!dst[k].count || first < dst[k].first) dst[k].first = first;
    dst[k].count += src[k].count;
  }
}

/// Where parsed pieces go. Workers parse pieces in any order into their own
/// reused buffers; the sink appends each piece's events to the model's columns
/// strictly in text order (a piece that arrives early is parked until its
/// predecessors are in). So every column is written once, into its final place:
/// no second copy of the model, and no per-thread columns to merge.
class OrderedSink {
 public:
  struct Range {
    EventIdx begin, end;
    uint16_t worker;
  };  // events of one piece, and who interned them
  struct Meta {
    EventIdx event;
    bool process;
    uint32_t nameStr;
    uint16_t worker;
  };

  OrderedSink(Trace& tr, uint64_t expectedBytes, size_t workers)
      : tr_(tr), expectedBytes_(expectedBytes), wide_(std::max<size_t>(1, workers)) {}

  /// Hands over piece `k` parsed by `worker` into `buf`. If it is next in text
  /// order, its place in the columns (and that of any parked successors) is
  /// claimed under the lock and the events are copied outside it, in parallel
  /// with the other workers' copies; otherwise it is parked. On return `buf`
  /// is an empty buffer for the caller's next piece.
  void deliver(size_t k, unsigned worker, std::unique_ptr<LocalColumns>& buf) {
    struct Claim {
      LocalColumns* c;
      size_t base;
      bool parked;
      Dest d;
    };
    std::vector<Claim> claims;
    {
      std::unique_lock<std::mutex> lock(m_);
      if (k != next_) {
        parked_.emplace(k, std::make_pair(worker, std::move(buf)));
        if (!spare_.empty()) {
          buf = std::move(spare_.back());
          spare_.pop_back();
        } else {
          buf = std::make_unique<LocalColumns>();
        }
        return;
      }
      claims.push_back({buf.get(), claim(lock, *buf, worker), false, {}});
      ++next_;
      for (auto it = parked_.find(next_); it != parked_.end(); it = parked_.find(next_)) {
        LocalColumns* c = it->second.second.release();
        unsigned w = it->second.first;
        parked_.erase(it);
        claims.push_back({c, claim(lock, *c, w), true, {}});
        ++next_;
      }
      // Pointers only now: a later claim above may have moved the columns.
      for (auto& cl : claims) cl.d = dest(cl.base);
      ++inflight_;
    }
    // Side-table entries go to the calling worker's own lists: no lock.
    for (auto& cl : claims) copy(*cl.c, cl.d, wide_[worker]);
    std::lock_guard<std::mutex> lock(m_);
    for (auto& cl : claims) {
      cl.c->clear();
      if (cl.parked) spare_.emplace_back(cl.c);
    }
    if (--inflight_ == 0) idle_.notify_all();
  }
  bool tooMany() const { return tooMany_; }
  /// Frees the parked spare buffers once every piece is in.
  void releaseBuffers() {
    std::lock_guard<std::mutex> lock(m_);
    spare_.clear();
    parked_.clear();
  }

  std::vector<Range> ranges;
  std::vector<Meta> meta;
  std::vector<std::pair<EventIdx, double>> exactTs, exactDur;
  std::array<AnomalyCounter, A_Count> anomalies{};
  /// Installs the side tables of the compact columns (after the last piece).
  void adoptSideTables() {
    std::vector<std::pair<EventIdx, int64_t>> corr, ext, dur;
    std::vector<std::pair<EventIdx, uint32_t>> len, name, lane, changes;
    auto add = [](auto& all, const auto& part) { all.insert(all.end(), part.begin(), part.end()); };
    for (auto& w : wide_) {
      add(corr, w.corr);
      add(ext, w.ext);
      add(dur, w.dur);
      add(len, w.len);
      add(name, w.name);
      add(lane, w.lane);
      add(changes, w.offsetChanges);
    }
    wide_.clear();
    // Names and lanes are still the workers' local ids here; the remap
    // replaces these tables with the global ids' (see remapRanges).
    tr_.name.adoptWide(std::move(name));
    tr_.lane.adoptWide(std::move(lane));
    tr_.corr.adoptWide(std::move(corr));
    tr_.extId.adoptWide(std::move(ext));
    tr_.durNs.adoptWide(std::move(dur));
    tr_.length.adoptWide(std::move(len));
    tr_.offset.adoptChanges(std::move(changes));
  }

 private:
  struct Wide {  // values that do not fit their narrow column, by event
    std::vector<std::pair<EventIdx, int64_t>> corr, ext, dur;
    std::vector<std::pair<EventIdx, uint32_t>> len, name, lane, offsetChanges;
  };
  struct Dest {
    size_t base = 0;
    int64_t* ts = nullptr;
    int32_t *dur = nullptr, *corr = nullptr, *ext = nullptr;
    uint32_t* off = nullptr;
    uint16_t *name = nullptr, *lane = nullptr;
    uint16_t *len = nullptr, *cat = nullptr, *flags = nullptr;
    Ph* ph = nullptr;
  };

  template <typename F>
  void eachColumn(F&& f) {
    Trace& t = tr_;
    f(t.tsNs);
    f(t.durNs.narrow());
    f(t.corr.narrow());
    f(t.extId.narrow());
    f(t.offset.low());
    f(t.length.narrow());
    f(t.name.narrow());
    f(t.lane.narrow());
    f(t.cat);
    f(t.flags);
    f(t.ph);
  }

  /// Under the lock: reserves [size, size + c.size()) for `c` and records its
  /// side lists with global indices. Columns only reallocate when no copy is
  /// in flight (the first piece's events per byte size them for the whole text).
  size_t claim(std::unique_lock<std::mutex>& lock, const LocalColumns& c, unsigned worker) {
    const size_t base = size_;
    const size_t need = base + c.size();
    if (need >= UINT32_MAX) {
      tooMany_ = true;
      return SIZE_MAX;
    }
    if (need > cap_) {
      idle_.wait(lock, [&] { return inflight_ == 0; });
      size_t want = need;
      if (cap_ == 0 && expectedBytes_ && c.bytesParsed) {
        double perByte = static_cast<double>(c.size()) / static_cast<double>(c.bytesParsed);
        want = std::max(want, static_cast<size_t>(perByte * static_cast<double>(expectedBytes_) * 1.15) + 4096);
      } else {
        want = std::max(want, cap_ + cap_ / 2);
      }
      want = std::min<size_t>(want, UINT32_MAX);
      eachColumn([&](auto& col) { col.reserve(want); });
      cap_ = want;
    }
    eachColumn([&](auto& col) { col.resize(need); });  // no writes: Column default-initialises
    size_ = need;
    const auto b = static_cast<EventIdx>(base);
    ranges.push_back({b, static_cast<EventIdx>(need), static_cast<uint16_t>(worker)});
    for (const auto& [i, v] : c.exactTs) exactTs.emplace_back(b + i, v);
    for (const auto& [i, v] : c.exactDur) exactDur.emplace_back(b + i, v);
    for (const auto& m : c.meta) meta.push_back({b + m.event, m.process, m.nameStr, static_cast<uint16_t>(worker)});
    mergeAnomalies(anomalies, c.anomalies, static_cast<int64_t>(base));
    return base;
  }

  Dest dest(size_t base) {
    if (base == SIZE_MAX) return {};
    Trace& t = tr_;
    return {base,
            t.tsNs.data() + base,
            t.durNs.narrow().data() + base,
            t.corr.narrow().data() + base,
            t.extId.narrow().data() + base,
            t.offset.low().data() + base,
            t.name.narrow().data() + base,
            t.lane.narrow().data() + base,
            t.length.narrow().data() + base,
            t.cat.data() + base,
            t.flags.data() + base,
            t.ph.data() + base};
  }

  /// Values into a NarrowColumn's storage; the few that do not fit go to
  /// `wide` with their event.
  template <typename NC, typename S, typename N, typename W>
  static void narrowInto(const Column<S>& src, N* dst, size_t base, std::vector<std::pair<EventIdx, W>>& wide) {
    const size_t n = src.size();
    bool all = true;
    for (size_t k = 0; k < n; ++k) {
      const W v = static_cast<W>(src[k]);
      all &= NC::fitsNarrow(v);
      dst[k] = static_cast<N>(v);
    }
    if (all) return;
    for (size_t k = 0; k < n; ++k)
      if (!NC::fitsNarrow(static_cast<W>(src[k]))) {
        dst[k] = NC::kWide;
        wide.emplace_back(static_cast<EventIdx>(base + k), static_cast<W>(src[k]));
      }
  }

  static void copy(const LocalColumns& c, const Dest& d, Wide& wide) {
    if (!d.ts) return;
    const size_t n = c.size();
    if (!n) return;
    auto put = [n](auto* dst, const auto& src) { std::memcpy(dst, src.data(), n * sizeof(*dst)); };
    put(d.ts, c.tsNs);
    put(d.cat, c.cat);
    put(d.flags, c.flags);
    put(d.ph, c.ph);
    narrowInto<NameColumn>(c.name, d.name, d.base, wide.name);
    narrowInto<LaneColumn>(c.lane, d.lane, d.base, wide.lane);
    narrowInto<DurColumn>(c.durNs, d.dur, d.base, wide.dur);
    narrowInto<LengthColumn>(c.length, d.len, d.base, wide.len);
    narrowInto<IdColumn>(c.corr, d.corr, d.base, wide.corr);
    narrowInto<IdColumn>(c.extId, d.ext, d.base, wide.ext);
    OffsetColumn::splitInto(c.offset.data(), n, static_cast<uint32_t>(d.base), d.off, wide.offsetChanges);
  }

  Trace& tr_;
  uint64_t expectedBytes_;
  bool tooMany_ = false;
  std::mutex m_;
  std::condition_variable idle_;
  int inflight_ = 0;
  size_t size_ = 0, cap_ = 0;
  size_t next_ = 0;
  std::map<size_t, std::pair<unsigned, std::unique_ptr<LocalColumns>>> parked_;
  std::vector<std::unique_ptr<LocalColumns>> spare_;
  std::vector<Wide> wide_;  // per worker
};

/// One parsing thread's state, kept across pieces (and, for gzip, across the
/// streamed and the tail phase): a warm simdjson parser, its interner, a buffer.
struct Worker {
  EventParser parser;
  ThreadTables tables;
  std::unique_ptr<LocalColumns> buf = std::make_unique<LocalColumns>();
};

struct ParseOutcome {
  bool ok = true;
  bool cancelled = false;
  size_t failedPiece = SIZE_MAX;
  ParseFailure failure;
};

/// Parses pieces [from, to) on up to `threads` workers (workers[0] runs on the
/// calling thread); each takes the next unparsed piece, so the load balances
/// itself. Stops early on failure or cancellation.
ParseOutcome parseRange(std::string_view text, int fd, uint64_t fdBase, const std::vector<Piece>& pieces, size_t from,
                        size_t to, std::vector<Worker>& workers, OrderedSink& sink, JobControl* control) {
  ParseOutcome out;
  const unsigned threads =
      static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(workers.size(), to > from ? to - from : 1)));
  std::atomic<size_t> nextPiece{from};
  std::atomic<bool> stop{false};
  std::mutex failMutex;
  size_t longest = 0;
  for (size_t k = from; k < to; ++k) longest = std::max<size_t>(longest, pieces[k].end - pieces[k].begin);
  auto work = [&](unsigned w) {
    Worker& me = workers[w];
    me.parser.reserve(longest);  // one allocation for the whole range (the worker's own thread)
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      if (control && control->cancelled()) {
        stop = true;
        std::lock_guard<std::mutex> lock(failMutex);
        out.cancelled = true;
        return;
      }
      size_t k = nextPiece.fetch_add(1);
      if (k >= to) return;
      ParseFailure f;
      if (!me.parser.parsePiece(text, fd, fdBase, pieces[k], me.tables, *me.buf, f)) {
        stop = true;
        std::lock_guard<std::mutex> lock(failMutex);
        if (k < out.failedPiece) {
          out.failedPiece = k;
          out.failure = f;
          out.ok = false;
        }
        return;
      }
      sink.deliver(k, w, me.buf);
      if (control) {
        control->addDoneBytes(pieces[k].end - pieces[k].begin);
        control->addEvents(0);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  if (out.cancelled) out.ok = true;  // cancellation wins over a later failure
  return out;
}

/// The loader's phase timer (STEADYSCOPE_LOAD_TIMING=1).
struct LoadTimer : PhaseTimer {
  LoadTimer() : PhaseTimer("STEADYSCOPE_LOAD_TIMING", "load") {}
};

void addAnomaly(std::array<AnomalyCounter, A_Count>& a, AnomalyCode code, int64_t ev) {
  if (a[code].count++ == 0) a[code].first = ev;
}

/// A duration that is not in the narrow storage: a pair's (set during
/// finalize) or the column's side table. Rare; kept out of the sort's loop.
[[gnu::noinline]] int64_t wideDur(const DurColumn& col, const std::unordered_map<EventIdx, int64_t>& paired,
                                  EventIdx i) {
  if (auto it = paired.find(i); it != paired.end()) return it->second;
  return col[i];
}

/// An event in its lane's time-sorted list: it has a ts and is not metadata.
/// (Finalize builds the lanes from this and zeroes the depth of the others.)
inline bool inLane(uint16_t flags, Ph ph) { return (flags & ev::HasTs) && ph != Ph::Metadata; }

void finalize(Trace& tr, std::array<AnomalyCounter, A_Count>& anomalies) {
  const size_t n = tr.size();
  // Two independent halves run in parallel: (lanes, B/E pairing, depth) on a
  // helper thread, (counts, links, flows, GPU unions) here. They write disjoint
  // columns/members; the B/E flag bits are applied after the join.
  std::array<AnomalyCounter, A_Count> laneAnomalies{};
  std::vector<EventIdx> pairedB;  // B events whose dur is now their pair's
  Column<uint8_t> paired;
  // Pair durations that do not fit the narrow storage (spans over ~2.1 s) are
  // kept here and put in the column's side table after the join: the other
  // thread reads that table meanwhile.
  std::unordered_map<EventIdx, int64_t> pairedWide;
  const int32_t* narrowDur = tr.durNs.narrow().data();
  auto durOf = [&](EventIdx i) -> int64_t {
    const int32_t v = narrowDur[i];
    return v != DurColumn::kWide ? v : wideDur(tr.durNs, pairedWide, i);
  };
  // Nesting depth is per lane and shared: once the lanes are sorted and
  // paired, both threads take lanes (largest first) until none is left. Every
  // event of a lane gets its depth here; the main thread's counting pass
  // writes 0 for the events in no lane (no pre-zeroing pass).
  tr.depth.resize(n);  // address space only until written
  std::vector<uint32_t> depthOrder;
  std::atomic<bool> depthReady{false};
  std::atomic<size_t> depthNext{0};
  auto depthWork = [&] {
    std::vector<int64_t> ends;
    for (size_t k; (k = depthNext.fetch_add(1, std::memory_order_relaxed)) < depthOrder.size();) {
      Lane& lane = tr.lanes[depthOrder[k]];
      ends.clear();
      uint16_t maxDepth = 0;
      for (EventIdx i : lane.events) {
        bool slice = (tr.ph[i] == Ph::Complete && (tr.flags[i] & ev::HasDur)) ||
                     (tr.ph[i] == Ph::Begin && !paired.empty() && paired[i]);
        if (!slice) {
          tr.depth[i] = 0;
          continue;
        }
        int64_t ts = tr.tsNs[i];
        while (!ends.empty() && ends.back() <= ts) ends.pop_back();
        uint16_t d = static_cast<uint16_t>(std::min<size_t>(ends.size(), UINT16_MAX));
        tr.depth[i] = d;
        maxDepth = std::max(maxDepth, d);
        int64_t e = ts + std::max<int64_t>(durOf(i), 0);
        // A child ending after its parent is clipped for nesting purposes.
        if (!ends.empty()) e = std::min(e, ends.back());
        ends.push_back(e);
      }
      lane.maxDepth = maxDepth;
    }
  };
  std::thread laneThread([&] {
    LoadTimer lt;
    // ---- lanes: events with a ts, sorted by (ts, longer first, file order) ----
    std::vector<uint32_t> laneCount(tr.lanes.size(), 0);
    for (EventIdx i = 0; i < n; ++i)
      if (inLane(tr.flags[i], tr.ph[i])) ++laneCount[tr.lane[i]];
    for (size_t l = 0; l < tr.lanes.size(); ++l) tr.lanes[l].events.reserve(laneCount[l]);
    for (EventIdx i = 0; i < n; ++i)
      if (inLane(tr.flags[i], tr.ph[i])) tr.lanes[tr.lane[i]].events.push_back(i);
    // With file order as the last key the order is total, so any sort gives the
    // stable sort's result.
    const int64_t* tsCol = tr.tsNs.data();
    auto laneOrder = [&](EventIdx a, EventIdx b) {
      if (tsCol[a] != tsCol[b]) return tsCol[a] < tsCol[b];
      const int64_t da = durOf(a), db = durOf(b);
      if (da != db) return da > db;
      return a < b;
    };
    Column<EventIdx> aside;
    auto sortLane = [&](Lane& lane) { sortNearlySorted(lane.events, laneOrder, aside); };
    for (auto& lane : tr.lanes) sortLane(lane);

    lt.mark("  lanes: built+sorted");
    // ---- B/E pairing per lane (the stack discipline of the trace-event format) ----
    std::vector<EventIdx> stack;
    for (auto& lane : tr.lanes) {
      stack.clear();
      bool any = false;
      for (EventIdx i : lane.events) {
        if (tr.ph[i] == Ph::Begin) {
          stack.push_back(i);
          any = true;
        } else if (tr.ph[i] == Ph::End) {
          any = true;
          if (stack.empty()) {
            addAnomaly(laneAnomalies, A_UnmatchedE, i);
            continue;
          }
          EventIdx b = stack.back();
          stack.pop_back();
          // A dur written on the B event wins over the pair's (the reference
          // reads the field; D-015); the other thread reads only such durs.
          if (!(tr.flags[b] & ev::HasDur)) {
            const int64_t d = tr.tsNs[i] - tr.tsNs[b];
            if (DurColumn::fitsNarrow(d)) {
              tr.durNs.narrow()[b] = static_cast<int32_t>(d);
            } else {
              tr.durNs.narrow()[b] = DurColumn::kWide;
              pairedWide[b] = d;
            }
            pairedB.push_back(b);
          }
          if (paired.empty()) paired.assign(n, 0);
          paired[b] = 1;
        }
      }
      for (EventIdx b : stack) addAnomaly(laneAnomalies, A_UnmatchedB, b);
      if (any) sortLane(lane);  // B durations changed: restore the (ts, longer first) order
    }

    lt.mark("  lanes: B/E pairs");
    // ---- nesting depth per lane (shared with the main thread) ----
    depthOrder.resize(tr.lanes.size());
    for (size_t l = 0; l < depthOrder.size(); ++l) depthOrder[l] = static_cast<uint32_t>(l);
    std::stable_sort(depthOrder.begin(), depthOrder.end(),
                     [&](uint32_t a, uint32_t b) { return tr.lanes[a].events.size() > tr.lanes[b].events.size(); });
    depthReady.store(true, std::memory_order_release);
    depthReady.notify_one();
    depthWork();
    lt.mark("  lanes: depth");
  });
  LoadTimer mt;
  // ---- per-ph / per-cat counts, span, simple anomalies ----
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
    if (!inLane(fl, ph)) tr.depth[i] = 0;  // depthWork writes the others
    if (ph != Ph::Metadata && (fl & ev::HasTs) && tr.tsNs[i] > 0) {
      firstTs = std::min(firstTs, tr.tsNs[i]);
      int64_t d = (fl & ev::HasDur) && tr.durNs[i] > 0 ? tr.durNs[i] : 0;
      lastEnd = std::max(lastEnd, tr.tsNs[i] + d);
    }
  }
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
  // Characterisation counts 'i' and 'I' apart; keep the total under "i".
  tr.stats.firstTsNs = firstTs == INT64_MAX ? 0 : firstTs;
  tr.stats.lastEndNs = lastEnd == INT64_MIN ? 0 : lastEnd;

  mt.mark("  counts");
  // ---- GPU busy union per device (GPU pid), links, flows ----
  // Correlation and flow ids are dense small integers in practice: use flat
  // arrays indexed by id, and hash sets only for ids outside [0, 4n + 2^20).
  const int64_t denseLimit = static_cast<int64_t>(4 * n + (1u << 20));
  // One byte per id: bits 1/2 a flow start/end with that id, bit 4 a CPU
  // event with that correlation (one array, not two: fewer fresh pages).
  constexpr uint8_t kFlowStart = 1, kFlowEnd = 2, kCpuCorr = 4;
  Column<uint8_t> idDense;  // huge pages: up to 4n + 1 Mi bytes
  std::unordered_set<int64_t> cpuCorrSparse;
  std::unordered_map<int64_t, uint8_t> flowSparse;
  // Address space only (huge-page aligned): the array grows in place, without
  // copies or 4 KiB pages on the way up.
  idDense.reserve(static_cast<size_t>(denseLimit));
  auto dense = [&](int64_t id) -> uint8_t& {
    const auto k = static_cast<size_t>(id);
    if (k >= idDense.size())  // within the reserve; geometric, not one call per new id
      idDense.resize(std::min(static_cast<size_t>(denseLimit), std::max(k + 1, idDense.size() * 2 + 4096)), 0);
    return idDense[k];
  };
  // Kernel intervals per device; a lane's device is looked up once.
  std::map<JsonKey, Column<Interval>> perDevice;
  std::vector<Column<Interval>*> laneDevice(tr.lanes.size(), nullptr);
  for (EventIdx i = 0; i < n; ++i) {
    CatClass c = tr.classOf(i);
    uint16_t fl = tr.flags[i];
    if (isGpuWork(c)) {
      const uint32_t l = tr.lane[i];
      tr.lanes[l].gpu = true;
      if ((fl & ev::HasTs) && (fl & ev::HasDur) && tr.durNs[i] > 0) {
        auto*& dev = laneDevice[l];
        if (!dev) {
          dev = &perDevice[tr.lanes[l].pid];
          dev->reserve(tr.stats.gpuEvents);  // address space only until written
        }
        dev->push_back({tr.tsNs[i], tr.tsNs[i] + tr.durNs[i]});
      }
    } else if ((fl & ev::HasCorr) && !(fl & ev::CorrIsStr) && c != CatClass::GpuUserAnnotation) {
      int64_t id = tr.corr[i];
      if (id >= 0 && id < denseLimit)
        dense(id) |= kCpuCorr;
      else
        cpuCorrSparse.insert(id);
    }
    if ((tr.ph[i] == Ph::FlowStart || tr.ph[i] == Ph::FlowEnd) && (fl & ev::HasId) && !(fl & ev::CorrIsStr)) {
      int64_t id = tr.corr[i];
      uint8_t bit = tr.ph[i] == Ph::FlowStart ? kFlowStart : kFlowEnd;
      if (id >= 0 && id < denseLimit)
        dense(id) |= bit;
      else
        flowSparse[id] |= bit;
    }
  }
  mt.mark("  gpu: intervals+ids");
  auto hasCpuCorr = [&](int64_t id) {
    if (id >= 0 && id < denseLimit)
      return static_cast<size_t>(id) < idDense.size() && (idDense[static_cast<size_t>(id)] & kCpuCorr);
    return cpuCorrSparse.count(id) > 0;
  };
  auto flowBits = [&](int64_t id) -> uint8_t {
    if (id >= 0 && id < denseLimit)
      return static_cast<uint8_t>(
          static_cast<size_t>(id) < idDense.size() ? idDense[static_cast<size_t>(id)] & (kFlowStart | kFlowEnd) : 0);
    auto it = flowSparse.find(id);
    return it == flowSparse.end() ? 0 : it->second;
  };
  for (EventIdx i = 0; i < n; ++i) {
    Ph ph = tr.ph[i];
    if (ph == Ph::FlowStart || ph == Ph::FlowEnd) {
      if ((tr.flags[i] & ev::HasId) && !(tr.flags[i] & ev::CorrIsStr) && flowBits(tr.corr[i]) != 3)
        addAnomaly(anomalies, A_FlowWithoutPeer, i);
      continue;
    }
    if (!isGpuWork(tr.classOf(i))) continue;
    if (!(tr.flags[i] & ev::HasCorr))
      addAnomaly(anomalies, A_GpuWithoutCorrelation, i);
    else if (!hasCpuCorr(tr.corr[i]))
      addAnomaly(anomalies, A_KernelWithoutLaunch, i);
  }
  mt.mark("  links: anomalies");
  Column<Interval> asideIv;
  for (auto& [pid, iv] : perDevice) {
    // Streams interleave in the file, but each is nearly in time order.
    auto byBegin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
    sortNearlySorted(iv, byBegin, asideIv);
    mt.mark("  gpu: sort");
    // The union in place: kernels rarely overlap, so the union is nearly as
    // long as the input, and a second array would be as many fresh pages.
    size_t m = 0;
    for (const auto& x : iv) {
      if (m > 0 && x.begin <= iv[m - 1].end)
        iv[m - 1].end = std::max(iv[m - 1].end, x.end);
      else
        iv[m++] = x;
    }
    iv.resize(m);
    DeviceBusy db;
    db.pid = pid;
    db.intervals = std::move(iv);
    for (const auto& x : db.intervals) db.busyNs += x.end - x.begin;
    if (!db.intervals.empty()) {
      db.firstNs = db.intervals.front().begin;
      db.lastNs = db.intervals.back().end;
    }
    tr.gpuBusy.push_back(std::move(db));
  }

  mt.mark("  gpu: unions");
  depthReady.wait(false, std::memory_order_acquire);
  depthWork();
  mt.mark("  depth (shared)");
  laneThread.join();
  for (EventIdx b : pairedB) tr.flags[b] |= ev::DurFromPair;
  tr.durNs.mergeWide({pairedWide.begin(), pairedWide.end()});
  mergeAnomalies(anomalies, laneAnomalies, 0);
  for (int k = 0; k < A_Count; ++k) {
    if (!anomalies[k].count) continue;
    tr.anomalies.push_back({kAnomalyInfo[k].code, kAnomalyInfo[k].explanation, anomalies[k].count, anomalies[k].first});
  }
}

/// Refuses a text whose model would not fit: ~64 B per event, events of at
/// least ~100 bytes of JSON each.
std::optional<Error> memoryGuard(const std::string& path, uint64_t textBytes) {
  const uint64_t need = textBytes / 100 * 64;
  const uint64_t avail = memAvailableBytes();
  if (need <= avail) return std::nullopt;
  Error e = makeError(Error::Kind::Resource, path,
                      fmt::format("the trace needs about {} MiB for its model but only {} MiB of memory is available",
                                  need >> 20, avail >> 20));
  e.code = "out_of_memory";
  return e;
}

Error cancelledError(const std::string& path) {
  Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
  e.code = "cancelled";
  return e;
}

Error tooManyCategoriesError(const std::string& path) {
  Error e = makeError(
      Error::Kind::Resource, path,
      fmt::format("more than {} distinct event categories (\"cat\" values) are not supported", kMaxCategories));
  e.code = "too_many_categories";
  return e;
}

Error tooManyEventsError(const std::string& path) {
  Error e = makeError(Error::Kind::Resource, path, "more than 4 billion events are not supported");
  e.code = "too_many_events";
  return e;
}

/// A fresh model for `source`, ready for an OrderedSink.
std::shared_ptr<Trace> newTrace(const std::string& path, const std::string& compression, uint64_t fileBytes) {
  auto tr = std::make_shared<Trace>();
  tr->path = path;
  tr->baseName = referenceBaseName(path);
  tr->stats.fileBytes = fileBytes;
  tr->stats.compression = compression;
  return tr;
}

Expected<TracePtr> assemble(const std::string& path, std::shared_ptr<Trace> tr,
                            std::shared_ptr<const SourceText> source, TopLevelLayout layout,
                            std::vector<Worker>& workers, OrderedSink& sink, const LoadOptions& opt, LoadTimer& timer);

/// Scans, parses and assembles a text that is wholly available.
Expected<TracePtr> buildTrace(const std::string& path, std::shared_ptr<const SourceText> source,
                              const std::string& compression, uint64_t fileBytes, const LoadOptions& opt) {
  LoadTimer timer;
  JobControl* control = opt.control;
  std::string_view text = source->text();
  if (text.empty()) {
    Error e = makeError(Error::Kind::Format, path, "the file is empty (no JSON text)");
    e.code = "empty_file";
    return e;
  }
  if (control) {
    control->setStage(StageParse);
    control->setTotalBytes(text.size());
    control->setDoneBytes(0);
  }
  if (auto e = memoryGuard(path, text.size())) return *e;
  size_t pieceBytes = std::max<size_t>(opt.pieceBytes, 4096);
  timer.mark("memory guard");
  TopLevelLayout layout;
  ScanError serr;
  if (!scanTopLevel(text, pieceBytes, false, layout, serr, std::string_view::npos, source->fd(), source->fdOffset()))
    return scanToError(path, serr);
  timer.mark("scan");
  for (int attempt = 0;; ++attempt) {
    auto tr = newTrace(path, compression, fileBytes);
    std::vector<Worker> workers(std::max(1u, opt.threads));
    OrderedSink sink(*tr, layout.arrayClose > layout.arrayOpen ? layout.arrayClose - layout.arrayOpen : text.size(),
                     workers.size());
    ParseOutcome po = parseRange(text, source->fd(), source->fdOffset(), layout.pieces, 0, layout.pieces.size(),
                                 workers, sink, control);
    timer.mark("parse");
    if (po.cancelled) return cancelledError(path);
    if (sink.tooMany()) return tooManyEventsError(path);
    if (!po.ok && !layout.usedExactScan && attempt == 0) {
      // A heuristic cut may have landed inside a nested structure: redo exactly.
      if (control) control->setDoneBytes(0);
      if (!scanTopLevel(text, pieceBytes, true, layout, serr)) return scanToError(path, serr);
      continue;
    }
    if (!po.ok) {
      Error e = makeError(Error::Kind::Format, path, po.failure.message, po.failure.offset);
      e.code = "bad_json";
      return e;
    }
    return assemble(path, std::move(tr), std::move(source), std::move(layout), workers, sink, opt, timer);
  }
}

Expected<TracePtr> assemble(const std::string& path, std::shared_ptr<Trace> tr,
                            std::shared_ptr<const SourceText> source, TopLevelLayout layout,
                            std::vector<Worker>& workers, OrderedSink& sink, const LoadOptions& opt, LoadTimer& timer) {
  JobControl* control = opt.control;
  if (control) control->setStage(StageIndex);
  // The parse buffers go back now, so that finalize's arrays reuse their pages
  // (recently freed memory is cheap to touch again; fresh memory is not, D-014).
  for (auto& w : workers) {
    w.parser.release();
    w.buf.reset();
  }
  sink.releaseBuffers();
  tr->source = source;
  tr->topLevel = std::move(layout.entries);
  tr->traceEventsPosition = layout.traceEventsPosition;
  tr->stats.jsonBytes = source->size();
  const size_t n = tr->size();

  // Thread-local string, category and lane ids -> global ids.
  std::vector<std::vector<StrId>> strMap(workers.size());
  std::vector<std::vector<uint16_t>> catMap(workers.size());
  std::vector<std::vector<uint32_t>> laneMap(workers.size());
  std::unordered_map<StrId, uint16_t> globalCat;
  std::map<std::pair<JsonKey, JsonKey>, uint32_t> globalLane;
  for (size_t w = 0; w < workers.size(); ++w) {
    const ThreadTables& c = workers[w].tables;
    if (c.tooManyCategories) return tooManyCategoriesError(path);
    for (const auto& s : c.strings.strings()) strMap[w].push_back(tr->strings.intern(s));
    for (uint32_t cs : c.catStr) {
      StrId g = cs == UINT32_MAX ? kNoStr : strMap[w][cs];
      uint16_t idx;
      auto it = globalCat.find(g);
      if (it != globalCat.end())
        idx = it->second;
      else {
        if (tr->categories.size() >= kMaxCategories) return tooManyCategoriesError(path);
        idx = static_cast<uint16_t>(tr->categories.size());
        tr->categories.push_back(g);
        tr->categoryClass.push_back(g == kNoStr ? CatClass::Other : classifyCategory(tr->strings.view(g)));
        globalCat.emplace(g, idx);
      }
      catMap[w].push_back(idx);
    }
    for (const auto& lk : c.lanes) {
      JsonKey pid = lk.pid, tid = lk.tid;
      if (pid.type == JsonKey::Type::Str) pid.i = strMap[w][static_cast<size_t>(pid.i)];
      if (tid.type == JsonKey::Type::Str) tid.i = strMap[w][static_cast<size_t>(tid.i)];
      auto key = std::make_pair(pid, tid);
      auto it = globalLane.find(key);
      uint32_t idx;
      if (it != globalLane.end())
        idx = it->second;
      else {
        idx = static_cast<uint32_t>(tr->lanes.size());
        Lane lane;
        lane.pid = pid;
        lane.tid = tid;
        tr->lanes.push_back(std::move(lane));
        globalLane.emplace(key, idx);
      }
      laneMap[w].push_back(idx);
    }
  }
  if (tr->strings.size() > static_cast<size_t>(INT32_MAX)) return tooManyEventsError(path);  // ids as int32
  sink.adoptSideTables();
  {
    Trace& T = *tr;
    // Local ids -> global ids. Names and lanes are 16-bit with side tables: a
    // global id may need the table where the local one did not, or the other
    // way round, so each thread collects the global ids that do not fit and
    // the tables are replaced after the join (they hold the local ids, read
    // here, until then).
    std::vector<std::pair<EventIdx, uint32_t>> wideName[2], wideLane[2];
    // Usually every global id fits: no test per event then.
    const bool namesFit = T.strings.size() < NameColumn::kWide;
    const bool lanesFit = T.lanes.size() < LaneColumn::kWide;
    uint16_t* nameN = T.name.narrow().data();
    uint16_t* laneN = T.lane.narrow().data();
    auto store = [](uint16_t* narrow, auto& wide, EventIdx i, uint32_t v, bool allFit) {
      if (allFit || NameColumn::fitsNarrow(v)) {
        narrow[i] = static_cast<uint16_t>(v);
      } else {
        narrow[i] = NameColumn::kWide;
        wide.emplace_back(i, v);
      }
    };
    static_assert(std::is_same_v<NameColumn, LaneColumn>);
    auto remapRanges = [&](size_t first, size_t step) {
      auto& wn = wideName[first];
      auto& wl = wideLane[first];
      for (size_t r = first; r < sink.ranges.size(); r += step) {
        const auto& rg = sink.ranges[r];
        const auto& sm = strMap[rg.worker];
        const auto& cm = catMap[rg.worker];
        const auto& lm = laneMap[rg.worker];
        for (EventIdx i = rg.begin; i < rg.end; ++i) {
          store(nameN, wn, i, sm[T.name[i]], namesFit);
          T.cat[i] = cm[T.cat[i]];
          store(laneN, wl, i, lm[T.lane[i]], lanesFit);
          const uint16_t fl = T.flags[i];
          // String ids are StrIds, below 2^31 (checked above): they stay narrow.
          if (fl & ev::CorrIsStr) T.corr.narrow()[i] = static_cast<int32_t>(sm[static_cast<size_t>(T.corr[i])]);
          if (fl & ev::ExtIsStr) T.extId.narrow()[i] = static_cast<int32_t>(sm[static_cast<size_t>(T.extId[i])]);
        }
      }
    };
    if (n > (1u << 18) && opt.threads > 1) {
      std::thread helper(remapRanges, 1, 2);
      remapRanges(0, 2);
      helper.join();
    } else {
      remapRanges(0, 1);
    }
    wideName[0].insert(wideName[0].end(), wideName[1].begin(), wideName[1].end());
    wideLane[0].insert(wideLane[0].end(), wideLane[1].begin(), wideLane[1].end());
    T.name.adoptWide(std::move(wideName[0]));
    T.lane.adoptWide(std::move(wideLane[0]));
  }
  for (const auto& [i, d] : sink.exactTs) tr->exactTsUs.emplace(i, d);
  for (const auto& [i, d] : sink.exactDur) tr->exactDurUs.emplace(i, d);
  for (const auto& m : sink.meta) {
    const Lane& lane = tr->lanes[tr->lane[m.event]];  // lane ids were remapped above
    std::string nm(tr->strings.view(strMap[m.worker][m.nameStr]));
    if (m.process)
      tr->processNames[lane.pid] = nm;
    else
      tr->threadNames[{lane.pid, lane.tid}] = nm;
  }
  std::array<AnomalyCounter, A_Count> anomalies = sink.anomalies;
  timer.mark("remap");
  if (control && control->cancelled()) return cancelledError(path);
  finalize(*tr, anomalies);
  timer.mark("finalize");
  if (control) {
    control->addEvents(n);
    control->setStage(StageDone);
  }
  return TracePtr(std::move(tr));
}

/// Inflated text on its way from the inflating thread to the parsers. The
/// inflater writes straight into piece buffers (a bounded pool, so it never
/// runs far ahead of the parsers); when a buffer holds about a piece, it is
/// cut at an event boundary (findCut), queued, and what follows the cut starts
/// the next buffer. Text before traceEvents is kept apart (the top-level keys),
/// and the buffer left when the stream ends is the tail: its exact scan finds
/// the array's end and the keys after it.
class PiecePipe final : public InflateTarget {
 public:
  /// Text at data + 1 (data[0] takes the '[' the parser wraps a piece in);
  /// kEdge bytes stay free at the end for the ']' and the parser's padding.
  struct Buf {
    Column<char> data;
    char* text() { return data.data() + 1; }
    size_t room() const { return data.size() - kEdge; }  // text bytes it can hold
  };
  static constexpr size_t kEdge = 256;
  struct Ready {
    size_t k = 0;
    std::unique_ptr<Buf> buf;
    Piece piece;  // text offsets; bytes at buf->data
  };

  PiecePipe(size_t pieceBytes, size_t maxBufs) : pieceBytes_(pieceBytes), maxBufs_(maxBufs) {}

  // ---- inflating thread ----
  bool space(size_t minBytes, uint8_t*& at, size_t& room) override {
    if (stopped_.load(std::memory_order_relaxed)) return false;
    if (!cur_) {  // before traceEvents
      if (prefix_.size() < prefixUsed_ + minBytes)
        prefix_.resize(std::max(prefixUsed_ + minBytes, prefix_.size() * 2 + (256u << 10)));
      at = reinterpret_cast<uint8_t*>(prefix_.data() + prefixUsed_);
      room = prefix_.size() - prefixUsed_;
      return true;
    }
    // Stop a little past a piece so that the cut is near the end of the buffer.
    const size_t goal = pieceBytes_ + (16u << 10);
    size_t want = used_ < goal ? std::max(goal - used_, minBytes) : minBytes;
    if (cur_->room() < used_ + want) grow(used_ + want);
    at = reinterpret_cast<uint8_t*>(cur_->text() + used_);
    room = want;
    return true;
  }

  bool produced(size_t n) override {
    if (!cur_) {
      prefixUsed_ += n;
      // Keys before traceEvents are small in practice; a huge one (or a file
      // without traceEvents) goes to the plain path rather than into memory.
      if (prefixUsed_ > (32u << 20)) return startEvents(false) && cur_;
      if (prefixUsed_ < nextPrefixScan_) return true;
      nextPrefixScan_ = prefixUsed_ * 2;
      return startEvents(false);
    }
    used_ += n;
    while (used_ >= pieceBytes_ && nextExactAt_ != SIZE_MAX) {  // SIZE_MAX: the array's end is in this buffer
      if (used_ < 256 + 64) break;
      const size_t from = std::max<size_t>(searchFrom_, pieceBytes_ > (48u << 10) ? pieceBytes_ - (48u << 10) : 64);
      std::string_view t(cur_->text(), used_);
      size_t c = from + 64 < used_ - 256 ? findCut(t, from, used_ - 256) : std::string_view::npos;
      if (c == std::string_view::npos) {
        searchFrom_ = used_ > 256 + 64 ? used_ - 256 - 64 : 0;  // a long event: look further next time
        // No "},<newline>{" (minified text, or huge events): past two pieces,
        // cut exactly (quote/depth-aware) so that the buffer stays bounded.
        if (used_ < std::max(2 * pieceBytes_, nextExactAt_)) return true;
        TopLevelLayout tl;
        ScanError err;
        if (exactArrayScan(t, 0, pieceBytes_, tl, err)) {  // the array ends in this buffer: it is the tail
          nextExactAt_ = SIZE_MAX;
          return true;
        }
        if (err.code != "truncated_json") return false;  // malformed: the plain path reports it
        if (tl.pieces.empty()) {                         // one event longer than the buffer so far
          nextExactAt_ = used_ * 2;
          return true;
        }
        c = static_cast<size_t>(tl.pieces.back().end);  // a comma at the array's depth
      }
      nextExactAt_ = 0;
      const size_t k = skipWs(t, c + 1);
      std::unique_ptr<Buf> next = take();
      if (!next) return false;
      const size_t carry = used_ - k;
      if (next->room() < carry) next->data.resize(carry + kEdge);  // space() grows it further as needed
      std::memcpy(next->text(), cur_->text() + k, carry);
      Ready r;
      r.buf = std::move(cur_);
      r.piece = {base_, base_ + c};
      base_ += k;
      cur_ = std::move(next);
      used_ = carry;
      searchFrom_ = 0;
      push(std::move(r));
    }
    return true;
  }

  /// The inflater ended (`ok`: the whole stream was read).
  void finish(bool ok) {
    if (ok && !cur_) startEvents(true);
    std::lock_guard<std::mutex> lock(m_);
    ok_ = ok && cur_ != nullptr;
    done_ = true;
    cv_.notify_all();
  }

  // ---- parsers ----
  /// The next piece in text order; false when there are no more (or stopped).
  bool pop(Ready& r) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !ready_.empty() || done_ || stopped_; });
    if (stopped_ || ready_.empty()) return false;
    r = std::move(ready_.front());
    ready_.pop_front();
    return true;
  }
  void recycle(std::unique_ptr<Buf> b) {
    std::lock_guard<std::mutex> lock(m_);
    free_.push_back(std::move(b));
    cv_.notify_all();
  }
  void stop() {
    std::lock_guard<std::mutex> lock(m_);
    stopped_ = true;
    cv_.notify_all();
  }
  const std::atomic<bool>* stopFlag() const { return &stopped_; }

  // ---- after the inflater and the parsers have ended ----
  bool ok() const { return ok_; }
  size_t pieces() const { return nextK_; }
  std::string_view prefix() const { return std::string_view(prefix_.data(), first_); }  // up to and with '['
  std::string_view tail() const { return std::string_view(cur_->text(), used_); }
  uint64_t tailBase() const { return base_; }
  /// Frees every buffer (prefix() and tail() are invalid afterwards).
  void release() {
    std::lock_guard<std::mutex> lock(m_);
    free_.clear();
    ready_.clear();
    cur_.reset();
    used_ = 0;
    std::string().swap(prefix_);
    prefixUsed_ = first_ = 0;
  }

 private:
  /// Looks for the '[' of traceEvents in the text so far; once found, the
  /// events' text moves to the first piece buffer.
  bool startEvents(bool complete) {
    bool needMore = false;
    ScanError err;
    const size_t first = scanToTraceEvents(std::string_view(prefix_.data(), prefixUsed_), complete, needMore, err);
    if (first == std::string_view::npos) return needMore;  // a malformed prefix: the plain path reports it
    first_ = first;
    const size_t b = skipWs(std::string_view(prefix_.data(), prefixUsed_), first);
    cur_ = take();
    if (!cur_) return false;
    const size_t carry = prefixUsed_ - b;
    if (cur_->room() < carry + (64u << 10)) grow(carry + (64u << 10));
    std::memcpy(cur_->text(), prefix_.data() + b, carry);
    used_ = carry;
    base_ = b;
    return true;
  }
  /// A buffer from the pool, waiting while all are in use; null when stopped.
  std::unique_ptr<Buf> take() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !free_.empty() || allocated_ < maxBufs_ || stopped_; });
    if (stopped_) return nullptr;
    if (!free_.empty()) {
      auto b = std::move(free_.back());
      free_.pop_back();
      return b;
    }
    ++allocated_;
    auto b = std::make_unique<Buf>();
    b->data.resize(pieceBytes_ + (64u << 10) + kEdge);
    return b;
  }
  void grow(size_t need) {
    Column<char> bigger;
    bigger.resize(std::max(need + kEdge, cur_->data.size() * 2));
    std::memcpy(bigger.data() + 1, cur_->text(), used_);
    cur_->data = std::move(bigger);
  }
  void push(Ready r) {
    std::lock_guard<std::mutex> lock(m_);
    r.k = nextK_++;
    ready_.push_back(std::move(r));
    cv_.notify_all();
  }

  const size_t pieceBytes_, maxBufs_;
  std::string prefix_;
  size_t prefixUsed_ = 0, nextPrefixScan_ = 4096, first_ = 0;
  std::unique_ptr<Buf> cur_;
  size_t used_ = 0, searchFrom_ = 0, nextExactAt_ = 0;
  uint64_t base_ = 0;
  size_t nextK_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Ready> ready_;
  std::vector<std::unique_ptr<Buf>> free_;
  size_t allocated_ = 0;
  std::atomic<bool> stopped_{false};
  bool done_ = false, ok_ = false;
};

/// gzip: one thread inflates the file, keeping checkpoints for later random
/// access (io/gzip_index.hpp), while the parsers take pieces as they come. No
/// copy of the text is kept. Anything unusual — corrupt or truncated data, a
/// malformed prefix, a piece that does not parse, a tail that does not scan —
/// hands over to the plain path (decompress into a temporary file, exact
/// scan), which names the problem and its byte offset.
Expected<TracePtr> buildTraceGzipIndexed(const std::string& path, std::shared_ptr<const SourceText> compressed,
                                         uint64_t fileBytes, const LoadOptions& opt) {
  JobControl* control = opt.control;
  const size_t pieceBytes = std::max<size_t>(opt.pieceBytes, 4096);
  LoadTimer timer;
  auto plain = [&](const char* why) -> Expected<TracePtr> {
    if (timer.on) std::fprintf(stderr, "[load] gzip: starting over on the plain path (%s)\n", why);
    if (control) control->setDoneBytes(0);
    auto src = openSource(path, opt.cacheDir, control, /*indexGzip=*/false);
    if (!src) return src.error();
    return buildTrace(path, src->text, src->compression, src->fileBytes, opt);
  };
  const std::string_view z = compressed->text();
  // The gzip trailer's ISIZE is the text size modulo 2^32 (of the last member):
  // the smallest such size not below the compressed size is an estimate.
  uint64_t expected = 0;
  if (z.size() >= 18) {
    uint32_t isize;
    std::memcpy(&isize, z.data() + z.size() - 4, 4);
    expected = isize;
    while (expected < z.size()) expected += uint64_t(1) << 32;
    expected = std::min<uint64_t>(expected, uint64_t(z.size()) * 64);
  }
  if (auto e = memoryGuard(path, expected)) return *e;
  if (control) {
    control->setStage(StageDecompress);
    control->setTotalBytes(z.size());
  }
  const unsigned threads = std::max(1u, opt.threads);
  PiecePipe pipe(pieceBytes, 2 * threads + 2);
  IndexedInflateResult inflated;
  std::thread inflater([&] {
    const uint64_t every = opt.gzipCheckpointBytes ? opt.gzipCheckpointBytes : checkpointSpacing(expected);
    inflated = inflateIndexed(reinterpret_cast<const uint8_t*>(z.data()), z.size(), /*gzip=*/true, every, pipe, control,
                              pipe.stopFlag());
    pipe.finish(inflated.ok());
  });
  auto tr = newTrace(path, "gzip", fileBytes);
  std::vector<Worker> workers(threads);
  OrderedSink sink(*tr, expected, workers.size());
  std::atomic<bool> failed{false};
  auto work = [&](unsigned w) {
    Worker& me = workers[w];
    PiecePipe::Ready r;
    while (pipe.pop(r)) {
      ParseFailure f;
      // In place: the inflater wrote the text where the parser reads it.
      const bool ok = me.parser.parseInPlace(r.buf->data.data(), r.buf->data.size() - PiecePipe::kEdge / 2, r.piece,
                                             me.tables, *me.buf, f);
      pipe.recycle(std::move(r.buf));
      if (!ok) {
        failed = true;
        pipe.stop();
        return;
      }
      sink.deliver(r.k, w, me.buf);
      if (control && control->cancelled()) {
        pipe.stop();
        return;
      }
    }
  };
  {
    std::vector<std::thread> helpers;
    for (unsigned w = 1; w < threads; ++w) helpers.emplace_back(work, w);
    work(0);
    for (auto& h : helpers) h.join();
  }
  inflater.join();
  if (control && control->cancelled()) return cancelledError(path);
  if (sink.tooMany()) return tooManyEventsError(path);
  if (failed) return plain("a piece did not parse");
  if (!pipe.ok()) return plain("the stream or its prefix is not as expected");
  if (timer.on)
    std::fprintf(stderr, "[load] %zu pieces inflated and parsed, %zu checkpoints\n", pipe.pieces(),
                 inflated.checkpoints.size());
  timer.mark("inflate+parse");
  // The tail: exact scan to the array's end, its pieces, then the top-level
  // keys around the array (the text before it and the text after it).
  if (control) control->setStage(StageParse);
  const std::string_view tail = pipe.tail();
  const uint64_t tailBase = pipe.tailBase();
  TopLevelLayout tl;
  ScanError err;
  if (!exactArrayScan(tail, 0, pieceBytes, tl, err)) return plain("the tail does not scan");
  size_t k = pipe.pieces();
  for (const Piece& p : tl.pieces) {
    ParseFailure f;
    if (!workers[0].parser.parseBytes(tail.data() + p.begin, {tailBase + p.begin, tailBase + p.end}, workers[0].tables,
                                      *workers[0].buf, f))
      return plain("a tail piece did not parse");
    sink.deliver(k++, 0, workers[0].buf);
  }
  if (sink.tooMany()) return tooManyEventsError(path);
  const std::string_view prefix = pipe.prefix();
  std::string outer;
  outer.reserve(prefix.size() + tail.size() - tl.arrayClose);
  outer.append(prefix);
  outer.append(tail.substr(tl.arrayClose));
  TopLevelLayout layout;
  if (!scanTopLevel(outer, pieceBytes, false, layout, err, prefix.size()))
    return plain("the top-level keys do not scan");
  layout.arrayOpen = prefix.size() - 1;
  layout.arrayClose = tailBase + tl.arrayClose;
  timer.mark("tail");
  pipe.release();  // its buffers' pages go to finalize (see assemble)
  auto source = makeGzipIndexedSource(compressed->fd(), path, inflated.textBytes, std::move(inflated.checkpoints));
  return assemble(path, std::move(tr), std::move(source), std::move(layout), workers, sink, opt, timer);
}

}  // namespace

Expected<TracePtr> loadTrace(const std::string& path, const LoadOptions& options) {
  if (options.control) options.control->setStage(StageOpen);
  LoadTimer openTimer;
  auto src = openSource(path, options.cacheDir, options.control, /*indexGzip=*/true);
  if (!src) return src.error();
  openTimer.mark("open");
  if (src->gzip) return buildTraceGzipIndexed(path, src->gzip, src->fileBytes, options);
  return buildTrace(path, src->text, src->compression, src->fileBytes, options);
}

Expected<TracePtr> loadTraceFromString(std::string json, const std::string& name, const LoadOptions& options) {
  uint64_t n = json.size();
  return buildTrace(name, makeStringSource(std::move(json)), "none", n, options);
}

}  // namespace steadyscope
