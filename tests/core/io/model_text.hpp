#pragma once
// A model's ids as text, for comparing two models whose string and lane ids
// may differ (two parses on several threads intern in another order).
#include <steadyscope/core/model/trace.hpp>

#include <string>

namespace testfiles {

/// A pid / tid with its type ("1:7", "2:stream 7").
inline std::string keyText(const steadyscope::Trace& t, const steadyscope::JsonKey& k) {
  return std::to_string(int(k.type)) + ":" + t.keyText(k);
}
/// Event i's lane as "pid/tid".
inline std::string laneText(const steadyscope::Trace& t, steadyscope::EventIdx i) {
  const steadyscope::Lane& l = t.lanes[t.lane[i]];
  return keyText(t, l.pid) + "/" + keyText(t, l.tid);
}
/// A correlation / External id: the string when written as one.
inline std::string idText(const steadyscope::Trace& t, int64_t v, bool isStr) {
  return isStr ? "s:" + std::string(t.strings.view(static_cast<steadyscope::StrId>(v))) : std::to_string(v);
}

}  // namespace testfiles
