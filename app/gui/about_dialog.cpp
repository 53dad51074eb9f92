#include "about_dialog.hpp"

#include <steadyscope/core/version.hpp>

#include <QDialogButtonBox>
#include <QIcon>
#include <QLabel>
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
  QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"4\">"
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

}  // namespace steadyscope::app
