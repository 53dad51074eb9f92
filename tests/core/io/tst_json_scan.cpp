// Tests of the structural scans (io/json_scan.hpp over io/structural_blocks.hpp):
// the array's end, its pieces and a value's end, found 64 bytes at a time,
// against a byte-by-byte scan written here on texts whose strings, escapes
// and brackets fall on every block boundary, whole and cut short.
#include "io/json_scan.hpp"
#include "io/structural_blocks.hpp"

#include <QTest>

#include <random>
#include <string>

using namespace steadyscope;
using io::ScanError;
using io::TopLevelLayout;

namespace {

/// The end of the string opening at t[p] (one past its quote), or npos.
size_t byteStringEnd(std::string_view t, size_t p) {
  for (size_t i = p + 1; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return std::string_view::npos;
}

struct ByteScan {
  bool ok = false;
  std::vector<io::Piece> pieces;
  size_t close = 0;
  std::string code;
  uint64_t offset = 0;
};

bool isWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// exactArrayScan's contract, one byte at a time.
ByteScan byteArrayScan(std::string_view t, size_t first, size_t pieceBytes) {
  ByteScan r;
  int depth = 0;
  size_t begin = first;
  for (size_t i = first; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      const size_t e = byteStringEnd(t, i);
      if (e == std::string_view::npos) {
        r.code = "truncated_json", r.offset = i;
        return r;
      }
      i = e - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && depth-- == 0) {
      if (c == '}') {
        r.code = "bad_json", r.offset = i;
        return r;
      }
      size_t e = i;
      while (e > begin && isWs(t[e - 1])) --e;
      if (e > begin) r.pieces.push_back({begin, e});
      r.ok = true, r.close = i;
      return r;
    } else if (c == ',' && depth == 0 && i - begin >= pieceBytes) {
      r.pieces.push_back({begin, i});
      begin = io::skipWs(t, i + 1);
      i = begin - 1;
    }
  }
  r.code = "truncated_json", r.offset = t.size();
  return r;
}

/// A random string body: letters, brackets, commas, quotes and backslashes
/// escaped, runs of backslashes.
std::string randomString(std::mt19937& rng) {
  static const char* const kParts[] = {"a", "bc", "{", "}", "[", "]", ",", "\\\"", "\\\\", "\\\\\\\"", "\\n", " ", "\\u00e9"};
  std::string s = "\"";
  const int n = static_cast<int>(rng() % 40);
  for (int i = 0; i < n; ++i) s += kParts[rng() % (sizeof kParts / sizeof *kParts)];
  return s + "\"";
}

std::string randomValue(std::mt19937& rng, int depth) {
  switch (depth > 3 ? rng() % 2 : rng() % 4) {
    case 0: return randomString(rng);
    case 1: return std::to_string(rng() % 100000);
    case 2: {
      std::string o = "{";
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) o += (i ? ", " : "") + randomString(rng) + ": " + randomValue(rng, depth + 1);
      return o + "}";
    }
    default: {
      std::string a = "[";
      const int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) a += (i ? ",\n" : "") + randomValue(rng, depth + 1);
      return a + "]";
    }
  }
}

/// Events of an array (its '[' already read), its ']' and a key after it.
std::string randomArrayBody(std::mt19937& rng) {
  std::string t;
  const int events = 1 + static_cast<int>(rng() % 60);
  for (int e = 0; e < events; ++e) t += (e ? ",\n  " : "  ") + randomValue(rng, 1);
  return t + "\n], \"after\": [1, {\"x\": \"]\"}]}";
}

}  // namespace

class TestJsonScan : public QObject {
  Q_OBJECT

 private slots:
  void blockClassesAgreeWithBytes() {
    std::mt19937 rng(3);
    const char kBytes[] = "{}[],\"\\ az\x7b\x5b\xfb\xdb\x0c";
    char block[io::StructuralBlocks::kBlock];
    for (int round = 0; round < 20000; ++round) {
      for (char& c : block) c = round % 2 ? kBytes[rng() % (sizeof kBytes - 1)] : static_cast<char>(rng());
      const auto fast = io::StructuralBlocks::classify(block), bytes = io::StructuralBlocks::classifyBytes(block);
      QCOMPARE(fast.opens, bytes.opens);
      QCOMPARE(fast.closes, bytes.closes);
      QCOMPARE(fast.commas, bytes.commas);
      QCOMPARE(fast.quotes, bytes.quotes);
      QCOMPARE(fast.backslashes, bytes.backslashes);
    }
  }

  void arrayScanAgreesWithByteScan() {
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
      const std::string full = randomArrayBody(rng);
      // Cut short at a random place too: every error path, every block position.
      const std::string t = round % 3 ? full : full.substr(0, rng() % (full.size() + 1));
      const size_t first = rng() % 3 == 0 ? 0 : io::skipWs(t, 0);
      const size_t pieceBytes = 1 + rng() % 300;
      const ByteScan want = byteArrayScan(t, first, pieceBytes);
      TopLevelLayout got;
      ScanError err;
      const bool ok = io::exactArrayScan(t, first, pieceBytes, got, err);
      QCOMPARE(ok, want.ok);
      if (ok) {
        QCOMPARE(got.arrayClose, want.close);
        QCOMPARE(got.pieces.size(), want.pieces.size());
        for (size_t i = 0; i < want.pieces.size(); ++i) {
          QCOMPARE(got.pieces[i].begin, want.pieces[i].begin);
          QCOMPARE(got.pieces[i].end, want.pieces[i].end);
        }
      } else {
        QCOMPARE(QString::fromStdString(err.code), QString::fromStdString(want.code));
        QCOMPARE(err.offset, want.offset);
      }
    }
  }

  void valueEndAgreesWithByteScan() {
    std::mt19937 rng(11);
    for (int round = 0; round < 3000; ++round) {
      std::string v = randomValue(rng, 0);
      if (v[0] != '{' && v[0] != '[') v = "[" + v + "]";
      const std::string pad(rng() % 70, ' ');
      const std::string t = pad + v + ", \"next\": 1}";
      ScanError err;
      QCOMPARE(io::skipValue(t, pad.size(), err), pad.size() + v.size());
      // Cut inside the value: not closed, or a string not closed at its quote.
      const std::string cut = t.substr(0, pad.size() + rng() % v.size());
      if (cut.size() == pad.size()) continue;
      QCOMPARE(io::skipValue(cut, pad.size(), err), std::string_view::npos);
      QCOMPARE(QString::fromStdString(err.code), QString("truncated_json"));
    }
  }

  void escapesAcrossTheBlockBoundary() {
    // Byte 63 is a backslash escaping the quote at 64: the string goes on, the
    // ']' inside it is text, and the array ends at the last ']'.
    std::string t(62, ' ');
    t += "\"\\\"]\"]";
    TopLevelLayout got;
    ScanError err;
    QVERIFY(io::exactArrayScan(t, 0, 1000, got, err));
    QCOMPARE(got.arrayClose, t.size() - 1);
    // An even run of backslashes ending at byte 63 escapes nothing: the quote
    // at 64 closes the string and the next ']' is the array's.
    std::string u(59, ' ');
    u += "\"\\\\\\\\\"]  ]";
    QCOMPARE(u[64], '"');
    QVERIFY(io::exactArrayScan(u, 0, 1000, got, err));
    QCOMPARE(got.arrayClose, size_t(65));
  }

  void errorsNameTheirPlace() {
    TopLevelLayout got;
    ScanError err;
    QVERIFY(!io::exactArrayScan("{\"a\": 1}, }", 0, 100, got, err));
    QCOMPARE(QString::fromStdString(err.code), QString("bad_json"));
    QCOMPARE(err.offset, uint64_t(10));
    std::string open(100, ' ');
    open.append("{\"name\": \"cut here");
    QVERIFY(!io::exactArrayScan(open, 0, 100, got, err));
    QCOMPARE(err.offset, uint64_t(109));  // the unclosed string's quote
    QVERIFY(!io::exactArrayScan("{\"a\": [1, 2]}", 0, 100, got, err));
    QCOMPARE(err.offset, uint64_t(13));  // the end of the text
  }
};

QTEST_APPLESS_MAIN(TestJsonScan)
#include "tst_json_scan.moc"
