#include "baselines.hpp"

#include "io/json_scan.hpp"
#include "io/source.hpp"

#include <steadyscope/common.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <isa-l/igzip_lib.h>
#include <simdjson.h>
#include <zlib.h>

namespace steadyscope {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

namespace {

/// Reads piece `p` into `buf` as '[' + piece + ']' (pread from `fd` when it
/// has one, as the loader does: no first touch of the file mapping).
void readPiece(std::string_view text, int fd, uint64_t fdBase, const io::Piece& p, Column<char>& buf, size_t& cap) {
  const size_t len = p.end - p.begin, need = len + 2;
  if (need > cap) {
    buf.assign(need + simdjson::SIMDJSON_PADDING, ' ');
    cap = need;
  }
  buf.data()[0] = '[';
  size_t got = 0;
  while (fd >= 0 && got < len) {
    ssize_t r = ::pread(fd, buf.data() + 1 + got, len - got, static_cast<off_t>(fdBase + p.begin + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  if (got < len) std::memcpy(buf.data() + 1 + got, text.data() + p.begin + got, len - got);
  buf.data()[len + 1] = ']';
}

/// Visits every field of every event of a piece (args' keys too, as the
/// loader reads them) and stores nothing; false when the piece does not parse.
bool walkPiece(simdjson::ondemand::parser& parser, char* bytes, size_t len, size_t capacity, uint64_t& events) {
  using namespace simdjson;
  ondemand::document doc;
  if (parser.iterate(bytes, len, capacity).get(doc)) return false;
  ondemand::array arr;
  if (doc.get_array().get(arr)) return false;
  for (auto e : arr) {
    ondemand::object o;
    if (std::move(e).get_object().get(o)) continue;
    for (auto f : o) {
      ondemand::field fld;
      if (std::move(f).get(fld)) return false;
      ondemand::raw_json_string k = fld.key();
      const char* r = k.raw();
      if (r[0] == 'a') {
        ondemand::object a;
        if (!fld.value().get_object().get(a))
          for (auto af : a) {
            ondemand::field x;
            if (std::move(af).get(x)) break;
            (void)x.key();
          }
      } else {
        (void)fld.value().raw_json_token();
      }
    }
    ++events;
  }
  return true;
}

}  // namespace

Expected<BaselineResult> baselineBareParse(const SourceText& source, unsigned threads, size_t pieceBytes) {
  auto t0 = Clock::now();
  std::string_view text = source.text();
  const io::FileSpan file = io::fileSpanOf(source);
  io::TopLevelLayout layout;
  io::ScanError err;
  if (!io::scanTopLevel(text, pieceBytes, false, layout, err))
    return makeError(Error::Kind::Format, "", err.message, err.offset);
  threads = jobThreads(threads);
  std::vector<uint64_t> counts(threads, 0);
  std::vector<char> failed(threads, 0);
  auto work = [&](unsigned t) {
    simdjson::ondemand::parser parser;
    // A reused buffer on huge pages: no fresh pages per piece.
    Column<char> buf(pieceBytes * 2 + 64 + simdjson::SIMDJSON_PADDING, ' ');
    size_t cap = buf.size() - simdjson::SIMDJSON_PADDING;
    for (size_t i = t; i < layout.pieces.size(); i += threads) {
      const auto& p = layout.pieces[i];
      readPiece(text, file.fd, file.offset, p, buf, cap);
      if (!walkPiece(parser, buf.data(), p.end - p.begin + 2, cap + simdjson::SIMDJSON_PADDING, counts[t])) {
        failed[t] = 1;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (char f : failed)
    if (f) return makeError(Error::Kind::Format, "", "baseline parse failed");
  BaselineResult r;
  r.seconds = since(t0);
  r.bytes = text.size();
  for (auto c : counts) r.events += c;
  return r;
}

Expected<BaselineResult> baselineDecompress(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(Error::Kind::Io, path, "cannot open");
  struct stat sb {};
  ::fstat(fd, &sb);
  size_t n = static_cast<size_t>(sb.st_size);
  void* p = n ? ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : nullptr;
  ::close(fd);
  if (p == MAP_FAILED) return makeError(Error::Kind::Io, path, "cannot map");
  const auto* d = static_cast<const uint8_t*>(p);
  BaselineResult r;
  if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
    std::vector<uint8_t> out(1u << 20);
    auto t0 = Clock::now();
    size_t pos = 0;
    while (pos < n) {
      inflate_state st;
      isal_inflate_init(&st);
      st.crc_flag = IGZIP_GZIP;
      st.next_in = const_cast<uint8_t*>(d + pos);
      st.avail_in = static_cast<uint32_t>(std::min<size_t>(n - pos, 1u << 30));
      size_t fed = st.avail_in;
      for (;;) {
        st.next_out = out.data();
        st.avail_out = static_cast<uint32_t>(out.size());
        int rc = isal_inflate(&st);
        r.bytes += out.size() - st.avail_out;
        if (rc < 0) {
          ::munmap(p, n);
          return makeError(Error::Kind::Compression, path, "corrupt gzip");
        }
        if (st.block_state == ISAL_BLOCK_FINISH || (st.avail_in == 0 && st.avail_out != 0)) break;
      }
      pos += fed - st.avail_in;
      if (st.block_state != ISAL_BLOCK_FINISH) break;
      while (pos < n && d[pos] == 0) ++pos;
    }
    r.seconds = since(t0);
  }
  ::munmap(p, n);
  return r;
}

MemoryFigures readMemoryFigures() {
  MemoryFigures m;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    auto grab = [&](const char* k, uint64_t& dst) {
      size_t kl = std::strlen(k);
      if (line.compare(0, kl, k) == 0) dst = std::strtoull(line.c_str() + kl, nullptr, 10) * 1024;
    };
    grab("RssAnon:", m.rssAnon);
    grab("RssFile:", m.rssFile);
    grab("VmHWM:", m.vmHwm);
  }
  return m;
}

namespace {

/// A file's bytes; a gzip file's inflated bytes (zlib reads plain files as they are).
bool readInflated(const std::string& path, std::string& out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  const bool ok = n == 0;
  gzclose(f);
  return ok;
}

/// `in` compressed at ISA-L's `level` (0 or 1) into a reused buffer; the compressed size.
uint64_t deflateAt(int level, std::string_view in, std::vector<uint8_t>& outBuf, std::vector<uint8_t>& levelBuf) {
  isal_zstream s;
  isal_deflate_init(&s);
  s.level = static_cast<uint32_t>(level);
  s.gzip_flag = IGZIP_GZIP;
  s.level_buf = levelBuf.data();
  s.level_buf_size = static_cast<uint32_t>(levelBuf.size());
  s.end_of_stream = 1;
  s.flush = NO_FLUSH;
  s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uint32_t>(in.size());
  uint64_t total = 0;
  do {
    s.next_out = outBuf.data();
    s.avail_out = static_cast<uint32_t>(outBuf.size());
    if (isal_deflate(&s) != COMP_OK) break;
    total += outBuf.size() - s.avail_out;
  } while (s.internal_state.state != ZSTATE_END);
  return total;
}

// The whole text compressed at `level` on `threads` threads, each a contiguous share; the seconds taken.
double compressShares(const std::string& all, int level, unsigned threads) {
  // Shares under 4 GiB each (ISA-L's avail_in is 32 bits).
  const size_t parts = std::max<size_t>(threads, all.size() / (size_t(1) << 31) + 1);
  const size_t share = (all.size() + parts - 1) / std::max<size_t>(parts, 1);
  auto t0 = Clock::now();
  auto work = [&](size_t first) {
    std::vector<uint8_t> out(size_t(1) << 20), levelBuf(std::max(ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT));
    for (size_t k = first; k < parts; k += threads) {
      const size_t at = std::min(all.size(), k * share);
      deflateAt(level, std::string_view(all).substr(at, std::min(share, all.size() - at)), out, levelBuf);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  return since(t0);
}

}  // namespace

Expected<BaselineResult> baselineCompress(const std::vector<std::string>& files, unsigned threads) {
  std::string all;
  for (const std::string& f : files)
    if (!readInflated(f, all)) return makeError(Error::Kind::Io, f, "cannot read the written file");
  threads = jobThreads(threads);
  // Level 0 is ISA-L's nominally fastest, yet level 1 is faster on some CPUs: the faster of the two.
  BaselineResult r{compressShares(all, 0, threads), all.size(), 0};
  if (const double one = compressShares(all, 1, threads); one < r.seconds) {
    r.seconds = one;
    r.level = 1;
  }
  return r;
}

}  // namespace steadyscope
