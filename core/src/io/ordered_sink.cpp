// OrderedSink: parsed pieces into the model's columns, in text order.
#include "io/ordered_sink.hpp"
#include "model/column_fill.hpp"

#include <algorithm>
#include <cstring>

namespace steadyscope::io {

namespace {

/// Values into a NarrowColumn's storage; the few that do not fit go to
/// `wide` with their event.
template <typename NC, typename S, typename N, typename W>
void narrowInto(const Column<S>& src, N* dst, size_t base, std::vector<std::pair<EventIdx, W>>& wide) {
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

}  // namespace

void OrderedSink::deliver(size_t k, unsigned worker, std::unique_ptr<LocalColumns>& buf) {
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

void OrderedSink::releaseBuffers() {
  std::lock_guard<std::mutex> lock(m_);
  spare_.clear();
  parked_.clear();
}

void OrderedSink::adoptSideTables() {
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
  // X.
  ColumnFill::adoptWide(tr_.name, std::move(name));
  ColumnFill::adoptWide(tr_.lane, std::move(lane));
  ColumnFill::adoptWide(tr_.corr, std::move(corr));
  ColumnFill::adoptWide(tr_.extId, std::move(ext));
  ColumnFill::adoptWide(tr_.durNs, std::move(dur));
  ColumnFill::adoptWide(tr_.length, std::move(len));
  ColumnFill::adoptChanges(tr_.offset, std::move(changes));
}

template <typename F>
void OrderedSink::eachColumn(F&& f) {
  Trace& t = tr_;
  f(t.tsNs);
  f(ColumnFill::narrow(t.durNs));
  f(ColumnFill::narrow(t.corr));
  f(ColumnFill::narrow(t.extId));
  f(ColumnFill::low(t.offset));
  f(ColumnFill::narrow(t.length));
  f(ColumnFill::narrow(t.name));
  f(ColumnFill::narrow(t.lane));
  f(t.cat);
  f(t.flags);
  f(t.ph);
}

size_t OrderedSink::grownCapacity(size_t need) const {
  // Each growth copies every column: aim past the end, from the events per
  // byte of the text so far (pieces are claimed in order). The first piece
  // alone is a poor sample (up to 3× off the whole trace's rate), so it gets
  // more room; room never touched costs address space, not memory.
  size_t want = need;
  if (expectedBytes_ && bytesClaimed_) {
    const double perByte = static_cast<double>(need) / static_cast<double>(bytesClaimed_);
    const double room = cap_ ? 1.25 : 2.0;
    want = std::max(want, static_cast<size_t>(perByte * static_cast<double>(expectedBytes_) * room) + 4096);
  }
  if (cap_) want = std::max(want, cap_ + cap_ / 2);
  return std::min<size_t>(want, UINT32_MAX);
}

size_t OrderedSink::claim(std::unique_lock<std::mutex>& lock, const LocalColumns& c, unsigned worker) {
  const size_t base = size_;
  const size_t need = base + c.size();
  if (need >= UINT32_MAX) {
    tooMany_ = true;
    return SIZE_MAX;
  }
  bytesClaimed_ += c.bytesParsed;
  if (need > cap_) {
    idle_.wait(lock, [&] { return inflight_ == 0; });
    cap_ = grownCapacity(need);
    eachColumn([&](auto& col) { col.reserve(cap_); });
  }
  eachColumn([&](auto& col) { col.resize(need); });  // no writes: Column default-initialises
  size_ = need;
  const auto b = static_cast<EventIdx>(base);
  ranges.push_back({b, static_cast<EventIdx>(need), static_cast<uint16_t>(worker)});
  for (const auto& [i, v] : c.exactTs) exactTs.emplace_back(b + i, v);
  for (const auto& [i, v] : c.exactDur) exactDur.emplace_back(b + i, v);
  for (const auto& m : c.meta) meta.push_back({b + m.event, m.kind, m.nameStr, static_cast<uint16_t>(worker)});
  mergeAnomalies(anomalies, c.anomalies, static_cast<int64_t>(base));
  return base;
}

OrderedSink::Dest OrderedSink::dest(size_t base) {
  if (base == SIZE_MAX) return {};
  Trace& t = tr_;
  return {base,
          t.tsNs.data() + base,
          ColumnFill::narrow(t.durNs).data() + base,
          ColumnFill::narrow(t.corr).data() + base,
          ColumnFill::narrow(t.extId).data() + base,
          ColumnFill::low(t.offset).data() + base,
          ColumnFill::narrow(t.name).data() + base,
          ColumnFill::narrow(t.lane).data() + base,
          ColumnFill::narrow(t.length).data() + base,
          t.cat.data() + base,
          t.flags.data() + base,
          t.ph.data() + base};
}

void OrderedSink::copy(const LocalColumns& c, const Dest& d, Wide& wide) {
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
  ColumnFill::splitOffsets(c.offset.data(), n, static_cast<uint32_t>(d.base), d.off, wide.offsetChanges);
}

}  // namespace steadyscope::io
