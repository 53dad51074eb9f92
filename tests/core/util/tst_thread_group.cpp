// Tests of ThreadGroup: helper threads that always join, carry an exception
// to the joining thread, and fall back to the calling thread when none can be
// started (the cause of "terminate called without an active exception" under
// a small `ulimit -v`).
#include "util/side_by_side.hpp"
#include "util/thread_group.hpp"

#include <QTest>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace steadyscope;

namespace {
#if defined(__SANITIZE_ADDRESS__) || defined(STEADYSCOPE_SANITIZER_RUNTIME)
constexpr bool kSanitized = true;  // its shadow memory needs an unlimited address space
#else
constexpr bool kSanitized = false;
#endif

// The address space in use now (VmSize), in bytes.
rlim_t addressSpaceInUse() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}
}  // namespace

class TestThreadGroup : public QObject {
  Q_OBJECT
 private slots:
  void runsEveryPartAndJoins() {
    std::atomic<int> sum{0};
    ThreadGroup g;
    for (int k = 1; k <= 4; ++k) g.run([&sum, k] { sum += k; });
    g.join();
    QCOMPARE(sum.load(), 10);
    QVERIFY(!g.running());
  }

  void helperExceptionReachesJoinAndStopsTheOthers() {
    std::atomic<bool> stop{false};
    ThreadGroup g([&] { stop = true; });
    g.run([] { throw std::bad_alloc(); });
    g.run([&] {
      while (!stop) std::this_thread::yield();  // would spin for ever without onFailure
    });
    QVERIFY_THROWS_EXCEPTION(std::bad_alloc, g.join());
    QVERIFY(stop);
  }

  void oneExceptionOnceThenReusable() {
    ThreadGroup g;
    g.run([] { throw std::runtime_error("one"); });
    g.run([] { throw std::runtime_error("two"); });
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, g.join());
    g.join();  // nothing left to rethrow
    std::atomic<int> n{0};
    g.run([&] { ++n; });
    g.join();
    QCOMPARE(n.load(), 1);
  }

  void leftWithoutJoinStopsAndJoins() {
    std::atomic<bool> stop{false};
    {
      ThreadGroup g([&] { stop = true; });
      g.run([&] {
        while (!stop) std::this_thread::yield();
      });
    }  // an exception on the owner would leave like this: onFailure, then join
    QVERIFY(stop);
  }

  void runOnWorkersWhenNoThreadCanStart() {
    if (kSanitized) QSKIP("an address-space limit does not work under AddressSanitizer");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      // Room for a few small allocations, none for an 8 MiB thread stack.
      const rlimit lim{addressSpaceInUse() + (2u << 20), RLIM_INFINITY};
      if (::setrlimit(RLIMIT_AS, &lim) != 0) ::_exit(3);
      // Threads that hold their stacks until no further one can start (glibc
      // reuses cached stacks first, so a few may start under the limit).
      std::atomic<bool> release{false};
      ThreadGroup holders;
      bool refused = false;
      for (int k = 0; k < 1000 && !refused; ++k)
        refused = !holders.tryRun([&] {
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
      if (!refused) ::_exit(4);  // the limit did not bite
      std::atomic<int> items{0}, next{0};
      runOnWorkers(4, [&] {  // no helper can start: all on this thread
        while (next.fetch_add(1) < 1000) ++items;
      });
      release = true;
      holders.join();
      ::_exit(items == 1000 ? 0 : 5);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFEXITED(status), "the child died of a signal (an abort: a thread that could not start)");
    QCOMPARE(WEXITSTATUS(status), 0);
  }
};

QTEST_APPLESS_MAIN(TestThreadGroup)
#include "tst_thread_group.moc"
