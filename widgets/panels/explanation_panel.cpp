#include "panels/explanation_panel.hpp"

#include "common/rich_text.hpp"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QPalette>
#include <QPushButton>
#include <QScrollBar>
#include <QUrl>
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
  connect(text_, &QTextBrowser::anchorClicked, this, &ExplanationPanel::openLink);
  copy_ = new QPushButton(tr("Copy the pipeline's JSON"), this);
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
  hasShown_ = false;
  copy_->setEnabled(false);
  text_->setHtml(placeholder.isEmpty()
                     ? tr("<p>The gate's reasoning appears here once a split has run or a split directory is "
                          "open: the verdict for each chunk, the rule that decided it, and the steps behind it.</p>")
                     : placeholder.toHtmlEscaped());
}

void ExplanationPanel::setExplanation(const GateExplanation& e) {
  shown_ = e;
  hasShown_ = true;
  warnings_ = e.warningsJson;
  copy_->setEnabled(!warnings_.isEmpty());
  render();
}

void ExplanationPanel::openLink(const QUrl& url) {
  const QString s = url.toString();
  if (s.startsWith(QLatin1String("fold:")) || s.startsWith(QLatin1String("details:"))) {
    bool& shown = s.startsWith(QLatin1String("fold:")) ? showBookkeeping_ : showDetails_;
    shown = !shown;
    if (hasShown_) render();
    return;
  }
  if (!s.startsWith(QLatin1String("steps:"))) return;
  QVector<int> steps;
  for (const QString& n : s.mid(6).split(QLatin1Char(','), Qt::SkipEmptyParts)) steps << n.toInt();
  if (!steps.isEmpty()) emit stepsActivated(steps);
}

// The verdict first: its icon and one plain sentence that says it, with the deciding rule and the retry
// (the heading and its content cannot disagree: they are one line).
QString ExplanationPanel::headerHtml() const {
  const GateExplanation& e = shown_;
  QString h = QStringLiteral("<p><b>%1</b></p>").arg(esc(e.title));
  const colors::Verdict shownAs = e.unchecked ? colors::Verdict::LowQuality : e.verdict;
  const QString headline = e.headline.isEmpty() ? e.summary : e.headline;
  h += QStringLiteral("<p style='font-size:large'><span style='color:%1'><b>%2 %3</b></span></p>")
           .arg(colors::verdict(shownAs).name(), colors::verdictIcon(shownAs),
                esc(headline.isEmpty() ? colors::verdictWord(e.verdict) : headline));
  for (const GateRule& r : e.rules) {
    if (!r.deciding) continue;
    QString what = tr("Decided by: <b>%1</b>").arg(esc(r.label.isEmpty() ? r.name : r.label));
    if (!r.subject.isEmpty()) what += QStringLiteral(" · ") + esc(r.subject);
    if (!r.measured.isEmpty()) what += tr(" — measured %1").arg(esc(r.measured));
    if (!r.limit.isEmpty()) what += QStringLiteral(", ") + esc(r.limit);
    h += QStringLiteral("<p>%1 &nbsp;<span style='color:%2'><b>%3</b></span></p>")
             .arg(what, outcomeColour(r).name(), outcomeMark(r));
  }
  if (!e.alternates.isEmpty()) {
    QStringList alts;
    for (const QString& a : e.alternates) alts << QStringLiteral("\u2714 ") + esc(a);
    h += QStringLiteral("<p>%1 %2</p>").arg(tr("Qualifying alternates (best first):"), alts.join(QStringLiteral(", ")));
  }
  if (!e.retry.isEmpty()) h += QStringLiteral("<p><b>\u2192 %1</b></p>").arg(esc(e.retry));
  return h;
}

QString ExplanationPanel::findingsHtml() const {
  const GateExplanation& e = shown_;
  if (e.findingLinks.isEmpty() && e.findings.isEmpty()) return QStringLiteral("<p>%1</p>").arg(tr("No findings."));
  QString h = QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Findings"));
  if (e.findingLinks.isEmpty())
    for (const QString& f : e.findings) h += QStringLiteral("<li>%1</li>").arg(codeSpansHtml(f));
  for (const GateFinding& f : e.findingLinks) {
    h += QStringLiteral("<li>\u26a0 %1").arg(codeSpansHtml(f.text));
    if (!f.steps.isEmpty()) {
      QStringList n;
      for (int s : f.steps) n << QString::number(s);
      const QString shown = n.size() > 8 ? n.mid(0, 8).join(QStringLiteral(", ")) + QStringLiteral(", …")
                                         : n.join(QStringLiteral(", "));
      h += QStringLiteral(" — <a href='steps:%1'>%2</a>")
               .arg(n.join(QLatin1Char(',')), tr("show step %1", nullptr, int(n.size())).arg(shown));
    }
    h += QStringLiteral("</li>");
  }
  return h + QStringLiteral("</ul>");
}

QString ExplanationPanel::rulesHtml() const {
  const QString muted = palette().color(QPalette::Disabled, QPalette::Text).name();
  int folded = 0;
  for (const GateRule& r : shown_.rules) folded += r.bookkeeping ? 1 : 0;
  QString h = QStringLiteral("<p><b>%1</b></p><table cellspacing=0 cellpadding=2 width='100%'>").arg(tr("Rules, in order"));
  int n = 0;
  for (const GateRule& r : shown_.rules) {
    ++n;
    if (r.bookkeeping && !showBookkeeping_) continue;
    QString head = QStringLiteral("<b>%1</b>").arg(esc(r.label.isEmpty() ? r.name : r.label));
    if (!r.subject.isEmpty()) head += QStringLiteral(" · %1").arg(esc(r.subject));
    if (!r.measured.isEmpty()) head += tr(" &nbsp;measured %1").arg(esc(r.measured));
    if (!r.limit.isEmpty()) head += QStringLiteral(", ") + esc(r.limit);
    if (!r.condition.isEmpty()) head += QStringLiteral(" &nbsp;%1 %2").arg(esc(r.value), esc(r.condition));
    h += QStringLiteral(
             "<tr><td valign=top align=right>%1</td><td>%2</td>"
             "<td valign=top align=right style='color:%3' nowrap><b>%4</b></td></tr>")
             .arg(n)
             .arg(head, outcomeColour(r).name(), outcomeMark(r));
    QString body = codeSpansHtml(r.sentence);
    if (r.bookkeeping && !r.value.isEmpty())
      body += QStringLiteral("<br><span style='color:%1; font-size:small'>%2</span>").arg(muted, esc(r.value));
    if (!body.isEmpty()) h += QStringLiteral("<tr><td></td><td colspan=2>%1</td></tr>").arg(body);
  }
  h += QStringLiteral("</table>");
  if (folded > 0) {
    const QString rules = folded == 1 ? tr("1 rule") : tr("%1 rules").arg(folded);
    h += QStringLiteral("<p><a href='fold:'>%1</a></p>")
             .arg(showBookkeeping_ ? tr("Hide how the chunk was found and read")
                                   : tr("Show how the chunk was found and read (%1, all passed)").arg(rules));
  }
  return h;
}

// The codes behind the words (the verdict's, the rules', the findings') and the pipeline's result as JSON,
// folded under one link: the words above are what a reader needs first.
QString ExplanationPanel::detailsHtml() const {
  const GateExplanation& e = shown_;
  if (!showDetails_) return QStringLiteral("<p><a href='details:'>%1</a></p>").arg(tr("Details: codes and the pipeline's JSON"));
  QString h = QStringLiteral("<p><b>%1</b> &nbsp;<a href='details:'>%2</a></p><ul>").arg(tr("Details"), tr("hide"));
  if (!e.reason.isEmpty()) h += tr("<li>verdict code: <code>%1</code></li>").arg(esc(e.reason));
  QStringList rules;
  for (const GateRule& r : e.rules) rules << esc(r.name);
  if (!rules.isEmpty()) h += tr("<li>rules: <code>%1</code></li>").arg(rules.join(QStringLiteral(", ")));
  for (const QString& f : e.findings) h += tr("<li>finding <code>%1</code></li>").arg(esc(f.section(QLatin1Char(':'), 0, 0)));
  h += QStringLiteral("</ul>");
  if (!e.warningsJson.isEmpty())
    h += QStringLiteral("<p>%1</p><pre>%2</pre>").arg(tr("The pipeline's result, with its warnings:"), esc(e.warningsJson));
  return h;
}

void ExplanationPanel::render() {
  const QString h = headerHtml() + findingsHtml() + rulesHtml() + detailsHtml();
  const int scroll = text_->verticalScrollBar()->value();
  text_->setHtml(h);
  text_->verticalScrollBar()->setValue(scroll);
}

void ExplanationPanel::copyWarnings() {
  if (!warnings_.isEmpty()) QApplication::clipboard()->setText(warnings_);
}

QString ExplanationPanel::text() const { return text_->toPlainText(); }

}  // namespace steadyscope::widgets
