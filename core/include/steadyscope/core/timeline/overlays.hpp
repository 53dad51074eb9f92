#pragma once
// What the splitter and the gate tell the timeline: steps (iteration roots)
// with their kind, steady-state regions, and the chosen window of every mode.
// The app converts the splitter's result into this plain struct; the timeline
// never depends on the analysis area directly.
#include <cstdint>
#include <string>
#include <vector>

namespace steadyscope::timeline {

/// Step kinds of splitter-spec §2.4 / §3.6, as the ruler colours them.
enum class StepKind : uint8_t { DecodeOnly, PrefillDecode, PrefillOnly, Generic };
inline constexpr int kStepKindCount = 4;
const char* stepKindName(StepKind k);  // "decode-only", "prefill-decode", ...

struct StepBand {
  int64_t beginNs = 0, endNs = 0;
  int32_t index = 0;
  StepKind kind = StepKind::Generic;
};

struct RegionBand {
  int64_t beginNs = 0, endNs = 0;
  std::string label;
};

/// One step's GPU work on one device: first GPU start to last GPU end.
struct GpuSpan {
  int64_t beginNs = 0, endNs = 0;
  int32_t step = -1;
  int32_t device = -1;  // TimelineIndex::devices index
};

struct ChunkBand {
  int64_t beginNs = 0, endNs = 0;  // the CPU window
  std::string mode;                       // "mixed", "decode_only", "prefilldecode", "generic"
  std::string label;                      // shown on the band
  int32_t firstStep = -1, lastStep = -1;  // inclusive step indices, -1 if unknown
  std::vector<GpuSpan> gpuSpans;          // each step's GPU span (every device), drawn when selected
};

struct TimelineOverlays {
  std::vector<StepBand> steps;  // sorted by beginNs
  std::vector<RegionBand> steadyRegions;
  std::vector<ChunkBand> chunks;
  bool empty() const { return steps.empty() && steadyRegions.empty() && chunks.empty(); }
  /// First step whose end is after t (steps do not overlap).
  size_t firstStepEndingAfter(int64_t t) const;
  /// The step containing t, or -1.
  int64_t stepAt(int64_t t) const;
  /// Position in `steps` of the step numbered `index` (StepBand::index), or -1.
  int64_t positionOfStep(int32_t index) const;
  /// Chunk bands get one row per mode, in the order the modes first appear.
  int chunkRow(size_t chunk) const;
  int chunkRowCount() const;
};

}  // namespace steadyscope::timeline
