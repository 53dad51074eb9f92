// SHARED_OR_SKIP: a missing path skips, or fails under STEADYSCOPE_REQUIRE_SHARED=1
// (tests/support/CMakeLists.txt runs this suite both ways); a present path goes on.
#include "support/shared_data.hpp"

#include <QTest>

class TestSharedData : public QObject {
  Q_OBJECT
 private slots:
  void presentPathGoesOn() {
    bool reached = false;
    [&] {
      SHARED_OR_SKIP(QStringLiteral(STEADYSCOPE_SOURCE_DIR));
      reached = true;
    }();
    QVERIFY(reached);
  }
  void missingPathSkipsOrFails() {
    SHARED_OR_SKIP(QStringLiteral(STEADYSCOPE_SOURCE_DIR "/no/such/shared/file"));
    QFAIL("SHARED_OR_SKIP went on past a missing path");
  }
};

QTEST_GUILESS_MAIN(TestSharedData)
#include "tst_shared_data.moc"
