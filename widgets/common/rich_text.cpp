#include "common/rich_text.hpp"

#include <QStringList>

namespace steadyscope::widgets {

QString codeSpansHtml(const QString& text) {
  QString out;
  bool code = false;  // the parts between backticks alternate: text, code, text, ...
  for (const QString& part : text.split(QLatin1Char('`'))) {
    out += code ? QStringLiteral("<code>%1</code>").arg(part.toHtmlEscaped()) : part.toHtmlEscaped();
    code = !code;
  }
  return out;
}

}  // namespace steadyscope::widgets
