#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <cmath>

namespace steadyscope::names {

std::string_view modeName(ChunkMode m) {
  switch (m) {
    case ChunkMode::Mixed: return "mixed";
    case ChunkMode::DecodeOnly: return "decode_only";
    case ChunkMode::PrefillDecode: return "prefilldecode";
    case ChunkMode::Generic: return "generic";
  }
  return "mixed";
}

std::optional<ChunkMode> parseModeName(std::string_view name) {
  for (ChunkMode m : kChunkModes)
    if (modeName(m) == name) return m;
  if (name == "max_prefilldecode") return ChunkMode::PrefillDecode;
  return std::nullopt;
}

std::string_view chunkLabel(ChunkMode m) {
  switch (m) {
    case ChunkMode::Mixed: return "mixed_steady_state";
    case ChunkMode::DecodeOnly: return "decode_only_steady_state";
    case ChunkMode::PrefillDecode: return "prefilldecode_steady_state";
    case ChunkMode::Generic: return "steady_state";
  }
  return "mixed_steady_state";
}

std::string chunkFilePrefix(ChunkMode m) { return std::string(chunkLabel(m)) + "_"; }

std::string_view phaseFolderName(PhaseFolder f) {
  return f == PhaseFolder::PrefillDecodeMix ? "prefilldecodemix" : "decode_only";
}

std::string steadyChunkFileName(ChunkMode m, std::string_view phaseSuffix, std::string_view baseName) {
  if (m == ChunkMode::Generic) return fmt::format("{}{}{}", chunkFilePrefix(m), baseName, kChunkExtension);
  return fmt::format("{}{}_{}{}", chunkFilePrefix(m), phaseSuffix, baseName, kChunkExtension);
}

std::string phaseChunkFileName(PhaseFolder f, int64_t n, size_t steps, int64_t avgBs, int64_t avgConc,
                               std::string_view phaseSuffix, std::string_view baseName) {
  const std::string_view folder = phaseFolderName(f);
  return fmt::format("{}/{}_chunk{}_steps{}_bs{}_conc{}_{}_{}{}", folder, folder, n, steps, avgBs, avgConc, phaseSuffix,
                     baseName, kChunkExtension);
}

std::string iterationChunkFileName(std::string_view baseName, int64_t i, std::string_view rootName) {
  if (rootName.empty()) return fmt::format("{}_iteration_{}{}", baseName, i, kChunkExtension);
  return fmt::format("{}_iteration_{}_{}{}", baseName, i, rootName, kChunkExtension);
}

std::string bookendChunkFileName(std::string_view baseName, std::string_view which) {
  return fmt::format("{}_{}{}", baseName, which, kChunkExtension);
}

std::string rangeChunkFileName(std::string_view baseName, int64_t a, int64_t b) {
  if (b - a > 1) return fmt::format("{}_iteration_{}:{}{}", baseName, a, b, kChunkExtension);
  return fmt::format("{}_iteration_{}{}", baseName, a, kChunkExtension);
}

namespace {
bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

ChunkFileName classifyChunkFile(std::string_view leaf) {
  for (ChunkMode m : {ChunkMode::Mixed, ChunkMode::DecodeOnly, ChunkMode::PrefillDecode, ChunkMode::Generic})
    if (leaf.starts_with(chunkFilePrefix(m))) return {ChunkFileKind::SteadyState, m};
  for (PhaseFolder f : {PhaseFolder::PrefillDecodeMix, PhaseFolder::DecodeOnly})
    if (leaf.starts_with(fmt::format("{}_chunk", phaseFolderName(f)))) return {ChunkFileKind::Phase, std::nullopt};
  if (leaf.find("_iteration_") != std::string_view::npos || endsWith(leaf, "_warmup.json.gz") ||
      endsWith(leaf, "_wrapup.json.gz"))
    return {ChunkFileKind::Iteration, std::nullopt};
  return {};
}

bool matchesChunkGlob(std::string_view leaf, ChunkMode m, std::string_view ext) {
  const std::string prefix = chunkFilePrefix(m);
  const std::string suffix = fmt::format(".{}", ext);
  return leaf.size() >= prefix.size() + suffix.size() && leaf.starts_with(prefix) && endsWith(leaf, suffix);
}

bool chunkStemNamesTrace(std::string_view chunkStem, std::string_view base) {
  if (base.empty() || chunkStem.size() <= base.size()) return false;
  const size_t cut = chunkStem.size() - base.size();
  return (chunkStem.substr(cut) == base && chunkStem[cut - 1] == '_') ||
         (chunkStem.starts_with(base) && chunkStem[base.size()] == '_');
}

std::string_view modeDisplayName(ChunkMode m) {
  switch (m) {
    case ChunkMode::Mixed: return "mixed";
    case ChunkMode::DecodeOnly: return "decode only";
    case ChunkMode::PrefillDecode: return "prefill + decode";
    case ChunkMode::Generic: return "generic";
  }
  return "mixed";
}

std::string percentText(double share) {
  const double pct = share * 100.0;
  const bool whole = pct >= 99.95 || pct == std::trunc(pct);
  return whole ? fmt::format("{:.0f} %", pct) : fmt::format("{:.1f} %", pct);
}

}  // namespace steadyscope::names
