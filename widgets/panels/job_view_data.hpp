#pragma once
// A distributed job as the Job view's panes read it: one value per rank (the
// core's job row in Qt values) and the job's figures, with the marks the app
// decided (the straggler, ranks that started late, ranks of another job).
#include <QString>
#include <QVector>

#include <optional>

namespace steadyscope::widgets {

struct JobRank {
  qint64 rank = 0;
  QString file;
  bool loaded = false;  // false: the figures are unknown (the reason says why)
  std::optional<qint64> worldSize;
  quint64 events = 0, gpuEvents = 0, steps = 0;
  std::optional<double> stepMedianUs, stepP90Us, skewUs;
  double gpuBusyUs = 0, commBusyUs = 0, computeBusyUs = 0, overlapUs = 0;
  QString splitStatus, chunkMode, verdict, reason;  // the core's words (split, refused, low_quality …)
  std::optional<double> busyRatio;
  std::optional<qint64> numGpuEvents;
  QVector<double> stepDurationsUs;  // empty when read from a summary.tsv
  bool straggler = false;           // the largest step median
  bool skewed = false;              // started late against the other ranks (JobOverview::skewThresholdUs)
  bool otherJob = false;            // its world size is not the job's usual one
};

struct JobOverview {
  QString title;  // "8 ranks", "summary.tsv of split/"
  QVector<JobRank> ranks;
  std::optional<qint64> stragglerRank;
  std::optional<double> stepSpread;  // the largest step median over the smallest
  QVector<qint64> worldSizes;        // distinct, ascending
  bool worldSizeMismatch = false;
  int failedRanks = 0;
  double skewThresholdUs = 0;  // a start skew above this marks the rank
  bool fromSummary = false;    // read from summary.tsv: no per-step durations
  bool empty() const { return ranks.isEmpty(); }
};

}  // namespace steadyscope::widgets
