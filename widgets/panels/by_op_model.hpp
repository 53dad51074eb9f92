#pragma once
// The A/B pane's By op table: one row per launching op with its GPU events,
// GPU time and time per step on both sides and the change per step; an op
// expands into the kernel names launched under it. Sorts through a proxy on
// SortRole; CopyRole gives plain numbers (µs) for the clipboard.
#include "panels/by_op_data.hpp"

#include <QAbstractItemModel>

namespace steadyscope::widgets {

class ByOpModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Columns {
    OpColumn,
    ACountColumn,
    BCountColumn,
    AGpuColumn,
    BGpuColumn,
    APerStepColumn,
    BPerStepColumn,
    DeltaColumn,
    NUM_COLUMNS
  };
  enum Roles {
    SortRole = Qt::UserRole,  // numbers as numbers; the op column by name
    CopyRole,                 // plain values: counts, µs with three decimals
    OpRole,                   // the row's op (a kernel row: its parent's)
    KernelRole,               // a kernel row's kernel name ("" on an op row)
  };
  using QAbstractItemModel::QAbstractItemModel;

  void setComparison(ByOpData d);
  void clear();
  const ByOpData& comparison() const { return d_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  /// `rows` (indexes of this model, op or kernel rows, in the order given) as TSV with a
  /// header: op, kernel (empty on an op row), then every figure as a plain number.
  QString rowsTsv(const QModelIndexList& rows) const;

 private:
  /// One table line: an op row, or kernel `kernel` of it.
  struct Line {
    const ByOpRow* op = nullptr;
    const ByOpKernel* kernel = nullptr;
  };
  Line lineOf(const QModelIndex& index) const;
  /// Column `c` of a line as a number (counts, µs), for sorting and copying.
  double value(const Line& l, int c) const;
  QVariant display(const Line& l, int c) const;
  ByOpData d_;
};

}  // namespace steadyscope::widgets
