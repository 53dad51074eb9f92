#include "common/table_tsv.hpp"

#include <QStringList>

namespace steadyscope::widgets {

QString tsvCell(QString s) {
  return s.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString tableRowsTsv(const QAbstractItemModel& model, const QList<int>& rows, const QStringList& headers, int role) {
  QStringList lines, header;
  for (int c = 0; c < model.columnCount(); ++c)
    header << tsvCell(headers.isEmpty() ? model.headerData(c, Qt::Horizontal).toString() : headers.value(c));
  lines << header.join(QLatin1Char('\t'));
  for (int r : rows) {
    QStringList f;
    for (int c = 0; c < model.columnCount(); ++c) f << tsvCell(model.index(r, c).data(role).toString());
    lines << f.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace steadyscope::widgets
