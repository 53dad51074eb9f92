#include <steadyscope/core/io/loader.hpp>

#include "io/event_parser.hpp"
#include "io/json_scan.hpp"
#include "io/source.hpp"

#include <algorithm>
#include <cerrno>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
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

struct ParseResult {
  std::vector<LocalColumns> cols;  // one per thread, in text order
  bool ok = true;
  bool cancelled = false;
  ParseFailure failure;
};

ParseResult parseAll(const SourceText& src, const std::vector<Piece>& pieces, unsigned threads,
                     JobControl* control) {
  std::string_view text = src.text();
  ParseResult res;
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, pieces.size()))));
  // Contiguous groups of pieces, balanced by bytes, so thread order = text order.
  uint64_t total = 0;
  for (const auto& p : pieces) total += p.end - p.begin;
  std::vector<size_t> bounds{0};
  uint64_t acc = 0;
  for (size_t i = 0; i < pieces.size() && bounds.size() < threads; ++i) {
    acc += pieces[i].end - pieces[i].begin;
    if (acc * threads >= total * bounds.size()) bounds.push_back(i + 1);
  }
  while (bounds.size() < threads + 1) bounds.push_back(pieces.size());
  bounds.back() = pieces.size();
  res.cols.resize(threads);
  // Reserve generously: untouched capacity costs no memory (pages are faulted on
  // first write), and thread 0's columns can then absorb the others without a copy of its own.
  for (unsigned t = 0; t < threads; ++t) {
    uint64_t bytes = 0;
    for (size_t i = bounds[t]; i < bounds[t + 1]; ++i) bytes += pieces[i].end - pieces[i].begin;
    size_t est = static_cast<size_t>((t == 0 ? total : bytes) / 120 + 1024);
    auto& c = res.cols[t];
    c.tsNs.reserve(est); c.durNs.reserve(est); c.corr.reserve(est); c.extId.reserve(est);
    c.offset.reserve(est); c.length.reserve(est); c.name.reserve(est); c.lane.reserve(est);
    c.cat.reserve(est); c.flags.reserve(est); c.ph.reserve(est);
  }
  std::vector<ParseFailure> fails(threads);
  std::vector<char> failed(threads, 0), cancelled(threads, 0);
  auto work = [&](unsigned t) {
    EventParser parser;
    for (size_t i = bounds[t]; i < bounds[t + 1]; ++i) {
      if (control && control->cancelled()) { cancelled[t] = 1; return; }
      if (!parser.parsePiece(text, src.fd(), src.fdOffset(), pieces[i], res.cols[t], fails[t])) { failed[t] = 1; return; }
      if (control) {
        control->addDoneBytes(pieces[i].end - pieces[i].begin);
        control->addEvents(0);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (unsigned t = 0; t < threads; ++t) {
    if (cancelled[t]) res.cancelled = true;
    if (failed[t] && res.ok) { res.ok = false; res.failure = fails[t]; }
  }
  return res;
}

template <typename T>
void moveColumn(std::vector<T>& dst, std::vector<LocalColumns>& cols, std::vector<T> LocalColumns::*member, size_t n) {
  // Thread 0's column becomes the result (it was reserved for the whole file);
  // the others are appended and released one column at a time (low peak memory).
  dst = std::move(cols[0].*member);
  if (dst.capacity() < n) dst.reserve(n);
  for (size_t t = 1; t < cols.size(); ++t) {
    auto& v = cols[t].*member;
    dst.insert(dst.end(), v.begin(), v.end());
    std::vector<T>().swap(v);
  }
}



struct PhaseTimer {
  bool on = std::getenv("STEADYSCOPE_LOAD_TIMING") != nullptr;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  void mark(const char* what) {
    if (!on) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "[load] %-18s %8.1f ms\n", what, std::chrono::duration<double, std::milli>(now - t).count());
    t = now;
  }
};

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

void addAnomaly(std::array<AnomalyCounter, A_Count>& a, AnomalyCode code, int64_t ev) {
  if (a[code].count++ == 0) a[code].first = ev;
}

void finalize(Trace& tr, std::array<AnomalyCounter, A_Count>& anomalies, PhaseTimer& timer) {
  const size_t n = tr.size();
  // Two independent halves run in parallel: (lanes, B/E pairing, depth) on a
  // helper thread, (counts, links, flows, GPU unions) here. They write disjoint
  // columns/members; the B/E flag bits are applied after the join.
  std::array<AnomalyCounter, A_Count> laneAnomalies{};
  std::vector<EventIdx> pairedB;
  std::vector<uint8_t> paired;
  std::thread laneThread([&] {
  // ---- lanes: events with a ts, sorted by (ts, longer first, file order) ----
  std::vector<uint32_t> laneCount(tr.lanes.size(), 0);
  for (EventIdx i = 0; i < n; ++i)
    if ((tr.flags[i] & ev::HasTs) && tr.ph[i] != Ph::Metadata) ++laneCount[tr.lane[i]];
  for (size_t l = 0; l < tr.lanes.size(); ++l) tr.lanes[l].events.reserve(laneCount[l]);
  for (EventIdx i = 0; i < n; ++i)
    if ((tr.flags[i] & ev::HasTs) && tr.ph[i] != Ph::Metadata) tr.lanes[tr.lane[i]].events.push_back(i);
  // Lists are filled in file order, so a stable sort gives (ts, longer first, file order).
  auto byTsLongerFirst = [&](EventIdx a, EventIdx b) {
    if (tr.tsNs[a] != tr.tsNs[b]) return tr.tsNs[a] < tr.tsNs[b];
    return tr.durNs[a] > tr.durNs[b];
  };
  auto sortLane = [&](Lane& lane) {
    if (!std::is_sorted(lane.events.begin(), lane.events.end(), byTsLongerFirst))
      std::stable_sort(lane.events.begin(), lane.events.end(), byTsLongerFirst);
  };
  for (auto& lane : tr.lanes) sortLane(lane);

  // ---- B/E pairing per lane (the stack discipline of the trace-event format) ----
  std::vector<EventIdx> stack;
  for (auto& lane : tr.lanes) {
    stack.clear();
    bool any = false;
    for (EventIdx i : lane.events) {
      if (tr.ph[i] == Ph::Begin) { stack.push_back(i); any = true; }
      else if (tr.ph[i] == Ph::End) {
        any = true;
        if (stack.empty()) { addAnomaly(laneAnomalies, A_UnmatchedE, i); continue; }
        EventIdx b = stack.back();
        stack.pop_back();
        tr.durNs[b] = tr.tsNs[i] - tr.tsNs[b];  // B never has HasDur: the other thread never reads it
        pairedB.push_back(b);
        if (paired.empty()) paired.assign(n, 0);
        paired[b] = 1;
      }
    }
    for (EventIdx b : stack) addAnomaly(laneAnomalies, A_UnmatchedB, b);
    if (any) sortLane(lane);  // B durations changed: restore the (ts, longer first) order
  }

  // ---- nesting depth per lane ----
  tr.depth.assign(n, 0);
  std::vector<int64_t> ends;
  for (auto& lane : tr.lanes) {
    ends.clear();
    uint16_t maxDepth = 0;
    for (EventIdx i : lane.events) {
      bool slice = (tr.ph[i] == Ph::Complete && (tr.flags[i] & ev::HasDur)) ||
                   (tr.ph[i] == Ph::Begin && !paired.empty() && paired[i]);
      if (!slice) continue;
      int64_t ts = tr.tsNs[i];
      while (!ends.empty() && ends.back() <= ts) ends.pop_back();
      uint16_t d = static_cast<uint16_t>(std::min<size_t>(ends.size(), UINT16_MAX));
      tr.depth[i] = d;
      maxDepth = std::max(maxDepth, d);
      int64_t e = ts + std::max<int64_t>(tr.durNs[i], 0);
      // A child ending after its parent is clipped for nesting purposes.
      if (!ends.empty()) e = std::min(e, ends.back());
      ends.push_back(e);
    }
    lane.maxDepth = maxDepth;
  }

  });
  // ---- per-ph / per-cat counts, span, simple anomalies ----
  std::vector<uint64_t> catCount(tr.categories.size(), 0);
  std::array<uint64_t, 11> phCount{};
  int64_t firstTs = INT64_MAX, lastEnd = INT64_MIN;
  for (EventIdx i = 0; i < n; ++i) {
    Ph ph = tr.ph[i];
    ++phCount[static_cast<size_t>(ph)];
    ++catCount[tr.cat[i]];
    uint16_t fl = tr.flags[i];
    if (ph == Ph::Missing) addAnomaly(anomalies, A_PhMissing, i);
    else if (ph == Ph::Other) addAnomaly(anomalies, A_PhUnknown, i);
    if (ph == Ph::Complete && !(fl & ev::HasDur)) addAnomaly(anomalies, A_DurMissing, i);
    if ((fl & ev::HasDur) && tr.durNs[i] < 0) addAnomaly(anomalies, A_DurNegative, i);
    if (ph != Ph::Metadata && !(fl & ev::HasTs)) addAnomaly(anomalies, A_TsMissing, i);
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

  // ---- GPU busy union per device (GPU pid), links, flows ----
  // Correlation and flow ids are dense small integers in practice: use flat
  // arrays indexed by id, and hash sets only for ids outside [0, 4n + 2^20).
  const int64_t denseLimit = static_cast<int64_t>(4 * n + (1u << 20));
  std::vector<uint8_t> cpuCorrDense, flowDense;
  std::unordered_set<int64_t> cpuCorrSparse;
  std::unordered_map<int64_t, uint8_t> flowSparse;
  auto dense = [&](std::vector<uint8_t>& v, int64_t id) -> uint8_t& {
    if (static_cast<size_t>(id) >= v.size()) v.resize(std::max<size_t>(static_cast<size_t>(id) + 1, v.size() * 2), 0);
    return v[static_cast<size_t>(id)];
  };
  std::map<JsonKey, std::vector<Interval>> perDevice;
  for (EventIdx i = 0; i < n; ++i) {
    CatClass c = tr.classOf(i);
    uint16_t fl = tr.flags[i];
    if (isGpuWork(c)) {
      tr.lanes[tr.lane[i]].gpu = true;
      if ((fl & ev::HasTs) && (fl & ev::HasDur) && tr.durNs[i] > 0)
        perDevice[tr.lanes[tr.lane[i]].pid].push_back({tr.tsNs[i], tr.tsNs[i] + tr.durNs[i]});
    } else if ((fl & ev::HasCorr) && !(fl & ev::CorrIsStr) && c != CatClass::GpuUserAnnotation) {
      int64_t id = tr.corr[i];
      if (id >= 0 && id < denseLimit) dense(cpuCorrDense, id) = 1;
      else cpuCorrSparse.insert(id);
    }
    if ((tr.ph[i] == Ph::FlowStart || tr.ph[i] == Ph::FlowEnd) && (fl & ev::HasId) && !(fl & ev::CorrIsStr)) {
      int64_t id = tr.corr[i];
      uint8_t bit = tr.ph[i] == Ph::FlowStart ? 1 : 2;
      if (id >= 0 && id < denseLimit) dense(flowDense, id) |= bit;
      else flowSparse[id] |= bit;
    }
  }
  auto hasCpuCorr = [&](int64_t id) {
    if (id >= 0 && id < denseLimit) return static_cast<size_t>(id) < cpuCorrDense.size() && cpuCorrDense[static_cast<size_t>(id)];
    return cpuCorrSparse.count(id) > 0;
  };
  auto flowBits = [&](int64_t id) -> uint8_t {
    if (id >= 0 && id < denseLimit) return static_cast<size_t>(id) < flowDense.size() ? flowDense[static_cast<size_t>(id)] : 0;
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
    if (!(tr.flags[i] & ev::HasCorr)) addAnomaly(anomalies, A_GpuWithoutCorrelation, i);
    else if (!hasCpuCorr(tr.corr[i])) addAnomaly(anomalies, A_KernelWithoutLaunch, i);
  }
  for (auto& [pid, iv] : perDevice) {
    auto byBegin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
    if (!std::is_sorted(iv.begin(), iv.end(), byBegin)) std::sort(iv.begin(), iv.end(), byBegin);
    DeviceBusy db;
    db.pid = pid;
    for (const auto& x : iv) {
      if (!db.intervals.empty() && x.begin <= db.intervals.back().end)
        db.intervals.back().end = std::max(db.intervals.back().end, x.end);
      else
        db.intervals.push_back(x);
    }
    for (const auto& x : db.intervals) db.busyNs += x.end - x.begin;
    if (!db.intervals.empty()) {
      db.firstNs = db.intervals.front().begin;
      db.lastNs = db.intervals.back().end;
    }
    tr.gpuBusy.push_back(std::move(db));
  }

  laneThread.join();
  for (EventIdx b : pairedB) tr.flags[b] |= ev::DurFromPair;
  mergeAnomalies(anomalies, laneAnomalies, 0);
  (void)timer;
  for (int k = 0; k < A_Count; ++k) {
    if (!anomalies[k].count) continue;
    tr.anomalies.push_back({kAnomalyInfo[k].code, kAnomalyInfo[k].explanation, anomalies[k].count,
                            anomalies[k].first});
  }
}

Expected<TracePtr> assemble(const std::string& path, std::shared_ptr<const SourceText> source,
                            const std::string& compression, uint64_t fileBytes, TopLevelLayout layout,
                            ParseResult pr, const LoadOptions& opt, PhaseTimer& timer);

Expected<TracePtr> buildTrace(const std::string& path, std::shared_ptr<const SourceText> source,
                              const std::string& compression, uint64_t fileBytes,
                              const LoadOptions& opt) {
  PhaseTimer timer;
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
  // Memory guard: ~64 B per event, events ≥ ~100 bytes of JSON each.
  uint64_t need = text.size() / 100 * 64;
  uint64_t avail = memAvailableBytes();
  if (need > avail) {
    Error e = makeError(Error::Kind::Resource, path,
                        fmt::format("the trace needs about {} MiB for its model but only {} MiB of memory is available",
                                    need >> 20, avail >> 20));
    e.code = "out_of_memory";
    return e;
  }
  size_t pieceBytes = std::max<size_t>(opt.pieceBytes, 4096);
  timer.mark("memory guard");
  TopLevelLayout layout;
  ScanError serr;
  if (!scanTopLevel(text, pieceBytes, false, layout, serr)) return scanToError(path, serr);
  timer.mark("scan");
  ParseResult pr = parseAll(*source, layout.pieces, opt.threads, control);
  timer.mark("parse");
  if (pr.cancelled) {
    Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
    e.code = "cancelled";
    return e;
  }
  if (!pr.ok && !layout.usedExactScan) {
    // A heuristic cut may have landed inside a nested structure: redo exactly.
    if (control) control->setDoneBytes(0);
    if (!scanTopLevel(text, pieceBytes, true, layout, serr)) return scanToError(path, serr);
    pr = parseAll(*source, layout.pieces, opt.threads, control);
    if (pr.cancelled) {
      Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
      e.code = "cancelled";
      return e;
    }
  }
  if (!pr.ok) {
    Error e = makeError(Error::Kind::Format, path, pr.failure.message, pr.failure.offset);
    e.code = "bad_json";
    return e;
  }
  return assemble(path, std::move(source), compression, fileBytes, std::move(layout), std::move(pr), opt, timer);
}

Expected<TracePtr> assemble(const std::string& path, std::shared_ptr<const SourceText> source,
                            const std::string& compression, uint64_t fileBytes, TopLevelLayout layout,
                            ParseResult pr, const LoadOptions& opt, PhaseTimer& timer) {
  JobControl* control = opt.control;
  std::string_view text = source->text();
  if (control) control->setStage(StageIndex);

  auto tr = std::make_shared<Trace>();
  tr->path = path;
  tr->baseName = referenceBaseName(path);
  tr->source = source;
  tr->topLevel = std::move(layout.entries);
  tr->traceEventsPosition = layout.traceEventsPosition;
  tr->stats.fileBytes = fileBytes;
  tr->stats.jsonBytes = text.size();
  tr->stats.compression = compression;

  size_t n = 0;
  for (auto& c : pr.cols) n += c.size();
  if (n >= UINT32_MAX) {
    Error e = makeError(Error::Kind::Resource, path, "more than 4 billion events are not supported");
    e.code = "too_many_events";
    return e;
  }
  // String, category and lane remaps per thread.
  std::vector<std::vector<StrId>> strMap(pr.cols.size());
  std::vector<std::vector<uint16_t>> catMap(pr.cols.size());
  std::vector<std::vector<uint32_t>> laneMap(pr.cols.size());
  std::unordered_map<StrId, uint16_t> globalCat;
  std::map<std::pair<JsonKey, JsonKey>, uint32_t> globalLane;
  for (size_t t = 0; t < pr.cols.size(); ++t) {
    auto& c = pr.cols[t];
    for (const auto& s : c.strings.strings()) strMap[t].push_back(tr->strings.intern(s));
    for (uint32_t cs : c.catStr) {
      StrId g = cs == UINT32_MAX ? kNoStr : strMap[t][cs];
      uint16_t idx;
      auto it = globalCat.find(g);
      if (it != globalCat.end()) idx = it->second;
      else {
        idx = static_cast<uint16_t>(tr->categories.size());
        tr->categories.push_back(g);
        tr->categoryClass.push_back(g == kNoStr ? CatClass::Other : classifyCategory(tr->strings.view(g)));
        globalCat.emplace(g, idx);
      }
      catMap[t].push_back(idx);
    }
    for (const auto& lk : c.lanes) {
      JsonKey pid = lk.pid, tid = lk.tid;
      if (pid.type == JsonKey::Type::Str) pid.i = strMap[t][static_cast<size_t>(pid.i)];
      if (tid.type == JsonKey::Type::Str) tid.i = strMap[t][static_cast<size_t>(tid.i)];
      auto key = std::make_pair(pid, tid);
      auto it = globalLane.find(key);
      uint32_t idx;
      if (it != globalLane.end()) idx = it->second;
      else {
        idx = static_cast<uint32_t>(tr->lanes.size());
        Lane lane;
        lane.pid = pid;
        lane.tid = tid;
        tr->lanes.push_back(std::move(lane));
        globalLane.emplace(key, idx);
      }
      laneMap[t].push_back(idx);
    }
  }
  std::array<AnomalyCounter, A_Count> anomalies{};
  {
    size_t base = 0;
    for (size_t t = 0; t < pr.cols.size(); ++t) {
      auto& c = pr.cols[t];
      for (uint32_t& x : c.name) x = strMap[t][x];
      for (uint16_t& x : c.cat) x = catMap[t][x];
      for (uint32_t& x : c.lane) x = laneMap[t][x];
      for (size_t i = 0; i < c.size(); ++i)
        if (c.flags[i] & (ev::CorrIsStr)) c.corr[i] = strMap[t][static_cast<size_t>(c.corr[i])];
      for (size_t i = 0; i < c.size(); ++i)
        if (c.flags[i] & (ev::ExtIsStr)) c.extId[i] = strMap[t][static_cast<size_t>(c.extId[i])];
      for (auto& [i, d] : c.exactTs) tr->exactTsUs.emplace(static_cast<EventIdx>(base + i), d);
      for (auto& [i, d] : c.exactDur) tr->exactDurUs.emplace(static_cast<EventIdx>(base + i), d);
      for (const auto& m : c.meta) {
        const Lane& lane = tr->lanes[c.lane[m.event]];  // lane ids were remapped above
        std::string nm(tr->strings.view(strMap[t][m.nameStr]));
        if (m.process) tr->processNames[lane.pid] = nm;
        else tr->threadNames[{lane.pid, lane.tid}] = nm;
      }
      mergeAnomalies(anomalies, c.anomalies, static_cast<int64_t>(base));
      base += c.size();
    }
  }
  timer.mark("remap");
  {
    // Concatenation faults in fresh pages; on this VM that is CPU work, so two threads halve it.
    Trace& T = *tr;
    std::thread helper([&] {
      moveColumn(T.tsNs, pr.cols, &LocalColumns::tsNs, n);
      moveColumn(T.offset, pr.cols, &LocalColumns::offset, n);
      moveColumn(T.name, pr.cols, &LocalColumns::name, n);
      moveColumn(T.ph, pr.cols, &LocalColumns::ph, n);
      moveColumn(T.lane, pr.cols, &LocalColumns::lane, n);
    });
    moveColumn(T.durNs, pr.cols, &LocalColumns::durNs, n);
    moveColumn(T.length, pr.cols, &LocalColumns::length, n);
    moveColumn(T.cat, pr.cols, &LocalColumns::cat, n);
    moveColumn(T.flags, pr.cols, &LocalColumns::flags, n);
    moveColumn(T.corr, pr.cols, &LocalColumns::corr, n);
    moveColumn(T.extId, pr.cols, &LocalColumns::extId, n);
    helper.join();
  }
  pr.cols.clear();
  if (control && control->cancelled()) {
    Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
    e.code = "cancelled";
    return e;
  }
  timer.mark("merge");
  finalize(*tr, anomalies, timer);
  timer.mark("finalize");
  if (control) {
    control->addEvents(n);
    control->setStage(StageDone);
  }
  return TracePtr(std::move(tr));
}


/// Reads [off, off+len) of the growing text with pread into `out`.
bool preadAll(int fd, uint64_t off, size_t len, std::string& out) {
  out.resize(len);
  size_t got = 0;
  while (got < len) {
    ssize_t r = ::pread(fd, out.data() + got, len - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return got == len;
}

Error cancelledError(const std::string& path) {
  Error e = makeError(Error::Kind::Cancelled, path, "loading cancelled");
  e.code = "cancelled";
  return e;
}

/// gzip: decompression runs on its own thread while this thread finds event
/// boundaries in the text written so far and parses the pieces; when the
/// decompressor ends, the remaining pieces are split between two threads.
Expected<TracePtr> buildTraceStreamed(const std::string& path, std::shared_ptr<InflateStream> st,
                                      uint64_t fileBytes, const LoadOptions& opt) {
  JobControl* control = opt.control;
  const size_t pieceBytes = std::max<size_t>(opt.pieceBytes, 4096);
  const int fd = st->fd();
  PhaseTimer timer;
  auto fallback = [&]() -> Expected<TracePtr> {
    auto full = st->finish();
    if (!full) return full.error();
    return buildTrace(path, full.value(), "gzip", fileBytes, opt);
  };
  auto waitForData = [&] { std::this_thread::sleep_for(std::chrono::microseconds(300)); };

  // 1. The start of traceEvents.
  std::string prefix;
  size_t first = std::string_view::npos;
  for (;;) {
    if (control && control->cancelled()) { (void)st->finish(); return cancelledError(path); }
    bool done = st->done();
    uint64_t w = st->written();
    size_t want = static_cast<size_t>(std::min<uint64_t>(w, std::max<size_t>(prefix.size() * 2, 1u << 20)));
    if (want > prefix.size() && !preadAll(fd, 0, want, prefix)) return fallback();
    bool needMore = false;
    ScanError err;
    first = scanToTraceEvents(prefix, done && prefix.size() >= st->written(), needMore, err);
    if (first != std::string_view::npos) break;
    if (!needMore || (done && prefix.size() >= st->written())) return fallback();  // the full path reports the error
    if (want <= prefix.size() && !done) waitForData();
  }
  // 2. Cut and parse while decompression runs.
  ParseResult pr;
  pr.cols.resize(1);
  std::vector<Piece> pieces;
  size_t parsed = 0;
  EventParser parserA;
  uint64_t begin = first;
  std::string window;
  ParseFailure failure;
  bool failed = false;
  {
    // skip whitespace after '['
    while (begin < prefix.size() && (prefix[begin] == ' ' || prefix[begin] == '\n' || prefix[begin] == '\r' || prefix[begin] == '\t')) ++begin;
  }
  while (!st->done() && !failed) {
    if (control && control->cancelled()) { (void)st->finish(); return cancelledError(path); }
    bool progressed = false;
    // Cut greedily (cheap: one small pread per cut) so that when decompression
    // ends only the last piece is left for the exact tail scan.
    for (;;) {
      uint64_t w = st->written();
      size_t win = 256u << 10;
      if (w <= begin + pieceBytes + win) break;
      uint64_t from = begin + pieceBytes - 64;
      size_t c = std::string_view::npos;
      while (true) {
        if (!preadAll(fd, from, win, window)) break;
        c = findCut(window, 64, window.size() - 256);
        if (c != std::string_view::npos || from + win * 2 + 256 >= w) break;
        win *= 2;  // a very long event: widen the window
      }
      if (c == std::string_view::npos) break;
      size_t k = c + 1;
      while (k < window.size() && (window[k] == ' ' || window[k] == '\n' || window[k] == '\r' || window[k] == '\t')) ++k;
      pieces.push_back({begin, from + c});
      begin = from + k;
      progressed = true;
    }
    if (parsed < pieces.size()) {
      if (!parserA.parsePiece({}, fd, 0, pieces[parsed], pr.cols[0], failure)) failed = true;
      ++parsed;
      progressed = true;
    }
    if (!progressed) waitForData();
  }
  auto full = st->finish();
  if (!full) return full.error();
  if (failed) return buildTrace(path, full.value(), "gzip", fileBytes, opt);
  auto source = full.value();
  std::string_view text = source->text();
  if (timer.on) std::fprintf(stderr, "[load] %zu pieces parsed while decompressing, %zu cut\n", parsed, pieces.size());
  timer.mark("stream parse");
  // 3. The tail: exact scan from the last cut, top-level keys, then two threads.
  // Text written after the last cut: cut it the same cheap way, scan only the
  // final piece exactly, then read the other top-level keys around the array.
  begin = cutHeuristically(text, static_cast<size_t>(begin), pieceBytes, pieces);
  TopLevelLayout tail;
  ScanError err;
  if (!exactArrayScan(text, begin, pieceBytes, tail, err)) return buildTrace(path, source, "gzip", fileBytes, opt);
  TopLevelLayout layout;
  if (!scanTopLevel(text, pieceBytes, false, layout, err, tail.arrayClose))
    return buildTrace(path, source, "gzip", fileBytes, opt);
  for (const auto& p : tail.pieces) pieces.push_back(p);
  uint64_t remaining = 0;
  for (size_t i = parsed; i < pieces.size(); ++i) remaining += pieces[i].end - pieces[i].begin;
  size_t split = parsed;
  uint64_t acc = 0;
  while (split < pieces.size() && (acc + (pieces[split].end - pieces[split].begin)) * 2 <= remaining) {
    acc += pieces[split].end - pieces[split].begin;
    ++split;
  }
  if (opt.threads < 2) split = pieces.size();
  pr.cols.resize(2);
  ParseFailure failB;
  bool failedB = false;
  std::thread other([&] {
    EventParser parserB;
    for (size_t i = split; i < pieces.size() && !failedB; ++i) {
      if (control && control->cancelled()) return;
      if (!parserB.parsePiece(text, source->fd(), source->fdOffset(), pieces[i], pr.cols[1], failB)) failedB = true;
    }
  });
  for (size_t i = parsed; i < split && !failed; ++i) {
    if (control && control->cancelled()) break;
    if (!parserA.parsePiece(text, source->fd(), source->fdOffset(), pieces[i], pr.cols[0], failure)) failed = true;
  }
  other.join();
  if (control && control->cancelled()) return cancelledError(path);
  if (failed || failedB) return buildTrace(path, source, "gzip", fileBytes, opt);
  timer.mark("tail parse");
  layout.pieces = std::move(pieces);
  return assemble(path, source, "gzip", fileBytes, std::move(layout), std::move(pr), opt, timer);
}

} // namespace

Expected<TracePtr> loadTrace(const std::string& path, const LoadOptions& options) {
  if (options.control) options.control->setStage(StageOpen);
  PhaseTimer openTimer;
  auto src = openSource(path, options.cacheDir, options.control, /*streamGzip=*/true);
  if (!src) return src.error();
  openTimer.mark("open");
  if (src->stream) return buildTraceStreamed(path, src->stream, src->fileBytes, options);
  return buildTrace(path, src->text, src->compression, src->fileBytes, options);
}

Expected<TracePtr> loadTraceFromString(std::string json, const std::string& name,
                                       const LoadOptions& options) {
  uint64_t n = json.size();
  return buildTrace(name, makeStringSource(std::move(json)), "none", n, options);
}

} // namespace steadyscope
