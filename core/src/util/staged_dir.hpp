#pragma once
// An output folder that appears whole or not at all (D-067): every file of a
// split or an export is written into a staging folder beside the target, and
// only when all are complete does the staging folder become the target — one
// rename when there is none yet, else one exchange (renameat2) after the
// target's other entries are hard-linked in. A cancel, an error or a kill at
// any moment leaves the previous complete folder, or none; a staging folder a
// killed process left behind is removed by the next write to the same target.
#include <steadyscope/core/util/error.hpp>

#include <optional>
#include <set>
#include <string>

namespace steadyscope {

class StagedDirectory {
 public:
  /// How commit() put the files in place.
  enum class Way { None, Renamed, Swapped, FileByFile };

  StagedDirectory() = default;
  ~StagedDirectory();  // not committed: the staging folder and all in it are removed
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  /// Makes an empty staging folder beside `target` (creating target's parent
  /// folders when missing) and removes those a killed process left for it.
  Expected<void> open(const std::string& target);
  /// Where to write: the staging folder.
  const std::string& path() const { return staging_; }
  const std::string& target() const { return target_; }

  /// Puts the staged files in place. Where the file system cannot exchange
  /// folders (or the target holds what cannot be linked), the files are
  /// renamed in one by one with `lastFile` (relative to the folder) last.
  /// A staged file whose name a folder of the target's holds (or the other
  /// way round) is an error naming it: nothing of the user's is replaced by it.
  Expected<void> commit(const std::string& lastFile);
  void abort();
  Way way() const { return way_; }

  /// The staging folder's name prefix for `target` ("." + its name + ".staging-").
  static std::string stagingPrefix(const std::string& targetName);

 private:
  Expected<void> swapInto();
  Expected<void> moveFileByFile(const std::string& lastFile);
  bool mirrorTarget(const std::string& rel, size_t& budget, std::optional<Error>& conflict);

  std::string target_;
  std::string staging_;
  std::set<std::string> mirrored_;  // entries linked in from the target (relative paths)
  Way way_ = Way::None;
};

}  // namespace steadyscope
