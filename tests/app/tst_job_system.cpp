// The window's job system without a window: a lane delivers its current job's
// result on the GUI thread; a superseded or cancelled job's result never
// reaches the window and is freed off the GUI thread (the thread is asserted,
// whichever of the two places drops it: the job's own thread or the disposer);
// lanes of different kinds run at once; cancelAll leaves an export alone;
// the status bar's lane is chosen in a fixed order.
#include "app_test_support.hpp"
#include "job_system.hpp"

#include <QThread>
#include <QTest>

#include <atomic>
#include <memory>
#include <mutex>

using namespace steadyscope;
using namespace steadyscope::app;
using steadyscope::app::testsupport::StageHold;

namespace {
/// Records the thread its last copy is destroyed on.
struct Tracked {
  struct Probe {
    std::mutex m;
    QThread* freedOn = nullptr;
    std::atomic<int> freed{0};
  };
  std::shared_ptr<Probe> probe;
  int value = 0;
  Tracked(std::shared_ptr<Probe> p, int v) : probe(std::move(p)), value(v) {}
  Tracked(Tracked&& o) noexcept : probe(std::move(o.probe)), value(o.value) {}
  Tracked& operator=(Tracked&&) = delete;
  ~Tracked() {
    if (!probe) return;  // a moved-from shell
    std::lock_guard lock(probe->m);
    probe->freedOn = QThread::currentThread();
    ++probe->freed;
  }
};

/// Starts a job on `lane` that returns a Tracked holding `probe`, held at stage "held" when `hold` is given.
void startTracked(JobLane* lane, std::shared_ptr<Tracked::Probe> probe, int value, std::function<void(int)> done,
                  StageHold* hold = nullptr) {
  if (hold) lane->setStageObserverForTests(hold->observer());
  lane->start<Tracked>(
      QStringLiteral("tracked"),
      [probe, value](JobContext& ctx) -> std::optional<Tracked> {
        ctx.control.enterStage("held");  // a held job waits here; its cancel is ignored, so it returns a value
        return Tracked(probe, value);
      },
      [done](Tracked t) { done(t.value); });
}
}  // namespace

class TstJobSystem : public QObject {
  Q_OBJECT
 private slots:
  void deliversOnTheGuiThread();
  void supersededResultIsFreedOffTheGuiThread();
  void supersededRaceIsFreedOffTheGuiThread();
  void cancelledResultIsFreedOffTheGuiThread();
  void lanesRunSideBySide();
  void cancelAllLeavesExports();
  void shownLaneOrder_data();
  void shownLaneOrder();
};

void TstJobSystem::deliversOnTheGuiThread() {
  JobSystem jobs;
  auto probe = std::make_shared<Tracked::Probe>();
  QThread* deliveredOn = nullptr;
  int got = -1;
  startTracked(jobs.lane(JobKind::Load), probe, 7, [&](int v) {
    got = v;
    deliveredOn = QThread::currentThread();
  });
  QVERIFY(!jobs.isIdle());
  QVERIFY(jobs.waitForIdle(app::testsupport::kJobTimeoutMs));
  QCOMPARE(got, 7);
  QCOMPARE(deliveredOn, QThread::currentThread());
  QCOMPARE(jobs.lane(JobKind::Load)->droppedResults(), quint64(0));
}

void TstJobSystem::supersededResultIsFreedOffTheGuiThread() {
  JobSystem jobs;
  JobLane* lane = jobs.lane(JobKind::Split);
  auto first = std::make_shared<Tracked::Probe>();
  auto second = std::make_shared<Tracked::Probe>();
  QVector<int> delivered;
  StageHold hold("held");
  startTracked(
      lane, first, 1, [&](int v) { delivered << v; }, &hold);
  QTRY_VERIFY(hold.reached());
  startTracked(lane, second, 2, [&](int v) { delivered << v; });  // supersedes the held one
  QVERIFY(jobs.waitForIdle(app::testsupport::kJobTimeoutMs));
  hold.release();
  QTRY_COMPARE(lane->inFlight(), 0);
  QTRY_COMPARE(first->freed.load(), 1);
  QCOMPARE(delivered, QVector<int>{2});  // the stale result never reached the window
  QVERIFY(first->freedOn != nullptr);
  QVERIFY(first->freedOn != QThread::currentThread());
  QCOMPARE(lane->droppedResults(), quint64(1));
}

void TstJobSystem::supersededRaceIsFreedOffTheGuiThread() {
  // Jobs that finish before the next one starts, without the event loop running
  // between them: their results arrive stale on the GUI thread and go to the disposer.
  JobSystem jobs;
  JobLane* lane = jobs.lane(JobKind::Review);
  QVector<std::shared_ptr<Tracked::Probe>> probes;
  QVector<int> delivered;
  for (int i = 0; i < 8; ++i) {
    probes << std::make_shared<Tracked::Probe>();
    startTracked(lane, probes.back(), i, [&](int v) { delivered << v; });
    QThread::msleep(5);  // let it finish on its thread; not a limit on anything
  }
  QVERIFY(jobs.waitForIdle(app::testsupport::kJobTimeoutMs));
  QTRY_COMPARE(lane->inFlight(), 0);
  QCOMPARE(delivered, QVector<int>{7});
  for (int i = 0; i < 7; ++i) {
    QTRY_COMPARE(probes[i]->freed.load(), 1);
    QVERIFY2(probes[i]->freedOn != QThread::currentThread(), qPrintable(QString::number(i)));
  }
  QCOMPARE(lane->droppedResults(), quint64(7));
}

void TstJobSystem::cancelledResultIsFreedOffTheGuiThread() {
  JobSystem jobs;
  JobLane* lane = jobs.lane(JobKind::Load);
  auto probe = std::make_shared<Tracked::Probe>();
  bool delivered = false;
  int cancelled = 0;
  connect(&jobs, &JobSystem::cancelled, this, [&](JobKind k) { cancelled += k == JobKind::Load; });
  StageHold hold("held");
  startTracked(
      lane, probe, 1, [&](int) { delivered = true; }, &hold);
  QTRY_VERIFY(hold.reached());
  jobs.cancelAll();
  QVERIFY(jobs.isIdle());
  QCOMPARE(cancelled, 1);
  hold.release();
  QTRY_COMPARE(probe->freed.load(), 1);
  QVERIFY(!delivered);
  QVERIFY(probe->freedOn != QThread::currentThread());
}

void TstJobSystem::lanesRunSideBySide() {
  JobSystem jobs;
  auto a = std::make_shared<Tracked::Probe>();
  auto b = std::make_shared<Tracked::Probe>();
  StageHold holdA("held");
  QVector<int> delivered;
  startTracked(
      jobs.lane(JobKind::Load), a, 1, [&](int v) { delivered << v; }, &holdA);
  QTRY_VERIFY(holdA.reached());
  startTracked(jobs.lane(JobKind::Review), b, 2, [&](int v) { delivered << v; });  // another lane: not superseded
  QTRY_COMPARE(delivered, QVector<int>{2});
  QVERIFY(jobs.lane(JobKind::Load)->isRunning());
  holdA.release();
  QVERIFY(jobs.waitForIdle(app::testsupport::kJobTimeoutMs));
  QCOMPARE(delivered, (QVector<int>{2, 1}));
}

void TstJobSystem::cancelAllLeavesExports() {
  JobSystem jobs;
  auto probe = std::make_shared<Tracked::Probe>();
  StageHold hold("held");
  bool exported = false;
  startTracked(
      jobs.lane(JobKind::Export), probe, 1, [&](int) { exported = true; }, &hold);
  QTRY_VERIFY(hold.reached());
  QVERIFY(jobs.isIdle());  // an export is followed by its dialog, not the status bar
  jobs.cancelAll();
  QVERIFY(jobs.lane(JobKind::Export)->isRunning());
  hold.release();
  QTRY_VERIFY(exported);
}

void TstJobSystem::shownLaneOrder_data() {
  QTest::addColumn<QList<int>>("running");
  QTest::addColumn<int>("shown");
  QTest::newRow("none") << QList<int>{} << -1;
  QTest::newRow("load") << QList<int>{int(JobKind::Load)} << int(JobKind::Load);
  QTest::newRow("load before split") << QList<int>{int(JobKind::Split), int(JobKind::Load)} << int(JobKind::Load);
  QTest::newRow("split before compare") << QList<int>{int(JobKind::Compare), int(JobKind::Split)}
                                        << int(JobKind::Split);
  QTest::newRow("an export is its dialog's") << QList<int>{int(JobKind::Export)} << -1;
  QTest::newRow("report") << QList<int>{int(JobKind::Report)} << int(JobKind::Report);
}

void TstJobSystem::shownLaneOrder() {
  QFETCH(QList<int>, running);
  QFETCH(int, shown);
  JobSystem jobs;
  std::vector<std::unique_ptr<StageHold>> holds;
  for (int k : running) {
    holds.push_back(std::make_unique<StageHold>("held"));
    startTracked(
        jobs.lane(JobKind(k)), std::make_shared<Tracked::Probe>(), k, [](int) {}, holds.back().get());
    QTRY_VERIFY(holds.back()->reached());
  }
  QCOMPARE(jobs.shownLane(), shown < 0 ? nullptr : jobs.lane(JobKind(shown)));
  for (auto& h : holds) h->release();
  jobs.cancelAll();
  for (int k = 0; k < kJobKinds; ++k) QTRY_COMPARE(jobs.lane(JobKind(k))->inFlight(), 0);
}

QTEST_MAIN(TstJobSystem)
#include "tst_job_system.moc"
