#include <steadyscope/core/util/sha256.hpp>

#include <cerrno>
#include <dlfcn.h>
#include <chrono>
#include <cstring>
#include <system_error>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

namespace steadyscope {

namespace {

FileIdentity identityOf(const struct stat& st) {
  FileIdentity id;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return id;
}

std::string hexOf(const unsigned char* md, unsigned n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (unsigned i = 0; i < n; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 15];
  }
  return out;
}

// libcrypto is opened on the first digest, not linked: loading it at start-up
// is a good part of a small trace's whole run, and only an export and the
// window digest their source (figures: D-077).
struct Crypto {
  decltype(&EVP_MD_CTX_new) ctxNew = nullptr;
  decltype(&EVP_MD_CTX_free) ctxFree = nullptr;
  decltype(&EVP_sha256) sha256 = nullptr;
  decltype(&EVP_DigestInit_ex) init = nullptr;
  decltype(&EVP_DigestUpdate) update = nullptr;
  decltype(&EVP_DigestFinal_ex) final = nullptr;
  std::string problem;  // why it could not be opened
};

template <typename F>
bool bind(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  return fn != nullptr;
}

const Crypto& crypto() {
  static const Crypto c = [] {
    Crypto k;
    void* lib = ::dlopen(STEADYSCOPE_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = ::dlerror();
      k.problem = fmt::format("cannot load {}: {}", STEADYSCOPE_LIBCRYPTO_SONAME, why ? why : "unknown reason");
      return k;
    }
    if (!(bind(lib, "EVP_MD_CTX_new", k.ctxNew) && bind(lib, "EVP_MD_CTX_free", k.ctxFree) &&
          bind(lib, "EVP_sha256", k.sha256) && bind(lib, "EVP_DigestInit_ex", k.init) &&
          bind(lib, "EVP_DigestUpdate", k.update) && bind(lib, "EVP_DigestFinal_ex", k.final)))
      k.problem = fmt::format("{} lacks the SHA-256 functions", STEADYSCOPE_LIBCRYPTO_SONAME);
    return k;
  }();
  return c;
}

Error cryptoError(const std::string& path, const Crypto& c) {
  return makeError(Error::Kind::Internal, path,
                   "the SHA-256 digest could not be computed (" + (c.problem.empty() ? "libcrypto" : c.problem) + ")");
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { crypto().ctxFree(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// The SHA-256, as hex, of what `feed` hands to its callback (update(data, n)).
template <typename Feed>
Expected<std::string> digest(const std::string& path, Feed&& feed) {
  const Crypto& c = crypto();
  if (!c.problem.empty()) return cryptoError(path, c);
  MdCtx ctx(c.ctxNew());
  if (!ctx || c.init(ctx.get(), c.sha256(), nullptr) != 1) return cryptoError(path, c);
  bool ok = true;
  if (auto fed = feed([&](const void* data, size_t n) { ok = ok && c.update(ctx.get(), data, n) == 1; }); !fed)
    return fed.error();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  if (!ok || c.final(ctx.get(), md, &len) != 1) return cryptoError(path, c);
  return hexOf(md, len);
}

// Hashes the open file `fd` to its end in 4 MiB blocks.
Expected<std::string> hashFd(int fd, const std::string& path, JobControl* control) {
  return digest(path, [&](auto&& update) -> Expected<void> {
    std::vector<unsigned char> buf(size_t(4) << 20);
    for (;;) {
      if (control && control->cancelled()) return makeError(Error::Kind::Cancelled, path, "digest cancelled");
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return makeError(Error::Kind::Io, path, fmt::format("cannot read file: {}", std::strerror(errno)));
      if (n == 0) return {};
      update(buf.data(), static_cast<size_t>(n));
      if (control) control->addDoneBytes(static_cast<uint64_t>(n));
    }
  });
}

}  // namespace

Expected<FileIdentity> identifyFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      Error e = makeError(Error::Kind::Io, path, "file not found");
      e.code = "not_found";
      return e;
    }
    return makeError(Error::Kind::Io, path, fmt::format("cannot read file: {}", std::strerror(errno)));
  }
  return identityOf(st);
}

std::string sha256Hex(std::string_view data) {
  auto hex = digest("", [&](auto&& update) -> Expected<void> {
    update(data.data(), data.size());
    return {};
  });
  return hex ? hex.value() : std::string();
}

Expected<FileDigest> sha256File(const std::string& path, JobControl* control) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(Error::Kind::Io, path, fmt::format("cannot open file: {}", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat before {
  }, after{};
  if (::fstat(fd, &before) != 0)
    return makeError(Error::Kind::Io, path, fmt::format("cannot read file: {}", std::strerror(errno)));
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  auto hex = hashFd(fd, path, control);
  if (!hex) return hex.error();
  if (::fstat(fd, &after) != 0 || !(identityOf(before) == identityOf(after)))
    return makeError(Error::Kind::Io, path, "the file changed while its SHA-256 was computed");
  return FileDigest{std::move(hex.value()), identityOf(before)};
}

SourceDigest::~SourceDigest() {
  control_.requestCancel();
  if (thread_.joinable()) thread_.join();
}

void SourceDigest::start(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (started_) return;
  started_ = true;
  try {
    thread_ = std::thread([this, path] {
      auto r = sha256File(path, &control_);
      std::lock_guard done(mutex_);
      result_ = std::move(r);
      done_.notify_all();
    });
  } catch (const std::system_error&) {  // no thread to be had (address space, thread limit): say so, never hang
    result_ = makeError(Error::Kind::Resource, path, "not enough memory to start the digest of this file");
  }
}

bool SourceDigest::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

std::optional<Expected<FileDigest>> SourceDigest::ready() const {
  std::lock_guard lock(mutex_);
  return result_;
}

Expected<FileDigest> SourceDigest::wait(const std::string& path, JobControl* control) {
  start(path);
  std::unique_lock lock(mutex_);
  // A short timed wait so that the caller's cancel is seen.
  while (!result_) {
    if (control && control->cancelled()) return makeError(Error::Kind::Cancelled, path, "cancelled");
    done_.wait_for(lock, std::chrono::milliseconds(20));
  }
  return *result_;
}

}  // namespace steadyscope
