// The window on the fatal classes of the bad-input corpus: each shows the
// loader's message (naming the file) in a message box and keeps the trace
// that was open, its title and its status bar.
#include "app_test_support.hpp"
#include "main_window.hpp"
#include "support/bad_inputs.hpp"

#include <QDir>
#include <QMessageBox>
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
    const TracePtr before = w.document().trace;
    QVERIFY(before);
    const QString status = w.statusText(), title = w.windowTitle();
    const QString path = tmp.filePath(fileName.endsWith('/') ? fileName.chopped(1) : fileName);
    if (fileName.endsWith('/'))
      QVERIFY(QDir().mkpath(path));
    else
      testfiles::writeFile(path.toStdString(), content.toStdString());
    STEADYSCOPE_OPEN_AND_WAIT(w, path);
    QVERIFY2(w.lastError().contains(QFileInfo(path).fileName()), qPrintable(w.lastError()));
    auto* box = w.findChild<QMessageBox*>();
    QVERIFY(box && box->isVisible());
    QCOMPARE(box->text(), w.lastError());
    box->close();
    QCOMPARE(w.document().trace, before);
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
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
    QVERIFY(w.document().trace);
    QVERIFY2(w.statusText().contains(QStringLiteral("no events: the trace's event list is empty")),
             qPrintable(w.statusText()));
  }
};

QTEST_MAIN(TstBadInputWindow)
#include "tst_bad_input_window.moc"
