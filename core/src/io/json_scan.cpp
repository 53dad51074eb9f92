#include "io/json_scan.hpp"

#include "io/structural_blocks.hpp"

#include <cerrno>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <fmt/format.h>

namespace steadyscope::io {

namespace {
constexpr size_t npos = std::string_view::npos;

inline bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string unescapeKey(std::string_view raw) {
  // raw includes quotes; keys in traces are plain ASCII in practice.
  std::string out;
  for (size_t i = 1; i + 1 < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 2 < raw.size()) {
      char n = raw[++i];
      switch (n) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        default: out += n; break;  // \" \\ \/ ; \u kept as the letter (rare in keys)
      }
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

/// Quote-aware scan from `first` (inside the array, at depth 0 relative to
/// it) to the array's closing ']', over the structural bits of each block.
/// Cuts pieces of about pieceBytes at depth-0 commas.
bool exactArrayScan(std::string_view t, size_t first, size_t pieceBytes, TopLevelLayout& out, ScanError& err) {
  out.pieces.clear();
  int depth = 0;
  size_t pieceBegin = first;
  bool bad = false;
  const char* d = t.data();
  StructuralBlocks blocks;
  const bool closed = forEachStructuralBlock(d, t.size(), first, blocks, [&](size_t base, const StructuralMasks& m) {
    // Commas matter only once the piece is long enough to be cut.
    const uint64_t cuts = base + StructuralBlocks::kBlock > pieceBegin + pieceBytes ? m.commas : 0;
    for (uint64_t all = m.opens | m.closes | cuts; all; all &= all - 1) {
      const uint64_t bit = all & (0 - all);
      const size_t i = base + static_cast<size_t>(__builtin_ctzll(all));
      if (m.opens & bit) {
        ++depth;
      } else if (m.closes & bit) {
        if (depth-- > 0) continue;
        if (d[i] == '}') {
          err = {"malformed JSON: unexpected '}' in traceEvents", i, "bad_json"};
          bad = true;
          return true;
        }
        size_t e = i;
        while (e > pieceBegin && isWs(d[e - 1])) --e;
        if (e > pieceBegin) out.pieces.push_back({pieceBegin, e});
        out.arrayClose = i;
        return true;
      } else if (depth == 0 && i - pieceBegin >= pieceBytes) {
        out.pieces.push_back({pieceBegin, i});
        pieceBegin = skipWs(t, i + 1);
      }
    }
    return false;
  });
  if (closed) return !bad;
  if (blocks.inString())
    err = {"truncated JSON: a string is not closed before the end of the file", blocks.openQuote(), "truncated_json"};
  else
    err = {"truncated JSON: the traceEvents array is not closed before the end of the file", t.size(),
           "truncated_json"};
  return false;
}

size_t lastCompleteElementEnd(std::string_view t, size_t first) {
  int depth = 0;
  size_t last = first;
  for (size_t i = first; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      const size_t after = skipString(t, i);
      if (after == npos) break;
      if (depth == 0) last = after;  // a string element
      i = after - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // the array's own ']'
      if (--depth == 0) last = i + 1;
    } else if (depth == 0 && c != ',' && !isWs(c)) {
      size_t j = i;  // a number or literal element: complete once a separator follows it
      while (j < t.size() && t[j] != ',' && t[j] != ']' && !isWs(t[j])) ++j;
      if (j == t.size()) break;
      last = j;
      i = j - 1;
    }
  }
  return last;
}

/// Finds a likely event boundary at or after `from`: "}" ws "," ws-with-newline "{".
/// Returns the offset of the comma, or npos. A raw newline cannot sit inside a
/// JSON string, so such a comma is structural; whether it is at the array's
/// own depth is verified by the parser (a wrong cut fails to parse).
size_t findCut(std::string_view t, size_t from, size_t limit) {
  const char* d = t.data();
  size_t i = from;
  while (i < limit) {
    const void* nl = std::memchr(d + i, '\n', limit - i);
    if (!nl) return npos;
    size_t k = static_cast<size_t>(static_cast<const char*>(nl) - d);
    size_t b = k;
    while (b > 0 && (d[b - 1] == ' ' || d[b - 1] == '\t' || d[b - 1] == '\r')) --b;
    if (b > 0 && d[b - 1] == ',') {
      size_t comma = b - 1;
      size_t c2 = comma;
      while (c2 > 0 && isWs(d[c2 - 1])) --c2;
      size_t f = skipWs(t, k);
      if (c2 > 0 && d[c2 - 1] == '}' && f < t.size() && d[f] == '{') return comma;
    }
    i = k + 1;
  }
  return npos;
}

size_t skipWs(std::string_view t, size_t p) {
  while (p < t.size() && isWs(t[p])) ++p;
  return p;
}

size_t skipString(std::string_view t, size_t p) {
  size_t i = p + 1;
  while (i < t.size()) {
    char c = t[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '"') return i + 1;
    ++i;
  }
  return npos;
}

size_t skipValue(std::string_view t, size_t p, ScanError& err) {
  if (p >= t.size()) {
    err = {"truncated JSON: a value is missing at the end of the file", p, "truncated_json"};
    return npos;
  }
  char c = t[p];
  if (c == '"') {
    size_t e = skipString(t, p);
    if (e == npos) err = {"truncated JSON: a string is not closed", p, "truncated_json"};
    return e;
  }
  if (c == '{' || c == '[') {
    int depth = 0;
    size_t end = npos;
    StructuralBlocks blocks;
    forEachStructuralBlock(t.data(), t.size(), p, blocks, [&](size_t base, const StructuralMasks& m) {
      for (uint64_t all = m.opens | m.closes; all; all &= all - 1) {
        if (m.opens & all & (0 - all)) {
          ++depth;
        } else if (--depth == 0) {
          end = base + static_cast<size_t>(__builtin_ctzll(all)) + 1;
          return true;
        }
      }
      return false;
    });
    if (end != npos) return end;
    if (blocks.inString())
      err = {"truncated JSON: a string is not closed", blocks.openQuote(), "truncated_json"};
    else
      err = {"truncated JSON: an object or array is not closed before the end of the file", p, "truncated_json"};
    return npos;
  }
  size_t i = p;
  while (i < t.size() && !isWs(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
  if (i == p) {
    err = {fmt::format("malformed JSON: unexpected '{}'", c), p, "bad_json"};
    return npos;
  }
  return i;
}

size_t scanToTraceEvents(std::string_view t, bool complete, bool& needMore, ScanError& err) {
  needMore = false;
  size_t p = 0;
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xEF) p = 3;
  p = skipWs(t, p);
  auto more = [&]() -> size_t {
    if (complete) {
      err = {"truncated JSON", p, "truncated_json"};
      return npos;
    }
    needMore = true;
    return npos;
  };
  if (p >= t.size()) return more();
  if (t[p] != '{') {
    err = {"not a trace object", p, "not_json"};
    return npos;
  }
  p = skipWs(t, p + 1);
  for (;;) {
    if (p >= t.size()) return more();
    if (t[p] != '"') {
      err = {"malformed trace object", p, "bad_json"};
      return npos;
    }
    size_t ke = skipString(t, p);
    if (ke == npos) return more();
    bool isEvents = t.substr(p, ke - p) == "\"traceEvents\"";
    size_t q = skipWs(t, ke);
    if (q >= t.size()) return more();
    if (t[q] != ':') {
      err = {"malformed trace object", q, "bad_json"};
      return npos;
    }
    q = skipWs(t, q + 1);
    if (q >= t.size()) return more();
    if (isEvents) {
      if (t[q] != '[') {
        err = {"\"traceEvents\" is not an array", q, "trace_events_not_array"};
        return npos;
      }
      return q + 1;
    }
    ScanError e2;
    size_t ve = skipValue(t, q, e2);
    if (ve == npos) {
      if (e2.code == "truncated_json") return more();
      err = e2;
      return npos;
    }
    p = skipWs(t, ve);
    if (p >= t.size()) return more();
    if (t[p] == ',') {
      p = skipWs(t, p + 1);
      continue;
    }
    err = {"no traceEvents before the end of the trace object", p, "no_trace_events"};
    return npos;
  }
}

size_t cutHeuristically(std::string_view t, size_t begin, size_t pieceBytes, std::vector<Piece>& pieces) {
  for (;;) {
    size_t target = begin + pieceBytes;
    if (target >= t.size()) return begin;
    size_t comma = findCut(t, target, t.size());
    if (comma == npos) return begin;
    pieces.push_back({begin, comma});
    begin = skipWs(t, comma + 1);
  }
}

size_t cutHeuristically(int fd, uint64_t fdBase, size_t size, size_t begin, size_t pieceBytes,
                        std::vector<Piece>& pieces) {
  std::string win;
  for (;;) {
    const size_t target = begin + pieceBytes;
    if (target >= size) return begin;
    size_t len = 8u << 10, c = npos;
    for (;;) {
      len = std::min(len, size - target);
      win.resize(len);
      size_t got = 0;
      while (got < len) {
        const ssize_t r = ::pread(fd, win.data() + got, len - got, static_cast<off_t>(fdBase + target + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return begin;  // unreadable: the caller scans the rest exactly
        got += static_cast<size_t>(r);
      }
      c = findCut(win, 0, len);
      if (c != npos || target + len >= size) break;
      len *= 2;  // a very long event: widen the window
    }
    if (c == npos) return begin;
    pieces.push_back({begin, target + c});
    begin = target + skipWs(win, c + 1);
  }
}

namespace {

/// The position after the '{' that opens the trace object (past a UTF-8 BOM
/// and whitespace), or npos with `err` set.
size_t openTraceObject(std::string_view t, ScanError& err) {
  size_t p = 0;
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xEF && static_cast<unsigned char>(t[1]) == 0xBB &&
      static_cast<unsigned char>(t[2]) == 0xBF)
    p = 3;
  p = skipWs(t, p);
  if (p >= t.size()) {
    err = {"the file contains no JSON (only whitespace)", p, "empty_file"};
    return npos;
  }
  if (t[p] == '[') {
    err = {
        "the file is a bare JSON array of events; a trace must be an object "
        "{\"traceEvents\": [...]} (the reference splitter does not accept arrays either)",
        p, "toplevel_array"};
    return npos;
  }
  if (t[p] != '{') {
    err = {fmt::format("not JSON: expected '{{' at the start of the trace, found '{}'",
                       std::isprint(static_cast<unsigned char>(t[p])) ? t[p] : '?'),
           p, "not_json"};
    return npos;
  }
  return skipWs(t, p + 1);
}

/// How traceEvents is to be cut (see scanTopLevel).
struct CutPlan {
  size_t pieceBytes;
  bool exact;
  size_t knownArrayClose;
  int fd;
  uint64_t fdBase;
};

/// Cuts the traceEvents array opening at `q` into out.pieces and finds its
/// end: heuristic cuts with an exact scan of the rest, else an exact scan of
/// the whole array.
bool cutTraceEvents(std::string_view t, size_t q, const CutPlan& plan, TopLevelLayout& out, ScanError& err) {
  out.arrayOpen = q;
  const size_t first = skipWs(t, q + 1);
  if (plan.knownArrayClose != npos) {  // the caller cut and scanned the array already
    out.arrayClose = plan.knownArrayClose;
    return true;
  }
  if (!plan.exact) {
    std::vector<Piece> cuts;
    size_t begin = plan.fd >= 0 ? cutHeuristically(plan.fd, plan.fdBase, t.size(), first, plan.pieceBytes, cuts)
                                : cutHeuristically(t, first, plan.pieceBytes, cuts);
    TopLevelLayout tail;
    ScanError tailErr;
    if (exactArrayScan(t, begin, plan.pieceBytes, tail, tailErr)) {
      out.pieces = std::move(cuts);
      for (auto& pc : tail.pieces) out.pieces.push_back(pc);
      out.arrayClose = tail.arrayClose;
      return true;
    }
    if (cuts.empty()) {
      err = tailErr;
      return false;
    }
  }
  out.usedExactScan = true;
  return exactArrayScan(t, first, plan.pieceBytes, out, err);
}

/// One "key": value of the trace object at `p`; returns the position after
/// the value, or npos with `err` set.
size_t scanMember(std::string_view t, size_t p, size_t keyIndex, const CutPlan& plan, TopLevelLayout& out,
                  ScanError& err) {
  if (t[p] != '"') {
    err = {"malformed JSON: expected a key string in the trace object", p, "bad_json"};
    return npos;
  }
  size_t ke = skipString(t, p);
  if (ke == npos) {
    err = {"truncated JSON: a key is not closed", p, "truncated_json"};
    return npos;
  }
  std::string_view rawKey = t.substr(p, ke - p);
  std::string key = unescapeKey(rawKey);
  size_t q = skipWs(t, ke);
  if (q >= t.size() || t[q] != ':') {
    err = {q >= t.size() ? "truncated JSON: the trace object ends after a key"
                         : "malformed JSON: expected ':' after a key",
           q, q >= t.size() ? "truncated_json" : "bad_json"};
    return npos;
  }
  q = skipWs(t, q + 1);
  if (key == "traceEvents" && !out.hasTraceEvents) {
    if (q >= t.size() || t[q] != '[') {
      err = {"\"traceEvents\" is not an array", q, "trace_events_not_array"};
      return npos;
    }
    out.hasTraceEvents = true;
    out.traceEventsPosition = keyIndex;
    if (!cutTraceEvents(t, q, plan, out, err)) return npos;
    return out.arrayClose + 1;
  }
  size_t ve = skipValue(t, q, err);
  if (ve == npos) return npos;
  TopLevelEntry e;
  e.key = std::move(key);
  e.rawKey = std::string(rawKey);
  e.rawValue = std::string(t.substr(q, ve - q));
  out.entries.push_back(std::move(e));
  return ve;
}

/// The members of the trace object from `p` (after its '{') to its '}';
/// returns the position after the '}', or npos with `err` set.
size_t scanMembers(std::string_view t, size_t p, const CutPlan& plan, TopLevelLayout& out, ScanError& err) {
  if (p < t.size() && t[p] == '}') return p + 1;
  for (size_t keyIndex = 0;; ++keyIndex) {
    if (p >= t.size()) {
      err = {"truncated JSON: the trace object is not closed", p, "truncated_json"};
      return npos;
    }
    p = scanMember(t, p, keyIndex, plan, out, err);
    if (p == npos) return npos;
    p = skipWs(t, p);
    if (p >= t.size()) {
      err = {"truncated JSON: the trace object is not closed", p, "truncated_json"};
      return npos;
    }
    if (t[p] == ',') {
      p = skipWs(t, p + 1);
      continue;
    }
    if (t[p] == '}') return p + 1;
    err = {"malformed JSON: expected ',' or '}' in the trace object", p, "bad_json"};
    return npos;
  }
}

}  // namespace

bool scanTopLevel(std::string_view t, size_t pieceBytes, bool exact, TopLevelLayout& out, ScanError& err,
                  size_t knownArrayClose, int fd, uint64_t fdBase) {
  out = TopLevelLayout{};
  size_t p = openTraceObject(t, err);
  if (p == npos) return false;
  p = scanMembers(t, p, CutPlan{pieceBytes, exact, knownArrayClose, fd, fdBase}, out, err);
  if (p == npos) return false;
  p = skipWs(t, p);
  if (p < t.size() && t[p] != '\0') {
    err = {"malformed JSON: unexpected text after the trace object", p, "trailing_text"};
    return false;
  }
  if (!out.hasTraceEvents) {
    err = {
        "the JSON object has no \"traceEvents\" array, so it is not a Chrome trace-event file "
        "(rocprofv3 and other tools' own JSON formats are not supported)",
        0, "no_trace_events"};
    return false;
  }
  return true;
}

}  // namespace steadyscope::io
