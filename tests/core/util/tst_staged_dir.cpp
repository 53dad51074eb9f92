// Tests of StagedDirectory: an output folder that appears whole or not at all (D-067).
#include "util/staged_dir.hpp"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace steadyscope;
namespace fs = std::filesystem;

namespace {
void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
std::string get(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
ino_t inode(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}
size_t staging(const fs::path& parent) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string().find(".staging-") != std::string::npos) ++n;
  return n;
}
}  // namespace

class TestStagedDir : public QObject {
  Q_OBJECT
 private slots:
  // No folder yet: nothing appears until commit, then the staging folder is renamed into place.
  void newFolderAppearsAtCommit() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "a" / "out";
    StagedDirectory d;
    QVERIFY(d.open(out.string()));
    put(fs::path(d.path()) / "chunk.json", "new");
    put(fs::path(d.path()) / "sub" / "x.json", "x");
    QVERIFY(!fs::exists(out));
    QVERIFY(d.commit("manifest.json"));
    QCOMPARE(d.way(), StagedDirectory::Way::Renamed);
    QCOMPARE(get(out / "chunk.json"), std::string("new"));
    QCOMPARE(get(out / "sub" / "x.json"), std::string("x"));
    QCOMPARE(staging(out.parent_path()), size_t(0));
  }
  // A folder with earlier files: ours replace theirs, the others stay (the same files, not
  // copies), and the folder is exchanged in one step.
  void existingFolderIsSwapped() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "out";
    put(out / "chunk.json", "old");
    put(out / "notes.txt", "the user's");
    put(out / "deep" / "keep.txt", "deep");
    const ino_t notes = inode(out / "notes.txt");
    StagedDirectory d;
    QVERIFY(d.open(out.string()));
    put(fs::path(d.path()) / "chunk.json", "new");
    QCOMPARE(get(out / "chunk.json"), std::string("old"));  // untouched until the commit
    QVERIFY(d.commit("manifest.json"));
    QCOMPARE(d.way(), StagedDirectory::Way::Swapped);
    QCOMPARE(get(out / "chunk.json"), std::string("new"));
    QCOMPARE(get(out / "notes.txt"), std::string("the user's"));
    QCOMPARE(inode(out / "notes.txt"), notes);
    QCOMPARE(get(out / "deep" / "keep.txt"), std::string("deep"));
    QCOMPARE(staging(out.parent_path()), size_t(0));
  }
  // What cannot be linked (a FIFO) makes the files go in one by one, the last file last.
  void unlinkableEntryFallsBackToFileByFile() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "out";
    put(out / "manifest.json", "old");
    QCOMPARE(::mkfifo((out / "pipe").c_str(), 0600), 0);
    StagedDirectory d;
    QVERIFY(d.open(out.string()));
    put(fs::path(d.path()) / "chunk.json", "new");
    put(fs::path(d.path()) / "manifest.json", "new");
    QVERIFY(d.commit("manifest.json"));
    QCOMPARE(d.way(), StagedDirectory::Way::FileByFile);
    QCOMPARE(get(out / "manifest.json"), std::string("new"));
    QVERIFY(fs::is_fifo(out / "pipe"));
    QCOMPARE(staging(out.parent_path()), size_t(0));
  }
  // Not committed: the staging folder goes, the target is as it was.
  void abandonedLeavesNothing() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "out";
    {
      StagedDirectory d;
      QVERIFY(d.open(out.string()));
      put(fs::path(d.path()) / "chunk.json", "new");
    }
    QVERIFY(!fs::exists(out));
    QCOMPARE(staging(out.parent_path()), size_t(0));
  }
  // A staging folder of a process that no longer runs is removed by the next write; one of a
  // running process (this one's parent) is left alone.
  void staleStagingIsRemoved() {
    QTemporaryDir tmp;
    const fs::path parent = tmp.path().toStdString();
    const std::string prefix = StagedDirectory::stagingPrefix("out");
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    QVERIFY(dead > 0);
    QCOMPARE(waitpid(dead, nullptr, 0), dead);
    put(parent / (prefix + std::to_string(dead) + "-0") / "chunk.json", "half");
    put(parent / (prefix + std::to_string(getppid()) + "-0") / "chunk.json", "busy");
    StagedDirectory d;
    QVERIFY(d.open((parent / "out").string()));
    QVERIFY(!fs::exists(parent / (prefix + std::to_string(dead) + "-0")));
    QVERIFY(fs::exists(parent / (prefix + std::to_string(getppid()) + "-0")));
  }
  // A file where the folder should be is an error naming it; nothing is made.
  void fileInTheWay() {
    QTemporaryDir tmp;
    const fs::path out = fs::path(tmp.path().toStdString()) / "out";
    put(out, "a file");
    StagedDirectory d;
    auto o = d.open(out.string());
    QVERIFY(!o);
    QVERIFY2(o.error().describe().find("out") != std::string::npos, o.error().describe().c_str());
    QCOMPARE(staging(out.parent_path()), size_t(0));
  }
};

QTEST_APPLESS_MAIN(TestStagedDir)
#include "tst_staged_dir.moc"
