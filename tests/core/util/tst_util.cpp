// Tests of core/util: Python-exact number formatting, atomic file writing.
#include <steadyscope/core/util/atomic_file.hpp>
#include <steadyscope/core/util/pynum.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace steadyscope;

class TestUtil : public QObject {
  Q_OBJECT
private slots:
  void fixed2_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    // spec E18: correct rounding of the binary value
    QTest::newRow("1600.0") << 1600.0 << "1600.00";
    QTest::newRow("1.005") << 1.005 << "1.00";
    QTest::newRow("2.675") << 2.675 << "2.67";
    QTest::newRow("1e-7") << 1e-7 << "0.00";
    QTest::newRow("123456789.125") << 123456789.125 << "123456789.12";
  }
  void fixed2() {
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(formatFixed2(value)), expected);
  }
  void pyRepr_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("1.0") << 1.0 << "1.0";
    QTest::newRow("0.1") << 0.1 << "0.1";
    QTest::newRow("3520.0") << 3520.0 << "3520.0";
    QTest::newRow("1e-07") << 1e-7 << "1e-07";
    QTest::newRow("1e16") << 1e16 << "1e+16";
    QTest::newRow("1234567890123456.0") << 1234567890123456.0 << "1234567890123456.0";
    QTest::newRow("0.0001") << 0.0001 << "0.0001";
    QTest::newRow("-2.5") << -2.5 << "-2.5";
    QTest::newRow("0.1+0.2") << (0.1 + 0.2) << "0.30000000000000004";
  }
  void pyRepr() {
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(pyReprDouble(value)), expected);
  }
  void pyArithmetic() {
    PyNum a = PyNum::fromInt(3), b = PyNum::fromInt(4), r = PyNum::fromReal(0.5);
    QVERIFY((a + b).isInt);
    QCOMPARE((a + b).i, int64_t(7));
    QVERIFY(!(a + r).isInt);
    QCOMPARE((a + r).d, 3.5);
  }
  void atomicWrite() {
    QTemporaryDir dir;
    std::string p = (dir.path() + "/out.txt").toStdString();
    QVERIFY(writeFileAtomic(p, "hello").ok());
    std::ifstream in(p);
    std::string s;
    std::getline(in, s);
    QCOMPARE(QString::fromStdString(s), QString("hello"));
    // an aborted writer leaves nothing behind and keeps the old file
    {
      AtomicFileWriter w;
      QVERIFY(w.open(p).ok());
      QVERIFY(w.write("partial").ok());
    }
    std::ifstream in2(p);
    std::getline(in2, s);
    QCOMPARE(QString::fromStdString(s), QString("hello"));
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) { (void)e; ++n; }
    QCOMPARE(n, 1);
    // unwritable target -> error naming the file
    auto bad = writeFileAtomic("/nonexistent-dir/x.txt", "x");
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().describe().find("/nonexistent-dir/x.txt") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestUtil)
#include "tst_util.moc"
