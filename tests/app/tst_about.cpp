// Help > About: the version with the git revision, every library with its version and licence,
// the same libraries in the package's copyright file, and the menu opening the dialog.
#include "about_dialog.hpp"
#include "app_test_support.hpp"
#include "main_window.hpp"

#include <steadyscope/core/version.hpp>

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>

using namespace steadyscope;
using steadyscope::app::AboutDialog;

class TestAbout : public QObject {
  Q_OBJECT
 private slots:
  void versionNamesTheRevision() {
    const QString v = AboutDialog::versionText();
    QVERIFY2(v.startsWith(QString::fromUtf8(versionString()) + QStringLiteral(" (git ")), qPrintable(v));
    QVERIFY(!QString::fromUtf8(gitRevision()).isEmpty());
    QVERIFY2(v.endsWith(QString::fromUtf8(gitRevision()) + QLatin1Char(')')), qPrintable(v));
  }

  void dialogListsEveryLibraryWithItsLicence() {
    AboutDialog d;
    const auto* text = d.findChild<QLabel*>(QStringLiteral("aboutText"));
    QVERIFY(text);
    const QString html = text->text();
    QVERIFY(html.contains(AboutDialog::versionText()));
    QVERIFY(html.contains(QStringLiteral("MIT licence")));
    QVERIFY(html.contains(QStringLiteral("<td>Qt</td>")) || html.contains(QStringLiteral(">Qt</a>")));
    QVERIFY(html.contains(QString::fromLatin1(qVersion())));
    QVERIFY(html.contains(QStringLiteral("LGPL-3.0-only")));
    const auto components = thirdPartyComponents();
    QVERIFY(components.size() >= 4);  // simdjson, fmt, ISA-L, zlib (+ zstd when found)
    for (const Component& c : components) {
      QVERIFY2(!c.version.empty() && !c.licence.empty(), c.name.c_str());
      for (const std::string& s : {c.name, c.version, c.licence})
        QVERIFY2(html.contains(QString::fromStdString(s).toHtmlEscaped()), s.c_str());
    }
  }

  // The package's copyright file names the same libraries and licences as the dialog.
  void copyrightFileNamesEveryLibrary() {
    QFile f(QStringLiteral(STEADYSCOPE_SOURCE_DIR "/packaging/copyright"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString copyright = QString::fromUtf8(f.readAll());
    QVERIFY(copyright.contains(QStringLiteral("Qt 6")));
    QVERIFY(copyright.contains(QStringLiteral("LGPL-3.0-only")));
    for (const Component& c : thirdPartyComponents()) {
      QVERIFY2(copyright.contains(QString::fromStdString(c.name)), c.name.c_str());
      QVERIFY2(copyright.contains(QString::fromStdString(c.licence)), c.licence.c_str());
    }
  }

  void helpMenuOpensTheDialog() {
    QTemporaryDir dir;
    app::MainWindow w(app::testsupport::tempSettings(dir.filePath(QStringLiteral("s.ini"))));
    QAction* about = nullptr;
    for (QAction* menu : w.menuBar()->actions())
      if (menu->menu())
        for (QAction* a : menu->menu()->actions())
          if (a->text().remove(QLatin1Char('&')) == QLatin1String("About Steadyscope")) about = a;
    QVERIFY(about);
    bool opened = false;
    QTimer::singleShot(0, &w, [&] {
      if (auto* d = qobject_cast<AboutDialog*>(QApplication::activeModalWidget())) {
        opened = true;
        d->reject();
      }
    });
    about->trigger();
    QVERIFY(opened);
  }
};

QTEST_MAIN(TestAbout)
#include "tst_about.moc"
