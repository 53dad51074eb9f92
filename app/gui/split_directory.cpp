#include "split_directory.hpp"

#include <steadyscope/core/model/trace.hpp>

#include <QDir>
#include <QFileInfo>

namespace steadyscope::app {

namespace {
bool isTraceName(const QString& n) {
  return n.endsWith(QLatin1String(".json")) || n.endsWith(QLatin1String(".json.gz")) ||
         n.endsWith(QLatin1String(".zip")) || n.endsWith(QLatin1String(".json.zst"));
}
QString stem(const QString& n) { return QString::fromStdString(referenceBaseName(n.toStdString())); }
}  // namespace

QString chunkModeOfFile(const QString& n) {
  if (n.startsWith(QLatin1String("mixed_steady_state_"))) return QStringLiteral("mixed");
  if (n.startsWith(QLatin1String("decode_only_steady_state_"))) return QStringLiteral("decode_only");
  if (n.startsWith(QLatin1String("prefilldecode_steady_state_"))) return QStringLiteral("prefilldecode");
  if (n.startsWith(QLatin1String("steady_state_"))) return QStringLiteral("generic");
  if (n.startsWith(QLatin1String("prefilldecodemix_chunk")) || n.startsWith(QLatin1String("decode_only_chunk")))
    return QStringLiteral("phase");
  if (n.contains(QLatin1String("_iteration_")) || n.endsWith(QLatin1String("_warmup.json.gz")) ||
      n.endsWith(QLatin1String("_wrapup.json.gz")))
    return QStringLiteral("iteration");
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
  info.hasManifest = dir.exists(QStringLiteral("split_manifest.json"));
  info.hasDetailsCsv = dir.exists(QStringLiteral("execution_details.csv"));
  info.hasDetailsJson = dir.exists(QStringLiteral("execution_details.json"));
  QStringList names = dir.entryList(QDir::Files, QDir::Name);
  for (const QString& sub : {QStringLiteral("prefilldecodemix"), QStringLiteral("decode_only")})
    for (const QString& n : QDir(dir.filePath(sub)).entryList(QDir::Files, QDir::Name))
      names << sub + QLatin1Char('/') + n;
  for (const QString& n : names) {
    const QString leaf = QFileInfo(n).fileName();
    if (!isTraceName(leaf) || leaf == QLatin1String("split_manifest.json") ||
        leaf == QLatin1String("execution_details.json"))
      continue;
    info.chunks.push_back({n, chunkModeOfFile(leaf)});
  }
  if (info.chunks.isEmpty() && !info.hasManifest && !info.hasDetailsCsv) {
    info.error = QStringLiteral("%1: no chunk files, split_manifest.json or execution_details.csv here").arg(dirPath);
    return info;
  }
  if (!namedSource.isEmpty()) {
    info.sourceTrace = QFileInfo(namedSource).absoluteFilePath();
    return info;
  }
  // A trace beside the directory whose base name the chunk names carry:
  // "..._{base}.json.gz" (steady-state, phase) or "{base}_iteration_..." .
  QDir parent = QFileInfo(info.dir).dir();
  for (const QString& cand : parent.entryList(QDir::Files, QDir::Name)) {
    if (!isTraceName(cand)) continue;
    const QString base = stem(cand);
    if (base.isEmpty()) continue;
    for (const SplitChunkFile& c : info.chunks) {
      const QString leaf = stem(QFileInfo(c.fileName).fileName());
      if (leaf.endsWith(QLatin1Char('_') + base) || leaf.startsWith(base + QLatin1Char('_'))) {
        info.sourceTrace = parent.filePath(cand);
        return info;
      }
    }
  }
  return info;
}

}  // namespace steadyscope::app
