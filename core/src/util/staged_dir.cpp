#include "util/staged_dir.hpp"

#include <steadyscope/core/util/paths.hpp>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace steadyscope {

namespace fs = std::filesystem;

namespace {

// A target tree with more entries than this is not mirrored (an export into a
// big folder of the user's): its files go in one by one instead.
constexpr size_t kMirrorBudget = 10000;

Error ioError(const std::string& path, const std::string& what, int err) {
  return makeError(Error::Kind::Io, path, fmt::format("{}: {}", what, std::strerror(err)));
}

bool exists(const std::string& path, struct stat& st) { return ::lstat(path.c_str(), &st) == 0; }

void removeTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void syncFolder(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The staging folders a process that no longer runs left for this target.
void removeStale(const std::string& parent, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent.empty() ? "." : parent, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && pid != long(::getpid()) && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) removeTree(e.path());
  }
}

// The current folder lies in `dir` or is it: swapping it would leave the shell in a removed folder.
bool holdsWorkingFolder(const std::string& dir) {
  std::error_code ec;
  const auto cwd = fs::current_path(ec);
  return !ec && paths::isInside(cwd.string(), dir);
}

int makeFolders(const std::string& path) {
  if (path.empty()) return 0;
  std::error_code ec;
  fs::create_directories(path, ec);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return ec ? ec.value() : ENOTDIR;
  return 0;
}

// After the exchange, `old` holds the previous folder: what the new one also has (linked
// or replaced) goes; anything else (made while the files were staged) moves over.
void retirePrevious(const std::string& old, const std::string& now) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(old, ec)) {
    const std::string name = e.path().filename().string();
    const std::string from = paths::join(old, name), to = paths::join(now, name);
    struct stat s {}, d {};
    if (::lstat(from.c_str(), &s) != 0) continue;
    const bool there = ::lstat(to.c_str(), &d) == 0;
    if (S_ISDIR(s.st_mode) && there && S_ISDIR(d.st_mode))
      retirePrevious(from, to);
    else if (!there)
      ::rename(from.c_str(), to.c_str());
  }
  removeTree(old);
}

}  // namespace

std::string StagedDirectory::stagingPrefix(const std::string& targetName) { return "." + targetName + ".staging-"; }

StagedDirectory::~StagedDirectory() { abort(); }

void StagedDirectory::abort() {
  if (!staging_.empty()) removeTree(staging_);
  staging_.clear();
}

Expected<void> StagedDirectory::open(const std::string& target) {
  abort();
  way_ = Way::None;
  mirrored_.clear();
  // The real folder, so that the staging folder lies beside it (".", "out/", a symlink).
  target_ = paths::resolve(target, fs::current_path());
  struct stat st {};
  if (exists(target_, st) && !S_ISDIR(st.st_mode))
    return makeError(Error::Kind::Io, target, "cannot write the output folder: a file has its name");
  const fs::path t(target_);
  const std::string parent = t.parent_path().string(), name = t.filename().string();
  if (int e = makeFolders(parent)) return ioError(parent, "cannot create the folder", e);
  removeStale(parent, stagingPrefix(name));
  static std::atomic<unsigned> serial{0};  // several writers of one process (a many-rank split)
  staging_ = paths::join(parent, fmt::format("{}{}-{}", stagingPrefix(name), ::getpid(), serial++));
  if (::mkdir(staging_.c_str(), 0777) != 0) {
    const int e = errno;
    staging_.clear();
    return ioError(target, "cannot create the output folder", e);
  }
  return {};
}

Expected<void> StagedDirectory::commit(const std::string& lastFile) {
  if (staging_.empty()) return makeError(Error::Kind::Io, target_, "nothing staged");
  syncFolder(staging_);
  struct stat st {};
  if (!exists(target_, st)) {
    if (::rename(staging_.c_str(), target_.c_str()) == 0) {
      staging_.clear();
      way_ = Way::Renamed;
      syncFolder(fs::path(target_).parent_path().string());
      return {};
    }
    if (errno != EEXIST && errno != ENOTEMPTY) return ioError(target_, "cannot put the output folder in place", errno);
  }
  if (!holdsWorkingFolder(target_))
    if (auto s = swapInto(); !s || way_ == Way::Swapped) return s;
  return moveFileByFile(lastFile);
}

// Links the target's entries the staging folder lacks into it, then exchanges the two folders.
// Returns with way_ unchanged when the exchange cannot be made (the caller moves files instead).
Expected<void> StagedDirectory::swapInto() {
  size_t budget = kMirrorBudget;
  std::optional<Error> conflict;
  if (!mirrorTarget("", budget, conflict)) return conflict ? Expected<void>(*conflict) : Expected<void>();
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) ::chmod(staging_.c_str(), st.st_mode & 07777);
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0) return {};
  retirePrevious(staging_, target_);  // the staging name now holds the previous folder
  staging_.clear();
  way_ = Way::Swapped;
  syncFolder(fs::path(target_).parent_path().string());
  return {};
}

// Mirrors target/rel into staging/rel by hard links (folders made, symlinks copied); false
// when an entry cannot be mirrored or the tree is too big.
bool StagedDirectory::mirrorTarget(const std::string& rel, size_t& budget, std::optional<Error>& conflict) {
  std::error_code ec;
  const std::string from = rel.empty() ? target_ : paths::join(target_, rel);
  for (const auto& e : fs::directory_iterator(from, ec)) {
    if (budget-- == 0) return false;
    const std::string name = e.path().filename().string();
    if (rel.empty() && name.starts_with(".") && name.find(".staging-") != std::string::npos) continue;
    const std::string r = rel.empty() ? name : paths::join(rel, name);
    const std::string src = paths::join(target_, r), dst = paths::join(staging_, r);
    struct stat s {}, d {};
    if (::lstat(src.c_str(), &s) != 0) return false;
    const bool staged = ::lstat(dst.c_str(), &d) == 0;
    if (staged && S_ISDIR(s.st_mode) != S_ISDIR(d.st_mode)) {
      conflict = makeError(Error::Kind::Io, src,
                           S_ISDIR(s.st_mode) ? "cannot write the file: a folder has its name"
                                              : "cannot make the folder: a file has its name");
      return false;
    }
    if (S_ISDIR(s.st_mode)) {
      if (!staged && ::mkdir(dst.c_str(), s.st_mode & 07777) != 0) return false;
      if (!mirrorTarget(r, budget, conflict)) return false;
    } else if (!staged) {
      if (S_ISREG(s.st_mode)) {
        if (::link(src.c_str(), dst.c_str()) != 0) return false;
      } else if (S_ISLNK(s.st_mode)) {
        std::error_code le;
        fs::copy_symlink(src, dst, le);
        if (le) return false;
      } else {
        return false;  // a FIFO, socket or device: not ours to move
      }
      mirrored_.insert(r);
    }
  }
  return !ec;
}

// The fallback: each staged file renamed over its target, `lastFile` last.
Expected<void> StagedDirectory::moveFileByFile(const std::string& lastFile) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(staging_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory()) continue;
    const std::string r = fs::relative(it->path(), staging_).string();
    if (!mirrored_.count(r) && r != lastFile) files.push_back(r);
  }
  if (ec) return ioError(staging_, "cannot read the staging folder", ec.value());
  if (!lastFile.empty() && fs::exists(paths::join(staging_, lastFile))) files.push_back(lastFile);
  for (const std::string& r : files)  // before any rename: a folder in the way fails the whole write
    if (fs::is_directory(paths::join(target_, r), ec))
      return makeError(Error::Kind::Io, paths::join(target_, r), "cannot write the file: a folder has its name");
  for (const std::string& r : files) {
    const std::string dst = paths::join(target_, r);
    if (int e = makeFolders(fs::path(dst).parent_path().string())) return ioError(dst, "cannot create the folder", e);
    if (::rename(paths::join(staging_, r).c_str(), dst.c_str()) != 0) return ioError(dst, "cannot put in place", errno);
  }
  syncFolder(target_);
  abort();
  way_ = Way::FileByFile;
  return {};
}

}  // namespace steadyscope
