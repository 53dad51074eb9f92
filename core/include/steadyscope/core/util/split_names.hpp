#pragma once
// The split output's vocabulary, in one place: the chunk modes, their labels
// and file prefixes, the names the reference gives every chunk file and the
// files beside them, and the parser that reads a chunk file's name back.
// The splitter writes with these builders; the gate, the directory review
// and the window read with classifyChunkFile / matchesChunkGlob.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace steadyscope::names {

/// The modes a steady-state chunk is cut for. Serving traces (and
/// --llm-inference) get Mixed, DecodeOnly and PrefillDecode; every other
/// workload gets the one Generic chunk.
enum class ChunkMode : uint8_t { Mixed, DecodeOnly, PrefillDecode, Generic };
inline constexpr std::array<ChunkMode, 4> kChunkModes = {ChunkMode::Mixed, ChunkMode::DecodeOnly,
                                                         ChunkMode::PrefillDecode, ChunkMode::Generic};
inline constexpr size_t modeIndex(ChunkMode m) { return static_cast<size_t>(m); }

/// "mixed", "decode_only", "prefilldecode", "generic" (the gate's --mode words).
std::string_view modeName(ChunkMode m);
/// The inverse of modeName; also accepts the steady-state finder's
/// "max_prefilldecode" for PrefillDecode. Anything else: nullopt.
std::optional<ChunkMode> parseModeName(std::string_view name);
/// "mixed_steady_state", "decode_only_steady_state",
/// "prefilldecode_steady_state", "steady_state": the chunk's label in the
/// manifest and the start of its file name.
std::string_view chunkLabel(ChunkMode m);
/// chunkLabel(m) + "_": every file of that mode starts with it.
std::string chunkFilePrefix(ChunkMode m);

/// The extensions the gate looks for, in the order it tries them.
inline constexpr std::array<std::string_view, 4> kChunkExtensions = {"trace.json.gz", "json.gz", "trace.json", "json"};
/// The extension every chunk the splitter writes carries.
inline constexpr std::string_view kChunkExtension = ".json.gz";

inline constexpr std::string_view kManifestFile = "split_manifest.json";
inline constexpr std::string_view kDetailsCsvFile = "execution_details.csv";
inline constexpr std::string_view kDetailsJsonFile = "execution_details.json";

/// The two folders --divide-phases writes into (and the chunk names' stem).
enum class PhaseFolder : uint8_t { PrefillDecodeMix, DecodeOnly };
std::string_view phaseFolderName(PhaseFolder f);  // "prefilldecodemix", "decode_only"

// ---- file names the splitter writes (relative to the output directory) ----

/// A steady-state chunk: "{label}_{phaseSuffix}_{base}.json.gz" for the
/// three serving modes, "steady_state_{base}.json.gz" for Generic (which
/// ignores phaseSuffix).
std::string steadyChunkFileName(ChunkMode m, std::string_view phaseSuffix, std::string_view baseName);
/// A --divide-phases chunk:
/// "{folder}/{folder}_chunk{n}_steps{steps}_bs{bs}_conc{conc}_{phaseSuffix}_{base}.json.gz".
std::string phaseChunkFileName(PhaseFolder f, int64_t n, size_t steps, int64_t avgBs, int64_t avgConc,
                               std::string_view phaseSuffix, std::string_view baseName);
/// One --store-single-iteration chunk: "{base}_iteration_{i}.json.gz", or
/// "{base}_iteration_{i}_{rootName}.json.gz" when the root's name is kept.
std::string iterationChunkFileName(std::string_view baseName, int64_t i, std::string_view rootName = {});
/// The warm-up or wrap-up root's chunk: "{base}_{which}.json.gz".
std::string bookendChunkFileName(std::string_view baseName, std::string_view which);
/// An explicit --iterations A:B chunk: "{base}_iteration_{a}:{b}.json.gz",
/// or "{base}_iteration_{a}.json.gz" for a single iteration.
std::string rangeChunkFileName(std::string_view baseName, int64_t a, int64_t b);

// ---- reading names back ----

/// What a chunk file's name says it is.
enum class ChunkFileKind : uint8_t { SteadyState, Phase, Iteration, Other };
struct ChunkFileName {
  ChunkFileKind kind = ChunkFileKind::Other;
  std::optional<ChunkMode> mode;  // set for SteadyState
};
/// Classifies a file name (the last path component) as the splitter names
/// its outputs. The longer labels are tried first ("steady_state_" is a
/// suffix of the others).
ChunkFileName classifyChunkFile(std::string_view leaf);

/// The gate's glob "{prefix}*.{ext}" on a file name: the mode's prefix,
/// anything (possibly empty), then "." + ext.
bool matchesChunkGlob(std::string_view leaf, ChunkMode m, std::string_view ext);

/// Whether a chunk file's stem (its name without the extensions, as
/// referenceBaseName gives it) was cut from a trace of base name `base`:
/// "..._{base}" (steady-state and phase chunks) or "{base}_..." (iteration,
/// range and bookend chunks).
bool chunkStemNamesTrace(std::string_view chunkStem, std::string_view base);

/// Words for people: "mixed", "decode only", "prefill + decode", "generic".
std::string_view modeDisplayName(ChunkMode m);

/// A share for people: "95 %", "2.7 %", "100 %".
std::string percentText(double share);
/// What the splitter's coverage gate asks, in the words the CLI, the gate and the window use.
inline constexpr const char* kSplitNeedsText = "a split needs 95 %, or 75 % when degraded splits are allowed";

}  // namespace steadyscope::names
