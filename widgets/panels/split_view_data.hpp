#pragma once
// The seam between the splitter / gate (core/analysis, core/gate) and the
// panes: plain rows the app fills from a split result or a gate record. The
// widgets never include the analysis or gate headers.
#include "common/colors.hpp"

#include <QString>
#include <QStringList>
#include <QVector>

#include <cstdint>

namespace steadyscope::widgets {

struct ChunkRow {
  QString mode;  // "mixed", "decode_only", "prefilldecode", "generic"
  QString file;  // output file name, if written
  int firstStep = -1, lastStep = -1;
  qint64 beginNs = 0, endNs = 0;
  qint64 events = 0, gpuEvents = 0;  // -1: unknown
  double busyRef = -1.0;             // gpu_busy_duration / gpu_duration as the gate reads it (-1 unknown)
  double busyUnion = -1.0;           // union-based busy ratio (-1 unknown)
  colors::Verdict verdict = colors::Verdict::Missing;
  bool hasVerdict = false;
};

struct GateRule {
  QString name;       // "num_gpu_events"
  QString value;      // "1245"
  QString condition;  // "> 0"
  bool pass = false;
  QString subject;   // the mode the rule is about ("" for the directory)
  QString outcome;   // "passed", "failed", "skipped", "info" ("" -> pass decides)
  QString sentence;  // the gate's one plain sentence
};

struct GateExplanation {
  QString title;  // chunk / mode the decision is about
  colors::Verdict verdict = colors::Verdict::Missing;
  QString reason;          // e.g. "steady_state_chunk_low_quality"
  QString summary;         // the verdict in one sentence
  QStringList alternates;  // qualifying alternates, best first ("prefilldecode 0.41")
  QVector<GateRule> rules;
  QStringList findings;  // one line each
  QString retry;         // "retry decode_only", or empty
  QString warningsJson;  // the pipeline's result with its warnings, verbatim (copyable)
};

}  // namespace steadyscope::widgets
