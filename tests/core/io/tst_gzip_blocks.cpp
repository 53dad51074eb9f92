// Tests of the block-parallel gzip writer (io/gzip_blocks.hpp): one gzip
// stream whatever the thread count, the same bytes for any count, the text back
// through zlib, and a sink's, a block's or a cancel's error reported.
#include "io/gzip_blocks.hpp"

#include <QTest>

#include <atomic>
#include <random>
#include <string>

#include <zlib.h>

using namespace steadyscope;

namespace {
// zlib's gzip reader; `members` counts the streams (a reader that stops at the
// first, as some do, would lose the rest of a multi-member file).
std::string gunzip(const std::string& z, int& members) {
  std::string out;
  members = 0;
  size_t at = 0;
  while (at < z.size()) {
    z_stream s{};
    if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) return "<init>";
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data() + at));
    s.avail_in = static_cast<uInt>(z.size() - at);
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
      s.next_out = reinterpret_cast<Bytef*>(buf);
      s.avail_out = sizeof buf;
      rc = inflate(&s, Z_NO_FLUSH);
      out.append(buf, sizeof buf - s.avail_out);
    }
    at = z.size() - s.avail_in;
    inflateEnd(&s);
    if (rc != Z_STREAM_END) return "<corrupt>";
    ++members;
  }
  return out;
}

std::string traceLike(size_t bytes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string t = "{\"traceEvents\": [";
  while (t.size() < bytes)
    t += "{\"ph\": \"X\", \"name\": \"kernel_" + std::to_string(rng() % 500) + "\", \"ts\": " + std::to_string(rng()) +
         ", \"dur\": " + std::to_string(rng() % 1000) + "}, ";
  t.resize(bytes);
  return t;
}
}  // namespace

class TestGzipBlocks : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsAsOneStream_data() {
    QTest::addColumn<qulonglong>("bytes");
    QTest::addColumn<qulonglong>("block");
    QTest::newRow("empty") << 0ull << 1024ull;
    QTest::newRow("one byte") << 1ull << 1024ull;
    QTest::newRow("a block less one") << 1023ull << 1024ull;
    QTest::newRow("one block") << 1024ull << 1024ull;
    QTest::newRow("a block and one") << 1025ull << 1024ull;
    QTest::newRow("many small blocks") << 200000ull << 4096ull;
    QTest::newRow("MiB blocks") << 5500000ull << 1048576ull;
  }
  void roundTripsAsOneStream() {
    QFETCH(qulonglong, bytes);
    QFETCH(qulonglong, block);
    const std::string text = traceLike(bytes, 7);
    const std::string one = io::gzipBlocks(text, 1, block);
    for (unsigned threads : {2u, 3u, 8u}) QVERIFY(io::gzipBlocks(text, threads, block) == one);
    int members = 0;
    QVERIFY(gunzip(one, members) == text);
    QCOMPARE(members, 1);
    if (bytes > 100000) QVERIFY(one.size() < bytes / 3);  // compressed, not stored
  }

  void incompressibleText() {
    std::mt19937 rng(3);
    std::string text(3 << 20, '\0');
    for (char& c : text) c = static_cast<char>(rng());
    const std::string z = io::gzipBlocks(text, 4, 1 << 20);
    int members = 0;
    QVERIFY(gunzip(z, members) == text);
    QCOMPARE(members, 1);
  }

  // Blocks of 64 KiB text each; block `failAt` fails to be made, write `sinkFailAt` fails.
  static Expected<void> runJob(unsigned threads, size_t failAt, int sinkFailAt, JobControl* control, int& writes) {
    io::GzipBlockJob job;
    job.blocks = 10;
    job.threads = threads;
    job.control = control;
    job.produce = [&](size_t k, unsigned worker, std::string& text) -> Expected<void> {
      if (worker >= threads) return makeError(Error::Kind::Internal, "", "worker out of range");
      if (k == failAt) return makeError(Error::Kind::Io, "trace.json.gz", "cannot re-read block " + std::to_string(k));
      text = traceLike(1 << 16, uint32_t(k));
      return {};
    };
    job.sink = [&](std::string_view) -> Expected<void> {
      if (++writes == sinkFailAt) return makeError(Error::Kind::Io, "out.json.gz", "No space left on device");
      return {};
    };
    return io::writeGzipBlocks(job);
  }

  void sinkErrorIsReported() {
    for (unsigned threads : {1u, 2u, 4u}) {
      int writes = 0;
      const Expected<void> st = runJob(threads, size_t(-1), 3, nullptr, writes);
      QVERIFY(!st);
      QVERIFY(st.error().message.find("No space") != std::string::npos);
      QCOMPARE(writes, 3);  // nothing written after the failed write
    }
  }

  void firstBlockErrorInOrderIsReported() {
    for (unsigned threads : {1u, 2u, 4u}) {
      int writes = 0;
      const Expected<void> st = runJob(threads, 4, -1, nullptr, writes);
      QVERIFY(!st);
      QCOMPARE(st.error().message, std::string("cannot re-read block 4"));
      QCOMPARE(writes, 5);  // the header and blocks 0 to 3
    }
  }

  void cancelStopsBeforeTheNextBlock() {
    JobControl control;
    control.requestCancel();
    int writes = 0;
    const Expected<void> st = runJob(2, size_t(-1), -1, &control, writes);
    QVERIFY(!st);
    QVERIFY(st.error().kind == Error::Kind::Cancelled);
    QCOMPARE(writes, 0);
  }
};

QTEST_APPLESS_MAIN(TestGzipBlocks)
#include "tst_gzip_blocks.moc"
