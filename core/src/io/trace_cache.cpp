// The trace cache (core/io/trace_cache.hpp, D-072): lookup, the writer
// thread, the size cap. The file format is cache_codec.cpp.
#include "io/trace_cache_impl.hpp"

#include "io/source.hpp"

#include <steadyscope/core/util/paths.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <isa-l/crc64.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

namespace steadyscope {

namespace {

constexpr const char* kSuffix = ".sstrace";
constexpr int64_t kStaleTempNs = int64_t(3600) * 1000000000;  // a temporary left by a killed writer

struct Entry {
  std::string path;
  uint64_t bytes = 0;
  int64_t mtimeNs = 0;
  bool temporary = false;
};

int64_t mtimeOf(const struct stat& sb) {
  return static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
}

bool endsWith(const std::string& s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

/// The folder's entries and temporaries (other files are not ours and stay).
std::vector<Entry> listEntries(const std::string& dir) {
  std::vector<Entry> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool temp = name.starts_with('.') && name.find(std::string(kSuffix) + ".tmp-") != std::string::npos;
    if (!temp && (name.starts_with('.') || !endsWith(name, kSuffix))) continue;
    struct stat sb {};
    const std::string p = dir + "/" + name;
    if (::lstat(p.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    out.push_back({p, static_cast<uint64_t>(sb.st_size), mtimeOf(sb), temp});
  }
  ::closedir(d);
  return out;
}

int64_t nowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// A stored model's file: reopened as a first load opens it, or from the checkpoints.
Expected<std::shared_ptr<const SourceText>> reopenSource(const io::cache::StoredSource& stored, const std::string& path,
                                                         const LoadOptions& opt) {
  if (stored.gzipIndexed) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return makeError(Error::Kind::Io, path, fmt::format("cannot open trace: {}", std::strerror(errno)));
    auto src = io::makeGzipIndexedSource(fd, path, stored.textBytes, stored.checkpoints);
    ::close(fd);  // the source keeps its own descriptor
    return src;
  }
  auto opened = io::openSource(path, opt.cacheDir, opt.control, /*indexGzip=*/false);
  if (!opened) return opened.error();
  return opened->text;
}

}  // namespace

// ---- TraceCache ----

TraceCache::TraceCache(TraceCacheOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TraceCache::~TraceCache() = default;
const std::string& TraceCache::dir() const { return impl_->options.dir; }
uint64_t TraceCache::limitBytes() const { return impl_->options.limitBytes; }
void TraceCache::flush() { impl_->flush(); }
uint64_t TraceCache::usedBytes() const { return impl_->usedBytes(); }
void TraceCache::clear() { impl_->clear(); }
TraceCache::Counts TraceCache::counts() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->counts;
}
std::string TraceCache::lastProblem() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->lastProblem;
}

// ---- Impl ----

TraceCache::Impl::Impl(TraceCacheOptions o) : options(std::move(o)) {
  if (options.dir.empty()) options.dir = io::defaultCacheDir() + "/traces";
}

TraceCache::Impl::~Impl() {
  {
    std::unique_lock<std::mutex> lock(mutex);
    stopping = true;
  }
  changed.notify_all();
  if (writer.joinable()) writer.join();
}

std::string TraceCache::Impl::entryPath(const std::string& canonicalPath) const {
  const auto crc = crc64_ecma_refl(0, reinterpret_cast<const unsigned char*>(canonicalPath.data()),
                                   canonicalPath.size());
  return fmt::format("{}/{:016x}{}", options.dir, crc, kSuffix);
}

void TraceCache::Impl::reject(const std::string& entry, const Error& why) {
  ::unlink(entry.c_str());
  std::lock_guard<std::mutex> lock(mutex);
  ++counts.rejected;
  lastProblem = why.describe();
}

TraceCache::Impl::Lookup TraceCache::Impl::find(const std::string& path, const LoadOptions& opt) {
  Lookup out;
  if (options.limitBytes == 0) return out;
  auto key = io::cache::keyOf(path);
  if (!key) return out;  // not a regular file (the load says what it is)
  out.key = key.value();
  const std::string entry = entryPath(key->path);
  const int fd = ::open(entry.c_str(), O_RDONLY | O_CLOEXEC);
  auto miss = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    ++counts.misses;
    return out;
  };
  if (fd < 0) return miss();
  auto model = io::cache::readModel(fd, entry, *key, opt.threads);
  if (model) ::futimens(fd, nullptr);  // most recently used
  ::close(fd);
  if (!model) {
    reject(entry, model.error());
    return miss();
  }
  auto trace = reopen(std::move(model.value()), path, *key, opt);
  if (!trace) {
    reject(entry, trace.error());
    return miss();
  }
  out.hit = trace.value();
  std::lock_guard<std::mutex> lock(mutex);
  ++counts.hits;
  return out;
}

Expected<TracePtr> TraceCache::Impl::reopen(io::cache::ReadModel model, const std::string& path,
                                           const io::cache::SourceKey& key, const LoadOptions& opt) {
  auto source = reopenSource(model.source, path, opt);
  if (!source) return source.error();
  if (source.value()->size() != model.source.textBytes)
    return makeError(Error::Kind::Io, path, "the stored model's text size differs from the file's");
  // The file may have changed between its key and its opening: then the key no longer holds.
  auto now = io::cache::keyOf(path);
  if (!now || !(now.value() == key)) return makeError(Error::Kind::Io, path, "the file changed while it was opened");
  Trace& t = *model.trace;
  t.path = path;
  t.baseName = referenceBaseName(path);
  t.source = std::move(source.value());
  t.fromCache = true;
  return TracePtr(std::move(model.trace));
}

void TraceCache::Impl::store(TracePtr trace, io::cache::SourceKey key) {
  if (!trace || trace->partial || options.limitBytes == 0) return;
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return queue.size() < 2 || stopping; });
  if (stopping) return;
  if (!writer.joinable()) {
    try {
      writer = std::thread([this] { writeLoop(); });
    } catch (const std::system_error&) {
      lastProblem = "no thread to write the trace cache";
      return;
    }
  }
  queue.emplace_back(std::move(trace), std::move(key));
  changed.notify_all();
}

void TraceCache::Impl::flush() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return (queue.empty() && !writing) || !writer.joinable(); });
}

void TraceCache::Impl::writeLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    changed.wait(lock, [&] { return !queue.empty() || stopping; });
    if (queue.empty()) return;  // stopping, nothing left
    auto [trace, key] = std::move(queue.front());
    queue.pop_front();
    writing = true;
    lock.unlock();
    changed.notify_all();
    try {
      write(*trace, key);
    } catch (const std::bad_alloc&) {
      std::lock_guard<std::mutex> relock(mutex);
      lastProblem = "not enough memory to write the trace cache";
    }
    trace.reset();  // the model goes as soon as it is written
    lock.lock();
    writing = false;
    changed.notify_all();
  }
}

void TraceCache::Impl::write(const Trace& trace, const io::cache::SourceKey& key) {
  auto problem = [&](std::string what) {
    std::lock_guard<std::mutex> lock(mutex);
    lastProblem = std::move(what);
  };
  if (paths::makeDirs(options.dir, 0700) != 0) return problem(fmt::format("{}: cannot create the folder", options.dir));
  const std::string entry = entryPath(key.path);
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::string temp = fmt::format("{}/.{}.tmp-{:016x}", options.dir, entry.substr(options.dir.size() + 1), rng());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return problem(fmt::format("{}: cannot create: {}", temp, std::strerror(errno)));
  auto written = io::cache::writeModel(fd, temp, trace, key);
  const bool closed = ::close(fd) == 0;
  // No fsync: a file cut by a crash fails its size or checksum check and is written again.
  if (!written || !closed || ::rename(temp.c_str(), entry.c_str()) != 0) {
    ::unlink(temp.c_str());
    return problem(written ? fmt::format("{}: cannot write: {}", temp, std::strerror(errno))
                           : written.error().describe());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++counts.written;
  }
  evict();
}

void TraceCache::Impl::evict() {
  std::vector<Entry> entries = listEntries(options.dir);
  const int64_t now = nowNs();
  uint64_t used = 0;
  uint64_t evicted = 0;
  std::erase_if(entries, [&](const Entry& e) {
    if (!e.temporary) return false;
    if (now - e.mtimeNs > kStaleTempNs) ::unlink(e.path.c_str());
    return true;  // a temporary being written by another process is not ours to count
  });
  for (const Entry& e : entries) used += e.bytes;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.mtimeNs < b.mtimeNs; });
  for (const Entry& e : entries) {
    if (used <= options.limitBytes) break;
    if (::unlink(e.path.c_str()) == 0) ++evicted;
    used -= e.bytes;
  }
  std::lock_guard<std::mutex> lock(mutex);
  counts.evicted += evicted;
}

uint64_t TraceCache::Impl::usedBytes() const {
  uint64_t used = 0;
  for (const Entry& e : listEntries(options.dir))
    if (!e.temporary) used += e.bytes;
  return used;
}

void TraceCache::Impl::clear() {
  flush();
  for (const Entry& e : listEntries(options.dir))
    if (!e.temporary) ::unlink(e.path.c_str());
}

}  // namespace steadyscope
