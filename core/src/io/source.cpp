#include "io/source.hpp"

#include "io/gzip_index.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <isa-l/crc.h>
#include <zlib.h>
#ifdef STEADYSCOPE_HAVE_ZSTD
#include <zstd.h>
#endif

namespace steadyscope::io {

namespace {

class MappedText final : public FileBackedText {
 public:
  MappedText(const char* base, size_t mapLen, size_t off, size_t len, int fd)
      : base_(base), mapLen_(mapLen), off_(off), len_(len), fd_(fd >= 0 ? ::dup(fd) : -1) {}
  ~MappedText() override {
    if (base_ && mapLen_) ::munmap(const_cast<char*>(base_), mapLen_);
    if (fd_ >= 0) ::close(fd_);
  }
  std::string_view text() const override { return {base_ + off_, len_}; }
  FileSpan fileSpan() const override { return {fd_, off_}; }

 private:
  const char* base_;
  size_t mapLen_;
  size_t off_;
  size_t len_;
  int fd_;
};

class StringText final : public SourceText {
 public:
  explicit StringText(std::string s) : s_(std::move(s)) {}
  std::string_view text() const override { return s_; }

 private:
  std::string s_;
};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error sysError(Error::Kind kind, const std::string& path, const std::string& what, const char* code) {
  Error e = makeError(kind, path, fmt::format("{}: {}", what, std::strerror(errno)));
  e.code = code;
  return e;
}

Error fail(Error::Kind kind, const std::string& path, std::string msg, const char* code,
           std::optional<uint64_t> off = std::nullopt) {
  Error e = makeError(kind, path, std::move(msg), off);
  e.code = code;
  return e;
}

Expected<std::shared_ptr<const SourceText>> mapFd(int fd, size_t len, const std::string& path, size_t off = 0,
                                                  size_t textLen = SIZE_MAX) {
  if (len == 0) return std::shared_ptr<const SourceText>(std::make_shared<StringText>(std::string()));
  // No MAP_POPULATE: the parser reads the text with pread (see SourceText::fd);
  // the mapping serves random access (verbatim export, args display) on demand.
  void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return sysError(Error::Kind::Io, path, "cannot map file", "mmap_failed");
  if (textLen == SIZE_MAX) textLen = len - off;
  return std::shared_ptr<const SourceText>(
      std::make_shared<MappedText>(static_cast<const char*>(p), len, off, textLen, fd));
}

/// An unlinked temporary file in the cache directory receiving decompressed text.
class TempSink {
 public:
  Expected<void> open(const std::string& dir, const std::string& srcPath) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    dir_ = dir;
    src_ = srcPath;
#ifdef O_TMPFILE
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd_ < 0) {
      std::string tmpl = dir + "/steadyscope-XXXXXX";
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back('\0');
      fd_ = ::mkstemp(buf.data());
      if (fd_ >= 0) ::unlink(buf.data());
    }
    if (fd_ < 0)
      return fail(
          Error::Kind::Io, srcPath,
          fmt::format("cannot create a temporary file in the cache directory {}: {}", dir, std::strerror(errno)),
          "cache_unwritable");
    return {};
  }
  ~TempSink() {
    if (fd_ >= 0) ::close(fd_);
  }
  Expected<void> write(const uint8_t* data, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == ENOSPC)
          return fail(
              Error::Kind::Resource, src_,
              fmt::format("not enough disk space in {} for the decompressed text ({} bytes written)", dir_, written_),
              "cache_full");
        return sysError(Error::Kind::Io, src_, "cannot write the decompressed text", "cache_write");
      }
      data += w;
      n -= static_cast<size_t>(w);
      written_ += static_cast<uint64_t>(w);
    }
    return {};
  }
  uint64_t written() const { return written_; }
  int fd() const { return fd_; }
  Expected<std::shared_ptr<const SourceText>> map() { return mapFd(fd_, written_, src_); }

 private:
  int fd_ = -1;
  uint64_t written_ = 0;
  std::string dir_, src_;
};

constexpr size_t kOutBuf = 1u << 20;

/// Inflates `in` (gzip members, or one raw deflate stream) into the sink,
/// through the project's one inflate loop (io/gzip_index.hpp).
Expected<void> inflateInto(const uint8_t* in, size_t inLen, bool gzip, TempSink& sink, const std::string& path,
                           JobControl* control, uint64_t baseOffset, uint32_t* crcOut) {
  struct ToSink final : InflateTarget {
    // A small input gets a small buffer: zeroing and faulting in 1 MiB would
    // cost more than inflating it (a 20 KB trace, a fuzzer's input).
    ToSink(TempSink& s, bool c, size_t inLen)
        : sink(s), rawCrc(c), bytes(std::clamp<size_t>(inLen * 8, 64u << 10, kOutBuf)),
          out(std::make_unique_for_overwrite<uint8_t[]>(bytes)) {}
    bool space(size_t, uint8_t*& at, size_t& room) override {
      at = out.get();
      room = bytes;
      return true;
    }
    bool produced(size_t n) override {
      if (rawCrc) crc = static_cast<uint32_t>(crc32(crc, out.get(), static_cast<uInt>(n)));
      auto r = sink.write(out.get(), n);
      if (!r) error = r.error();
      return r.ok();
    }
    TempSink& sink;
    const bool rawCrc;  // raw deflate has no CRC of its own: the zip entry's is checked by the caller
    uint32_t crc = 0;
    const size_t bytes;
    std::unique_ptr<uint8_t[]> out;
    std::optional<Error> error;
  } target(sink, !gzip, inLen);
  const IndexedInflateResult r = inflateIndexed(in, inLen, gzip, /*every=*/0, target, control, nullptr, baseOffset);
  if (target.error) return *target.error;
  if (r.failure)
    return fail(Error::Kind::Compression, path, r.failure->message, r.failure->code.c_str(), r.failure->offset);
  if (r.stopped) return fail(Error::Kind::Cancelled, path, "cancelled", "cancelled");
  if (crcOut) *crcOut = target.crc;
  return {};
}

uint16_t rd16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t rd32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
uint64_t rd64(const uint8_t* p) { return uint64_t(rd32(p)) | (uint64_t(rd32(p + 4)) << 32); }

/// A zip member's central-directory facts (64-bit: ZIP64 sizes and offsets).
struct ZipMember {
  std::string name;
  uint16_t method;
  uint32_t crc;
  uint64_t csize, usize;
  size_t dataOff;
};

/// The text of member `m`: a slice of the mapped archive when stored, else
/// inflated into a temporary file.
Expected<OpenedSource> openZipMember(const uint8_t* d, size_t n, const ZipMember& m, const std::string& path,
                                     const std::string& cacheDir, JobControl* control,
                                     std::shared_ptr<const SourceText> whole) {
  OpenedSource out;
  out.compression = "zip";
  out.fileBytes = n;
  out.memberName = m.name;
  if (m.method == 0) {
    if (crc32_z(0, d + m.dataOff, m.csize) != m.crc)
      return fail(Error::Kind::Compression, path, "zip member " + m.name + " fails its CRC check", "zip_crc",
                  m.dataOff);
    struct Slice final : FileBackedText {
      std::shared_ptr<const SourceText> whole;
      size_t off, len;
      std::string_view text() const override { return whole->text().substr(off, len); }
      FileSpan fileSpan() const override {
        const FileSpan w = fileSpanOf(*whole);
        return w.fd < 0 ? w : FileSpan{w.fd, w.offset + off};
      }
    };
    auto s = std::make_shared<Slice>();
    s->whole = whole;
    s->off = m.dataOff;
    s->len = m.csize;
    out.text = s;
    return out;
  }
  if (m.method != 8)
    return fail(Error::Kind::Compression, path,
                fmt::format("zip member {} uses compression method {} (only stored and deflate are supported)", m.name,
                            m.method),
                "zip_method");
  TempSink sink;
  if (auto r = sink.open(cacheDir, path); !r) return r.error();
  uint32_t got = 0;
  if (auto r = inflateInto(d + m.dataOff, m.csize, false, sink, path, control, m.dataOff, &got); !r) return r.error();
  if (got != m.crc || sink.written() != m.usize)
    return fail(Error::Kind::Compression, path, "zip member " + m.name + " fails its CRC/size check", "zip_crc",
                m.dataOff);
  auto mapped = sink.map();
  if (!mapped) return mapped.error();
  out.text = mapped.value();
  return out;
}

/// Where the central directory lies and how many entries it holds.
struct ZipDirectory {
  uint64_t entries, size, offset;
};

/// The end record (the last "PK\5\6" within the final 64 KiB + 22 bytes) and,
/// when a ZIP64 locator ("PK\6\7") precedes it, the ZIP64 end record it points
/// at, whose 64-bit fields replace the saturated 32-bit ones.
Expected<ZipDirectory> findZipDirectory(const uint8_t* d, size_t n, const std::string& path) {
  const size_t lo = n > 65557 ? n - 65557 : 0;
  size_t eocd = SIZE_MAX;
  for (size_t i = n >= 22 ? n - 22 : 0; i + 1 > lo && i + 4 <= n; --i) {
    if (d[i] == 'P' && d[i + 1] == 'K' && d[i + 2] == 5 && d[i + 3] == 6) {
      eocd = i;
      break;
    }
    if (i == 0) break;
  }
  if (eocd == SIZE_MAX || eocd + 22 > n)
    return fail(Error::Kind::Compression, path, "not a readable zip archive (no central directory; truncated?)",
                "zip_corrupt");
  ZipDirectory dir{rd16(d + eocd + 10), rd32(d + eocd + 12), rd32(d + eocd + 16)};
  const bool saturated = dir.entries == 0xFFFF || dir.size == 0xFFFFFFFFu || dir.offset == 0xFFFFFFFFu;
  if (eocd >= 20 && rd32(d + eocd - 20) == 0x07064b50u) {
    const uint64_t rec = rd64(d + eocd - 20 + 8);
    if (rec > n || n - rec < 56 || rd32(d + rec) != 0x06064b50u)
      return fail(Error::Kind::Compression, path, "corrupt ZIP64 end of central directory", "zip_corrupt", eocd - 20);
    dir = {rd64(d + rec + 32), rd64(d + rec + 40), rd64(d + rec + 48)};
  } else if (saturated) {
    return fail(Error::Kind::Compression, path, "ZIP64 archive without its ZIP64 end record", "zip_corrupt", eocd);
  }
  if (dir.offset > n || dir.size > n - dir.offset)
    return fail(Error::Kind::Compression, path, "zip central directory lies outside the file", "zip_corrupt", eocd);
  return dir;
}

/// A central entry's ZIP64 extra field (id 1) holds, in this order, the
/// 64-bit values of whichever of its sizes and offset are saturated.
bool applyZip64Extra(const uint8_t* extra, size_t len, ZipMember& m, uint64_t& localOff) {
  const bool needU = m.usize == 0xFFFFFFFFu, needC = m.csize == 0xFFFFFFFFu, needL = localOff == 0xFFFFFFFFu;
  if (!needU && !needC && !needL) return true;
  for (size_t i = 0; i + 4 <= len;) {
    const uint16_t id = rd16(extra + i), size = rd16(extra + i + 2);
    if (size > len - i - 4) return false;
    if (id == 1) {
      const uint8_t* q = extra + i + 4;
      size_t left = size;
      auto take = [&](uint64_t& v) {
        if (left < 8) return false;
        v = rd64(q);
        q += 8;
        left -= 8;
        return true;
      };
      return (!needU || take(m.usize)) && (!needC || take(m.csize)) && (!needL || take(localOff));
    }
    i += 4 + size;
  }
  return false;
}

Expected<OpenedSource> openZip(const uint8_t* d, size_t n, const std::string& path, const std::string& cacheDir,
                               JobControl* control, std::shared_ptr<const SourceText> whole) {
  auto dir = findZipDirectory(d, n, path);
  if (!dir) return dir.error();
  size_t p = dir.value().offset;
  for (uint64_t k = 0; k < dir.value().entries; ++k) {
    if (p > n || n - p < 46 || rd32(d + p) != 0x02014b50u)
      return fail(Error::Kind::Compression, path, "corrupt zip central directory entry", "zip_corrupt", p);
    ZipMember m{{}, rd16(d + p + 10), rd32(d + p + 16), rd32(d + p + 20), rd32(d + p + 24), 0};
    const uint16_t nameLen = rd16(d + p + 28), extraLen = rd16(d + p + 30), commentLen = rd16(d + p + 32);
    uint64_t localOff = rd32(d + p + 42);
    if (n - p - 46 < size_t(nameLen) + extraLen)
      return fail(Error::Kind::Compression, path, "corrupt zip central directory entry", "zip_corrupt", p);
    m.name.assign(reinterpret_cast<const char*>(d + p + 46), nameLen);
    if (!applyZip64Extra(d + p + 46 + nameLen, extraLen, m, localOff))
      return fail(Error::Kind::Compression, path, "zip entry " + m.name + " lacks its ZIP64 sizes", "zip_corrupt", p);
    const size_t p0 = p;
    p += 46 + size_t(nameLen) + extraLen + commentLen;
    if (m.name.size() < 5 || m.name.compare(m.name.size() - 5, 5, ".json") != 0) continue;
    if (rd16(d + p0 + 8) & 1)
      return fail(Error::Kind::Compression, path, "zip member " + m.name + " is encrypted", "zip_encrypted", p0);
    if (localOff > n || n - localOff < 30 || rd32(d + localOff) != 0x04034b50u)
      return fail(Error::Kind::Compression, path, "corrupt zip local header for member " + m.name, "zip_corrupt",
                  localOff);
    m.dataOff = localOff + 30 + rd16(d + localOff + 26) + rd16(d + localOff + 28);
    if (m.dataOff > n || m.csize > n - m.dataOff)
      return fail(Error::Kind::Compression, path, "zip member " + m.name + " is truncated", "zip_truncated",
                  m.dataOff);
    return openZipMember(d, n, m, path, cacheDir, control, whole);
  }
  return fail(Error::Kind::Format, path, "the zip archive has no member whose name ends in .json", "zip_no_json");
}

}  // namespace

FileSpan fileSpanOf(const SourceText& source) {
  const auto* file = dynamic_cast<const FileBackedText*>(&source);
  return file ? file->fileSpan() : FileSpan{};
}

std::shared_ptr<const SourceText> makeStringSource(std::string text) {
  return std::make_shared<StringText>(std::move(text));
}

std::string defaultCacheDir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/steadyscope";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/steadyscope";
  return "/tmp";
}

namespace {

/// The trace file mapped whole (checked: a readable, non-empty regular file).
Expected<std::shared_ptr<const SourceText>> mapTraceFile(const std::string& path) {
  Fd f;
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0)
    return sysError(Error::Kind::Io, path, "cannot open trace", errno == ENOENT ? "not_found" : "unreadable");
  if (S_ISDIR(sb.st_mode))
    return fail(Error::Kind::Io, path,
                "is a directory, not a trace file (to review a split directory use `steadyscope-cli gate`)",
                "is_directory");
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return sysError(Error::Kind::Io, path, "cannot open trace", "unreadable");
  if (::fstat(f.fd, &sb) != 0) return sysError(Error::Kind::Io, path, "cannot stat trace", "unreadable");
  size_t n = static_cast<size_t>(sb.st_size);
  if (n == 0) return fail(Error::Kind::Format, path, "the file is empty", "empty_file");
  return mapFd(f.fd, n, path);
}

/// gzip inflated into a temporary file (the plain path; the loader's own
/// path streams it, io/gzip_index.hpp).
Expected<OpenedSource> gunzipToTemp(const uint8_t* d, size_t n, const std::string& path, const std::string& cacheDir,
                                    JobControl* control, bool keepTruncated) {
  TempSink sink;
  if (auto r = sink.open(cacheDir, path); !r) return r.error();
  OpenedSource out;
  if (auto r = inflateInto(d, n, true, sink, path, control, 0, nullptr); !r) {
    if (!keepTruncated || r.error().code != "gzip_truncated" || sink.written() == 0) return r.error();
    out.truncation = r.error();
  }
  auto m = sink.map();
  if (!m) return m.error();
  out.fileBytes = n;
  out.text = m.value();
  out.compression = "gzip";
  return out;
}

#ifdef STEADYSCOPE_HAVE_ZSTD
/// zstd decompressed (streaming) into a temporary file.
Expected<OpenedSource> unzstdToTemp(const uint8_t* d, size_t n, const std::string& path, const std::string& cacheDir,
                                    JobControl* control) {
  OpenedSource out;
  out.fileBytes = n;
  TempSink sink;
  if (auto r = sink.open(cacheDir, path); !r) return r.error();
  ZSTD_DStream* z = ZSTD_createDStream();
  std::vector<uint8_t> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{d, n, 0};
  size_t last = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    last = ZSTD_decompressStream(z, &o, &in);
    if (ZSTD_isError(last)) {
      ZSTD_freeDStream(z);
      return fail(Error::Kind::Compression, path, std::string("corrupt zstd data: ") + ZSTD_getErrorName(last),
                  "zstd_corrupt", in.pos);
    }
    if (auto r = sink.write(buf.data(), o.pos); !r) {
      ZSTD_freeDStream(z);
      return r.error();
    }
    if (control) {
      control->setDoneBytes(in.pos);
      if (control->cancelled()) {
        ZSTD_freeDStream(z);
        return fail(Error::Kind::Cancelled, path, "cancelled", "cancelled");
      }
    }
  }
  ZSTD_freeDStream(z);
  if (last != 0) return fail(Error::Kind::Compression, path, "truncated zstd data", "zstd_truncated", n);
  auto m = sink.map();
  if (!m) return m.error();
  out.text = m.value();
  out.compression = "zstd";
  return out;
}
#endif

}  // namespace

Expected<OpenedSource> openSource(const std::string& path, const std::string& cacheDirIn, JobControl* control,
                                  bool indexGzip, bool keepTruncated) {
  std::string cacheDir = cacheDirIn.empty() ? defaultCacheDir() : cacheDirIn;
  auto mapped = mapTraceFile(path);
  if (!mapped) return mapped.error();
  auto whole = mapped.value();
  const size_t n = whole->text().size();
  const auto* d = reinterpret_cast<const uint8_t*>(whole->text().data());
  if (control) control->setTotalBytes(n);
  const bool isGzip = n >= 2 && d[0] == 0x1f && d[1] == 0x8b;
  if (isGzip && indexGzip) {
    OpenedSource out;
    out.fileBytes = n;
    out.gzip = whole;
    out.compression = "gzip";
    return out;
  }
  const bool isZip = n >= 4 && d[0] == 'P' && d[1] == 'K' && (d[2] == 3 || d[2] == 5);
  const bool isZstd = n >= 4 && d[0] == 0x28 && d[1] == 0xb5 && d[2] == 0x2f && d[3] == 0xfd;
  if (isGzip || isZip || isZstd) {
    if (control) control->setStage(1);
    if (isGzip) return gunzipToTemp(d, n, path, cacheDir, control, keepTruncated);
    if (isZip) return openZip(d, n, path, cacheDir, control, whole);
#ifdef STEADYSCOPE_HAVE_ZSTD
    return unzstdToTemp(d, n, path, cacheDir, control);
#else
    return fail(Error::Kind::Compression, path, "zstd-compressed traces need a build with libzstd", "zstd_unsupported");
#endif
  }
  OpenedSource out;
  out.fileBytes = n;
  out.text = whole;
  out.compression = "none";
  return out;
}

Expected<std::shared_ptr<const SourceText>> closedPrefix(std::string_view text, size_t cut, const std::string& cacheDir,
                                                         const std::string& path) {
  TempSink sink;
  if (auto r = sink.open(cacheDir.empty() ? defaultCacheDir() : cacheDir, path); !r) return r.error();
  static constexpr char kClose[] = "]}";
  if (auto r = sink.write(reinterpret_cast<const uint8_t*>(text.data()), std::min(cut, text.size())); !r)
    return r.error();
  if (auto r = sink.write(reinterpret_cast<const uint8_t*>(kClose), 2); !r) return r.error();
  return sink.map();
}

}  // namespace steadyscope::io
