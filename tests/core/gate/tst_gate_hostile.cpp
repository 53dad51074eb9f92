// Split directories from another machine, built to mislead: rows naming files
// outside the directory, chunk files that are links, names with control or
// shell characters, a million rows, BOM and CRLF line ends. Each is reviewed
// without touching anything outside the directory (a decoy file there keeps
// its bytes and its access time), is reported as a finding, and never crashes.
#include "gate_fixture.hpp"

#include <steadyscope/core/gate/review.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>

using namespace steadyscope::gate;
using namespace gatetest;

namespace {

const char* kHeader = "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,num_steps\n";

QString mixedName() { return chunkFileName("mixed"); }

QByteArray row(const QString& outputPath) {
  return ("0," + outputPath + ",100,40,1000.0,800.0,32\n").toUtf8();
}

const Finding* finding(const GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

/// The last access and modification times (a read moves the access time:
/// the decoy's are set to now, so relatime updates it too).
std::pair<qint64, qint64> timesOf(const QString& path) {
  struct stat st {};
  ::stat(path.toLocal8Bit().constData(), &st);
  return {qint64(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec,
          qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace

class TestGateHostile : public QObject {
  Q_OBJECT
 private slots:
  void hostile_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("code");  // the finding that reports it
    QTest::newRow("output_path climbing out (../../)") << "climb" << "row_outside_directory";
    QTest::newRow("absolute output_path elsewhere") << "absolute" << "row_outside_directory";
    QTest::newRow("chunk file is a symlink out of the directory") << "symlink" << "chunk_is_symlink";
    QTest::newRow("chunk name with a newline") << "newline" << "unusual_file_name";
    QTest::newRow("chunk name with shell characters") << "shell" << "unusual_file_name";
    QTest::newRow("a million rows") << "million" << "details_csv_many_rows";
    QTest::newRow("BOM before output_path") << "bom" << "details_csv_bom";
  }
  void hostile() {
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const QString d = root + "/split", decoy = root + "/outside/" + mixedName();
    QVERIFY(writeFile(decoy, "{\"traceEvents\": []}"));
    ::utimensat(AT_FDCWD, decoy.toLocal8Bit().constData(), nullptr, 0);
    QByteArray csv = kHeader;
    QString chunk = d + "/" + mixedName();
    if (kind == "climb") csv += row("split/../../outside/" + mixedName());
    if (kind == "absolute") csv += row(decoy);
    if (kind == "symlink") {
      QDir().mkpath(d);
      QVERIFY(QFile::link(decoy, chunk));
      csv += row(chunk);
    }
    if (kind == "newline" || kind == "shell") {
      chunk = d + "/" + mixedName().replace("_x.json.gz", kind == "newline" ? "_a\nb.json.gz" : "_$(touch x);`y`.json.gz");
      csv += row("\"" + chunk + "\"");
    }
    if (kind == "million") {
      csv.reserve(60 << 20);
      for (int k = 0; k < 1000000; ++k) csv += row(d + "/" + mixedName());
    }
    if (kind == "bom")  // the pipeline then reads the first column under another name
      csv = "\xEF\xBB\xBFoutput_path,idx,event_count,num_gpu_events,gpu_duration,gpu_busy_duration\r\n" +
            (chunk + ",0,100,40,1000.0,800.0\r\n").toUtf8();
    if (kind != "symlink") QVERIFY(writeFile(chunk, "{}"));
    QVERIFY(writeFile(d + "/execution_details.csv", csv));
    const auto before = timesOf(decoy);

    ReviewOptions o;
    o.workingDirectory = root.toStdString();
    auto r = reviewSplitDirectory(d.toStdString(), o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Finding* f = finding(r.value(), code.toStdString());
    QVERIFY2(f, qPrintable("no finding " + code));
    QVERIFY2(f->sentence.find('\n') == std::string::npos, f->sentence.c_str());  // one line, names escaped
    QVERIFY(timesOf(decoy) == before);  // neither read nor written
    QFile file(decoy);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("{\"traceEvents\": []}"));
  }
};

QTEST_GUILESS_MAIN(TestGateHostile)
#include "tst_gate_hostile.moc"
