#include "panels/job_table_model.hpp"

#include "common/colors.hpp"
#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QFileInfo>
#include <QFont>

namespace steadyscope::widgets {

namespace {

struct Column {
  const char* header;
  const char* tip;
};

// Headers in a user's words; the tooltips say what each figure is.
const Column kColumns[JobTableModel::NUM_COLUMNS] = {
    {"Rank", "The trace's distributedInfo.rank, else its place among the files opened (from 0)"},
    {"Steps", "Steps the splitter found (annotations, ProfilerStep or the call tree)"},
    {"Median step", "The median step duration"},
    {"p90 step", "The 90th percentile of the step durations"},
    {"Start skew", "When the rank's first step started, after the earliest rank's"},
    {"GPU busy", "Time any kernel, memcpy or memset ran on the rank's GPUs (their union over the trace)"},
    {"Comm busy", "Time communication kernels ran (names containing nccl or rccl)"},
    {"Compute busy", "Time the other kernels ran"},
    {"Comm/compute overlap", "The share of the communication time during which compute also ran (hidden behind it)"},
    {"Split", "What the steady-state split made of the rank: split, refused, no GPU work, or failed"},
    {"Chunk", "The mode of the chunk the gate picked"},
    {"Busy ratio", "The picked chunk's GPU busy ratio"},
    {"GPU events", "GPU events in the picked chunk"},
    {"Verdict", "The consumer gate's verdict on the rank's split"},
    {"Reason", "Why the rank failed, has no figures or was refused"},
    {"Trace", "The rank's trace file"},
};

QString duration(double us) { return qs(timeline::formatDuration(us * 1000.0)); }
QString durationOr(const std::optional<double>& us) { return us ? duration(*us) : QString(); }

QString splitWords(const QString& s) {
  if (s == QLatin1String("no_gpu_work")) return QStringLiteral("no GPU work");
  if (s == QLatin1String("error")) return QStringLiteral("failed");
  return s;
}

// The reason without the file name it starts with (the Trace column shows it).
QString reasonText(const JobRank& r) {
  const QString prefix = r.file + QStringLiteral(": ");
  return r.reason.startsWith(prefix) ? r.reason.mid(prefix.size()) : r.reason;
}

std::optional<colors::Verdict> verdictOf(const JobRank& r) {
  if (r.verdict == QLatin1String("accepted")) return colors::Verdict::Accepted;
  if (r.verdict == QLatin1String("low_quality")) return colors::Verdict::LowQuality;
  if (r.verdict == QLatin1String("refused") || !r.loaded) return colors::Verdict::Refused;
  return std::nullopt;
}

QStringList marks(const JobRank& r) {
  QStringList m;
  if (r.straggler) m << QStringLiteral("straggler");
  if (r.skewed) m << QStringLiteral("late start");
  if (r.otherJob) m << QStringLiteral("other job");
  return m;
}

}  // namespace

void JobTableModel::setJob(JobOverview job) {
  beginResetModel();
  job_ = std::move(job);
  endResetModel();
}

QString JobTableModel::headerText(int column) { return tr(kColumns[column].header); }
QString JobTableModel::headerTip(int column) { return tr(kColumns[column].tip); }

QString JobTableModel::verdictWord(const JobRank& r) {
  if (!r.loaded) return QStringLiteral("failed");
  if (const auto v = verdictOf(r)) return colors::verdictWord(*v);
  return QStringLiteral("not gated");
}

QString JobTableModel::verdictText(const JobRank& r) {
  const auto v = verdictOf(r);
  return (v ? colors::verdictIcon(*v) : colors::verdictIcon(colors::Verdict::Missing)) + QLatin1Char(' ') +
         verdictWord(r);
}

std::optional<double> JobTableModel::hiddenCommFraction(const JobRank& r) {
  if (!r.loaded || r.commBusyUs <= 0) return std::nullopt;
  return r.overlapUs / r.commBusyUs;
}

int JobTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(job_.ranks.size()); }
int JobTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QString JobTableModel::plain(const JobRank& r, int column) const {
  const bool l = r.loaded;
  switch (column) {
    case RankColumn: return QString::number(r.rank);
    case StepsColumn: return l ? qs(timeline::formatCount(r.steps)) : QString();
    case MedianStepColumn: return durationOr(r.stepMedianUs);
    case P90StepColumn: return durationOr(r.stepP90Us);
    case SkewColumn: return durationOr(r.skewUs);
    case GpuBusyColumn: return l ? duration(r.gpuBusyUs) : QString();
    case CommBusyColumn: return l ? duration(r.commBusyUs) : QString();
    case ComputeBusyColumn: return l ? duration(r.computeBusyUs) : QString();
    case OverlapColumn: {
      const auto f = hiddenCommFraction(r);
      return f ? QStringLiteral("%1 %").arg(*f * 100.0, 0, 'f', 1) : (l ? QStringLiteral("no comm") : QString());
    }
    case SplitColumn: return splitWords(r.splitStatus);
    case ChunkColumn: return r.chunkMode;
    case BusyRatioColumn: return r.busyRatio ? qs(timeline::formatRatio(*r.busyRatio)) : QString();
    case GpuEventsColumn: return r.numGpuEvents ? qs(timeline::formatCount(quint64(*r.numGpuEvents))) : QString();
    case VerdictColumn: return verdictWord(r);
    case ReasonColumn: return reasonText(r);
    case TraceColumn: return QFileInfo(r.file).fileName();
    default: return {};
  }
}

QVariant JobTableModel::display(const JobRank& r, int column) const {
  if (column == RankColumn) {
    const QStringList m = marks(r);
    return m.isEmpty() ? plain(r, column) : QStringLiteral("%1 · %2").arg(r.rank).arg(m.join(QStringLiteral(", ")));
  }
  if (column == VerdictColumn) return verdictText(r);
  return plain(r, column);
}

QVariant JobTableModel::sortValue(const JobRank& r, int column) const {
  // Unknown figures sort below every known one (a failed rank first when ascending).
  auto opt = [](const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(-1.0); };
  auto loaded = [&r](double v) { return r.loaded ? QVariant(v) : QVariant(-1.0); };
  switch (column) {
    case RankColumn: return r.rank;
    case StepsColumn: return loaded(double(r.steps));
    case MedianStepColumn: return opt(r.stepMedianUs);
    case P90StepColumn: return opt(r.stepP90Us);
    case SkewColumn: return opt(r.skewUs);
    case GpuBusyColumn: return loaded(r.gpuBusyUs);
    case CommBusyColumn: return loaded(r.commBusyUs);
    case ComputeBusyColumn: return loaded(r.computeBusyUs);
    case OverlapColumn: return opt(hiddenCommFraction(r));
    case BusyRatioColumn: return opt(r.busyRatio);
    case GpuEventsColumn: return r.numGpuEvents ? QVariant(double(*r.numGpuEvents)) : QVariant(-1.0);
    default: return plain(r, column);
  }
}

QVariant JobTableModel::toolTip(const JobRank& r, int column) const {
  switch (column) {
    case RankColumn: {
      QString t = r.file;
      if (r.straggler) t += tr("\nThe straggler: the largest median step of the job.");
      if (r.skewed) t += tr("\nStarted %1 after the earliest rank.").arg(durationOr(r.skewUs));
      if (r.otherJob && r.worldSize)
        t += tr("\nWorld size %1: not the job's; a trace of another job?").arg(*r.worldSize);
      return t;
    }
    case OverlapColumn:
      if (!r.loaded) return {};
      return tr("%1 of %2 of communication overlaps compute").arg(duration(r.overlapUs), duration(r.commBusyUs));
    case ReasonColumn: return r.reason.isEmpty() ? QVariant() : QVariant(r.reason);
    case TraceColumn: return r.file;
    case VerdictColumn: return r.reason.isEmpty() ? QVariant() : QVariant(reasonText(r));
    default: return {};
  }
}

QVariant JobTableModel::foreground(const JobRank& r, int column) const {
  if (column == VerdictColumn)
    if (const auto v = verdictOf(r)) return colors::verdict(*v);
  if (column == RankColumn && (r.straggler || r.otherJob)) return colors::verdict(colors::Verdict::Refused);
  if (column == RankColumn && r.skewed) return colors::verdict(colors::Verdict::LowQuality);
  return {};
}

QVariant JobTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const JobRank& r = job_.ranks[index.row()];
  const int col = index.column();
  switch (role) {
    case Qt::DisplayRole: return display(r, col);
    case PlainRole: return plain(r, col);
    case SortRole: return sortValue(r, col);
    case Qt::ToolTipRole: return toolTip(r, col);
    case Qt::ForegroundRole: return foreground(r, col);
    case Qt::TextAlignmentRole: {
      const bool text = col == RankColumn || col >= SplitColumn;
      const bool number = col == BusyRatioColumn || col == GpuEventsColumn;
      return text && !number ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    case Qt::FontRole: {
      if (col != RankColumn || marks(r).isEmpty()) return {};
      QFont f;
      f.setBold(true);
      return f;
    }
    default: return {};
  }
}

QVariant JobTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS) return {};
  if (role == Qt::DisplayRole) return headerText(section);
  if (role == Qt::ToolTipRole) return headerTip(section);
  return {};
}

}  // namespace steadyscope::widgets
