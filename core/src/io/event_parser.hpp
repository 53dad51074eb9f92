#pragma once
// Parsing pieces of traceEvents with simdjson On-Demand into thread-local
// columns. One EventParser per thread, reused across pieces (warm buffers).
#include "io/json_scan.hpp"

#include <steadyscope/core/model/trace.hpp>
#include <steadyscope/core/util/progress.hpp>

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace steadyscope::io {

enum AnomalyCode : int {
  A_DurMissing,
  A_DurNegative,
  A_TsMissing,
  A_TsNotNumber,
  A_NonFinite,
  A_OutOfRange,
  A_PhMissing,
  A_PhUnknown,
  A_NotObject,
  A_UnmatchedB,
  A_UnmatchedE,
  A_FlowWithoutPeer,
  A_KernelWithoutLaunch,
  A_GpuWithoutCorrelation,
  A_DurNotNumber,
  A_Count
};
/// Each counter's code, in AnomalyCode order; its words: model/anomaly_kinds.hpp.
extern const std::array<const char*, A_Count> kAnomalyCodes;

struct AnomalyCounter {
  uint64_t count = 0;
  int64_t first = -1;  // local event index (parser) or global (finalize)
};

/// Interns strings per thread; ids are local and remapped when merging.
/// Open addressing with a cheap hash (length + three 8-byte samples); equality
/// is always confirmed with memcmp. Kernel names run to ~1 KB, so hashing
/// every byte of every name would cost more than parsing it.
class LocalInterner {
 public:
  LocalInterner();
  uint32_t intern(std::string_view s);
  /// The id of `s` if interned and free of backslashes, else UINT32_MAX.
  uint32_t findPlain(std::string_view s) const;
  const std::deque<std::string>& strings() const { return strings_; }

 private:
  void grow();
  /// The table slot holding `s` (hash `h`), or the empty slot where it would go.
  size_t slotOf(std::string_view s, uint64_t h) const;
  std::deque<std::string> strings_;
  std::vector<uint64_t> hashes_;    // per id
  std::vector<uint8_t> backslash_;  // per id: the string contains a backslash
  std::vector<uint32_t> table_;     // id + 1, 0 = empty
  size_t mask_ = 0;
};

struct LocalKey {
  JsonKey pid, tid;  // Str values hold LocalInterner ids
  friend bool operator==(const LocalKey& a, const LocalKey& b) { return a.pid == b.pid && a.tid == b.tid; }
};
struct LocalKeyHash {
  size_t operator()(const LocalKey& k) const noexcept;
};

/// The metadata events whose args the model keeps.
enum class MetaKind : uint8_t { ProcessName, ThreadName, ProcessLabels };

struct MetaRecord {
  uint32_t event;  // local index
  MetaKind kind;
  uint32_t nameStr;  // local interner id of args.name (args.labels for process_labels)
};

/// What one parsing thread keeps across pieces: its interner and the local
/// indices of categories and lanes (remapped to global ids after parsing).
struct ThreadTables {
  LocalInterner strings;               // names, categories, string pids/tids, meta names
  std::vector<uint32_t> catStr;        // local cat index -> interner id
  std::vector<int32_t> catIndexByStr;  // interner id -> local cat index (-1 none)
  int32_t catMissing = -1;
  bool tooManyCategories = false;  // more than kMaxCategories seen: the load is refused after the parse
  std::unordered_map<LocalKey, uint32_t, LocalKeyHash> laneIndex;
  std::vector<LocalKey> lanes;
  LocalKey lastLaneKey;
  uint32_t lastLane = UINT32_MAX;
};

/// The events of one piece, in the model's column layout with thread-local
/// ids (see ThreadTables); event indices are local to the piece. The buffer is
/// reused from piece to piece, so its pages stay warm.
struct LocalColumns {
  Column<int64_t> tsNs, durNs, corr, extId;
  Column<uint64_t> offset;
  Column<uint32_t> length, name, lane;
  Column<uint16_t> cat, flags;
  Column<Ph> ph;
  std::vector<std::pair<uint32_t, double>> exactTs, exactDur;
  std::vector<MetaRecord> meta;
  std::array<AnomalyCounter, A_Count> anomalies{};
  uint64_t bytesParsed = 0;
  size_t size() const { return tsNs.size(); }
  void clear();
};

struct ParseFailure {
  std::string message;
  uint64_t offset = 0;
};

class EventParser {
 public:
  EventParser();
  ~EventParser();
  /// Parses one piece of `text`; appends to `out`, interning into `tables`.
  /// Returns false on malformed JSON.
  /// When `fd >= 0` the piece's bytes are read with pread from `fd` at
  /// `fdBase + piece.begin` (same bytes as `text`), else copied from `text`.
  bool parsePiece(std::string_view text, int fd, uint64_t fdBase, const Piece& piece, ThreadTables& tables,
                  LocalColumns& out, ParseFailure& fail);
  /// The same for a piece whose bytes are at `bytes` (text offsets piece.begin..end).
  bool parseBytes(const char* bytes, const Piece& piece, ThreadTables& tables, LocalColumns& out, ParseFailure& fail);
  /// The same without a copy: the piece's bytes are at buf + 1; buf[0] and
  /// buf[len + 1] are overwritten (with '[' and ']'), and the buffer holds
  /// `capacity` bytes plus SIMDJSON_PADDING.
  bool parseInPlace(char* buf, size_t capacity, const Piece& piece, ThreadTables& tables, LocalColumns& out,
                    ParseFailure& fail);
  /// Sizes the parse buffer and the JSON parser for pieces of up to `len`
  /// bytes, so that neither grows (a fresh allocation each time) mid-load.
  void reserve(size_t len);
  /// Frees the parse buffers (kept warm across pieces until then).
  void release();

 private:
  char* prepare(size_t len);  // room for len bytes after a '[' in the parse buffer
  bool parsePrepared(char* buf, size_t capacity, const Piece& piece, ThreadTables& tables, LocalColumns& out,
                     ParseFailure& fail);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace steadyscope::io
