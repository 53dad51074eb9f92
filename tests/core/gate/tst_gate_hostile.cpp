// Split directories from another machine, built to mislead: rows naming files
// outside the directory, chunk files that are links, names with control or
// shell characters, a million rows, BOM and CRLF line ends. Each is reviewed
// without touching anything outside the directory (a decoy file there keeps
// its bytes and its access time), is reported as a finding, and never crashes.
#include "hostile_dirs.hpp"

#include <steadyscope/core/gate/review.hpp>

#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope::gate;
using namespace gatetest;

namespace {

const Finding* finding(const GateResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

}  // namespace

class TestGateHostile : public QObject {
  Q_OBJECT
 private slots:
  void hostile_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("code");  // the finding that reports it
    for (const HostileCase& c : hostileCases()) QTest::newRow(c.what) << c.kind << c.code;
  }
  void hostile() {
    QFETCH(QString, kind);
    QFETCH(QString, code);
    QTemporaryDir tmp;
    const QString root = QDir(tmp.path()).canonicalPath();
    const HostileDir h = buildHostileDir(root, kind);
    QVERIFY(h.ok);
    const auto before = timesOf(h.decoy);

    ReviewOptions o;
    o.workingDirectory = root.toStdString();
    auto r = reviewSplitDirectory(h.dir.toStdString(), o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    const Finding* f = finding(r.value(), code.toStdString());
    QVERIFY2(f, qPrintable("no finding " + code));
    QVERIFY2(f->sentence.find('\n') == std::string::npos, f->sentence.c_str());  // one line, names escaped
    QVERIFY(decoyUntouched(h, before));
  }
};

QTEST_GUILESS_MAIN(TestGateHostile)
#include "tst_gate_hostile.moc"
