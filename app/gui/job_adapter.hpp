#pragma once
// The Job view's job bodies, plain functions of values: every rank's row
// computed in parallel within the machine's CPUs and memory (job::runEach, each
// rank's trace freed once its row is made), or a many-rank split's summary.tsv
// read without touching a trace; and the rows as the Job view reads them.
#include "job_lane.hpp"

#include "panels/job_view_data.hpp"

#include <steadyscope/job.hpp>

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace steadyscope::app {

/// What a folder holds for the Job view: a many-rank split's summary.tsv, or rank traces.
struct JobInput {
  QString summaryTsv;  // set: read this table
  QStringList ranks;   // else: these traces
};
/// A folder the Job view opens (nullopt: not a job; a one-trace split directory is reviewed instead).
std::optional<JobInput> jobInputOfDirectory(const QString& dir);

struct JobOutcome {
  widgets::JobOverview job;
  QString error;  // set: nothing to show (the table could not be read)
  QString plan;   // how the ranks were read together ("2 at a time, 1 thread each (…)"); "" for a table
};

/// The ranks' rows, `paths` in the given order; nullopt when cancelled. Progress: the ranks'
/// bytes done (JobControl's bytes) and "k of N ranks" (jobProgress). `memoryBudget`: at most
/// this many bytes for the ranks loading together (0: the free memory).
std::optional<JobOutcome> computeJob(const std::vector<std::string>& paths, const job::RankOptions& options,
                                     uint64_t memoryBudget, JobContext& ctx);
/// summary.tsv's rows, the traces' paths resolved against the table's folder.
JobOutcome readJobSummary(const QString& path);
/// The status bar's words for computeJob.
JobProgress jobProgress(const JobControl& c);

/// The rows as the Job view reads them, with the job's figures and marks: the straggler, ranks
/// that started later than the skew mark after the earliest (kMinSkewMarkUs and
/// kSkewMarkOfMedianStep in job_adapter.cpp), and ranks whose world size is not the one most
/// ranks have.
widgets::JobOverview overviewOf(std::vector<job::RankRow> rows, const QString& title, bool fromSummary);

}  // namespace steadyscope::app
