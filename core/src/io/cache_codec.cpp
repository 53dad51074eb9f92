// The trace cache's file format (cache_codec.hpp). One field list, `fields`,
// serves writing and reading, so the two cannot drift apart.
#include "io/cache_codec.hpp"

#include "model/column_fill.hpp"
#include "util/thread_group.hpp"

#include <steadyscope/core/version.hpp>

#include <fcntl.h>
#include <isa-l.h>
#include <isa-l/crc64.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

namespace steadyscope::io::cache {

namespace {

constexpr char kMagic[8] = {'S', 'T', 'S', 'C', 'O', 'P', 'E', 'M'};
constexpr uint64_t kAlign = 4096;
constexpr uint64_t kEdgeBytes = 1 << 20;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t metaOffset, metaBytes;
  uint64_t tableOffset, tableCount;
  uint64_t crc;  // of meta and table
  uint64_t fileBytes;
};
static_assert(std::is_trivially_copyable_v<Header>);

struct TableRow {
  uint64_t offset, bytes, crc;
};

uint64_t crcOf(const void* p, size_t n, uint64_t seed = 0) {
  return crc64_ecma_refl(seed, static_cast<const unsigned char*>(p), static_cast<uint64_t>(n));
}

/// The build that wrote an entry: a clean revision names it; a build from a
/// changed tree (a developer's) is also told apart by its executable, so that
/// a rebuilt loader never reads a model the previous one made.
std::string buildId() {
  std::string id = fmt::format("steadyscope {} ({}), isa-l {:x}, inflate state {} B", versionString(), gitRevision(),
                               ISAL_VERSION, sizeof(inflate_state));
  const std::string_view rev = gitRevision();
  struct stat sb {};
  if ((rev.ends_with("-dirty") || rev == "unknown") && ::stat("/proc/self/exe", &sb) == 0)
    id += fmt::format(", executable {} B at {}.{:09}", sb.st_size, sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
  return id;
}

Error cacheError(const std::string& file, const std::string& what, const char* code) {
  Error e = makeError(Error::Kind::Io, file, what);
  e.code = code;
  return e;
}

bool preadAll(int fd, void* dst, size_t n, uint64_t off) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, std::min<size_t>(n, size_t(1) << 30), static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    off += static_cast<uint64_t>(r);
  }
  return true;
}

bool writeAll(int fd, const void* src, size_t n) {
  const auto* p = static_cast<const char*>(src);
  while (n > 0) {
    const ssize_t r = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// ---- the two archives: the same calls write meta or read it back ----

/// Writing: small values go into `meta`, big arrays are referenced by index.
class Out {
 public:
  static constexpr bool kReading = false;
  struct Span {
    const void* data;
    size_t bytes;
  };
  template <typename T>
  void pod(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    meta.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  uint64_t count(uint64_t n) {
    pod(n);
    return n;
  }
  void text(std::string& s) {
    count(s.size());
    meta.append(s);
  }
  /// A small vector of plain values, inline in meta.
  template <typename T>
  void bulk(std::vector<T>& v) {
    count(v.size());
    if (!v.empty()) meta.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  template <typename Vec>
  void array(Vec& v) {
    count(v.size());
    uint64_t index = arrays.size();
    pod(index);
    arrays.push_back({v.data(), v.size() * sizeof(v[0])});
  }
  std::string meta;
  std::vector<Span> arrays;
};

/// Reading: bounded reads of meta; arrays are sized now and filled later
/// (fill()) from the table, on several threads.
class In {
 public:
  static constexpr bool kReading = true;
  In(std::string_view meta, const std::vector<TableRow>& table) : meta_(meta), table_(table) {}
  template <typename T>
  void pod(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (meta_.size() < sizeof v) return failWith(v);
    std::memcpy(&v, meta_.data(), sizeof v);
    meta_.remove_prefix(sizeof v);
  }
  /// A count of elements of at least `minBytes` each in meta: never more than meta could hold.
  uint64_t count(uint64_t /*unused when reading*/, uint64_t minBytes = 1) {
    uint64_t n = 0;
    pod(n);
    if (n > meta_.size() / std::max<uint64_t>(minBytes, 1)) {
      ok = false;
      n = 0;
    }
    return n;
  }
  void text(std::string& s) {
    const uint64_t n = count(0);
    s.assign(meta_.substr(0, n));
    meta_.remove_prefix(n);
  }
  template <typename T>
  void bulk(std::vector<T>& v) {
    const uint64_t n = count(0, sizeof(T));
    v.resize(n);
    if (n == 0) return;  // an empty vector's data() may be null
    std::memcpy(v.data(), meta_.data(), n * sizeof(T));
    meta_.remove_prefix(n * sizeof(T));
  }
  template <typename Vec>
  void array(Vec& v) {
    uint64_t n = 0, index = 0;
    pod(n);
    pod(index);
    using T = std::remove_reference_t<decltype(v[0])>;
    if (index >= table_.size() || n > SIZE_MAX / sizeof(T) || table_[index].bytes != n * sizeof(T)) {
      ok = false;
      return;
    }
    v.resize(n);  // a Column leaves the elements uninitialised: fill() writes them
    fills.push_back({v.data(), index});
  }
  struct Fill {
    void* data;
    uint64_t index;
  };
  bool ok = true;
  bool atEnd() const { return meta_.empty(); }
  std::vector<Fill> fills;

 private:
  template <typename T>
  void failWith(T& v) {
    ok = false;
    v = T{};
    meta_ = {};
  }
  std::string_view meta_;
  const std::vector<TableRow>& table_;
};

// ---- the model's types, each written and read by one function ----

template <typename A, typename T>
  requires((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>)
void transfer(A& a, T& v) {
  a.pod(v);
}
/// A bool as one byte that reads back as 0 or 1 whatever the byte.
template <typename A>
void transfer(A& a, bool& b) {
  uint8_t v = b ? 1 : 0;
  a.pod(v);
  b = v != 0;
}
template <typename A>
void transfer(A& a, std::string& s) {
  a.text(s);
}
template <typename A>
void transfer(A& a, JsonKey& k) {
  a.pod(k.type);
  a.pod(k.i);
  a.pod(k.d);
}
template <typename A, typename X, typename Y>
void transfer(A& a, std::pair<X, Y>& p) {
  transfer(a, p.first);
  transfer(a, p.second);
}
/// Plain values (a checkpoint's inflate state, category ids) in one copy.
template <typename A, typename T>
  requires((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>)
void transfer(A& a, std::vector<T>& v) {
  a.bulk(v);
}
template <typename A, typename T>
void transfer(A& a, std::vector<T>& v) {
  const uint64_t n = a.count(v.size());
  if constexpr (A::kReading) v.resize(n);
  for (T& x : v) transfer(a, x);
}
/// A map or unordered map: its entries, read back into an empty one.
template <typename A, typename M>
void transferMap(A& a, M& m) {
  const uint64_t n = a.count(m.size());
  if constexpr (A::kReading) {
    m.clear();
    for (uint64_t k = 0; k < n && a.ok; ++k) {
      std::pair<typename M::key_type, typename M::mapped_type> e;
      transfer(a, e);
      m.emplace(std::move(e));
    }
  } else {
    for (auto& [key, value] : m) {
      auto k = key;
      transfer(a, k);
      transfer(a, value);
    }
  }
}
template <typename A, typename K, typename V>
void transfer(A& a, std::map<K, V>& m) {
  transferMap(a, m);
}
template <typename A, typename K, typename V>
void transfer(A& a, std::unordered_map<K, V>& m) {
  transferMap(a, m);
}
template <typename A, typename T>
void transfer(A& a, Column<T>& c) {
  a.array(c);
}
template <typename A, typename N, typename W, N M>
void transfer(A& a, NarrowColumn<N, W, M>& c) {
  a.array(ColumnFill::narrow(c));
  std::vector<std::pair<uint32_t, W>> wide;
  if constexpr (!A::kReading) wide = ColumnFill::wide(c);
  transfer(a, wide);
  if constexpr (A::kReading) ColumnFill::adoptWide(c, std::move(wide));
}
template <typename A>
void transfer(A& a, OffsetColumn& c) {
  a.array(ColumnFill::low(c));
  std::vector<std::pair<uint32_t, uint32_t>> epochs;
  if constexpr (!A::kReading) epochs = ColumnFill::epochs(c);
  transfer(a, epochs);
  if constexpr (A::kReading) ColumnFill::adoptChanges(c, std::move(epochs));
}
template <typename A>
void transfer(A& a, StringPool& pool) {
  const uint64_t n = a.count(pool.size());
  for (uint64_t id = 1; id < n; ++id) {
    std::string s;
    if constexpr (!A::kReading) s = std::string(pool.view(static_cast<StrId>(id)));
    transfer(a, s);
    if constexpr (A::kReading) {
      if (s.empty() || pool.intern(s) != id) a.ok = false;  // a pool's strings are distinct and non-empty
      if (!a.ok) return;
    }
  }
}
/// The members of a record, in their stored order.
template <typename A, typename... F>
void transferEach(A& a, F&... members) {
  (transfer(a, members), ...);
}
template <typename A>
void transfer(A& a, Lane& l) {
  transferEach(a, l.pid, l.tid, l.gpu, l.maxDepth, l.events);
}
template <typename A>
void transfer(A& a, Anomaly& x) {
  transferEach(a, x.code, x.explanation, x.count, x.firstEvent);
}
template <typename A>
void transfer(A& a, DeviceBusy& d) {
  transferEach(a, d.pid, d.intervals, d.busyNs, d.firstNs, d.lastNs);
}
template <typename A>
void transfer(A& a, TopLevelEntry& e) {
  transferEach(a, e.key, e.rawKey, e.rawValue);
}
template <typename A>
void transfer(A& a, TraceStats& s) {
  transferEach(a, s.fileBytes, s.jsonBytes, s.compression, s.perPh, s.perCat, s.gpuEvents, s.firstTsNs, s.lastEndNs);
}
template <typename A>
void transfer(A& a, SourceKey& k) {
  transferEach(a, k.path, k.size, k.mtimeNs, k.inode, k.edgeCrc, k.build);
}
template <typename A>
void transfer(A& a, GzipCheckpoint& c) {
  transferEach(a, c.out, c.in, c.state);
}
template <typename A>
void transfer(A& a, StoredSource& s) {
  transferEach(a, s.gzipIndexed, s.textBytes, s.checkpoints);
}

/// Every stored field of the model: a new field of Trace belongs here too
/// (and kFormatVersion goes up). path, baseName, source and digest belong
/// to the open, partial is never stored.
template <typename A>
void fields(A& a, Trace& t) {
  transferEach(a, t.tsNs, t.durNs, t.offset, t.length, t.name, t.cat, t.ph, t.flags, t.lane, t.depth, t.corr, t.extId);
  transferEach(a, t.strings, t.categories, t.categoryClass, t.lanes, t.processNames, t.processLabels, t.threadNames);
  transferEach(a, t.topLevel, t.traceEventsPosition, t.gpuBusy, t.anomalies, t.stats, t.exactTsUs, t.exactDurUs);
}

StoredSource storedSourceOf(const Trace& t) {
  StoredSource s;
  s.textBytes = t.source ? t.source->size() : 0;
  if (const auto* cps = t.source ? gzipCheckpointsOf(*t.source) : nullptr) {
    s.gzipIndexed = true;
    s.checkpoints = *cps;
  }
  return s;
}

uint64_t alignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

}  // namespace

Expected<SourceKey> keyOf(const std::string& path) {
  SourceKey k;
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return cacheError(path, fmt::format("cannot resolve the path: {}", std::strerror(errno)), "cache_key");
  k.path = real;
  std::free(real);
  const int fd = ::open(k.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cacheError(path, fmt::format("cannot open: {}", std::strerror(errno)), "cache_key");
  struct stat sb {};
  bool ok = ::fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
  if (ok) {
    k.size = static_cast<uint64_t>(sb.st_size);
    k.mtimeNs = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    k.inode = static_cast<uint64_t>(sb.st_ino);
    std::vector<char> edge(static_cast<size_t>(std::min<uint64_t>(k.size, kEdgeBytes)));
    ok = preadAll(fd, edge.data(), edge.size(), 0);
    k.edgeCrc = crcOf(edge.data(), edge.size());
    if (ok && k.size > kEdgeBytes) {
      const uint64_t tail = std::max(kEdgeBytes, k.size - kEdgeBytes);
      edge.resize(static_cast<size_t>(k.size - tail));
      ok = preadAll(fd, edge.data(), edge.size(), tail);
      k.edgeCrc = crcOf(edge.data(), edge.size(), k.edgeCrc);
    }
  }
  ::close(fd);
  if (!ok) return cacheError(path, "not a readable regular file", "cache_key");
  k.build = buildId();
  return k;
}

Expected<void> writeModel(int fd, const std::string& fileName, const Trace& trace, const SourceKey& key) {
  Out out;
  SourceKey k = key;
  transfer(out, k);
  StoredSource src = storedSourceOf(trace);
  transfer(out, src);
  // Out only reads what it is given; the field list takes a mutable model so
  // that one function can also fill one when reading.
  fields(out, const_cast<Trace&>(trace));
  std::vector<TableRow> table;
  uint64_t at = kAlign;
  for (const Out::Span& s : out.arrays) {
    table.push_back({at, s.bytes, crcOf(s.data, s.bytes)});
    at = alignUp(at + s.bytes);
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kFormatVersion;
  h.metaOffset = at;
  h.metaBytes = out.meta.size();
  h.tableOffset = at + out.meta.size();
  h.tableCount = table.size();
  h.crc = crcOf(table.data(), table.size() * sizeof(TableRow), crcOf(out.meta.data(), out.meta.size()));
  h.fileBytes = h.tableOffset + table.size() * sizeof(TableRow);
  static const char zeros[kAlign] = {};
  bool ok = writeAll(fd, &h, sizeof h) && writeAll(fd, zeros, kAlign - sizeof h);
  for (size_t i = 0; ok && i < out.arrays.size(); ++i) {
    ok = writeAll(fd, out.arrays[i].data, out.arrays[i].bytes);
    const uint64_t end = table[i].offset + table[i].bytes;
    const uint64_t next = i + 1 < table.size() ? table[i + 1].offset : h.metaOffset;
    if (ok && next > end) ok = writeAll(fd, zeros, static_cast<size_t>(next - end));
  }
  ok = ok && writeAll(fd, out.meta.data(), out.meta.size()) &&
       writeAll(fd, table.data(), table.size() * sizeof(TableRow));
  if (!ok) return cacheError(fileName, fmt::format("cannot write: {}", std::strerror(errno)), "cache_write");
  return {};
}

namespace {

/// Fills the arrays `in` sized, each checked against its CRC, on up to `threads` threads.
bool fillArrays(int fd, const std::vector<In::Fill>& fills, const std::vector<TableRow>& table, unsigned threads) {
  std::atomic<size_t> next{0};
  std::atomic<bool> good{true};
  auto work = [&] {
    for (size_t i; good && (i = next.fetch_add(1)) < fills.size();) {
      const TableRow& row = table[fills[i].index];
      if (!preadAll(fd, fills[i].data, static_cast<size_t>(row.bytes), row.offset) ||
          crcOf(fills[i].data, static_cast<size_t>(row.bytes)) != row.crc)
        good = false;
    }
  };
  ThreadGroup group;
  for (unsigned t = 1; t < std::min<size_t>(threads, fills.size()); ++t) group.run(work);
  work();
  group.join();
  return good;
}

}  // namespace

Expected<ReadModel> readModel(int fd, const std::string& fileName, const SourceKey& expected, unsigned threads) {
  auto corrupt = [&](const char* what) { return cacheError(fileName, what, "cache_corrupt"); };
  struct stat sb {};
  Header h{};
  if (::fstat(fd, &sb) != 0 || !preadAll(fd, &h, sizeof h, 0)) return corrupt("cannot read the header");
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return corrupt("not a trace cache file");
  if (h.version != kFormatVersion)
    return cacheError(fileName, fmt::format("format version {}, not {}", h.version, kFormatVersion), "cache_version");
  const auto fileBytes = static_cast<uint64_t>(sb.st_size);
  if (h.fileBytes != fileBytes || h.metaOffset > fileBytes || h.metaBytes > fileBytes - h.metaOffset ||
      h.tableOffset != h.metaOffset + h.metaBytes || h.tableCount > (fileBytes - h.tableOffset) / sizeof(TableRow) ||
      h.tableOffset + h.tableCount * sizeof(TableRow) != fileBytes)
    return corrupt("its size does not match its header (cut short?)");
  std::string meta(static_cast<size_t>(h.metaBytes), '\0');
  std::vector<TableRow> table(static_cast<size_t>(h.tableCount));
  if (!preadAll(fd, meta.data(), meta.size(), h.metaOffset) ||
      !preadAll(fd, table.data(), table.size() * sizeof(TableRow), h.tableOffset))
    return corrupt("cannot read its index");
  if (crcOf(table.data(), table.size() * sizeof(TableRow), crcOf(meta.data(), meta.size())) != h.crc)
    return corrupt("its index does not match its checksum");
  for (const TableRow& r : table)
    if (r.offset > h.metaOffset || r.bytes > h.metaOffset - r.offset) return corrupt("an array lies outside the file");
  In in(meta, table);
  SourceKey k;
  transfer(in, k);
  if (!in.ok) return corrupt("its key does not read");
  if (k.build != expected.build) return cacheError(fileName, "written by another build", "cache_version");
  if (!(k == expected)) return cacheError(fileName, "stored for another file or version of it", "cache_stale");
  ReadModel out;
  transfer(in, out.source);
  out.trace = std::make_shared<Trace>();
  fields(in, *out.trace);
  if (!in.ok || !in.atEnd()) return corrupt("its fields do not read");
  if (!fillArrays(fd, in.fills, table, threads)) return corrupt("an array does not match its checksum");
  return out;
}

}  // namespace steadyscope::io::cache
