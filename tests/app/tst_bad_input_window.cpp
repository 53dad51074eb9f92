// The window on bad input: each fatal class of the bad-input corpus shows the
// loader's message (naming the file) and keeps the trace that was open; a
// file that ends early can be opened in part, marked partial, and is not
// split; hostile split directories are reviewed with their findings, nothing
// outside them touched; fifty open/close cycles leave no memory behind.
#include "app_test_support.hpp"
#include "core/gate/hostile_dirs.hpp"
#include "main_window.hpp"
#include "support/bad_inputs.hpp"
#include "support/rss.hpp"

#include <QDir>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

using namespace steadyscope;
using steadyscope::app::MainWindow;
using steadyscope::app::testsupport::tempSettings;

class TstBadInputWindow : public QObject {
  Q_OBJECT
 private slots:
  void fatalKeepsPreviousTrace_data() {
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("content");
    for (const auto& f : sstest::fatalCorpus())
      QTest::newRow(f.what.c_str()) << QString::fromStdString(f.fileName) << QByteArray::fromStdString(f.bytes);
  }
  void fatalKeepsPreviousTrace() {
    QFETCH(QString, fileName);
    QFETCH(QByteArray, content);
    QTemporaryDir tmp;
    MainWindow w(tempSettings(tmp.filePath(QStringLiteral("s.ini"))));
    w.show();
    STEADYSCOPE_OPEN_AND_WAIT(w, QStringLiteral(STEADYSCOPE_SOURCE_DIR "/resources/sample/vllm_sample.json.gz"));
    const TracePtr before = w.document().trace();
    QVERIFY(before);
    const QString status = w.statusText(), title = w.windowTitle();
    const QString path = tmp.filePath(fileName.endsWith('/') ? fileName.chopped(1) : fileName);
    if (fileName.endsWith('/'))
      QVERIFY(QDir().mkpath(path));
    else
      testfiles::writeFile(path.toStdString(), content.toStdString());
    STEADYSCOPE_OPEN_AND_WAIT(w, path);
    QVERIFY2(w.document().lastError().contains(QFileInfo(path).fileName()), qPrintable(w.document().lastError()));
    auto* box = w.findChild<QMessageBox*>();
    QVERIFY(box && box->isVisible());
    QVERIFY2(box->text().startsWith(w.document().lastError()), qPrintable(box->text()));
    box->close();
    QCOMPARE(w.document().trace(), before);
    QCOMPARE(w.statusText(), status);
    QCOMPARE(w.windowTitle(), title);
  }

  void emptyTraceOpensWithAHint() {
    QTemporaryDir tmp;
    MainWindow w(tempSettings(tmp.filePath(QStringLiteral("s.ini"))));
    w.show();
    const QString path = tmp.filePath(QStringLiteral("empty.json"));
    testfiles::writeFile(path.toStdString(), "{\"traceEvents\":[]}");
    STEADYSCOPE_OPEN_AND_WAIT(w, path);
    QVERIFY2(w.document().lastError().isEmpty(), qPrintable(w.document().lastError()));
    QVERIFY(w.document().trace());
    QVERIFY2(w.statusText().contains(QStringLiteral("no events: the trace's event list is empty")),
             qPrintable(w.statusText()));
  }

  void partialOpenFromTheErrorBox_data() {
    QTest::addColumn<QString>("fileName");
    QTest::newRow("json cut inside the events") << QStringLiteral("cut.json");
    QTest::newRow("gzip cut inside the stream") << QStringLiteral("cut.json.gz");
  }
  void partialOpenFromTheErrorBox() {
    QFETCH(QString, fileName);
    QTemporaryDir tmp;
    MainWindow w(tempSettings(tmp.filePath(QStringLiteral("s.ini"))));
    w.show();
    const std::string whole = sstest::smallTrace(400);
    const std::string bytes = fileName.endsWith(QStringLiteral(".gz")) ? testfiles::gzipBytes(whole, 1) : whole;
    const QString path = tmp.filePath(fileName);
    testfiles::writeFile(path.toStdString(), bytes.substr(0, bytes.size() * 6 / 10));
    STEADYSCOPE_OPEN_AND_WAIT(w, path);
    QVERIFY(!w.document().trace());
    QVERIFY(w.errorBox() && w.errorBox()->isVisible());
    auto* part = w.errorBox()->findChild<QPushButton*>(QStringLiteral("openPartial"));
    QVERIFY2(part, "a file that ends early offers to open the part that was read");
    part->click();
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY2(w.document().lastError().isEmpty(), qPrintable(w.document().lastError()));
    const TracePtr t = w.document().trace();
    QVERIFY(t && t->partial);
    QVERIFY(t->size() > 100 && t->size() < 801);  // the complete events before the cut
    QVERIFY2(w.windowTitle().contains(QStringLiteral("(partial)")), qPrintable(w.windowTitle()));
    QVERIFY2(w.statusText().contains(QStringLiteral("partial")), qPrintable(w.statusText()));
    w.runSplit();
    QVERIFY(w.isIdle());  // refused before any job starts
    QVERIFY2(w.document().lastError().contains(QStringLiteral("needs the whole trace")),
             qPrintable(w.document().lastError()));
    QVERIFY(w.document().results().empty());
  }

  void hostileDirectoryInTheWindow_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("code");
    for (const gatetest::HostileCase& c : gatetest::hostileCases())
      QTest::newRow(c.what) << QString::fromLatin1(c.kind) << QString::fromLatin1(c.code);
  }
  void hostileDirectoryInTheWindow() {
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const gatetest::HostileDir h = gatetest::buildHostileDir(root, kind);
    QVERIFY(h.ok);
    const auto before = gatetest::timesOf(h.decoy);
    MainWindow w(tempSettings(tmp.filePath(QStringLiteral("s.ini"))));
    w.show();
    w.controllers().review->openSplitDirectory(h.dir);
    STEADYSCOPE_WAIT_IDLE(w);
    QVERIFY2(w.document().shownGate().has_value(), qPrintable(w.document().lastError()));
    const auto& findings = w.document().shownGate()->findings;
    QVERIFY2(std::any_of(findings.begin(), findings.end(), [&](const auto& f) { return f.code == code.toStdString(); }),
             qPrintable(QStringLiteral("no finding ") + code));
    QVERIFY(gatetest::decoyUntouched(h, before));
  }

  // A leak grows the memory every cycle; the allocator's caches and
  // retained blocks warm up in steps (on a busy machine as late as the 50th
  // cycle): of three windows of 15 cycles, the quietest must stay flat.
  void fiftyOpenCloseCyclesDoNotGrow() {
    QTemporaryDir tmp;
    MainWindow w(tempSettings(tmp.filePath(QStringLiteral("s.ini"))));
    w.show();
    const QString path = tmp.filePath(QStringLiteral("steps.json.gz"));
    testfiles::writeFile(path.toStdString(), testfiles::gzipBytes(sstest::smallTrace(20000), 1));
    std::vector<long> at;  // RssAnon after cycles 5, 20, 35 and 50
    for (int k = 1; k <= 50; ++k) {
      STEADYSCOPE_OPEN_AND_WAIT(w, path);
      QVERIFY(w.document().trace());
      w.controllers().open->closeTrace();
      QVERIFY(!w.document().trace());
      if (k % 15 == 5) at.push_back(sstest::rssAnonKiB());
    }
    QCOMPARE(at.size(), size_t(4));
    long quietest = at[1] - at[0];
    for (size_t i = 2; i < at.size(); ++i) quietest = std::min(quietest, at[i] - at[i - 1]);
    // 180 KiB a cycle, as the former 8 MiB over 45 cycles.
    QVERIFY2(quietest < 15 * 180,
             qPrintable(QStringLiteral("RssAnon grew by at least %1 KiB in every 15 cycles (%2 → %3 KiB)")
                            .arg(quietest)
                            .arg(at.front())
                            .arg(at.back())));
  }
};

QTEST_MAIN(TstBadInputWindow)
#include "tst_bad_input_window.moc"
