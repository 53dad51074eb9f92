#pragma once
// The in-memory trace model: columnar, one array per field, 37 bytes per event
// in the columns (Trace::columnBytes) and 4 more in its lane's list.
// Events keep file order (index = position in traceEvents). Every event keeps
// the byte range of its original JSON text so an export can copy it verbatim
// and a view can show its args. The model is immutable once loaded and is
// shared as std::shared_ptr<const Trace> between the splitter, the views and
// the exporter.
#include <steadyscope/core/util/column.hpp>
#include <steadyscope/core/util/intervals.hpp>
#include <steadyscope/core/util/pynum.hpp>
#include <steadyscope/core/util/sha256.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace steadyscope {

struct ColumnFill;  // core/src/model/column_fill.hpp

using EventIdx = uint32_t;
using StrId = uint32_t;
/// A list of event indices; huge-page backed when large (see Column).
using EventList = Column<EventIdx>;
inline constexpr StrId kNoStr = 0;  // id 0 is the empty / absent string
/// Distinct `cat` values a trace may have (Trace::cat is 16 bits); more is refused.
inline constexpr size_t kMaxCategories = 65535;

/// A column of values held in a narrower type N: in every trace we have seen
/// ids are small counters, durations under 2 s and event texts under 64 KiB,
/// and each column of the model is as many fresh pages at load (the dominant
/// cost on the VMs we run on). A value that does not fit is stored as kWide
/// (N's reserved marker) and kept in a side table sorted by event, so []
/// always returns the full value W.
template <typename N, typename W, N Marker>
class NarrowColumn {
 public:
  static constexpr N kWide = Marker;
  static bool fitsNarrow(W v) { return std::in_range<N>(v) && static_cast<N>(v) != kWide; }
  W operator[](size_t i) const {
    const N v = narrow_[i];
    return v != kWide ? static_cast<W>(v) : wideAt(i);
  }
  size_t size() const { return narrow_.size(); }
  bool empty() const { return narrow_.empty(); }
  void push_back(W v) {
    narrow_.push_back(0);
    set(narrow_.size() - 1, v);
  }
  /// Sets entry i (not safe to call concurrently with another set of a wide value).
  void set(size_t i, W v) {
    auto it = wide_.begin() + (findWide(i) - wide_.cbegin());
    const bool had = it != wide_.end() && it->first == i;
    if (fitsNarrow(v)) {
      narrow_[i] = static_cast<N>(v);
      if (had) wide_.erase(it);
      return;
    }
    narrow_[i] = kWide;
    if (had)
      it->second = v;
    else
      wide_.insert(it, {static_cast<uint32_t>(i), v});
  }
  size_t wideCount() const { return wide_.size(); }
  size_t bytes() const { return narrow_.size() * sizeof(N) + wide_.size() * sizeof(wide_[0]); }

 private:
  friend struct ColumnFill;  // the loader's bulk fill (core/src/model/column_fill.hpp)
  /// The narrow storage, for bulk fills: write v when fitsNarrow(v), else kWide
  /// and hand (i, v) to adoptWide / mergeWide.
  Column<N>& narrow() { return narrow_; }
  const Column<N>& narrow() const { return narrow_; }
  /// Installs the wide values collected by a bulk fill (any order, distinct
  /// events), replacing the side table.
  void adoptWide(std::vector<std::pair<uint32_t, W>> wide) {
    std::sort(wide.begin(), wide.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    wide_ = std::move(wide);
  }
  /// Adds wide values for events that have no side-table entry yet.
  void mergeWide(std::vector<std::pair<uint32_t, W>> more) {
    if (more.empty()) return;
    more.insert(more.end(), wide_.begin(), wide_.end());
    adoptWide(std::move(more));
  }
  using Wide = std::vector<std::pair<uint32_t, W>>;
  typename Wide::const_iterator findWide(size_t i) const {  // first entry for event >= i
    return std::lower_bound(wide_.begin(), wide_.end(), static_cast<uint32_t>(i),
                            [](const auto& e, uint32_t k) { return e.first < k; });
  }
  W wideAt(size_t i) const {
    auto it = findWide(i);
    return it != wide_.end() && it->first == i ? it->second : W{};
  }
  Column<N> narrow_;
  Wide wide_;  // (event, value), sorted by event
};

/// Correlation / External / flow ids (or a StrId for ids written as strings),
/// and durations in ns: 32 bits each.
using IdColumn = NarrowColumn<int32_t, int64_t, INT32_MIN>;
using DurColumn = IdColumn;
/// Byte lengths of the events' texts: 16 bits each.
using LengthColumn = NarrowColumn<uint16_t, uint32_t, UINT16_MAX>;
/// Name ids (StrId) and lane indices: 16 bits each (a trace has a few
/// thousand distinct names and a few dozen lanes; more go to the side table).
using NameColumn = NarrowColumn<uint16_t, uint32_t, UINT16_MAX>;
using LaneColumn = NarrowColumn<uint16_t, uint32_t, UINT16_MAX>;

/// The byte offsets of the events' texts in 32 bits each, with the rare 4 GiB
/// epochs above them as a list of change points: offset = epoch << 32 | low.
class OffsetColumn {
 public:
  uint64_t operator[](size_t i) const {
    return epochs_.empty() ? low_[i] : (static_cast<uint64_t>(epochOf(i)) << 32) | low_[i];
  }
  size_t size() const { return low_.size(); }
  bool empty() const { return low_.empty(); }
  void push_back(uint64_t off);
  size_t bytes() const { return low_.size() * sizeof(uint32_t) + epochs_.size() * sizeof(epochs_[0]); }

 private:
  friend struct ColumnFill;
  /// The 32-bit storage, for the loader's bulk fill (see splitInto).
  Column<uint32_t>& low() { return low_; }
  /// Bulk fill of n events starting at event `base`: low bits into `low`, and
  /// the epoch of the first event and of every event whose epoch differs from
  /// its predecessor's into `changes`. Pieces may be filled in any order; the
  /// union of their changes, handed to adoptChanges, describes every event.
  static void splitInto(const uint64_t* src, size_t n, uint32_t base, uint32_t* low,
                        std::vector<std::pair<uint32_t, uint32_t>>& changes);
  /// Installs the changes of all bulk fills (any order).
  void adoptChanges(std::vector<std::pair<uint32_t, uint32_t>> changes);
  uint32_t epochOf(size_t i) const;
  Column<uint32_t> low_;
  std::vector<std::pair<uint32_t, uint32_t>> epochs_;  // (first event, epoch) where the epoch changes; 0 before
};

/// Event phase (`ph`).
enum class Ph : uint8_t {
  Complete,   // X
  Begin,      // B
  End,        // E
  Instant,    // i, I
  Metadata,   // M
  FlowStart,  // s
  FlowStep,   // t
  FlowEnd,    // f
  Counter,    // C
  Other,      // anything else (kept, ignored)
  Missing,    // no ph key
};
const char* phName(Ph ph);  // "X", "B", ... ("" for Missing, "?" for Other)

/// What a category means. The model records the category text as written;
/// this classification (old and new Kineto vocabularies) is a convenience.
/// Which classes count as GPU work is each consumer's decision.
enum class CatClass : uint8_t {
  Kernel,             // kernel, Kernel
  Memcpy,             // gpu_memcpy, Memcpy
  Memset,             // gpu_memset, Memset
  GpuUserAnnotation,  // gpu_user_annotation
  UserAnnotation,     // user_annotation
  CpuOp,              // cpu_op, Operator
  Runtime,            // cuda_runtime, Runtime
  Driver,             // cuda_driver
  PythonFunction,     // python_function
  FlowAc2g,           // ac2g, async_cpu_to_gpu
  Other,
};
CatClass classifyCategory(std::string_view cat);
inline bool isGpuWork(CatClass c) { return c == CatClass::Kernel || c == CatClass::Memcpy || c == CatClass::Memset; }

/// Per-event flag bits.
namespace ev {
enum : uint16_t {
  HasTs = 1u << 0,           // a numeric ts key is present
  TsIsInt = 1u << 1,         // ts written as a JSON integer
  HasDur = 1u << 2,          // a numeric dur key is present (in the JSON)
  DurIsInt = 1u << 3,        // dur written as a JSON integer
  HasCorr = 1u << 4,         // args.correlation present (numeric or string)
  HasExtId = 1u << 5,        // args["External id"] present
  HasInputDims = 1u << 6,    // args["Input Dims"] key present
  HasId = 1u << 7,           // flow "id" present (stored in the corr column)
  CorrIsStr = 1u << 8,       // correlation / id was a JSON string (value = StrId)
  ExtIsStr = 1u << 9,        // External id was a JSON string (value = StrId)
  TsInexact = 1u << 10,      // ts text finer than 1 ns: exact double kept aside
  DurInexact = 1u << 11,     // dur text finer than 1 ns: exact double kept aside
  DurFromPair = 1u << 12,    // B event: dur_ns is the matched E's ts - B's ts
  TsPresentNull = 1u << 13,  // "ts": null (treated as no ts)
  CorrIsReal = 1u << 14,     // correlation written as a non-integral real
};
}  // namespace ev

/// A pid or tid value with the reference's equality: 1 == 1.0, 1 != "1".
struct JsonKey {
  enum class Type : uint8_t { None, Int, Str, Real } type = Type::None;
  int64_t i = 0;   // Int value, or StrId for Str
  double d = 0.0;  // Real (non-integral) value
  friend bool operator==(const JsonKey& a, const JsonKey& b) {
    if (a.type != b.type) return false;
    if (a.type == Type::Real) return a.d == b.d;
    return a.i == b.i;
  }
  friend bool operator<(const JsonKey& a, const JsonKey& b) {
    if (a.type != b.type) return a.type < b.type;
    if (a.type == Type::Real) return a.d < b.d;
    return a.i < b.i;
  }
};

/// Interned strings (names, categories, string pids/tids). Id 0 = "".
class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;
  StrId intern(std::string_view s);
  std::string_view view(StrId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  /// Returns kNoStr if absent.
  StrId find(std::string_view s) const;

 private:
  std::deque<std::string> strings_;  // deque: stable addresses for the views in index_
  std::unordered_map<std::string_view, StrId> index_;
};

/// One (pid, tid) track with its events sorted by (ts, file order).
struct Lane {
  JsonKey pid;
  JsonKey tid;
  bool gpu = false;         // holds GPU work (kernel/memcpy/memset)
  uint16_t maxDepth = 0;    // deepest nesting level of slices
  Column<EventIdx> events;  // events with a ts, sorted by ts
};

/// A named anomaly counter, like Perfetto's import stats.
struct Anomaly {
  std::string code;         // e.g. "dur_negative"
  std::string explanation;  // one line
  uint64_t count = 0;
  int64_t firstEvent = -1;  // index of the first event concerned, -1 if none
};

/// Union of GPU-work intervals on one device (GPU pid), sorted, disjoint.
struct DeviceBusy {
  JsonKey pid;
  Column<Interval> intervals;
  int64_t busyNs = 0;  // total length of the union
  int64_t firstNs = 0, lastNs = 0;
};

/// A top-level key of the trace object other than traceEvents, raw JSON value.
struct TopLevelEntry {
  std::string key;       // unescaped key
  std::string rawKey;    // key as written, with quotes
  std::string rawValue;  // JSON text of the value, verbatim
};

/// Reads ranges of a source text. A view returned by read() stays valid until
/// the reader's next read. One reader per thread (it may cache decompressed text).
class TextReader {
 public:
  virtual ~TextReader() = default;
  /// [off, off + len) of the text; false when it cannot be read (error() says why).
  virtual bool read(uint64_t off, size_t len, std::string_view& out) = 0;
  virtual const std::string& error() const = 0;
};

/// The source text, kept out of anonymous memory for verbatim access: mapped
/// (file-backed) for plain files and temporary files, or re-inflated on demand
/// from checkpoints for gzip (io/gzip_index.hpp).
class SourceText {
 public:
  virtual ~SourceText() = default;
  /// The whole text when it lies contiguously in memory; empty when the text
  /// is only reachable through reader() (gzip read through checkpoints).
  virtual std::string_view text() const = 0;
  /// Bytes of text (also when text() is empty).
  virtual uint64_t size() const { return text().size(); }
  /// A reader of ranges; the default one returns views of text().
  virtual std::unique_ptr<TextReader> reader() const;
};

/// What a partial load kept (LoadOptions::allowPartial): every complete event
/// before the place where the file ends early. Split, gate and export refuse
/// such a model; views show it marked "partial".
struct PartialLoad {
  uint64_t keptTextBytes = 0;  // JSON text kept: up to the end of the last complete event
  std::string reason;          // where and why the file ends early, as the loader's error says it
};

struct TraceStats {
  uint64_t fileBytes = 0;                  // bytes on disk
  uint64_t jsonBytes = 0;                  // bytes of JSON text (after decompression)
  std::string compression;                 // "none", "gzip", "zip", "zstd"
  std::map<std::string, uint64_t> perPh;   // "X" -> count ("" for missing)
  std::map<std::string, uint64_t> perCat;  // category as written -> count ("None" for missing)
  uint64_t gpuEvents = 0;                  // kernel/memcpy/memset in any vocabulary
  int64_t firstTsNs = 0, lastEndNs = 0;    // span of non-metadata events with ts
};

/// A new field here also goes into the trace cache's field list
/// (core/src/io/cache_codec.cpp, `fields`), with its format version raised.
class Trace {
 public:
  // ---- identity ----
  std::string path;      // as given by the user
  std::string baseName;  // reference base name (spec §1.1)
  std::shared_ptr<const SourceText> source;
  /// SHA-256 of the file at `path`, computed once in the background
  /// (startSourceDigest) and kept with the model; thread-safe.
  std::shared_ptr<SourceDigest> digest = std::make_shared<SourceDigest>();
  bool fromCache = false;  // read back from the trace cache (core/io/trace_cache.hpp), not parsed

  // ---- columns, one entry per event in file order ----
  Column<int64_t> tsNs;  // ts in ns (0 when absent)
  DurColumn durNs;       // dur in ns (0 when absent), or paired duration for B
  OffsetColumn offset;   // byte offset of the event's JSON text
  LengthColumn length;   // byte length of that text
  NameColumn name;
  Column<uint16_t> cat;  // index into categories (at most kMaxCategories)
  Column<Ph> ph;
  Column<uint16_t> flags;  // ev::* bits
  LaneColumn lane;         // index into lanes
  Column<uint16_t> depth;  // nesting depth within the lane (timeline)
  IdColumn corr;           // args.correlation, or flow id for s/t/f
  IdColumn extId;          // args["External id"]

  // ---- dictionaries ----
  StringPool strings;
  std::vector<StrId> categories;        // cat index -> StrId of the text ("None" when missing)
  std::vector<CatClass> categoryClass;  // cat index -> class
  std::vector<Lane> lanes;
  std::map<JsonKey, std::string> processNames;   // from M process_name
  std::map<JsonKey, std::string> processLabels;  // from M process_labels ("GPU 0", "CPU")
  std::map<std::pair<JsonKey, JsonKey>, std::string> threadNames;

  // ---- top level ----
  std::vector<TopLevelEntry> topLevel;  // every key except traceEvents, in order
  size_t traceEventsPosition = 0;       // index in topLevel order where traceEvents sat

  // ---- derived ----
  std::vector<DeviceBusy> gpuBusy;  // per GPU pid
  std::vector<Anomaly> anomalies;   // non-zero counters only
  TraceStats stats;
  std::optional<PartialLoad> partial;  // set when the file ended early and allowPartial kept the rest
  std::unordered_map<EventIdx, double> exactTsUs, exactDurUs;  // inexact cases only

  // ---- accessors ----
  size_t size() const { return tsNs.size(); }
  bool has(EventIdx i, uint16_t f) const { return (flags[i] & f) != 0; }
  std::string_view nameOf(EventIdx i) const { return strings.view(name[i]); }
  std::string_view catOf(EventIdx i) const { return strings.view(categories[cat[i]]); }
  CatClass classOf(EventIdx i) const { return categoryClass[cat[i]]; }
  /// Python-exact float(text) of ts / dur in µs (correctly rounded).
  double tsUs(EventIdx i) const {
    if (!(flags[i] & ev::TsInexact) && fitsExactly(tsNs[i])) return static_cast<double>(tsNs[i]) / 1000.0;
    return tsUsSlow(i);
  }
  double durUs(EventIdx i) const {
    if (!(flags[i] & ev::DurInexact) && fitsExactly(durNs[i])) return static_cast<double>(durNs[i]) / 1000.0;
    return durUsSlow(i);
  }
  /// ts / dur with Python types (int stays int), for parity arithmetic.
  PyNum tsPy(EventIdx i) const {
    if (flags[i] & ev::TsIsInt) return PyNum::fromInt(tsNs[i] / 1000);
    return PyNum::fromReal(tsUs(i));
  }
  PyNum durPy(EventIdx i) const {
    if (flags[i] & ev::DurIsInt) return PyNum::fromInt(durNs[i] / 1000);
    return PyNum::fromReal(durUs(i));
  }
  int64_t endNs(EventIdx i) const { return tsNs[i] + durNs[i]; }
  std::string keyText(const JsonKey& k) const;  // "1", "stream 7", ...
  uint64_t anomalyCount() const;
  /// Bytes held by the per-event columns (the model's size without dictionaries).
  size_t columnBytes() const;

 private:
  // |ns| < 2^53: ns and 1000 are exact doubles, so one IEEE division is correctly rounded.
  static bool fitsExactly(int64_t ns) { return ns > -(int64_t(1) << 53) && ns < (int64_t(1) << 53); }
  double tsUsSlow(EventIdx i) const;
  double durUsSlow(EventIdx i) const;
};

using TracePtr = std::shared_ptr<const Trace>;

/// Starts the background SHA-256 of the trace's file (once; later calls do nothing).
inline void startSourceDigest(const Trace& trace) { trace.digest->start(trace.path); }

/// The original JSON text of events, read through the trace's source (see
/// SourceText::reader). One per thread; a returned view stays valid until the
/// next call.
class EventText {
 public:
  explicit EventText(const Trace& trace);
  ~EventText();
  EventText(const EventText&) = delete;
  EventText& operator=(const EventText&) = delete;
  /// Event i's text; false when the source cannot be read any more (error()).
  bool read(EventIdx i, std::string_view& out);
  /// Event i's text, or an empty view when it cannot be read.
  std::string_view operator()(EventIdx i);
  const std::string& error() const { return error_; }

 private:
  const Trace& trace_;
  std::unique_ptr<TextReader> reader_;
  std::string error_;
};

/// Exact µs double for an ns integer (the double Python's float() gives for
/// the decimal text of ns/1000 with at most 3 fractional digits).
double nsToUsExact(int64_t ns);

/// Reference base name (spec §1.1): file name with ".pt.trace", ".json.gz",
/// ".json" removed everywhere, in that order.
std::string referenceBaseName(std::string_view path);

}  // namespace steadyscope
