#include "common/table_tsv.hpp"

#include <QStringList>

#include <string_view>

namespace steadyscope::widgets {

QString tsvCell(QString s) {
  return s.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
}
namespace {
// Marks the views put beside values: the requested mode, verdict icons, check marks, fold
// triangles, pins, the emoji variation selector. Values keep their own signs (– − × %).
constexpr char16_t kDecorations[] = u"\u25B6\u25B8\u25BE\u2714\u2713\u2717\u2716\u2718\u26A0\u2205\u2191\u2605\uFE0F";
}  // namespace

QString plainCellText(const QString& text) {
  QString s = text;
  s.removeIf([](QChar c) { return std::u16string_view(kDecorations).find(c.unicode()) != std::u16string_view::npos; });
  return s.simplified();  // also turns tabs and newlines into single spaces
}

QString tableRowsTsv(const QAbstractItemModel& model, const QList<int>& rows, const QStringList& headers, int role) {
  QStringList lines, header;
  for (int c = 0; c < model.columnCount(); ++c)
    header << tsvCell(
        plainCellText(headers.isEmpty() ? model.headerData(c, Qt::Horizontal).toString() : headers.value(c)));
  lines << header.join(QLatin1Char('\t'));
  for (int r : rows) {
    QStringList f;
    for (int c = 0; c < model.columnCount(); ++c) f << tsvCell(plainCellText(model.index(r, c).data(role).toString()));
    lines << f.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace steadyscope::widgets
