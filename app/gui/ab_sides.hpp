#pragma once
// The sides of an A/B comparison as the window picks them (a chunk row of the
// open trace or of the compared one, a step, a range) and the compared trace:
// a second trace split with the Run panel's options, or a split directory
// whose chunk files are read as traces of their own. The figures themselves
// are core's (timeline/ab_compare).
#include "job_lane.hpp"

#include "common/trace_document.hpp"
#include "panels/split_view_data.hpp"

#include <steadyscope/split.hpp>
#include <steadyscope/timeline.hpp>

#include <QString>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

namespace steadyscope::app {

/// One side: what core compares, and the trace and index it points into (kept alive).
struct AbPick {
  timeline::AbSideInput input;
  TracePtr trace;
  timeline::TimelineIndexPtr index;
};

/// Chunk `c` of `doc`'s overlays (its CPU window and steps' GPU spans); nullopt when it has no window.
std::optional<AbPick> pickChunk(const widgets::TraceDocument& doc, const widgets::ChunkRow& row, size_t c,
                                const QString& traceName);
/// Step at ruler position `pos` of `doc`'s overlays: its window on every GPU device.
std::optional<AbPick> pickStep(const widgets::TraceDocument& doc, int pos, const QString& traceName);
/// [beginNs, endNs) of `doc` on every GPU device.
std::optional<AbPick> pickRange(const widgets::TraceDocument& doc, qint64 beginNs, qint64 endNs,
                                const QString& traceName);

/// The trace (or split directory) compared with the open one: its chunk rows and one pick per row.
struct ComparedTrace {
  QString name;  // the file or directory name the table shows
  QString path;
  QVector<widgets::ChunkRow> rows;
  std::vector<AbPick> picks;   // parallel to rows
  QString note;                // why there are no rows, in words ("" when there are)
  widgets::TraceDocument doc;  // a trace's, with its split's overlays (a split directory: none)
};

struct ComparedOutcome {
  std::shared_ptr<const ComparedTrace> compared;  // null on failure
  QString error;                                  // the reason, naming the file
};

/// (job thread) Loads `path` for comparison: a trace is split with `options`
/// and `kind` (nothing written); a split directory's chunk files are each
/// loaded whole. nullopt: cancelled.
std::optional<ComparedOutcome> loadCompared(const QString& path, analysis::SplitOptions options,
                                            analysis::WorkloadKind kind, JobContext& ctx);

}  // namespace steadyscope::app
