#pragma once
// What a split directory holds, for review: the chunk files, the manifest and
// execution details, and the source trace (named by the user, or found beside
// the directory by the chunk names' base name, splitter-spec §1.1 / §4.7).
// Names are read with util/split_names (classifyChunkFile); this only
// discovers files, the gate's review reads them.
#include <QString>
#include <QStringList>

namespace steadyscope::app {

struct SplitChunkFile {
  QString fileName;
  QString mode;  // "mixed", "decode_only", "prefilldecode", "generic", "iteration", "phase", "other"
};

struct SplitDirectoryInfo {
  QString dir;
  QList<SplitChunkFile> chunks;
  bool hasManifest = false;
  bool hasDetailsCsv = false;
  bool hasDetailsJson = false;
  QString sourceTrace;  // empty when not found
  QString error;        // non-empty when `dir` is not a split directory
};

/// Mode family of a chunk file name (splitter-spec §4.7, §6.1).
QString chunkModeOfFile(const QString& fileName);

SplitDirectoryInfo inspectSplitDirectory(const QString& dir, const QString& namedSource = {});

}  // namespace steadyscope::app
