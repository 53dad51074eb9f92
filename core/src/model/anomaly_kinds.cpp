#include <steadyscope/core/model/anomaly_kinds.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace steadyscope {

namespace {
constexpr AnomalyClass kExpected = AnomalyClass::Expected;
constexpr AnomalyClass kSuspicious = AnomalyClass::Suspicious;

// The "affects" sentences follow what the code does: the splitter pulls a
// step's GPU work in by its launch's correlation id (chunks/extraction.cpp),
// busy (window) and the busy strip read the device's union of every GPU event
// with dur > 0 (io/finalize_gpu.cpp), and the splitter does not read ph but
// for flows and metadata (analysis/event_index.cpp).
constexpr std::array kKinds = {
    AnomalyKind{"dur_missing", kSuspicious, "complete events without a duration",
                "complete ('X') event without a dur: it has no extent and the splitter ignores it",
                "The event has no length: the splitter ignores it and no busy figure counts it."},
    AnomalyKind{"dur_negative", kSuspicious, "negative durations",
                "event with a negative dur: kept as written; views draw it with zero width",
                "Kept as written: the timeline draws it with zero width and the busy union leaves it out, but if "
                "it is GPU work a chunk's plain busy sum (busy (ref)) adds its negative duration."},
    AnomalyKind{"ts_missing", kSuspicious, "events without a timestamp",
                "non-metadata event without a numeric ts: the splitter copies it into every chunk as metadata",
                "It has no place in time: the splitter copies it into every chunk as metadata, and no step or "
                "busy figure counts it."},
    AnomalyKind{"ts_not_number", kSuspicious, "timestamps that are not numbers",
                "ts written as a string or other non-number: treated as missing",
                "Read as a missing timestamp: copied into every chunk as metadata, counted in no step or busy "
                "figure."},
    AnomalyKind{"number_non_finite", kSuspicious, "NaN or Infinity in ts or dur",
                "NaN or Infinity in ts/dur (Python's json accepts them): treated as missing",
                "Read as missing: the event loses its place in time or its length, so no busy figure counts it."},
    AnomalyKind{"number_out_of_range", kSuspicious, "times of 146 years or more",
                "ts/dur of 2^62 ns (146 years) or more in magnitude: treated as missing",
                "Read as missing: the event loses its place in time or its length, so no busy figure counts it."},
    AnomalyKind{"ph_missing", kSuspicious, "events without a phase", "event without a ph (phase) field",
                "The timeline does not draw it; the splitter does not read the phase, so a split treats it by "
                "its category and times."},
    AnomalyKind{"ph_unknown", kExpected, "phases this version does not draw",
                "event with a ph this version does not interpret: kept, ignored by views",
                "The timeline does not draw it; the splitter does not read the phase, so the split is as if "
                "it were drawn."},
    AnomalyKind{"event_not_object", kSuspicious, "entries that are not events",
                "element of traceEvents that is not a JSON object: skipped",
                "Skipped: it is in no chunk and no figure."},
    AnomalyKind{"unmatched_B", kSuspicious, "begin ('B') events without an end",
                "'B' begin event without a matching 'E' on its thread",
                "The slice has no end, so it has no length: no step or busy figure counts its time."},
    AnomalyKind{"unmatched_E", kSuspicious, "end ('E') events without a begin",
                "'E' end event without an open 'B' on its thread", "It closes no slice and counts in no figure."},
    AnomalyKind{"flow_without_peer", kExpected, "flows cut at the capture's edges",
                "flow start ('s') without a finish ('f') with the same id, or the reverse",
                "Normal when a flow's other end lies outside the profiled window: the timeline draws no arrow "
                "for it; the steps and the busy figures do not read flows."},
    AnomalyKind{"kernel_without_launch", kExpected, "GPU work launched before the capture",
                "GPU event whose correlation id no CPU event carries (no visible launch)",
                "Normal at the capture's start (its launch was not profiled): it belongs to no step, so no "
                "chunk's busy (ref) or busy (union) counts it; busy (window) and the busy strip do."},
    AnomalyKind{"gpu_without_correlation", kSuspicious, "GPU work without a correlation id",
                "GPU event without args.correlation: it cannot be linked to a launch",
                "It cannot be linked to a launch, so it belongs to no step: no chunk's busy (ref) or busy "
                "(union) counts it; busy (window) and the busy strip do."},
    AnomalyKind{"dur_not_number", kSuspicious, "durations that are not numbers",
                "dur written as a string or other non-number: treated as missing",
                "Read as a missing duration: the event has no length and no busy figure counts it."},
};

// "9234" -> "9,234", as the window writes counts.
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}
}  // namespace

std::span<const AnomalyKind> anomalyKinds() { return kKinds; }

const AnomalyKind* findAnomalyKind(std::string_view code) {
  for (const AnomalyKind& k : kKinds)
    if (k.code == code) return &k;
  return nullptr;
}

AnomalyClass anomalyClassOf(std::string_view code) {
  const AnomalyKind* k = findAnomalyKind(code);
  return k ? k->cls : AnomalyClass::Suspicious;
}

std::string suspiciousAnomalyText(const Trace& trace) {
  std::vector<const Anomaly*> shown;
  for (const Anomaly& a : trace.anomalies)
    if (a.count > 0 && anomalyClassOf(a.code) == AnomalyClass::Suspicious) shown.push_back(&a);
  std::stable_sort(shown.begin(), shown.end(), [](const Anomaly* a, const Anomaly* b) { return a->count > b->count; });
  std::string out;
  for (const Anomaly* a : shown) {
    const AnomalyKind* k = findAnomalyKind(a->code);
    if (!out.empty()) out += ", ";
    out += fmt::format("{} ({})", k ? k->title : std::string_view(a->code), grouped(a->count));
  }
  return out;
}

}  // namespace steadyscope
