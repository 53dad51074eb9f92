// The execution_details.csv reader: Python csv.DictReader semantics, Python
// float() numbers, and errors that name the file and line.
#include <steadyscope/core/gate/csv.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

using namespace steadyscope::gate;

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString fieldsOf(const CsvRecord& r) {
  QStringList l;
  for (const auto& f : r.fields) l << q(f);
  return l.join('|');
}
}  // namespace

class TestGateCsv : public QObject {
  Q_OBJECT
 private slots:
  void pyFloat_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<double>("value");  // NaN checked by isnan
    QTest::newRow("int") << "160" << true << 160.0;
    QTest::newRow("real") << "2053.09" << true << 2053.09;
    QTest::newRow("spaces") << "  0.5\t" << true << 0.5;
    QTest::newRow("plus") << "+1.5" << true << 1.5;
    QTest::newRow("exp") << "1e-3" << true << 1e-3;
    QTest::newRow("EXP") << "2E+2" << true << 200.0;
    QTest::newRow("dot first") << ".5" << true << 0.5;
    QTest::newRow("dot last") << "5." << true << 5.0;
    QTest::newRow("underscore") << "1_000.5" << true << 1000.5;
    QTest::newRow("nan") << "nan" << true << std::nan("");
    QTest::newRow("-NaN") << "-NaN" << true << std::nan("");
    QTest::newRow("inf") << "inf" << true << HUGE_VAL;
    QTest::newRow("-Infinity") << "-Infinity" << true << -HUGE_VAL;
    QTest::newRow("huge") << "1e400" << true << HUGE_VAL;
    QTest::newRow("tiny") << "1e-400" << true << 0.0;
    QTest::newRow("empty") << "" << false << 0.0;
    QTest::newRow("blank") << "   " << false << 0.0;
    QTest::newRow("text") << "abc" << false << 0.0;
    QTest::newRow("double underscore") << "1__0" << false << 0.0;
    QTest::newRow("trailing underscore") << "10_" << false << 0.0;
    QTest::newRow("hex") << "0x10" << false << 0.0;
    QTest::newRow("dot only") << "." << false << 0.0;
    QTest::newRow("comma decimal") << "1,5" << false << 0.0;
    QTest::newRow("exp without digits") << "1e" << false << 0.0;
    QTest::newRow("infinit") << "infinit" << false << 0.0;
  }
  void pyFloat() {
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(double, value);
    auto v = parsePyFloat(text.toStdString());
    QCOMPARE(v.has_value(), ok);
    if (!ok) return;
    if (std::isnan(value))
      QVERIFY(std::isnan(*v));
    else
      QCOMPARE(*v, value);
  }

  void parse_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("header");    // '|' separated
    QTest::addColumn<QStringList>("rows");  // "line:f1|f2|..."
    QTest::addColumn<int>("issues");
    QTest::newRow("newest layout") << QByteArray("idx,output_path,num_gpu_events\n0,out/a.json.gz,5\n")
                                   << "idx|output_path|num_gpu_events" << QStringList{"2:0|out/a.json.gz|5"} << 0;
    QTest::newRow("crlf") << QByteArray("a,b\r\n1,2\r\n3,4\r\n") << "a|b" << QStringList{"2:1|2", "3:3|4"} << 0;
    QTest::newRow("cr only") << QByteArray("a,b\r1,2\r") << "a|b" << QStringList{"2:1|2"} << 0;
    QTest::newRow("no final newline") << QByteArray("a,b\n1,2") << "a|b" << QStringList{"2:1|2"} << 0;
    QTest::newRow("bom") << QByteArray("\xEF\xBB\xBFidx,b\n1,2\n") << "idx|b" << QStringList{"2:1|2"} << 0;
    QTest::newRow("quoted comma") << QByteArray("a,b\n\"x,y\",2\n") << "a|b" << QStringList{"2:x,y|2"} << 0;
    QTest::newRow("doubled quote") << QByteArray("a,b\n\"say \"\"hi\"\"\",2\n") << "a|b"
                                   << QStringList{"2:say \"hi\"|2"} << 0;
    QTest::newRow("quoted newline") << QByteArray("a,b\n\"l1\nl2\",2\n3,4\n") << "a|b"
                                    << QStringList{"2:l1\nl2|2", "4:3|4"} << 0;
    QTest::newRow("quoted crlf kept") << QByteArray("a,b\r\n\"l1\r\nl2\",2\r\n") << "a|b" << QStringList{"2:l1\r\nl2|2"}
                                      << 0;
    QTest::newRow("blank lines skipped") << QByteArray("a,b\n\n1,2\n\r\n3,4\n") << "a|b"
                                         << QStringList{"3:1|2", "5:3|4"} << 0;
    QTest::newRow("empty fields") << QByteArray("a,b,c\n,,\n") << "a|b|c" << QStringList{"2:||"} << 0;
    QTest::newRow("short row") << QByteArray("a,b,c\n1,2\n") << "a|b|c" << QStringList{"2:1|2"} << 1;
    QTest::newRow("long row") << QByteArray("a,b\n1,2,3\n") << "a|b" << QStringList{"2:1|2|3"} << 1;
    QTest::newRow("header only") << QByteArray("a,b\n") << "a|b" << QStringList{} << 0;
    QTest::newRow("quote inside unquoted") << QByteArray("a\nx\"y\n") << "a" << QStringList{"2:x\"y"} << 1;
    QTest::newRow("text after closing quote") << QByteArray("a\n\"x\"y\n") << "a" << QStringList{"2:xy"} << 1;
    QTest::newRow("unterminated quote") << QByteArray("a,b\n\"x,2\n3,4\n") << "a|b" << QStringList{"2:x,2\n3,4\n"}
                                        << 2;  // never closed + short row
    QTest::newRow("duplicate column") << QByteArray("a,a\n1,2\n") << "a|a" << QStringList{"2:1|2"} << 1;
    QTest::newRow("spaces kept") << QByteArray("a, b\n 1 , 2\n") << "a| b" << QStringList{"2: 1 | 2"} << 0;
  }
  void parse() {
    QFETCH(QByteArray, text);
    QFETCH(QString, header);
    QFETCH(QStringList, rows);
    QFETCH(int, issues);
    auto t = parseCsv(std::string_view(text.constData(), static_cast<size_t>(text.size())), "details.csv");
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
    QStringList h;
    for (const auto& c : t->header) h << q(c);
    QCOMPARE(h.join('|'), header);
    QStringList got;
    for (const auto& r : t->records) got << QString::number(r.line) + ":" + fieldsOf(r);
    QCOMPARE(got, rows);
    QCOMPARE(static_cast<int>(t->issues.size()), issues);
  }

  void dictReaderLookup() {
    // Duplicate names: the last column wins; a row too short for it reads None.
    auto t = parseCsv("a,b,a\n1,2,3\n4,5\n", "d.csv");
    QVERIFY(t.ok());
    QCOMPARE(q(*t->cell(t->records[0], "a")), QString("3"));
    QVERIFY(!t->cell(t->records[1], "a").has_value());
    QCOMPARE(q(*t->cell(t->records[1], "b")), QString("5"));
    QVERIFY(!t->cell(t->records[0], "zzz").has_value());
    // Reordered and extra columns are found by name.
    auto r = parseCsv("extra,gpu_duration,output_path,num_gpu_events\nx,10.5,p.json.gz,3\n", "d.csv");
    QCOMPARE(q(*r->cell(r->records[0], "output_path")), QString("p.json.gz"));
    QCOMPARE(q(*r->cell(r->records[0], "gpu_duration")), QString("10.5"));
  }

  void errors_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty file") << QByteArray() << 1 << "the file is empty";
    QTest::newRow("bom only") << QByteArray("\xEF\xBB\xBF") << 1 << "the file is empty";
    QTest::newRow("bad utf-8 on line 3") << QByteArray("a,b\n1,2\n\xff,3\n") << 3 << "not valid UTF-8";
    QTest::newRow("field limit") << QByteArray("a\n") + QByteArray(131073, 'x') + "\n" << 2 << "field limit";
  }
  void errors() {
    QFETCH(QByteArray, text);
    QFETCH(int, line);
    QFETCH(QString, message);
    auto t = parseCsv(std::string_view(text.constData(), static_cast<size_t>(text.size())), "/x/execution_details.csv");
    QVERIFY(!t.ok());
    QCOMPARE(static_cast<int>(t.error().line.value_or(0)), line);
    const QString d = q(t.error().describe());
    QVERIFY2(d.startsWith("/x/execution_details.csv: line " + QString::number(line) + ": "), qPrintable(d));
    QVERIFY2(d.contains(message), qPrintable(d));
  }

  void readFile() {
    QTemporaryDir dir;
    const std::string p = (dir.path() + "/execution_details.csv").toStdString();
    { std::ofstream(p) << "a,b\n1,2\n"; }
    auto t = readCsvFile(p);
    QVERIFY(t.ok());
    QCOMPARE(static_cast<int>(t->records.size()), 1);
    auto missing = readCsvFile((dir.path() + "/nope.csv").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY(q(missing.error().describe()).contains("nope.csv"));
    auto isDir = readCsvFile(dir.path().toStdString());
    QVERIFY(!isDir.ok());
  }
};

QTEST_GUILESS_MAIN(TestGateCsv)
#include "tst_gate_csv.moc"
