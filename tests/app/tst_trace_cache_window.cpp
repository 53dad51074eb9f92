// The window and the trace cache: a trace opened again comes from the cache and
// the status bar says so; File ▸ Settings turns the cache off (the next open
// parses), sets its cap and empties it.
#include "app_test_support.hpp"
#include "main_window.hpp"
#include "settings_dialog.hpp"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;
using steadyscope::app::MainWindow;
using steadyscope::app::testsupport::tempSettings;

class TstTraceCacheWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("cache")).toUtf8());  // never the user's cache
    trace_ = dir_.filePath(QStringLiteral("sample.json.gz"));
    QVERIFY(QFile::copy(QStringLiteral(STEADYSCOPE_SAMPLE_TRACE), trace_));
  }

  void aTraceOpenedAgainComesFromTheCache() {
    MainWindow w(tempSettings(dir_.filePath(QStringLiteral("s1.ini"))));
    STEADYSCOPE_OPEN_AND_WAIT(w, trace_);
    QVERIFY(w.document());
    QVERIFY2(!w.statusText().contains(QStringLiteral("from cache")), qPrintable(w.statusText()));
    // The model is written in the background; the next open waits for nothing but finds it once written.
    QTRY_VERIFY_WITH_TIMEOUT(!entries().isEmpty(), app::testsupport::kJobTimeoutMs);
    const qint64 events = qint64(w.document().trace()->size());
    STEADYSCOPE_OPEN_AND_WAIT(w, trace_);
    QVERIFY(w.document().trace()->fromCache);
    QVERIFY2(w.statusText().contains(QStringLiteral("from cache")), qPrintable(w.statusText()));
    QVERIFY2(w.messageText().contains(QStringLiteral("from the trace cache")), qPrintable(w.messageText()));
    QCOMPARE(qint64(w.document().trace()->size()), events);
  }

  void settingsTurnTheCacheOffSetItsCapAndEmptyIt() {
    auto settings = tempSettings(dir_.filePath(QStringLiteral("s2.ini")));
    QVERIFY(settings->traceCacheEnabled());
    QCOMPARE(settings->traceCacheLimit(), quint64(10'000'000'000ull));
    {
      app::SettingsDialog d(settings.get(), 8ull << 30);
      auto* on = d.findChild<QCheckBox*>(QStringLiteral("settings.cacheEnabled"));
      auto* cap = d.findChild<QDoubleSpinBox*>(QStringLiteral("settings.cacheLimit"));
      QVERIFY(on && cap);
      QVERIFY(on->isChecked());
      QVERIFY2(d.cacheUsageText().contains(dir_.filePath(QStringLiteral("cache"))), qPrintable(d.cacheUsageText()));
      QVERIFY2(d.cacheUsageText().contains(QStringLiteral("MB used")), qPrintable(d.cacheUsageText()));
      cap->setValue(2.5);
      on->setChecked(false);
      QVERIFY(!cap->isEnabled());
      d.save();
    }
    QVERIFY(!settings->traceCacheEnabled());
    QCOMPARE(settings->traceCacheLimit(), quint64(2'500'000'000ull));
    MainWindow w(std::move(settings));
    STEADYSCOPE_OPEN_AND_WAIT(w, trace_);  // an entry from the test before is there: not read
    QVERIFY(w.document());
    QVERIFY(!w.document().trace()->fromCache);
    QVERIFY2(!w.statusText().contains(QStringLiteral("from cache")), qPrintable(w.statusText()));

    QVERIFY(!entries().isEmpty());
    app::SettingsDialog d(w.settings(), 8ull << 30);
    auto* empty = d.findChild<QPushButton*>(QStringLiteral("settings.cacheEmpty"));
    QVERIFY(empty);
    empty->click();
    QVERIFY(entries().isEmpty());
    QVERIFY2(d.cacheUsageText().contains(QStringLiteral("traces: empty.")), qPrintable(d.cacheUsageText()));
  }

 private:
  QStringList entries() const {
    return QDir(dir_.filePath(QStringLiteral("cache/steadyscope/traces")))
        .entryList({QStringLiteral("*.sstrace")}, QDir::Files);
  }
  QTemporaryDir dir_;
  QString trace_;
};

QTEST_MAIN(TstTraceCacheWindow)
#include "tst_trace_cache_window.moc"
