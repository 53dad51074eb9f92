#pragma once
// Structural scanning of the trace object outside the per-event parser:
// top-level keys, the traceEvents array bounds, and event-boundary cuts.
#include <steadyscope/core/model/trace.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::io {

struct ScanError {
  std::string message;
  uint64_t offset = 0;
  std::string code;
};

/// A run of complete events [begin, end): "{...},{...}" without the trailing comma.
struct Piece {
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct TopLevelLayout {
  std::vector<TopLevelEntry> entries;  // all keys except traceEvents, in order
  size_t traceEventsPosition = 0;      // index among keys where traceEvents sat
  bool hasTraceEvents = false;
  uint64_t arrayOpen = 0;   // offset of '['
  uint64_t arrayClose = 0;  // offset of the matching ']'
  std::vector<Piece> pieces;
  bool usedExactScan = false;
};

/// Skips whitespace; returns the new position.
size_t skipWs(std::string_view t, size_t p);
/// Returns the position just after the string starting at t[p] == '"', or npos.
size_t skipString(std::string_view t, size_t p);
/// Returns the position just after the JSON value starting at p, or npos (error set).
size_t skipValue(std::string_view t, size_t p, ScanError& err);

/// Quote-aware scan from `first` (inside traceEvents, at its depth) to the
/// array's closing ']', cutting pieces of about pieceBytes; fills
/// out.pieces / out.arrayClose.
bool exactArrayScan(std::string_view t, size_t first, size_t pieceBytes, TopLevelLayout& out, ScanError& err);
/// The end of the last complete element of the array whose elements start at
/// `first`, in a text that may end inside it (or at its ']'): `first` when no
/// element is complete.
size_t lastCompleteElementEnd(std::string_view t, size_t first);
/// A likely event boundary at or after `from` (before `limit`): the offset of
/// the comma in "}" ws "," ws-with-newline "{", or npos.
size_t findCut(std::string_view t, size_t from, size_t limit);

/// Scans the trace object up to the '[' of traceEvents within `avail` bytes.
/// Returns the offset just after '[' (events start), npos with needMore=true
/// when more text is needed, or npos with err set.
size_t scanToTraceEvents(std::string_view avail, bool complete, bool& needMore, ScanError& err);

/// Appends heuristic cuts (see findCut) of about pieceBytes starting at
/// `begin`; returns the offset where the uncut rest of the array starts.
size_t cutHeuristically(std::string_view t, size_t begin, size_t pieceBytes, std::vector<Piece>& pieces);
/// The same over a file of `size` bytes of text at `fdBase` in `fd`, reading a
/// small window at each cut with pread (no faults on the text's mapping, each
/// of which is a costly first touch on a VM).
size_t cutHeuristically(int fd, uint64_t fdBase, size_t size, size_t begin, size_t pieceBytes,
                        std::vector<Piece>& pieces);

/// Scans the trace object and cuts traceEvents into pieces of about
/// `pieceBytes`. `exact` forces the quote-aware scan of the whole array
/// (otherwise a newline heuristic is used; callers fall back to exact when a
/// heuristic piece fails to parse). Returns false with `err` on malformed input.
/// With `knownArrayClose` set, the caller has already cut traceEvents (whose
/// ']' is at that offset): only the other keys are scanned, out.pieces stays empty.
/// `fd` / `fdBase` (optional): the same text in a file, for the heuristic cuts.
bool scanTopLevel(std::string_view text, size_t pieceBytes, bool exact, TopLevelLayout& out, ScanError& err,
                  size_t knownArrayClose = std::string_view::npos, int fd = -1, uint64_t fdBase = 0);

}  // namespace steadyscope::io
