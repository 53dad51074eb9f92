#include "split_directory.hpp"
#include "common/text.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/model.hpp>

#include <QDir>
#include <QFileInfo>

namespace steadyscope::app {

using widgets::qs;

namespace {
bool isTraceName(const QString& n) {
  return n.endsWith(QLatin1String(".json")) || n.endsWith(QLatin1String(".json.gz")) ||
         n.endsWith(QLatin1String(".zip")) || n.endsWith(QLatin1String(".json.zst"));
}
QString stem(const QString& n) { return QString::fromStdString(referenceBaseName(n.toStdString())); }
}  // namespace

QString chunkModeOfFile(const QString& n) {
  const names::ChunkFileName c = names::classifyChunkFile(n.toStdString());
  switch (c.kind) {
    case names::ChunkFileKind::SteadyState: return qs(names::modeName(*c.mode));
    case names::ChunkFileKind::Phase: return QStringLiteral("phase");
    case names::ChunkFileKind::Iteration: return QStringLiteral("iteration");
    case names::ChunkFileKind::Other: break;
  }
  return QStringLiteral("other");
}

SplitDirectoryInfo inspectSplitDirectory(const QString& dirPath, const QString& namedSource) {
  SplitDirectoryInfo info;
  info.dir = QFileInfo(dirPath).absoluteFilePath();
  QDir dir(info.dir);
  if (!dir.exists()) {
    info.error = QStringLiteral("%1: not a directory").arg(dirPath);
    return info;
  }
  const QString manifest = qs(names::kManifestFile), detailsJson = qs(names::kDetailsJsonFile);
  info.hasManifest = dir.exists(manifest);
  info.hasDetailsCsv = dir.exists(qs(names::kDetailsCsvFile));
  info.hasDetailsJson = dir.exists(detailsJson);
  QStringList files = dir.entryList(QDir::Files, QDir::Name);
  for (names::PhaseFolder f : {names::PhaseFolder::PrefillDecodeMix, names::PhaseFolder::DecodeOnly}) {
    const QString sub = qs(names::phaseFolderName(f));
    for (const QString& n : QDir(dir.filePath(sub)).entryList(QDir::Files, QDir::Name))
      files << sub + QLatin1Char('/') + n;
  }
  for (const QString& n : files) {
    const QString leaf = QFileInfo(n).fileName();
    if (!isTraceName(leaf) || leaf == manifest || leaf == detailsJson) continue;
    info.chunks.push_back({n, chunkModeOfFile(leaf)});
  }
  if (info.chunks.isEmpty() && !info.hasManifest && !info.hasDetailsCsv) {
    info.error = QStringLiteral("%1: no chunk files, %2 or %3 here").arg(dirPath, manifest, qs(names::kDetailsCsvFile));
    return info;
  }
  if (!namedSource.isEmpty()) {
    info.sourceTrace = QFileInfo(namedSource).absoluteFilePath();
    return info;
  }
  // A trace beside the directory whose base name the chunk names carry.
  QDir parent = QFileInfo(info.dir).dir();
  for (const QString& cand : parent.entryList(QDir::Files, QDir::Name)) {
    if (!isTraceName(cand)) continue;
    const QString base = stem(cand);
    if (base.isEmpty()) continue;
    for (const SplitChunkFile& c : info.chunks) {
      const QString leaf = stem(QFileInfo(c.fileName).fileName());
      if (names::chunkStemNamesTrace(leaf.toStdString(), base.toStdString())) {
        info.sourceTrace = parent.filePath(cand);
        return info;
      }
    }
  }
  return info;
}

}  // namespace steadyscope::app
