#include "job_adapter.hpp"

#include "common/text.hpp"

#include <steadyscope/common.hpp>

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>

namespace steadyscope::app {

using widgets::qs;

namespace {

constexpr double kMinSkewMarkUs = 1000;
constexpr double kSkewMarkOfMedianStep = 0.1;
const char kRanksStage[] = "ranks";

bool isTraceName(const QString& n) {
  return n.endsWith(QLatin1String(".json")) || n.endsWith(QLatin1String(".json.gz")) ||
         n.endsWith(QLatin1String(".zip")) || n.endsWith(QLatin1String(".json.zst"));
}

widgets::JobRank rankOf(const job::RankRow& r) {
  widgets::JobRank o;
  o.rank = r.rank;
  o.file = qs(r.file);
  o.loaded = r.loaded;
  o.worldSize = r.worldSize;
  o.events = r.events;
  o.gpuEvents = r.gpuEvents;
  o.steps = r.steps;
  o.stepMedianUs = r.stepMedianUs;
  o.stepP90Us = r.stepP90Us;
  o.skewUs = r.skewUs;
  o.gpuBusyUs = r.gpuBusyUs;
  o.commBusyUs = r.commBusyUs;
  o.computeBusyUs = r.computeBusyUs;
  o.overlapUs = r.overlapUs;
  o.splitStatus = qs(r.splitStatus);
  o.chunkMode = qs(r.chunkMode);
  o.verdict = qs(r.verdict);
  o.reason = qs(r.reason);
  o.busyRatio = r.busyRatio;
  o.numGpuEvents = r.numGpuEvents;
  o.stepDurationsUs = QVector<double>(r.stepDurationsUs.begin(), r.stepDurationsUs.end());
  return o;
}

// The world size most ranks report (the job's), when any does.
std::optional<int64_t> usualWorldSize(const std::vector<job::RankRow>& rows) {
  std::map<int64_t, int> count;
  for (const auto& r : rows)
    if (r.worldSize) ++count[*r.worldSize];
  if (count.empty()) return std::nullopt;
  return std::max_element(count.begin(), count.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

double medianOfMedians(const std::vector<job::RankRow>& rows) {
  std::vector<double> m;
  for (const auto& r : rows)
    if (r.stepMedianUs) m.push_back(*r.stepMedianUs);
  if (m.empty()) return 0;
  std::nth_element(m.begin(), m.begin() + ptrdiff_t(m.size() / 2), m.end());
  return m[m.size() / 2];
}

// A trace named in summary.tsv as given to the split: absolute, or relative to where the split
// ran, which is most often the table's folder's parent (split RANK… -o DIR) or the folder itself.
QString resolveTrace(const QString& named, const QDir& tableDir) {
  if (QFileInfo(named).isAbsolute() || named.isEmpty()) return named;
  QDir parent = tableDir;
  parent.cdUp();
  for (const QDir& base : {parent, tableDir, QDir::current()})
    if (QFileInfo::exists(base.filePath(named))) return QDir::cleanPath(base.absoluteFilePath(named));
  return QDir::cleanPath(parent.absoluteFilePath(named));
}

}  // namespace

std::optional<JobInput> jobInputOfDirectory(const QString& dirPath) {
  const QDir dir(dirPath);
  if (dir.exists(QStringLiteral("summary.tsv")))
    return JobInput{dir.absoluteFilePath(QStringLiteral("summary.tsv")), {}};
  // A one-trace split directory holds chunk traces too: it is reviewed, not opened as ranks.
  for (std::string_view splitFile : {names::kManifestFile, names::kDetailsCsvFile})
    if (dir.exists(qs(splitFile))) return std::nullopt;
  JobInput in;
  for (const QString& n : dir.entryList(QDir::Files, QDir::Name))
    if (isTraceName(n)) in.ranks << dir.absoluteFilePath(n);
  if (in.ranks.size() < 2) return std::nullopt;
  return in;
}

widgets::JobOverview overviewOf(std::vector<job::RankRow> rows, const QString& title, bool fromSummary) {
  const job::JobSummary s = job::summarise(rows);
  widgets::JobOverview o;
  o.title = title;
  o.fromSummary = fromSummary;
  o.stragglerRank = s.stragglerRank;
  o.stepSpread = s.stepSpread;
  o.worldSizeMismatch = s.worldSizeMismatch;
  o.failedRanks = int(s.failedRanks);
  for (int64_t w : s.worldSizes) o.worldSizes << w;
  o.skewThresholdUs = std::max(kMinSkewMarkUs, kSkewMarkOfMedianStep * medianOfMedians(rows));
  const std::optional<int64_t> usual = usualWorldSize(rows);
  // The straggler is marked only when the ranks differ: one rank, or equal medians, have none worth a mark.
  const bool spread = s.stepSpread && *s.stepSpread > 1.0;
  for (const auto& r : rows) {
    widgets::JobRank k = rankOf(r);
    k.straggler = spread && s.stragglerRank && r.rank == *s.stragglerRank && r.stepMedianUs;
    k.skewed = r.skewUs && *r.skewUs > o.skewThresholdUs;
    k.otherJob = s.worldSizeMismatch && r.worldSize && usual && *r.worldSize != *usual;
    o.ranks << std::move(k);
  }
  return o;
}

JobProgress jobProgress(const JobControl& c) {
  JobProgress p;
  p.doneBytes = c.doneBytes();
  p.totalBytes = c.totalBytes();
  p.stage = QObject::tr("%1 of %2")
                .arg(c.events())
                .arg(widgets::countOf(qint64(c.stage()), QObject::tr("rank"), QObject::tr("ranks")));
  return p;
}

std::optional<JobOutcome> computeJob(const std::vector<std::string>& paths, const job::RankOptions& options,
                                     uint64_t memoryBudget, JobContext& ctx) {
  // The control counts ranks (events: done, stage: all) and their bytes; each rank's own load and
  // split report to a control of their own inside rankRow, which sees this job's cancel.
  std::vector<uint64_t> sizes;
  uint64_t total = 0;
  for (const auto& p : paths) {
    std::error_code ec;
    sizes.push_back(std::filesystem::file_size(p, ec));
    total += ec ? 0 : sizes.back();
  }
  ctx.control.setTotalBytes(total);
  ctx.control.setStage(int(paths.size()));
  ctx.control.enterStage(kRanksStage);
  const JobBudget budget = job::budgetForRanks(paths, options.threads, 0, memoryBudget);
  job::RankOptions o = options;
  o.threads = budget.threadsPerJob;
  o.cancel = &ctx.cancelFlag;
  std::vector<job::RankRow> rows(paths.size());
  job::runEach(paths.size(), budget, [&](size_t i) {
    if (ctx.control.cancelled()) return;
    rows[i] = job::rankRow(paths[i], i, o);  // the trace is freed inside, once its row is made
    ctx.control.addDoneBytes(sizes[i]);
    ctx.control.addEvents(1);
  });
  if (ctx.control.cancelled()) return std::nullopt;
  JobOutcome out;
  out.job = overviewOf(std::move(rows),
                       widgets::countOf(qint64(paths.size()), QObject::tr("trace"), QObject::tr("traces")), false);
  out.plan = QString::fromStdString(budget.describe());
  return out;
}

JobOutcome readJobSummary(const QString& path) {
  JobOutcome out;
  auto rows = job::readSummaryTsv(path.toStdString());
  if (!rows) {
    out.error = qs(rows.error().describe());
    return out;
  }
  if (rows->empty()) {
    out.error = QObject::tr("%1: the table has no ranks").arg(path);
    return out;
  }
  const QFileInfo table(path);
  for (auto& r : *rows) r.file = resolveTrace(qs(r.file), table.dir()).toStdString();
  out.job = overviewOf(std::move(*rows), QObject::tr("summary.tsv of %1").arg(table.dir().dirName()), true);
  return out;
}

}  // namespace steadyscope::app
