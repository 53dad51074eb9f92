#pragma once
// A table's rows as tab-separated text with its header, for the clipboard
// (spreadsheets paste it as cells). Cells are plain values: the glyphs the
// views draw beside them (▶ the requested mode, ✔ ⚠ ✖ ∅ a verdict) are left
// out here, in one place, whatever model the table shows; tabs and newlines
// inside a cell become spaces.
#include <QAbstractItemModel>
#include <QList>
#include <QString>
#include <QStringList>

namespace steadyscope::widgets {

/// A cell as TSV holds it: tabs and newlines become spaces.
QString tsvCell(QString s);
/// `text` without the decoration glyphs, its spaces collapsed: "▶ mixed" is "mixed",
/// "✔ accepted  ⚠" is "accepted".
QString plainCellText(const QString& text);

/// `rows` of `model` (its `role`, DisplayRole by default), in the order given, after
/// one header line: `headers`, or the model's horizontal headers when empty.
QString tableRowsTsv(const QAbstractItemModel& model, const QList<int>& rows, const QStringList& headers = {},
                     int role = Qt::DisplayRole);

}  // namespace steadyscope::widgets
