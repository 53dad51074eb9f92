#include "about_dialog.hpp"

#include <steadyscope/common.hpp>

#include <QDialogButtonBox>
#include <QIcon>
#include <QLabel>
#include <QMessageBox>
#include <QVBoxLayout>

namespace steadyscope::app {

namespace {
// Where the package puts its copyright file (packaging/CMakeLists.txt installs it).
const char* kCopyrightFile = "/usr/share/doc/steadyscope/copyright";

QString row(const QString& name, const QString& version, const QString& licence, const QString& url) {
  return QStringLiteral("<tr><td><a href=\"%4\">%1</a></td><td>%2</td><td>%3</td></tr>")
      .arg(name.toHtmlEscaped(), version.toHtmlEscaped(), licence.toHtmlEscaped(), url.toHtmlEscaped());
}
}  // namespace

QString AboutDialog::versionText() {
  return QStringLiteral("%1 (git %2)").arg(QString::fromUtf8(versionString()), QString::fromUtf8(gitRevision()));
}

QString AboutDialog::librariesHtml() {
  QString html = QStringLiteral(
      "<table cellspacing=\"0\" cellpadding=\"4\">"
      "<tr><th align=\"left\">Library</th><th align=\"left\">Version</th>"
      "<th align=\"left\">Licence</th></tr>");
  // Qt is linked dynamically: the version running, not the one compiled against.
  html += row(QStringLiteral("Qt"), QString::fromLatin1(qVersion()), QStringLiteral("LGPL-3.0-only"),
              QStringLiteral("https://www.qt.io"));
  for (const Component& c : thirdPartyComponents())
    html += row(QString::fromStdString(c.name), QString::fromStdString(c.version), QString::fromStdString(c.licence),
                QString::fromStdString(c.url));
  return html + QStringLiteral("</table>");
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("aboutDialog"));
  setWindowTitle(tr("About Steadyscope"));
  auto* icon = new QLabel(this);
  icon->setPixmap(QIcon(QStringLiteral(":/icons/steadyscope.svg")).pixmap(64, 64));
  auto* text = new QLabel(this);
  text->setObjectName(QStringLiteral("aboutText"));
  text->setTextFormat(Qt::RichText);
  text->setOpenExternalLinks(true);
  text->setTextInteractionFlags(Qt::TextBrowserInteraction);
  text->setText(tr("<h2>Steadyscope</h2>"
                   "<p>Version %1</p>"
                   "<p>Inspector for GPU profiler traces and their steady-state chunks.</p>"
                   "<p>Copyright © 2026 The Steadyscope authors. Released under the MIT licence.</p>"
                   "<p>Built with these libraries:</p>%2"
                   "<p>Licence terms: %3 and each library's own documentation.</p>")
                    .arg(versionText().toHtmlEscaped(), librariesHtml(), QString::fromLatin1(kCopyrightFile)));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(icon, 0, Qt::AlignHCenter);
  layout->addWidget(text);
  layout->addWidget(buttons);
}

void showShortcuts(QWidget* parent) {
  QMessageBox::information(
      parent, QObject::tr("Keyboard shortcuts"),
      QObject::tr("<table>"
                  "<tr><td>Ctrl+O</td><td>open a trace</td></tr><tr><td>Ctrl+W</td><td>close it</td></tr>"
                  "<tr><td>Ctrl+Q</td><td>quit</td></tr><tr><td>Ctrl+R</td><td>run the split</td></tr>"
                  "<tr><td>Ctrl+E</td><td>export the selected chunk</td></tr>"
                  "<tr><td>F</td><td>fit all</td></tr>"
                  "<tr><td>W / S</td><td>zoom in / out</td></tr><tr><td>A / D</td><td>pan left / right</td></tr>"
                  "<tr><td>Z</td><td>zoom to the selection</td></tr>"
                  "<tr><td>Esc</td><td>cancel the running job, else clear the selection</td></tr>"
                  "<tr><td>Ctrl+F, Enter / Shift+Enter, F3</td><td>find events by name (regex), next / previous "
                  "match</td></tr>"
                  "<tr><td>G</td><td>go to the other end of the selected event's flow</td></tr>"
                  "<tr><td>Ctrl+L</td><td>filter the lanes by name</td></tr>"
                  "<tr><td>wheel</td><td>zoom around the cursor (Shift+wheel scrolls)</td></tr>"
                  "<tr><td>drag</td><td>pan; drag on the ruler selects a range; Ctrl/right-drag box-zooms</td></tr>"
                  "<tr><th colspan=\"2\" align=\"left\">Job view</th></tr>"
                  "<tr><td>Ctrl+J</td><td>show the Job view of the ranks last opened</td></tr>"
                  "<tr><td>Enter, double-click</td><td>open the selected rank's timeline</td></tr>"
                  "<tr><td>Ctrl+click, Ctrl+B</td><td>select two ranks, compare them</td></tr>"
                  "<tr><td>Ctrl+C</td><td>copy the selected rows (TSV)</td></tr>"
                  "<tr><td>Ctrl+,</td><td>settings (the memory for ranks loading together)</td></tr>"
                  "</table>"));
}

}  // namespace steadyscope::app
