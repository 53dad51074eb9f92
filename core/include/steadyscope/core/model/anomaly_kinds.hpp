#pragma once
// Every kind of anomaly the loader records (Trace::anomalies, by code), in one
// table: whether it is expected in an ordinary capture (flows cut at the
// capture's edges, GPU work launched before it began) or suspicious (broken
// or unusual data), what it means, and what it affects: the split, the busy
// figures, the views. The loader takes each counter's explanation from here.
#include <steadyscope/core/model/trace.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace steadyscope {

enum class AnomalyClass : uint8_t {
  Expected,    // normal in any capture: nothing to fix
  Suspicious,  // the file is broken or unusual there: worth a look
};

struct AnomalyKind {
  std::string_view code;  // the counter's name, e.g. "dur_negative"
  AnomalyClass cls = AnomalyClass::Suspicious;
  std::string_view title;    // a few words, plural: "negative durations"
  std::string_view meaning;  // what the loader met (Anomaly::explanation)
  std::string_view affects;  // one sentence: does it change the split, the busy figures, the views
};

/// The table, in the loader's counter order.
std::span<const AnomalyKind> anomalyKinds();

/// The kind of a counter's code; nullptr for a code the table does not know.
const AnomalyKind* findAnomalyKind(std::string_view code);

/// Expected or suspicious; a code the table does not know counts as suspicious.
AnomalyClass anomalyClassOf(std::string_view code);

/// The suspicious counters of a trace in words, largest first, e.g.
/// "negative durations (12), unmatched 'E' events (3)"; "" when there are none.
std::string suspiciousAnomalyText(const Trace& trace);

}  // namespace steadyscope
