// Tests of the block-parallel gzip writer (io/gzip_blocks.hpp): one gzip
// stream whatever the thread count, the same bytes for any count, the text back
// through zlib, and a sink's error reported.
#include "io/gzip_blocks.hpp"

#include <QTest>

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

  void sinkErrorIsReported() {
    int writes = 0;
    io::GzipBlockWriter w(
        [&](std::string_view) -> Expected<void> {
          if (++writes == 3) return makeError(Error::Kind::Io, "out.json.gz", "No space left on device");
          return {};
        },
        2);
    Expected<void> st = {};
    for (int k = 0; k < 10 && st; ++k) st = w.add(traceLike(1 << 16, uint32_t(k)));
    if (st) st = w.finish();
    QVERIFY(!st);
    QVERIFY(st.error().message.find("No space") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestGzipBlocks)
#include "tst_gzip_blocks.moc"
