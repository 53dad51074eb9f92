#pragma once
// The Job view's table: one row per rank, the job columns in a user's words.
// DisplayRole is what the cell shows (units, verdict glyphs), SortRole the
// number it sorts by, PlainRole the text Ctrl+C copies (no glyphs).
#include "panels/job_view_data.hpp"

#include <QAbstractTableModel>

namespace steadyscope::widgets {

class JobTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Columns {
    RankColumn,
    StepsColumn,
    MedianStepColumn,
    P90StepColumn,
    SkewColumn,
    GpuBusyColumn,
    CommBusyColumn,
    ComputeBusyColumn,
    OverlapColumn,
    SplitColumn,
    ChunkColumn,
    BusyRatioColumn,
    GpuEventsColumn,
    VerdictColumn,
    ReasonColumn,
    TraceColumn,
    NUM_COLUMNS
  };
  enum Roles { SortRole = Qt::UserRole, PlainRole };
  using QAbstractTableModel::QAbstractTableModel;

  void setJob(JobOverview job);
  const JobOverview& job() const { return job_; }
  const JobRank& rankAt(int row) const { return job_.ranks[row]; }
  static QString headerText(int column);
  static QString headerTip(int column);
  /// A verdict in words ("accepted", "low quality", "refused", "failed"), and the same with its glyph.
  static QString verdictWord(const JobRank& r);
  static QString verdictText(const JobRank& r);
  /// The fraction of the rank's communication that overlaps compute (nullopt: no communication).
  static std::optional<double> hiddenCommFraction(const JobRank& r);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  QString plain(const JobRank& r, int column) const;
  QVariant display(const JobRank& r, int column) const;
  QVariant sortValue(const JobRank& r, int column) const;
  QVariant toolTip(const JobRank& r, int column) const;
  QVariant foreground(const JobRank& r, int column) const;
  JobOverview job_;
};

}  // namespace steadyscope::widgets
