#include "panels/explanation_panel.hpp"

#include <QTextBrowser>
#include <QVBoxLayout>

namespace steadyscope::widgets {

ExplanationPanel::ExplanationPanel(QWidget* parent) : QWidget(parent) {
  text_ = new QTextBrowser(this);
  text_->setObjectName(QStringLiteral("explanationText"));
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(text_);
  clear();
}

void ExplanationPanel::clear(const QString& placeholder) {
  text_->setHtml(placeholder.isEmpty()
                     ? tr("<p>The gate's reasoning appears here once a split has run or a split directory is "
                          "open: the verdict for each chunk, the rule that decided it, and the steps behind it.</p>")
                     : placeholder.toHtmlEscaped());
}

void ExplanationPanel::setExplanation(const GateExplanation& e) {
  const QString colour = colors::verdict(e.verdict).name();
  QString h = QStringLiteral("<h3>%1</h3><p style='color:%2'><b>%3 %4</b> %5</p>")
                  .arg(e.title.toHtmlEscaped(), colour, colors::verdictIcon(e.verdict),
                       colors::verdictWord(e.verdict), e.reason.toHtmlEscaped());
  h += QStringLiteral("<table cellspacing=3>");
  int n = 1;
  for (const GateRule& r : e.rules)
    h += QStringLiteral("<tr><td>%1</td><td>%2</td><td align=right>%3</td><td>%4</td><td>%5</td></tr>")
             .arg(n++).arg(r.name.toHtmlEscaped(), r.value.toHtmlEscaped(), r.condition.toHtmlEscaped(),
                           r.pass ? QStringLiteral("\u2714 pass") : QStringLiteral("\u2716 fail"));
  h += QStringLiteral("</table>");
  if (!e.retry.isEmpty()) h += QStringLiteral("<p>\u2192 %1</p>").arg(e.retry.toHtmlEscaped());
  for (const QString& f : e.findings) h += QStringLiteral("<p>%1</p>").arg(f.toHtmlEscaped());
  if (!e.warningsJson.isEmpty()) h += QStringLiteral("<pre>%1</pre>").arg(e.warningsJson.toHtmlEscaped());
  text_->setHtml(h);
}

QString ExplanationPanel::text() const { return text_->toPlainText(); }

} // namespace steadyscope::widgets
