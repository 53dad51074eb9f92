// What an export writes and whether it may: the chunk of the mode, the four
// absolute file names, which exist, and whether one of them is the source.
#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/util/paths.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

namespace steadyscope::exporting {

namespace {

// The first chunk whose file name says it is the mode's steady-state chunk (as the gate lists it).
int chunkOfMode(const analysis::SplitResult& plan, names::ChunkMode mode) {
  for (size_t k = 0; k < plan.chunks.size(); ++k) {
    const std::string& f = plan.chunks[k].fileName;
    if (f.find('/') != std::string::npos) continue;  // phase folders are not a mode's chunk
    const names::ChunkFileName n = names::classifyChunkFile(f);
    if (n.kind == names::ChunkFileKind::SteadyState && n.mode == mode) return static_cast<int>(k);
  }
  return -1;
}

std::string absoluteDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir.empty() ? "." : dir, ec);
  if (ec) return dir;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The reference's name for the chunk; a plain-JSON export drops ".gz".
std::string chunkLeaf(const std::string& fileName, bool gzip) {
  if (gzip || fileName.size() < 3 || fileName.compare(fileName.size() - 3, 3, ".gz") != 0) return fileName;
  return fileName.substr(0, fileName.size() - 3);
}

std::string noChunkSentence(const analysis::SplitResult& plan, names::ChunkMode mode) {
  if (plan.outcome != analysis::SplitOutcome::Split)
    return fmt::format("the split has no chunks to export ({}{})", analysis::splitOutcomeName(plan.outcome),
                       plan.error.empty() ? "" : ": " + plan.error);
  std::string have;
  for (const auto& c : plan.chunks) have += (have.empty() ? "" : ", ") + c.fileName;
  return fmt::format("the split made no {} chunk{}", names::modeDisplayName(mode),
                     have.empty() ? std::string(" (it made no chunks)") : " (it made: " + have + ")");
}

}  // namespace

ExportPreview previewExport(const Trace& trace, const analysis::SplitResult& plan, const ExportRequest& request) {
  ExportPreview pv;
  pv.chunk = chunkOfMode(plan, request.mode);
  ExportFiles& f = pv.files;
  f.dir = absoluteDir(request.targetDir);
  if (trace.partial) {
    pv.refusal = fmt::format("the trace was read only in part ({}); an export needs the whole trace",
                             trace.partial->reason);
    return pv;
  }
  if (pv.chunk < 0) {
    pv.refusal = noChunkSentence(plan, request.mode);
    return pv;
  }
  f.chunk = paths::join(f.dir, chunkLeaf(plan.chunks[static_cast<size_t>(pv.chunk)].fileName, request.gzip));
  f.detailsCsv = paths::join(f.dir, std::string(names::kDetailsCsvFile));
  f.detailsJson = paths::join(f.dir, std::string(names::kDetailsJsonFile));
  f.manifest = paths::join(f.dir, std::string(kExportManifestFile));
  auto source = identifyFile(trace.path);
  for (const std::string& p : f.all()) {
    auto id = identifyFile(p);
    if (!id) continue;
    pv.existing.push_back(p);
    // By file identity: a hard link or another spelling of the source's path is the source too.
    if (source && id->device == source->device && id->inode == source->inode) pv.overwritesSource = true;
  }
  if (pv.overwritesSource)
    pv.refusal =
        fmt::format("the export would overwrite the source trace {} (refused, with or without --force)", trace.path);
  else if (!pv.existing.empty() && !request.force) {
    std::string list;
    for (const std::string& p : pv.existing) list += (list.empty() ? "" : ", ") + paths::fileName(p);
    pv.refusal = fmt::format("an earlier export is in the folder: {} exist{} (use --force to replace it)", list,
                             pv.existing.size() == 1 ? "s" : "");
  }
  return pv;
}

}  // namespace steadyscope::exporting
