#include "panels/explanation_panel.hpp"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QPalette>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace steadyscope::widgets {

namespace {
QString esc(const QString& s) { return s.toHtmlEscaped(); }

/// Icon and word of a rule's outcome (never colour alone).
QString outcomeMark(const GateRule& r) {
  const QString o = r.outcome.isEmpty() ? (r.pass ? QStringLiteral("passed") : QStringLiteral("failed")) : r.outcome;
  if (o == QLatin1String("passed")) return QStringLiteral("\u2714 pass");
  if (o == QLatin1String("failed")) return QStringLiteral("\u2716 fail");
  if (o == QLatin1String("skipped")) return QStringLiteral("\u2013 skip");
  return QStringLiteral("\u2139 info");
}
QColor outcomeColour(const GateRule& r) {
  const QString o = r.outcome.isEmpty() ? (r.pass ? QStringLiteral("passed") : QStringLiteral("failed")) : r.outcome;
  if (o == QLatin1String("passed")) return colors::verdict(colors::Verdict::Accepted);
  if (o == QLatin1String("failed")) return colors::verdict(colors::Verdict::Refused);
  return colors::verdict(colors::Verdict::Missing);
}
}  // namespace

ExplanationPanel::ExplanationPanel(QWidget* parent) : QWidget(parent) {
  text_ = new QTextBrowser(this);
  text_->setObjectName(QStringLiteral("explanationText"));
  text_->setOpenLinks(false);
  copy_ = new QPushButton(tr("Copy warnings JSON"), this);
  copy_->setObjectName(QStringLiteral("explanationCopy"));
  copy_->setToolTip(tr("Copy the pipeline's result with its trace_health_warnings, as JSON"));
  connect(copy_, &QPushButton::clicked, this, &ExplanationPanel::copyWarnings);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(copy_);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(text_);
  l->addLayout(buttons);
  clear();
}

void ExplanationPanel::clear(const QString& placeholder) {
  warnings_.clear();
  copy_->setEnabled(false);
  text_->setHtml(placeholder.isEmpty()
                     ? tr("<p>The gate's reasoning appears here once a split has run or a split directory is "
                          "open: the verdict for each chunk, the rule that decided it, and the steps behind it.</p>")
                     : placeholder.toHtmlEscaped());
}

void ExplanationPanel::setExplanation(const GateExplanation& e) {
  const QString colour = colors::verdict(e.verdict).name();
  const QString muted = palette().color(QPalette::Disabled, QPalette::Text).name();
  QString h = QStringLiteral("<p><b>%1</b></p>").arg(esc(e.title));
  h += QStringLiteral("<p style='font-size:large'><span style='color:%1'><b>%2 %3</b></span>%4</p>")
           .arg(colour, colors::verdictIcon(e.verdict), colors::verdictWord(e.verdict),
                e.reason.isEmpty() ? QString() : QStringLiteral(" &nbsp;<code>%1</code>").arg(esc(e.reason)));
  if (!e.summary.isEmpty()) h += QStringLiteral("<p>%1</p>").arg(esc(e.summary));
  h += QStringLiteral("<table cellspacing=0 cellpadding=2 width='100%'>");
  int n = 1;
  for (const GateRule& r : e.rules) {
    QString head = QStringLiteral("<b>%1</b>").arg(esc(r.name));
    if (!r.subject.isEmpty()) head += QStringLiteral(" · %1").arg(esc(r.subject));
    if (!r.condition.isEmpty()) head += QStringLiteral(" &nbsp;%1 %2").arg(esc(r.value), esc(r.condition));
    h += QStringLiteral(
             "<tr><td valign=top align=right>%1</td><td>%2</td>"
             "<td valign=top align=right style='color:%3' nowrap><b>%4</b></td></tr>")
             .arg(n++)
             .arg(head, outcomeColour(r).name(), outcomeMark(r));
    QString body;
    if (!r.sentence.isEmpty()) body += esc(r.sentence);
    if (r.condition.isEmpty() && !r.value.isEmpty())
      body += QStringLiteral("<br><span style='color:%1; font-size:small'>%2</span>").arg(muted, esc(r.value));
    if (!body.isEmpty()) h += QStringLiteral("<tr><td></td><td colspan=2>%1</td></tr>").arg(body);
  }
  h += QStringLiteral("</table>");
  if (!e.alternates.isEmpty()) {
    h += QStringLiteral("<p><b>%1</b> ").arg(tr("Qualifying alternates (best first):"));
    QStringList alts;
    for (const QString& a : e.alternates) alts << QStringLiteral("\u2714 ") + esc(a);
    h += alts.join(QStringLiteral(", ")) + QStringLiteral("</p>");
  }
  if (!e.retry.isEmpty()) h += QStringLiteral("<p><b>\u2192 %1</b></p>").arg(esc(e.retry));
  if (!e.findings.isEmpty()) {
    h += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Findings"));
    for (const QString& f : e.findings) h += QStringLiteral("<li>%1</li>").arg(esc(f));
    h += QStringLiteral("</ul>");
  } else {
    h += QStringLiteral("<p>%1</p>").arg(tr("No findings."));
  }
  if (!e.warningsJson.isEmpty())
    h +=
        QStringLiteral("<p><b>%1</b></p><pre>%2</pre>").arg(tr("Pipeline result (warnings JSON)"), esc(e.warningsJson));
  warnings_ = e.warningsJson;
  copy_->setEnabled(!warnings_.isEmpty());
  text_->setHtml(h);
}

void ExplanationPanel::copyWarnings() {
  if (!warnings_.isEmpty()) QApplication::clipboard()->setText(warnings_);
}

QString ExplanationPanel::text() const { return text_->toPlainText(); }

}  // namespace steadyscope::widgets
