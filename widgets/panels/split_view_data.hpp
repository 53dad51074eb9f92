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
  int stepCount = -1;                // -1: unknown
  qint64 beginNs = 0, endNs = 0;     // the chunk's CPU window (0, 0: unknown)
  qint64 events = 0, gpuEvents = 0;  // -1: unknown
  double gpuTimeUs = -1.0;           // gpu_duration: the sum of each step's GPU span (-1 unknown)
  double gpuBusyUs = -1.0;           // gpu_busy_duration: the plain sum of GPU durations (-1 unknown)
  double busyRef = -1.0;             // gpu_busy_duration / gpu_duration as the gate reads it (-1 unknown)
  double busyUnion = -1.0;           // union of the chunk's GPU events / gpu_duration (worst device; -1 unknown)
  double busyWindow = -1.0;          // device busy over the CPU window (worst device; -1 unknown)
  qint64 longestGapNs = -1;          // longest GPU-idle gap inside the CPU window (worst device; -1 unknown)
  QString unionDevices, windowDevices, gapDevices;  // each device's value, one line each (tooltips)
  QString busyNote;  // why the three busy ratios differ by more than 2× ("" when they agree)
  int findings = -1;                                // the gate's findings about this chunk (-1: not gated)
  bool findingsWarn = false;                        // one of them warns (empty steps, a dominating event, a transient)
  QString findingsText;                             // one line each
  bool requested = false;                           // the mode the pipeline asks for
  bool unchecked = false;                           // the pipeline passes it without checking its numbers
  QString note;                                     // why it is unchecked / where its numbers come from
  colors::Verdict verdict = colors::Verdict::Missing;
  bool hasVerdict = false;
};

/// The fields the gate fills (verdict, findings, the requested mode, busy as the
/// gate reads it), copied from a re-gate's row onto a row the window may have
/// placed on the timeline since: everything else of `to` stays.
inline void takeGateFields(ChunkRow& to, const ChunkRow& from) {
  to.verdict = from.verdict;
  to.hasVerdict = from.hasVerdict;
  to.findings = from.findings;
  to.findingsWarn = from.findingsWarn;
  to.findingsText = from.findingsText;
  to.requested = from.requested;
  to.unchecked = from.unchecked;
  to.note = from.note;
  to.busyRef = from.busyRef;
  if (to.busyUnion < 0) to.busyUnion = from.busyUnion;
}

/// The fields a placement on the trace gives a directory's row (its window and
/// the figures computed on the trace); the CSV's numbers it already has stay.
inline void takePlacementFields(ChunkRow& to, const ChunkRow& from) {
  to.firstStep = from.firstStep;
  to.lastStep = from.lastStep;
  to.beginNs = from.beginNs;
  to.endNs = from.endNs;
  if (to.stepCount < 0) to.stepCount = from.stepCount;
  if (to.events < 0) to.events = from.events;
  to.busyUnion = from.busyUnion;
  to.busyWindow = from.busyWindow;
  to.longestGapNs = from.longestGapNs;
  to.unionDevices = from.unionDevices;
  to.windowDevices = from.windowDevices;
  to.gapDevices = from.gapDevices;
  to.busyNote = from.busyNote;
}

struct GateRule {
  QString name;       // "num_gpu_events"
  QString value;      // "1245"
  QString condition;  // "> 0"
  bool pass = false;
  QString subject;           // the mode the rule is about ("" for the directory)
  QString outcome;           // "passed", "failed", "skipped", "info" ("" -> pass decides)
  QString sentence;          // the gate's one plain sentence
  QString label;             // the rule in words ("busy ratio"); "" -> name
  QString measured;          // what it measured ("0.00063"), "" when it measures nothing
  QString limit;             // what it compared with ("threshold 0.05, margin 0.1"), or ""
  bool bookkeeping = false;  // finding and reading the chunk: folded when it passes
  bool deciding = false;     // the rule that decided the verdict
};

/// A finding, with the steps it points at (empty: none).
struct GateFinding {
  QString text;
  QVector<int> steps;  // global step indices (the ruler's numbers)
};

struct GateExplanation {
  QString title;  // chunk / mode the decision is about
  colors::Verdict verdict = colors::Verdict::Missing;
  bool unchecked = false;  // passed without its numbers being looked at (shown with ⚠)
  QString reason;          // e.g. "steady_state_chunk_low_quality"
  QString summary;         // the verdict in one sentence
  QString headline;        // the verdict and the retry in plain words, no codes (the pane's heading)
  QStringList alternates;  // qualifying alternates, best first ("prefilldecode 0.41")
  QVector<GateRule> rules;
  QStringList findings;               // one line each
  QVector<GateFinding> findingLinks;  // the same findings with the steps they point at
  QString retry;                      // "retry decode_only", or empty
  QString warningsJson;               // the pipeline's result with its warnings, verbatim (copyable)
};

}  // namespace steadyscope::widgets
