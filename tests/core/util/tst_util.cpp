// Tests of core/util: Python-exact number formatting, atomic file writing.
#include <steadyscope/core/util/atomic_file.hpp>
#include "util/idle_thread.hpp"
#include "util/big_alloc.hpp"
#include <steadyscope/core/util/job_budget.hpp>
#include <steadyscope/core/util/json_value.hpp>
#include "util/nearly_sorted.hpp"
#include <steadyscope/core/util/pynum.hpp>
#include <steadyscope/core/util/threads.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/stat.h>

using namespace steadyscope;

class TestUtil : public QObject {
  Q_OBJECT
 private slots:
  // How many traces split at once: cores / threads per split, capped by memory and the trace
  // count; with -j the jobs share the hardware's threads (never more than jobs x threads = cores,
  // unless more jobs than cores were asked for, which get one thread each).
  void jobBudget_data() {
    QTest::addColumn<unsigned>("hw");
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<unsigned>("jobsAsked");
    QTest::addColumn<qulonglong>("traces");
    QTest::addColumn<qulonglong>("freeMiB");
    QTest::addColumn<qulonglong>("perJobMiB");
    QTest::addColumn<unsigned>("jobs");
    QTest::addColumn<unsigned>("perJob");
    QTest::newRow("2 cores: one split uses both") << 2u << 0u << 0u << 8ull << 8000ull << 500ull << 1u << 2u;
    QTest::newRow("2 cores, --threads 1") << 2u << 1u << 0u << 8ull << 8000ull << 500ull << 2u << 1u;
    QTest::newRow("64 cores: 16 threads a split") << 64u << 0u << 0u << 8ull << 0ull << 0ull << 4u << 16u;
    QTest::newRow("64 cores, memory for 3") << 64u << 0u << 0u << 8ull << 3500ull << 1000ull << 3u << 16u;
    QTest::newRow("memory for none still runs one") << 64u << 0u << 0u << 8ull << 100ull << 1000ull << 1u << 16u;
    QTest::newRow("fewer traces than jobs") << 64u << 1u << 0u << 3ull << 0ull << 0ull << 3u << 1u;
    QTest::newRow("-j 2 on 2 cores") << 2u << 0u << 2u << 8ull << 0ull << 0ull << 2u << 1u;
    QTest::newRow("-j 4 on 64 cores") << 64u << 0u << 4u << 8ull << 0ull << 0ull << 4u << 16u;
    QTest::newRow("-j 8 on 2 cores") << 2u << 0u << 8u << 8ull << 0ull << 0ull << 8u << 1u;
    QTest::newRow("-j 3, --threads 8, 16 cores") << 16u << 8u << 3u << 8ull << 0ull << 0ull << 3u << 5u;
  }
  void jobBudget() {
    QFETCH(unsigned, hw);
    QFETCH(unsigned, threads);
    QFETCH(unsigned, jobsAsked);
    QFETCH(qulonglong, traces);
    QFETCH(qulonglong, freeMiB);
    QFETCH(qulonglong, perJobMiB);
    QFETCH(unsigned, jobs);
    QFETCH(unsigned, perJob);
    JobBudgetInput in;
    in.hardwareThreads = hw;
    in.threadsPerSplit = threads;
    in.requestedJobs = jobsAsked;
    in.traces = traces;
    in.availableBytes = freeMiB << 20;
    in.bytesPerJob = perJobMiB << 20;
    const JobBudget b = planJobs(in);
    QCOMPARE(b.jobs, jobs);
    QCOMPARE(b.threadsPerJob, perJob);
    QVERIFY(!b.describe().empty());
  }
  // A memory budget replaces the free memory and caps even -j: 16 jobs asked, a budget of
  // 4 GiB and 1 GiB a job run 4 at a time; without the budget the free memory does not cap -j.
  void memoryBudgetCapsJobs() {
    JobBudgetInput in;
    in.hardwareThreads = 16;
    in.threadsPerSplit = 1;
    in.requestedJobs = 16;
    in.traces = 16;
    in.availableBytes = 2ull << 30;
    in.bytesPerJob = 1ull << 30;
    QCOMPARE(planJobs(in).jobs, 16u);
    in.memoryBudget = 4ull << 30;
    const JobBudget b = planJobs(in);
    QCOMPARE(b.jobs, 4u);
    QVERIFY2(b.describe().find("memory budget of 4.0 GB allows 4") != std::string::npos, b.describe().c_str());
    in.requestedJobs = 0;
    QCOMPARE(planJobs(in).jobs, 4u);  // the budget, not the 2 GiB free
    in.memoryBudget = 100;            // less than one job: still one at a time
    QCOMPARE(planJobs(in).jobs, 1u);
  }
  void byteSizes() {
    QCOMPARE(parseByteSize("8G"), std::optional<uint64_t>(8ull << 30));
    QCOMPARE(parseByteSize("8"), std::optional<uint64_t>(8ull << 30));
    QCOMPARE(parseByteSize("512M"), std::optional<uint64_t>(512ull << 20));
    QCOMPARE(parseByteSize("1.5 GiB"), std::optional<uint64_t>(3ull << 29));
    QCOMPARE(parseByteSize("64kb"), std::optional<uint64_t>(64ull << 10));
    QCOMPARE(parseByteSize("2T"), std::optional<uint64_t>(2ull << 40));
    for (const char* bad : {"", "G", "-1G", "0", "8X", "8GG", "nan", "inf", "1e30T"})
      QVERIFY2(!parseByteSize(bad), bad);
  }
  void availableMemoryIsRead() { QVERIFY(availableMemoryBytes() > 0); }
  // Freed big blocks are retained and handed out again, front first (the
  // part a vector touched), best fit, with the rest kept; releaseRetained
  // unmaps them all.
  void retainedBlocks() {
    bigmem::releaseRetained();
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
    const size_t MiB = size_t(1) << 20;
    char* a = static_cast<char*>(bigmem::allocate(5 * MiB));  // 6 MiB of huge pages
    char* b = static_cast<char*>(bigmem::allocate(3 * MiB));  // 4 MiB
    std::memset(a, 1, 5 * MiB);
    std::memset(b, 2, 3 * MiB);
    bigmem::deallocate(a, 5 * MiB);
    bigmem::deallocate(b, 3 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 10 * MiB);
    char* c = static_cast<char*>(bigmem::allocate(2 * MiB));  // best fit: the front of b's block
    QCOMPARE(static_cast<void*>(c), static_cast<void*>(b));
    QCOMPARE(bigmem::retainedBytes(), 8 * MiB);
    char* d = static_cast<char*>(bigmem::allocate(6 * MiB));  // all of a's block
    QCOMPARE(static_cast<void*>(d), static_cast<void*>(a));
    QCOMPARE(bigmem::retainedBytes(), 2 * MiB);
    char* e = static_cast<char*>(bigmem::allocate(4 * MiB));  // nothing fits: fresh
    QVERIFY(e != a && e != b);
    e[0] = 3;
    QCOMPARE(bigmem::retainedBytes(), 2 * MiB);
    bigmem::deallocate(c, 2 * MiB);
    bigmem::deallocate(d, 6 * MiB);
    bigmem::deallocate(e, 4 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 14 * MiB);
    bigmem::releaseRetained();
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
    // Small blocks never go through the retained list.
    void* small = bigmem::allocate(1000);
    bigmem::deallocate(small, 1000);
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
  }

  // A thread lowered to the idle class is in it, and only that thread: the
  // caller keeps its own scheduling.
  void idleThreadClass() {
    int policy = -1, callerBefore = -1, callerAfter = -1;
    sched_param p{};
    pthread_getschedparam(pthread_self(), &callerBefore, &p);
    bool lowered = false;
    std::thread t([&] {
      lowered = runThisThreadOnlyWhenIdle();
      pthread_getschedparam(pthread_self(), &policy, &p);
    });
    t.join();
    pthread_getschedparam(pthread_self(), &callerAfter, &p);
    QVERIFY(lowered);
    QCOMPARE(policy, SCHED_IDLE);
    QCOMPARE(callerAfter, callerBefore);
  }

  // allocateZeroed reads as zero whether the block is fresh, a retained
  // block that was written, or small; ZeroedArray hands its block back to the
  // retained list and moves without copying.
  void zeroedBlocks() {
    bigmem::releaseRetained();
    const size_t MiB = size_t(1) << 20;
    char* dirty = static_cast<char*>(bigmem::allocate(3 * MiB));
    std::memset(dirty, 0x5a, 3 * MiB);
    bigmem::deallocate(dirty, 3 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 4 * MiB);
    auto* reused = static_cast<unsigned char*>(bigmem::allocateZeroed(3 * MiB));
    QCOMPARE(static_cast<void*>(reused), static_cast<void*>(dirty));  // the retained block, cleared
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
    QVERIFY(std::all_of(reused, reused + 3 * MiB, [](unsigned char c) { return c == 0; }));
    auto* fresh = static_cast<unsigned char*>(bigmem::allocateZeroed(2 * MiB));
    QVERIFY(std::all_of(fresh, fresh + 2 * MiB, [](unsigned char c) { return c == 0; }));
    auto* small = static_cast<unsigned char*>(bigmem::allocateZeroed(1000));
    QVERIFY(std::all_of(small, small + 1000, [](unsigned char c) { return c == 0; }));
    bigmem::deallocate(small, 1000);
    bigmem::deallocate(fresh, 2 * MiB);
    std::memset(reused, 0x5a, 3 * MiB);
    bigmem::deallocate(reused, 3 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 6 * MiB);
    {
      ZeroedArray<uint32_t> a(MiB);  // 4 MiB: the dirty block again
      QCOMPARE(bigmem::retainedBytes(), 2 * MiB);
      QCOMPARE(a[0], uint32_t(0));
      QCOMPARE(a[MiB - 1], uint32_t(0));
      a[7] = 7;
      ZeroedArray<uint32_t> b(std::move(a));
      QVERIFY(a.empty() && a.data() == nullptr);
      QCOMPARE(b.size(), MiB);
      QCOMPARE(b[7], uint32_t(7));
    }
    QCOMPARE(bigmem::retainedBytes(), 6 * MiB);
    bigmem::releaseRetained();
  }

  // prefault faults a block in and retains it: the next allocation of that
  // size gets it with its pages already resident. Among retained blocks of
  // the same size the most recently retained is handed out first.
  void prefaultAndWarmestFirst() {
    bigmem::releaseRetained();
    const size_t MiB = size_t(1) << 20;
    bigmem::prefault(1000);  // under the threshold: nothing
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
    bigmem::prefault(3 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 4 * MiB);
    char* p = static_cast<char*>(bigmem::allocate(3 * MiB + 1));
    QCOMPARE(bigmem::retainedBytes(), size_t(0));
    std::vector<unsigned char> res(4 * MiB / 4096);
    QCOMPARE(::mincore(p, 4 * MiB, res.data()), 0);
    for (size_t k = 0; k < res.size(); ++k) QVERIFY2(res[k] & 1, qPrintable(QString("page %1 not resident").arg(k)));
    // Two blocks of one size: the later one retained comes back first.
    char* q = static_cast<char*>(bigmem::allocate(4 * MiB));
    bigmem::deallocate(p, 3 * MiB + 1);
    bigmem::deallocate(q, 4 * MiB);
    QCOMPARE(bigmem::retainedBytes(), 8 * MiB);
    char* r = static_cast<char*>(bigmem::allocate(4 * MiB));
    QCOMPARE(static_cast<void*>(r), static_cast<void*>(q));  // pointers, not C strings
    bigmem::deallocate(r, 4 * MiB);
    bigmem::releaseRetained();
  }

  // populate faults in a block's pages without changing a byte, also while
  // another thread writes the same block.
  void populateKeepsContents() {
    const size_t MiB = size_t(1) << 20, n = 6 * MiB;
    // Plain 4 KiB pages (a huge page would bring in its neighbours anyway).
    void* m = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    QVERIFY(m != MAP_FAILED);
    ::madvise(m, n, MADV_NOHUGEPAGE);
    auto* p = static_cast<unsigned char*>(m);
    // Every other 4 KiB page is written (the first half before, the second
    // half during the call); the others only populate can bring in.
    for (size_t off = 0; off < n / 2; off += 8192) p[off + 7] = static_cast<unsigned char>(off / 4096 + 1);
    std::thread writer([&] {
      for (size_t off = n / 2; off < n; off += 8192) p[off + 7] = static_cast<unsigned char>(off / 4096 + 1);
    });
    const bool ok = bigmem::populate(p, n);
    writer.join();
    if (!ok) {
      ::munmap(m, n);
      QSKIP("MADV_POPULATE_WRITE is not available on this kernel");
    }
    std::vector<unsigned char> res(n / 4096);
    QCOMPARE(::mincore(p, n, res.data()), 0);
    for (size_t k = 0; k < res.size(); ++k) {
      QVERIFY(res[k] & 1);
      QCOMPARE(int(p[k * 4096 + 7]), k % 2 ? 0 : int(static_cast<unsigned char>(k + 1)));
      QCOMPARE(int(p[k * 4096]), 0);  // untouched bytes read as zero
    }
    ::munmap(m, n);
  }

  // sortNearlySorted must give std::sort's result for any input: in order,
  // a few out of place (the fast path), just under and over a quarter out of
  // place (the fallback, taken mid-pass), reversed, all equal keys, and a few
  // sorted stretches one after another (merged as runs, up to 32 of them).
  void nearlySorted_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("disorder");  // near swaps per element; -1 reversed, -2 first moved last, >1 far swaps
    QTest::newRow("empty") << 0 << 0.0;
    QTest::newRow("one") << 1 << 0.0;
    QTest::newRow("sorted") << 1000 << 0.0;
    QTest::newRow("1%") << 5000 << 0.01;
    QTest::newRow("10%") << 5000 << 0.10;
    QTest::newRow("20%") << 5000 << 0.20;
    QTest::newRow("30%") << 5000 << 0.30;
    QTest::newRow("random") << 5000 << 2.0;  // far swaps: the fallback
    QTest::newRow("reversed") << 3000 << -1.0;
    QTest::newRow("first-last") << 1000 << -2.0;  // the smallest written last: merged to the front
    // -10 - k: the elements dealt at random into k stretches, each in order, written one after another.
    QTest::newRow("2 runs") << 5000 << -12.0;
    QTest::newRow("3 runs") << 5000 << -13.0;
    QTest::newRow("7 runs") << 4999 << -17.0;
    QTest::newRow("32 runs") << 6000 << -42.0;
    QTest::newRow("33 runs: sorted whole") << 6000 << -43.0;
  }
  void nearlySorted() {
    QFETCH(int, n);
    QFETCH(double, disorder);
    std::mt19937 rng(static_cast<unsigned>(n) * 7919u + static_cast<unsigned>(static_cast<int>(disorder * 1000 + 5)));
    struct Item {
      int key;
      int id;
    };
    Column<Item> v;
    for (int i = 0; i < n; ++i) v.push_back({i / 3, i});  // runs of equal keys
    if (disorder <= -12.0) {
      const int runs = static_cast<int>(-disorder) - 10;
      std::vector<Column<Item>> stretch(static_cast<size_t>(runs));
      std::uniform_int_distribution<int> pick(0, runs * runs - 1);  // uneven: run r takes about (2r+1)/runs² of them
      for (const Item& x : v) stretch[static_cast<size_t>(static_cast<int>(std::sqrt(pick(rng))))].push_back(x);
      v.clear();
      for (const auto& run : stretch) v.insert(v.end(), run.begin(), run.end());
    } else if (disorder == -2.0) {
      std::rotate(v.begin(), v.begin() + 1, v.end());
    } else if (disorder < 0) {
      std::reverse(v.begin(), v.end());
    } else if (disorder > 1) {
      std::uniform_int_distribution<int> pick(0, n - 1);
      for (int m = 0; m < n; ++m) std::swap(v[static_cast<size_t>(pick(rng))], v[static_cast<size_t>(pick(rng))]);
    } else if (n > 9) {
      // Near swaps (as in trace files: a parent written after its children).
      std::uniform_int_distribution<int> pick(0, n - 9), dist(1, 8);
      for (int m = 0; m < static_cast<int>(n * disorder); ++m) {
        const int p = pick(rng);
        std::swap(v[static_cast<size_t>(p)], v[static_cast<size_t>(p + dist(rng))]);
      }
    }
    Column<Item> aside;
    aside.push_back({-1, -1});  // leftovers from a previous call must not leak in
    // A total order (key, then id): the result is unique.
    auto total = [](const Item& a, const Item& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; };
    Column<Item> expect = v;
    std::sort(expect.begin(), expect.end(), total);
    Column<Item> got = v;
    sortNearlySorted(got, total, aside);
    QCOMPARE(got.size(), expect.size());
    for (size_t i = 0; i < got.size(); ++i) {
      QCOMPARE(got[i].key, expect[i].key);
      QCOMPARE(got[i].id, expect[i].id);
    }
    QVERIFY(aside.size() * 4 <= static_cast<size_t>(n) + 4);
    // By key only (ties possible): sorted by key, and a permutation of the input.
    Column<Item> byKey = v;
    sortNearlySorted(
        byKey, [](const Item& a, const Item& b) { return a.key < b.key; }, aside);
    QVERIFY(std::is_sorted(byKey.begin(), byKey.end(), [](const Item& a, const Item& b) { return a.key < b.key; }));
    std::vector<int> ids;
    for (const Item& x : byKey) ids.push_back(x.id);
    std::sort(ids.begin(), ids.end());
    for (int i = 0; i < n; ++i) QCOMPARE(ids[static_cast<size_t>(i)], i);
  }
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
  // A JsonValue owns its string, array or object: copies are deep, a move
  // leaves null, and another type's accessors give empty values.
  void jsonValueOwnsItsParts() {
    JsonValue a = JsonValue::object();
    a.set("name", "step");
    a.set("times", JsonValue::array({1.5, int64_t(2)}));
    JsonValue b = a;
    b.set("name", "other");
    JsonValue times = *b.find("times");
    times.push(JsonValue::string("x"));
    b.set("times", std::move(times));
    QCOMPARE(a.find("name")->asString(), std::string("step"));
    QCOMPARE(a.find("times")->items().size(), size_t(2));
    QCOMPARE(b.find("times")->items().size(), size_t(3));
    QVERIFY(!(a == b));
    QCOMPARE(a.dump(JsonStyle::oneLine()), std::string(R"({"name": "step", "times": [1.5, 2]})"));
    JsonValue c = std::move(b);
    QVERIFY(b.isNull());  // NOLINT(bugprone-use-after-move): a moved-from value is null
    QCOMPARE(c.find("name")->asString(), std::string("other"));
    c = a;  // assignment replaces, the old parts freed (ASan checks)
    QVERIFY(c == a);
    QCOMPARE(JsonValue(int64_t(3)).asString(), std::string());
    QVERIFY(JsonValue("s").items().empty());
    QCOMPARE(JsonValue(2.5).asInt(), int64_t(0));
    QCOMPARE(JsonValue(int64_t(2)).asDouble(), 2.0);
    QVERIFY(JsonValue(int64_t(2)) == JsonValue(2.0));
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
    for (auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
      (void)e;
      ++n;
    }
    QCOMPARE(n, 1);
    // unwritable target -> error naming the file
    auto bad = writeFileAtomic("/nonexistent-dir/x.txt", "x");
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().describe().find("/nonexistent-dir/x.txt") != std::string::npos);
    // a folder of the target's name: refused at open, before any file is made
    const std::string folder = (dir.path() + "/taken").toStdString();
    QVERIFY(std::filesystem::create_directory(folder));
    AtomicFileWriter w;
    auto taken = w.open(folder);
    QVERIFY(!taken.ok());
    QVERIFY(taken.error().describe().find("a folder has its name") != std::string::npos);
    QVERIFY(std::filesystem::is_directory(folder) && std::filesystem::is_empty(folder));
    QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()), {}), 2L);
  }
  // A target that is not a regular file (here a FIFO; /dev/null in practice)
  // is written in place: a rename over it would replace the special file.
  void atomicWriteToSpecialFile() {
    QTemporaryDir dir;
    const std::string fifo = (dir.path() + "/pipe").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    // A reader first (non-blocking), so the writer's open does not wait; the
    // text fits in the pipe's buffer.
    const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    QVERIFY(rd >= 0);
    const bool ok = writeFileAtomic(fifo, "through the pipe").ok();
    char buf[64] = {};
    const ssize_t n = ::read(rd, buf, sizeof buf);
    ::close(rd);
    QVERIFY(ok);
    QCOMPARE(QString::fromLatin1(buf, n > 0 ? int(n) : 0), QString("through the pipe"));
    struct stat st;
    QCOMPARE(::stat(fifo.c_str(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
      (void)e;
      ++files;
    }
    QCOMPARE(files, 1);  // no temporary file left beside it
  }
};

QTEST_APPLESS_MAIN(TestUtil)
#include "tst_util.moc"
