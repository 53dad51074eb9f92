#pragma once
// The report of a split: a one-page PDF (the trace and its sha256, the split's
// and the gate's parameters, the chunk table, the chosen chunk's verdict and
// its explanation in words, the per-step chart, the tool version) and a PNG
// of the timeline view. Both are written whole or not at all, together.
#include "panels/split_view_data.hpp"

#include <steadyscope/split.hpp>
#include <steadyscope/timeline.hpp>

#include <QByteArray>
#include <QImage>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace steadyscope::app {

struct ReportContent {
  QString traceName, tracePath, sha256;
  qint64 traceBytes = 0;
  quint64 events = 0;
  QString resultTitle;  // "split 1 (num-steps 32)", "review of chunks"
  QString splitFlags;   // "--find-steady-state --num-steps 32"
  QString stepsFrom;    // where the steps come from, in words
  QString gateText;     // "mode mixed · busy-ratio threshold 0.050 · margin 0.10"
  QStringList tableHeaders;
  QVector<QStringList> tableRows;
  int selectedRow = -1;                                 // the chosen chunk's row in tableRows
  QString chunkFile;                                    // the chosen chunk's file name
  QString busyRatio;                                    // its busy ratio as the chunk table prints it
  std::optional<widgets::GateExplanation> explanation;  // the gate about the chosen chunk
  QImage stepChart;
  QImage timeline;
  QString version;
  QString generatedAt;  // UTC
};

/// The split's flags as steadyscope-cli split takes them.
QString splitFlags(const analysis::SplitOptions& o);

/// Per-step duration and GPU busy ratio, the chosen chunk's steps shaded in its mode's colour.
QImage stepChartImage(const timeline::TimelineOverlays& ov, const timeline::TimelineIndex& index, qint64 chunkBeginNs,
                      qint64 chunkEndNs, const QString& mode, QSize size, const QPalette& palette);

/// The report as one A4 landscape PDF page (content scaled to fit it).
QByteArray reportPdf(const ReportContent& c);

/// OUT.pdf -> OUT.png (any other name gets ".png" appended).
QString pngPathFor(const QString& pdfPath);

/// Writes both files (temporary names, then renamed together); "" on
/// success, else the reason with the file's name.
QString writeReportFiles(const QString& pdfPath, const QByteArray& pdf, const QString& pngPath, const QImage& png);

}  // namespace steadyscope::app
