// Assembly after the last piece: the workers' local ids become the model's
// global ids, the side tables and metadata names go in, then finalize.
#include "io/load_parts.hpp"
#include "model/column_fill.hpp"
#include "util/thread_group.hpp"

#include <map>
#include <type_traits>
#include <unordered_map>

namespace steadyscope::io {

namespace {

/// Local string, category and lane ids -> global ids, per worker.
struct IdMaps {
  std::vector<std::vector<StrId>> str;
  std::vector<std::vector<uint16_t>> cat;
  std::vector<std::vector<uint32_t>> lane;
};

/// The global category of a worker's category string (added if new).
std::optional<uint16_t> globalCategory(Trace& tr, std::unordered_map<StrId, uint16_t>& globalCat, StrId g) {
  if (auto it = globalCat.find(g); it != globalCat.end()) return it->second;
  if (tr.categories.size() >= kMaxCategories) return std::nullopt;
  const auto idx = static_cast<uint16_t>(tr.categories.size());
  tr.categories.push_back(g);
  tr.categoryClass.push_back(g == kNoStr ? CatClass::Other : classifyCategory(tr.strings.view(g)));
  globalCat.emplace(g, idx);
  return idx;
}

/// Interns every worker's strings into the model's pool and numbers the
/// categories and lanes; false when there are too many categories.
bool buildIdMaps(Trace& tr, const std::vector<Worker>& workers, IdMaps& maps) {
  maps.str.resize(workers.size());
  maps.cat.resize(workers.size());
  maps.lane.resize(workers.size());
  std::unordered_map<StrId, uint16_t> globalCat;
  std::map<std::pair<JsonKey, JsonKey>, uint32_t> globalLane;
  for (size_t w = 0; w < workers.size(); ++w) {
    const ThreadTables& c = workers[w].tables;
    if (c.tooManyCategories) return false;
    for (const auto& s : c.strings.strings()) maps.str[w].push_back(tr.strings.intern(s));
    for (uint32_t cs : c.catStr) {
      const auto idx = globalCategory(tr, globalCat, cs == UINT32_MAX ? kNoStr : maps.str[w][cs]);
      if (!idx) return false;
      maps.cat[w].push_back(*idx);
    }
    for (const auto& lk : c.lanes) {
      JsonKey pid = lk.pid, tid = lk.tid;
      if (pid.type == JsonKey::Type::Str) pid.i = maps.str[w][static_cast<size_t>(pid.i)];
      if (tid.type == JsonKey::Type::Str) tid.i = maps.str[w][static_cast<size_t>(tid.i)];
      auto [it, added] = globalLane.try_emplace(std::make_pair(pid, tid), static_cast<uint32_t>(tr.lanes.size()));
      if (added) {
        Lane lane;
        lane.pid = pid;
        lane.tid = tid;
        tr.lanes.push_back(std::move(lane));
      }
      maps.lane[w].push_back(it->second);
    }
  }
  return true;
}

/// Local ids -> global ids in the columns, on up to `threads` threads (each
/// takes every threads-th committed range). Names and lanes are 16-bit with
/// side tables: a global id may need the table where the local one did not,
/// or the other way round, so each thread collects the global ids that do
/// not fit and the tables are replaced after the join (they hold the local
/// ids, read here, until then).
void remapColumns(Trace& T, const OrderedSink& sink, const IdMaps& maps, unsigned threads) {
  using WideIds = std::vector<std::pair<EventIdx, uint32_t>>;
  // Small traces stay on one thread: starting threads would cost more.
  const size_t parts = T.size() > (1u << 18) ? std::clamp<size_t>(sink.ranges.size(), 1, threads) : 1;
  std::vector<WideIds> wideName(parts), wideLane(parts);
  // Usually every global id fits: no test per event then.
  const bool namesFit = T.strings.size() < NameColumn::kWide;
  const bool lanesFit = T.lanes.size() < LaneColumn::kWide;
  uint16_t* nameN = ColumnFill::narrow(T.name).data();
  uint16_t* laneN = ColumnFill::narrow(T.lane).data();
  auto store = [](uint16_t* narrow, WideIds& wide, EventIdx i, uint32_t v, bool allFit) {
    if (allFit || NameColumn::fitsNarrow(v)) {
      narrow[i] = static_cast<uint16_t>(v);
    } else {
      narrow[i] = NameColumn::kWide;
      wide.emplace_back(i, v);
    }
  };
  static_assert(std::is_same_v<NameColumn, LaneColumn>);
  auto remapRanges = [&](size_t first) {
    auto& wn = wideName[first];
    auto& wl = wideLane[first];
    for (size_t r = first; r < sink.ranges.size(); r += parts) {
      const auto& rg = sink.ranges[r];
      const auto& sm = maps.str[rg.worker];
      const auto& cm = maps.cat[rg.worker];
      const auto& lm = maps.lane[rg.worker];
      for (EventIdx i = rg.begin; i < rg.end; ++i) {
        store(nameN, wn, i, sm[T.name[i]], namesFit);
        T.cat[i] = cm[T.cat[i]];
        store(laneN, wl, i, lm[T.lane[i]], lanesFit);
        const uint16_t fl = T.flags[i];
        // String ids are StrIds, below 2^31 (checked before): they stay narrow.
        if (fl & ev::CorrIsStr)
          ColumnFill::narrow(T.corr)[i] = static_cast<int32_t>(sm[static_cast<size_t>(T.corr[i])]);
        if (fl & ev::ExtIsStr)
          ColumnFill::narrow(T.extId)[i] = static_cast<int32_t>(sm[static_cast<size_t>(T.extId[i])]);
      }
    }
  };
  ThreadGroup helpers;
  for (size_t p = 1; p < parts; ++p) helpers.run([&remapRanges, p] { remapRanges(p); });
  remapRanges(0);
  helpers.join();
  for (size_t p = 1; p < parts; ++p) {
    wideName[0].insert(wideName[0].end(), wideName[p].begin(), wideName[p].end());
    wideLane[0].insert(wideLane[0].end(), wideLane[p].begin(), wideLane[p].end());
  }
  ColumnFill::adoptWide(T.name, std::move(wideName[0]));  // sorts: the order of the parts does not matter
  ColumnFill::adoptWide(T.lane, std::move(wideLane[0]));
}

/// Exact timestamps and process / thread names and process labels (lane ids are global by now).
void adoptSideLists(Trace& tr, const OrderedSink& sink, const IdMaps& maps) {
  for (const auto& [i, d] : sink.exactTs) tr.exactTsUs.emplace(i, d);
  for (const auto& [i, d] : sink.exactDur) tr.exactDurUs.emplace(i, d);
  for (const auto& m : sink.meta) {
    const Lane& lane = tr.lanes[tr.lane[m.event]];
    std::string nm(tr.strings.view(maps.str[m.worker][m.nameStr]));
    switch (m.kind) {
      case MetaKind::ProcessName: tr.processNames[lane.pid] = std::move(nm); break;
      case MetaKind::ThreadName: tr.threadNames[{lane.pid, lane.tid}] = std::move(nm); break;
      case MetaKind::ProcessLabels: tr.processLabels[lane.pid] = std::move(nm); break;
    }
  }
}

}  // namespace

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
  IdMaps maps;
  if (!buildIdMaps(*tr, workers, maps)) return tooManyCategoriesError(path);
  if (tr->strings.size() > static_cast<size_t>(INT32_MAX)) return tooManyEventsError(path);  // ids as int32
  // Names and lanes are still the workers' local ids in the side tables; the
  // remap replaces these tables with the global ids'.
  sink.adoptSideTables();
  remapColumns(*tr, sink, maps, opt.threads);
  adoptSideLists(*tr, sink, maps);
  Anomalies anomalies = sink.anomalies;
  timer.mark("remap");
  if (control && control->cancelled()) return cancelledError(path);
  finalize(*tr, anomalies, opt.threads);
  timer.mark("finalize");
  if (control) {
    control->addEvents(tr->size());
    control->setStage(StageDone);
  }
  return TracePtr(std::move(tr));
}

}  // namespace steadyscope::io
