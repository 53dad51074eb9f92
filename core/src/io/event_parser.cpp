#include "io/event_parser.hpp"
#include "io/numbers.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

namespace steadyscope::io {

const std::array<const char*, A_Count> kAnomalyCodes = {
    "dur_missing",      "dur_negative",      "ts_missing",        "ts_not_number",         "number_non_finite",
    "number_out_of_range", "ph_missing",     "ph_unknown",        "event_not_object",      "unmatched_B",
    "unmatched_E",      "flow_without_peer", "kernel_without_launch", "gpu_without_correlation", "dur_not_number"};

namespace {
inline uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t cheapHash(std::string_view s) {
  uint64_t h = s.size() * 0x9E3779B97F4A7C15ull;
  size_t n = s.size();
  if (n >= 8) {
    h ^= load64(s.data()) * 0xC2B2AE3D27D4EB4Full;
    h = (h << 31) | (h >> 33);
    h ^= load64(s.data() + n - 8) * 0x165667B19E3779F9ull;
    h = (h << 27) | (h >> 37);
    h ^= load64(s.data() + n / 2 - 4) * 0x27D4EB2F165667C5ull;
  } else {
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return h;
}
}  // namespace

LocalInterner::LocalInterner() {
  table_.assign(1024, 0);
  mask_ = table_.size() - 1;
  intern("");  // id 0 is the empty string, as in StringPool
}

void LocalInterner::grow() {
  std::vector<uint32_t> t(table_.size() * 2, 0);
  size_t m = t.size() - 1;
  for (uint32_t id = 0; id < hashes_.size(); ++id) {
    size_t k = hashes_[id] & m;
    while (t[k]) k = (k + 1) & m;
    t[k] = id + 1;
  }
  table_.swap(t);
  mask_ = m;
}

size_t LocalInterner::slotOf(std::string_view s, uint64_t h) const {
  size_t k = h & mask_;
  while (uint32_t e = table_[k]) {
    uint32_t id = e - 1;
    if (hashes_[id] == h) {
      const std::string& x = strings_[id];
      if (x.size() == s.size() && std::memcmp(x.data(), s.data(), s.size()) == 0) return k;
    }
    k = (k + 1) & mask_;
  }
  return k;
}

uint32_t LocalInterner::findPlain(std::string_view s) const {
  const uint32_t e = table_[slotOf(s, cheapHash(s))];
  return e && !backslash_[e - 1] ? e - 1 : UINT32_MAX;
}

uint32_t LocalInterner::intern(std::string_view s) {
  const uint64_t h = cheapHash(s);
  const size_t k = slotOf(s, h);
  if (table_[k]) return table_[k] - 1;
  strings_.emplace_back(s);
  uint32_t id = static_cast<uint32_t>(strings_.size() - 1);
  hashes_.push_back(h);
  backslash_.push_back(std::memchr(s.data(), '\\', s.size()) != nullptr);
  table_[k] = id + 1;
  if (strings_.size() * 2 > table_.size()) grow();
  return id;
}

void LocalColumns::clear() {
  tsNs.clear();
  durNs.clear();
  corr.clear();
  extId.clear();
  offset.clear();
  length.clear();
  name.clear();
  lane.clear();
  cat.clear();
  flags.clear();
  ph.clear();
  exactTs.clear();
  exactDur.clear();
  meta.clear();
  anomalies = {};
  bytesParsed = 0;
}

size_t LocalKeyHash::operator()(const LocalKey& k) const noexcept {
  // Real ids compare exactly, so they hash as doubles (any magnitude: no cast to an integer).
  auto part = [](const JsonKey& j) {
    return j.type == JsonKey::Type::Real ? std::hash<double>{}(j.d) : std::hash<int64_t>{}(j.i);
  };
  const size_t h1 = part(k.pid), h2 = part(k.tid);
  return h1 * 31 + h2 + static_cast<size_t>(k.pid.type) * 7 + static_cast<size_t>(k.tid.type);
}

namespace {

using namespace simdjson;

/// A key of up to 15 letters and its closing quote as two little-endian
/// words with the masks of their bytes, made at compile time.
struct KeyWords {
  uint64_t word[2] = {0, 0}, mask[2] = {0, 0};
};
template <size_t N>
constexpr KeyWords keyWords(const char (&lit)[N]) {
  static_assert(N <= 16, "keys of up to 15 letters");
  KeyWords k;
  for (size_t i = 0; i < N; ++i) {  // lit[N - 1] is the NUL, standing for the quote
    const uint64_t byte = i == N - 1 ? '"' : static_cast<unsigned char>(lit[i]);
    k.word[i / 8] |= byte << (8 * (i % 8));
    k.mask[i / 8] |= uint64_t(0xff) << (8 * (i % 8));
  }
  return k;
}

inline uint64_t littleEndianWord(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

/// k.raw() points just after the opening quote: the key is K's when its
/// letters and the closing quote follow. One or two 8-byte loads (the
/// document is padded, so reading past a short key is safe) rather than a
/// memcmp call for every key of every event.
template <KeyWords K>
inline bool keyIs(const ondemand::raw_json_string& k) {
  const char* r = k.raw();
  if ((littleEndianWord(r) & K.mask[0]) != K.word[0]) return false;
  if constexpr (K.mask[1] != 0) return (littleEndianWord(r + 8) & K.mask[1]) == K.word[1];
  return true;
}
#define KEY_IS(k, lit) keyIs<keyWords(lit)>(k)

inline Ph phFromChar(std::string_view s) {
  if (s.size() != 1) return Ph::Other;
  switch (s[0]) {
    case 'X': return Ph::Complete;
    case 'B': return Ph::Begin;
    case 'E': return Ph::End;
    case 'i':
    case 'I': return Ph::Instant;
    case 'M': return Ph::Metadata;
    case 's': return Ph::FlowStart;
    case 't': return Ph::FlowStep;
    case 'f': return Ph::FlowEnd;
    case 'C': return Ph::Counter;
    default: return Ph::Other;
  }
}

/// The text between the quotes of a raw JSON string token, escapes as
/// written; false when the token is not a string.
inline bool rawStringBody(std::string_view tok, std::string_view& body) {
  tok = trimJsonWs(tok);
  if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return false;
  body = tok.substr(1, tok.size() - 2);
  return true;
}

/// Interns a string value: first by its raw bytes (a hit on a string without
/// backslashes means the raw bytes hold no escapes, so no scan for them is
/// needed), else the escape-aware path. Returns false for a non-string value.
inline bool internString(ondemand::value fv, LocalInterner& strings, uint32_t& id) {
  std::string_view body;
  if (rawStringBody(fv.raw_json_token(), body)) {
    uint32_t hit = strings.findPlain(body);
    if (hit != UINT32_MAX) {
      id = hit;
      return true;
    }
    if (!std::memchr(body.data(), '\\', body.size())) {
      id = strings.intern(body);
      return true;
    }
  }
  std::string_view s;
  if (fv.get_string().get(s)) return false;
  id = strings.intern(s);
  return true;
}

/// The content of a JSON string token without unescaping when it has no
/// escapes (the common case); false when it needs the slow path.
inline bool plainString(std::string_view tok, std::string_view& out) {
  std::string_view body;
  if (!rawStringBody(tok, body) || std::memchr(body.data(), '\\', body.size())) return false;
  out = body;
  return true;
}

}  // namespace

struct EventParser::Impl {
  ondemand::parser parser;
  Column<char> buffer;  // reused, grown as needed; capacity + SIMDJSON_PADDING bytes
  size_t capacity = 0;
};

EventParser::EventParser() : impl_(std::make_unique<Impl>()) {}
EventParser::~EventParser() = default;

namespace {

struct EventFields {
  int64_t ts = 0, dur = 0, corr = 0, ext = 0;
  uint16_t flags = 0;
  Ph ph = Ph::Missing;
  uint32_t name = 0;
  int32_t catStr = -1;
  JsonKey pid, tid;
  double exactTs = 0, exactDur = 0;
  int32_t metaName = -1;
};

void bump(LocalColumns& out, AnomalyCode code, uint32_t ev) {
  auto& a = out.anomalies[code];
  if (a.count++ == 0) a.first = ev;
}

bool readKey(ondemand::value v, ThreadTables& tables, JsonKey& key) {
  std::string_view tok;
  tok = v.raw_json_token();
  if (tok.empty()) return false;
  if (tok[0] == '"') {
    std::string_view s;
    if (v.get_string().get(s)) return false;
    key.type = JsonKey::Type::Str;
    key.i = tables.strings.intern(s);
    return true;
  }
  if (tok[0] == 'n') {
    key.type = JsonKey::Type::None;
    return true;
  }  // null
  int64_t iv = 0;
  bool isReal = false;
  if (!parseIntegral(tok, iv, isReal)) return false;
  if (isReal) {
    key.type = JsonKey::Type::Real;
    std::memcpy(&key.d, &iv, sizeof iv);
  } else {
    key.type = JsonKey::Type::Int;
    key.i = iv;
  }
  return true;
}

// The flags readId may set on a correlation or flow id: its kind.
constexpr uint16_t kCorrKind = ev::CorrIsStr | ev::CorrIsReal;

// Reads an id-like value (correlation, External id, flow id). Returns flags to set.
uint16_t readId(ondemand::value v, ThreadTables& tables, int64_t& value, uint16_t strFlag) {
  std::string_view tok;
  tok = v.raw_json_token();
  if (tok.empty()) return 0;
  if (tok[0] == '"') {
    std::string_view s;
    if (v.get_string().get(s)) return 0;
    value = tables.strings.intern(s);
    return strFlag;
  }
  bool isReal = false;
  if (!parseIntegral(tok, value, isReal)) return 0;
  return isReal ? ev::CorrIsReal : 0;
}

}  // namespace

void EventParser::release() {
  impl_->buffer = Column<char>();
  impl_->capacity = 0;
  impl_->parser = ondemand::parser();
}

void EventParser::reserve(size_t len) {
  prepare(len);  // parsePrepared sizes the JSON parser to this buffer on the first piece
}

char* EventParser::prepare(size_t len) {
  const size_t need = len + 2;
  if (impl_->capacity < need) {
    size_t cap = std::max(need, impl_->capacity * 2);
    impl_->buffer = Column<char>();
    impl_->buffer.resize(cap + SIMDJSON_PADDING);
    impl_->capacity = cap;
  }
  impl_->buffer.data()[0] = '[';
  return impl_->buffer.data() + 1;
}

bool EventParser::parseBytes(const char* bytes, const Piece& piece, ThreadTables& tables, LocalColumns& out,
                             ParseFailure& fail) {
  const size_t len = static_cast<size_t>(piece.end - piece.begin);
  std::memcpy(prepare(len), bytes, len);
  return parsePrepared(impl_->buffer.data(), impl_->capacity, piece, tables, out, fail);
}

bool EventParser::parseInPlace(char* buf, size_t capacity, const Piece& piece, ThreadTables& tables, LocalColumns& out,
                               ParseFailure& fail) {
  if (capacity < static_cast<size_t>(piece.end - piece.begin) + 2) {
    fail = {"internal error: piece buffer too small", piece.begin};
    return false;
  }
  buf[0] = '[';
  return parsePrepared(buf, capacity, piece, tables, out, fail);
}

bool EventParser::parsePiece(std::string_view text, int fd, uint64_t fdBase, const Piece& piece, ThreadTables& tables,
                             LocalColumns& out, ParseFailure& fail) {
  const size_t len = static_cast<size_t>(piece.end - piece.begin);
  char* buf = prepare(len) - 1;
  if (fd >= 0) {
    size_t got = 0;
    while (got < len) {
      ssize_t r = ::pread(fd, buf + 1 + got, len - got, static_cast<off_t>(fdBase + piece.begin + got));
      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        break;
      }
      got += static_cast<size_t>(r);
    }
    if (got < len) std::memcpy(buf + 1 + got, text.data() + piece.begin + got, len - got);
  } else {
    std::memcpy(buf + 1, text.data() + piece.begin, len);
  }
  return parsePrepared(buf, impl_->capacity, piece, tables, out, fail);
}

// The parser's hot loop, one function on purpose: every event's fields are
// read through one On-Demand iterator and a handful of locals that the
// compiler keeps in registers; split into functions they would travel through
// memory per field, and the loop runs once per event of the whole trace.
bool EventParser::parsePrepared(char* buf, size_t capacity, const Piece& piece, ThreadTables& tables, LocalColumns& out,
                                ParseFailure& fail) {
  const size_t len = static_cast<size_t>(piece.end - piece.begin);
  const size_t need = len + 2;
  buf[len + 1] = ']';
  std::memset(buf + need, ' ', std::min<size_t>(SIMDJSON_PADDING, capacity - need));  // only the padding
  auto where = [&](const char* loc) -> uint64_t {
    if (!loc) return piece.begin;
    ptrdiff_t d = loc - buf - 1;
    if (d < 0) d = 0;
    if (static_cast<size_t>(d) > len) d = static_cast<ptrdiff_t>(len);
    return piece.begin + static_cast<uint64_t>(d);
  };

  // Size the parser for the whole buffer once: left to itself, simdjson
  // reallocates to exactly the new length whenever a piece is longer than any
  // before (pieces differ by a few KB), and every reallocation is new address
  // space whose structural index is first-touched again: most of a load's
  // page faults (docs/BENCHMARKS.md).
  if (impl_->parser.capacity() < capacity) {
    if (auto e = impl_->parser.allocate(capacity, impl_->parser.max_depth())) {
      fail = {fmt::format("cannot allocate the JSON parser ({})", error_message(e)), piece.begin};
      return false;
    }
  }
  ondemand::document doc;
  auto err = impl_->parser.iterate(buf, need, capacity + SIMDJSON_PADDING).get(doc);
  if (err) {
    fail = {fmt::format("malformed JSON in traceEvents ({})", error_message(err)), piece.begin};
    return false;
  }
  ondemand::array arr;
  if ((err = doc.get_array().get(arr))) {
    fail = {fmt::format("malformed JSON in traceEvents ({})", error_message(err)), piece.begin};
    return false;
  }
  size_t firstLocal = out.size();
  for (auto elemRes : arr) {
    ondemand::value v;
    if ((err = std::move(elemRes).get(v))) {
      const char* loc = nullptr;
      if (doc.current_location().get(loc)) loc = nullptr;
      fail = {fmt::format("malformed JSON in traceEvents ({})", error_message(err)), where(loc)};
      return false;
    }
    const char* startLoc = nullptr;
    if (v.current_location().get(startLoc)) startLoc = nullptr;
    ondemand::object obj;
    if (v.get_object().get(obj)) {
      // Not an object: skip it (counted), like a tolerant reader.
      uint32_t idx = static_cast<uint32_t>(out.size());
      bump(out, A_NotObject, idx);
      continue;
    }
    EventFields f;
    uint32_t evIdx = static_cast<uint32_t>(out.size());
    for (auto fieldRes : obj) {
      ondemand::field field;
      if ((err = std::move(fieldRes).get(field))) {
        const char* loc = nullptr;
        if (doc.current_location().get(loc)) loc = nullptr;
        fail = {fmt::format("malformed JSON in an event ({})", error_message(err)), where(loc)};
        return false;
      }
      ondemand::raw_json_string k = field.key();
      ondemand::value fv = field.value();
      const char* kr = k.raw();
      switch (kr[0]) {
        case 'p':
          if (KEY_IS(k, "ph")) {
            std::string_view s;
            if (plainString(fv.raw_json_token(), s) || !fv.get_string().get(s))
              f.ph = phFromChar(s);
            else
              f.ph = Ph::Other;
          } else if (KEY_IS(k, "pid")) {
            if (!readKey(fv, tables, f.pid)) f.pid = {};
          }
          break;
        case 't':
          if (KEY_IS(k, "ts")) {
            std::string_view tok;
            tok = fv.raw_json_token();
            if (tok.empty()) break;
            if (tok[0] == 'n') {
              f.flags |= ev::TsPresentNull;
              break;
            }
            ParsedNumber n = parseMicros(tok);
            if (n.status == ParsedNumber::Status::Ok) {
              f.flags |= ev::HasTs;
              if (n.isInt) f.flags |= ev::TsIsInt;
              f.ts = n.ns;
              if (n.inexact) {
                f.flags |= ev::TsInexact;
                f.exactTs = n.exact;
              }
            } else if (n.status == ParsedNumber::Status::NonFinite) {
              bump(out, A_NonFinite, evIdx);
            } else if (n.status == ParsedNumber::Status::OutOfRange) {
              bump(out, A_OutOfRange, evIdx);
            } else {
              bump(out, A_TsNotNumber, evIdx);
            }
          } else if (KEY_IS(k, "tid")) {
            if (!readKey(fv, tables, f.tid)) f.tid = {};
          }
          break;
        case 'd':
          if (KEY_IS(k, "dur")) {
            std::string_view tok;
            tok = fv.raw_json_token();
            if (tok.empty() || tok[0] == 'n') break;
            ParsedNumber n = parseMicros(tok);
            if (n.status == ParsedNumber::Status::Ok) {
              f.flags |= ev::HasDur;
              if (n.isInt) f.flags |= ev::DurIsInt;
              f.dur = n.ns;
              if (n.inexact) {
                f.flags |= ev::DurInexact;
                f.exactDur = n.exact;
              }
            } else if (n.status == ParsedNumber::Status::NonFinite) {
              bump(out, A_NonFinite, evIdx);
            } else if (n.status == ParsedNumber::Status::OutOfRange) {
              bump(out, A_OutOfRange, evIdx);
            } else {
              bump(out, A_DurNotNumber, evIdx);
            }
          }
          break;
        case 'n':
          if (KEY_IS(k, "name")) {
            if (!internString(fv, tables.strings, f.name))
              f.name = tables.strings.intern(trimJsonWs(fv.raw_json_token()));  // non-string name: keep its JSON text
          }
          break;
        case 'c':
          if (KEY_IS(k, "cat")) {
            uint32_t id;
            if (internString(fv, tables.strings, id)) f.catStr = static_cast<int32_t>(id);
          }
          break;
        case 'i':
          if (KEY_IS(k, "id")) {
            uint16_t fl = readId(fv, tables, f.corr, ev::CorrIsStr);
            std::string_view tok;
            tok = fv.raw_json_token();
            // A repeated key: the last value's kind wins (a stale "is a string"
            // would index the string table with a number).
            if (!tok.empty() && tok[0] != 'n') f.flags = (f.flags & ~kCorrKind) | ev::HasId | fl;
          }
          break;
        case 'a':
          if (KEY_IS(k, "args")) {
            ondemand::object args;
            if (fv.get_object().get(args)) break;
            for (auto argRes : args) {
              ondemand::field af;
              if (std::move(argRes).get(af)) break;
              ondemand::raw_json_string ak = af.key();
              const char* ar = ak.raw();
              if (ar[0] == 'c' && KEY_IS(ak, "correlation")) {
                if (f.flags & ev::HasId) continue;  // flows keep their id in the corr column
                int64_t idv = 0;
                ondemand::value av = af.value();
                std::string_view tok = av.raw_json_token();
                if (tok.empty() || tok[0] == 'n') continue;
                uint16_t fl = readId(av, tables, idv, ev::CorrIsStr);
                f.corr = idv;
                f.flags = (f.flags & ~kCorrKind) | ev::HasCorr | fl;
              } else if (ar[0] == 'E' && KEY_IS(ak, "External id")) {
                int64_t idv = 0;
                ondemand::value av = af.value();
                std::string_view tok = av.raw_json_token();
                if (tok.empty() || tok[0] == 'n') continue;
                uint16_t fl = readId(av, tables, idv, ev::ExtIsStr);
                f.ext = idv;
                f.flags = (f.flags & ~ev::ExtIsStr) | ev::HasExtId | (fl == ev::ExtIsStr ? ev::ExtIsStr : 0);
              } else if (ar[0] == 'I' && KEY_IS(ak, "Input Dims")) {
                f.flags |= ev::HasInputDims;
              } else if ((ar[0] == 'n' && KEY_IS(ak, "name")) || (ar[0] == 'l' && KEY_IS(ak, "labels"))) {
                // process_name / thread_name carry "name", process_labels "labels" ("GPU 0", "CPU").
                std::string_view s;
                if (!af.value().get_string().get(s)) f.metaName = static_cast<int32_t>(tables.strings.intern(s));
              }
            }
          }
          break;
        default: break;
      }
    }
    // The event ends at its '}'. The iterator now stands on the token after
    // the object (',' or the ']' closing the piece), whose bytes are still in
    // cache: step back to the '}'. (A second pass over the piece afterwards
    // missed the cache once per event: ~3% of the load's CPU.)
    uint32_t evLen = UINT32_MAX;
    {
      const char* endLoc = nullptr;
      if (startLoc && !doc.current_location().get(endLoc) && endLoc && endLoc > startLoc) {
        const char* e = endLoc;
        while (e > startLoc && e[-1] != '}') --e;
        evLen = static_cast<uint32_t>(e - startLoc);
      }
    }
    // append the event
    out.tsNs.push_back(f.ts);
    out.durNs.push_back(f.dur);
    out.corr.push_back(f.corr);
    out.extId.push_back(f.ext);
    out.offset.push_back(where(startLoc));
    out.length.push_back(evLen);  // UINT32_MAX: fixed below from the next start
    out.name.push_back(f.name);
    int32_t* slot;
    if (f.catStr < 0) {
      slot = &tables.catMissing;
    } else {
      size_t cs = static_cast<size_t>(f.catStr);
      if (cs >= tables.catIndexByStr.size()) tables.catIndexByStr.resize(cs + 64, -1);
      slot = &tables.catIndexByStr[cs];
    }
    if (*slot < 0) {
      if (tables.catStr.size() < kMaxCategories) {
        *slot = static_cast<int32_t>(tables.catStr.size());
        tables.catStr.push_back(f.catStr < 0 ? UINT32_MAX : static_cast<uint32_t>(f.catStr));
      } else {
        tables.tooManyCategories = true;  // no 16-bit id left; assemble refuses the load
      }
    }
    out.cat.push_back(static_cast<uint16_t>(std::max(*slot, 0)));
    out.ph.push_back(f.ph);
    out.flags.push_back(f.flags);
    LocalKey lk{f.pid, f.tid};
    uint32_t laneIdx;
    if (tables.lastLane != UINT32_MAX && tables.lastLaneKey == lk) {
      laneIdx = tables.lastLane;
    } else if (auto it = tables.laneIndex.find(lk); it != tables.laneIndex.end()) {
      laneIdx = it->second;
    } else {
      laneIdx = static_cast<uint32_t>(tables.lanes.size());
      tables.lanes.push_back(lk);
      tables.laneIndex.emplace(lk, laneIdx);
    }
    tables.lastLaneKey = lk;
    tables.lastLane = laneIdx;
    out.lane.push_back(laneIdx);
    if (f.flags & ev::TsInexact) out.exactTs.emplace_back(evIdx, f.exactTs);
    if (f.flags & ev::DurInexact) out.exactDur.emplace_back(evIdx, f.exactDur);
    if (f.ph == Ph::Metadata && f.metaName >= 0) {
      std::string_view nm = tables.strings.strings()[f.name];
      if (f.name != 0 || !nm.empty()) {
        const auto meta = static_cast<uint32_t>(f.metaName);
        if (nm == "process_name")
          out.meta.push_back({evIdx, MetaKind::ProcessName, meta});
        else if (nm == "thread_name")
          out.meta.push_back({evIdx, MetaKind::ThreadName, meta});
        else if (nm == "process_labels")
          out.meta.push_back({evIdx, MetaKind::ProcessLabels, meta});
      }
    }
  }
  {
    // Anything left after the array means the piece was not a run of whole events.
    const char* loc = nullptr;
    if (!doc.current_location().get(loc) && loc && loc < buf + need) {
      fail = {"malformed JSON: unexpected text after an event", where(loc)};
      return false;
    }
  }
  // Lengths not found while parsing (none in practice): each event runs to the
  // last '}' before the next event's start.
  // Read from the piece buffer (warm), not from the source mapping.
  const char* t = buf + 1 - piece.begin;  // t[absolute offset] within this piece
  const size_t count = out.size() - firstLocal;
  const uint64_t* starts = out.offset.data() + firstLocal;  // this piece's event starts
  for (size_t k = 0; k < count; ++k) {
    if (out.length[firstLocal + k] != UINT32_MAX) continue;
    uint64_t endLimit = k + 1 < count ? starts[k + 1] : piece.end;
    uint64_t e = endLimit;
    while (e > starts[k] && t[e - 1] != '}') --e;
    out.length[firstLocal + k] = static_cast<uint32_t>(e - starts[k]);
  }
  out.bytesParsed += len;
  return true;
}

}  // namespace steadyscope::io
