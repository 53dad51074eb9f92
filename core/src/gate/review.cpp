// The review of a split directory: the pipeline's listing (§6.3) and row
// matching (§6.4), the gate, and the directory-level findings.
#include <steadyscope/core/gate/review.hpp>
#include "gate/manifest.hpp"

#include <steadyscope/core/util/paths.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <unordered_map>

namespace fs = std::filesystem;

namespace steadyscope::gate {

namespace {

Error ioError(const std::string& file, std::string message) {
  Error e;
  e.kind = Error::Kind::Io;
  e.file = file;
  e.message = std::move(message);
  e.code = "not_a_directory";
  return e;
}

Finding dirFinding(std::string code, bool affects, std::string sentence, JsonValue details = JsonValue::object()) {
  Finding f;
  f.code = std::move(code);
  f.affectsVerdict = affects;
  f.sentence = std::move(sentence);
  f.details = std::move(details);
  return f;
}

std::optional<Error> checkReadableDirectory(const std::string& splitDir) {
  std::error_code ec;
  const fs::path root(splitDir);
  if (splitDir.empty()) return ioError(splitDir, "no split directory given");
  if (!fs::exists(root, ec)) return ioError(splitDir, "no such directory");
  if (!fs::is_directory(root, ec)) return ioError(splitDir, "not a directory");
  fs::directory_iterator probe(root, ec);
  if (ec) return ioError(splitDir, "cannot read the directory: " + ec.message());
  return std::nullopt;
}

}  // namespace

Expected<SplitListing> collectSplitChunks(const std::string& splitDir) {
  if (auto e = checkReadableDirectory(splitDir)) return *e;
  const fs::path root(splitDir);
  SplitListing L;
  L.splitDir = splitDir;
  // found[mode][extension] = paths
  std::array<std::array<std::vector<std::string>, names::kChunkExtensions.size()>, 4> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  const fs::recursive_directory_iterator end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    std::error_code ec2;
    if (e.is_directory(ec2)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
      if (e.is_symlink(ec2)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec2)) continue;
    const std::string rel = e.path().lexically_relative(root).generic_string();
    for (Mode m : kAllModes)
      for (size_t x = 0; x < names::kChunkExtensions.size(); ++x)
        if (names::matchesChunkGlob(name, m, names::kChunkExtensions[x]))
          found[modeIndex(m)][x].push_back(paths::join(splitDir, rel));
  }
  if (ec) L.notes.push_back(fmt::format("the search stopped early: {}", ec.message()));
  for (Mode m : kAllModes)
    for (auto& list : found[modeIndex(m)]) {
      std::sort(list.begin(), list.end());
      auto& out = L.chunks[modeIndex(m)];
      out.insert(out.end(), list.begin(), list.end());
    }
  return L;
}

std::vector<ChunkRow> chunkRowsFromTable(const CsvTable& table) {
  CsvTable t = table;
  if (t.hadBom && !t.header.empty()) t.header[0] = "\xEF\xBB\xBF" + t.header[0];
  const bool hasRatio = t.column("busy_ratio") >= 0;
  std::vector<ChunkRow> rows;
  rows.reserve(t.records.size());
  for (const auto& rec : t.records) {
    ChunkRow r;
    r.sourceFile = t.file;
    r.sourceLine = rec.line;
    r.outputPath = t.cell(rec, "output_path");
    r.numGpuEvents = t.cell(rec, "num_gpu_events");
    r.gpuDuration = t.cell(rec, "gpu_duration");
    r.gpuBusyDuration = t.cell(rec, "gpu_busy_duration");
    r.hasBusyRatioColumn = hasRatio;
    if (hasRatio) r.busyRatio = t.cell(rec, "busy_ratio");
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

/// One review in progress: the gate's input being assembled, what the
/// directory shows, and the findings about it.
class DirectoryReview {
 public:
  DirectoryReview(const std::string& splitDir, const ReviewOptions& opt, SplitListing listing)
      : splitDir_(splitDir), opt_(opt), csvPath_(paths::join(splitDir, names::kDetailsCsvFile)) {
    std::error_code ec;
    cwd_ = opt.workingDirectory ? fs::path(*opt.workingDirectory) : fs::current_path(ec);
    in_.listing = std::move(listing);
    in_.evidence = opt.evidence;
    in_.traceInput = opt.traceInput;
    in_.splitReturnCode = opt.splitReturnCode;
  }

  GateResult run() {
    refusalFinding();
    readDetails();
    const RuleEvaluation layout = layoutRule();
    matchRows();
    hostileDirectoryFindings();
    GateResult res = evaluateGate(in_, opt_.gate);
    if (in_.details == DetailsState::Readable && !res.selectedChunk.empty()) nameMatchFindings(res);
    missingChunkFindings();
    res.record.insert(res.record.begin(), layout);
    res.findings.insert(res.findings.begin(), findings_.begin(), findings_.end());
    finalizeStrict(res);
    return res;
  }

 private:
  // ---- execution_details.csv ----

  // A refused split writes only its manifest: say why, in the manifest's words.
  // The pipeline does not read the manifest, so a broken one only costs that explanation.
  void refusalFinding() {
    const std::string path = paths::join(splitDir_, names::kManifestFile);
    std::error_code ec;
    hasManifest_ = fs::exists(path, ec);
    if (!hasManifest_) return;
    const auto facts = readManifestFacts(path);
    if (!facts) {
      const Error& e = facts.error();
      findings_.push_back(dirFinding(
          "manifest_unreadable", false, fmt::format("{}; a refusal cannot be explained from it", e.describe()),
          JsonValue::object({{"file", path},
                             {"byte", e.byteOffset ? JsonValue(static_cast<int64_t>(*e.byteOffset)) : JsonValue()}})));
      return;
    }
    if (!facts.value().aborted) return;
    aborted_ = true;
    in_.splitRefusal = refusalSentence(facts.value());
  }

  void readDetails() {
    std::error_code ec;
    if (!fs::exists(csvPath_, ec)) {
      in_.details = DetailsState::Absent;
      if (aborted_) return;  // a refused split writes no details: nothing is passed unchecked
      findings_.push_back(
          dirFinding("details_csv_missing", true,
                     fmt::format("{} does not exist; the pipeline passes any chunk unchecked", csvPath_)));
      return;
    }
    auto table = readCsvFile(csvPath_);
    if (!table) {
      in_.details = DetailsState::Unreadable;
      in_.detailsProblem = table.error().describe();
      const auto& line = table.error().line;
      findings_.push_back(
          dirFinding("details_csv_unreadable", true,
                     fmt::format("{}; the pipeline cannot read it and passes any chunk unchecked", in_.detailsProblem),
                     JsonValue::object(
                         {{"file", csvPath_}, {"line", line ? JsonValue(static_cast<int64_t>(*line)) : JsonValue()}})));
      return;
    }
    const CsvTable& t = table.value();
    rows_ = chunkRowsFromTable(t);
    hasRatioColumn_ = t.column("busy_ratio") >= 0;
    tableFindings(t);
  }

  void tableFindings(const CsvTable& t) {
    if (!t.issues.empty()) {
      JsonValue list = JsonValue::array();
      for (const auto& is : t.issues) list.push(fmt::format("{} line {}: {}", csvPath_, is.line, is.message));
      const auto& first = t.issues.front();
      findings_.push_back(
          dirFinding("details_csv_irregular", false,
                     fmt::format("{} line {}: {}{}", csvPath_, first.line, first.message,
                                 t.issues.size() > 1 ? fmt::format(" (and {} more irregularities)", t.issues.size() - 1)
                                                     : std::string()),
                     JsonValue::object({{"issues", list}})));
    }
    if (t.hadBom && !t.header.empty()) {
      static const std::set<std::string> kRead = {"output_path", "num_gpu_events", "gpu_duration", "gpu_busy_duration",
                                                  "busy_ratio"};
      if (kRead.count(t.header[0]))
        findings_.push_back(dirFinding(
            "details_csv_bom", true,
            fmt::format("{} line 1: the file starts with a byte-order mark, so the pipeline reads the column '{}' "
                        "under another name and does not see it",
                        csvPath_, t.header[0])));
    }
    if (t.column("output_path") < 0)
      findings_.push_back(
          dirFinding("details_csv_no_output_path", true,
                     fmt::format("{} line 1: there is no output_path column, so no row can match a chunk", csvPath_)));
  }

  // ---- the layout note for the record ----

  RuleEvaluation layoutRule() const {
    JsonValue i = JsonValue::object({{"split_manifest", hasManifest_},
                                     {"execution_details_csv", in_.details == DetailsState::Readable},
                                     {"busy_ratio_column", hasRatioColumn_},
                                     {"rows", static_cast<int64_t>(rows_.size())}});
    std::string s = hasManifest_ ? "split_manifest.json present (newest layout)"
                                 : "no split_manifest.json (Aug-2026 layout or older, or not written)";
    if (hasManifest_ && aborted_) {
      s += "; the manifest says the split was aborted";
      i.set("aborted", true);
    }
    s += hasRatioColumn_
             ? "; execution_details.csv has a busy_ratio column"
             : (in_.details == DetailsState::Readable ? "; execution_details.csv has no busy_ratio column" : "");
    for (const auto& n : in_.listing.notes) s += "; " + n;
    RuleEvaluation r;
    r.rule = "layout";
    r.inputs = std::move(i);
    r.outcome = RuleOutcome::Info;
    r.sentence = s;
    return r;
  }

  // ---- rows: by resolved output_path (the pipeline), and by file name ----

  void matchRows() {
    // Resolving asks the file system per path component: a CSV repeating one
    // path a million times resolves it once.
    resolvedRows_.assign(rows_.size(), std::string());
    std::unordered_map<std::string_view, std::string> resolved;
    for (size_t k = 0; k < rows_.size(); ++k) {
      if (!rows_[k].outputPath) continue;
      auto [it, fresh] = resolved.try_emplace(*rows_[k].outputPath);
      if (fresh) it->second = paths::resolve(*rows_[k].outputPath, cwd_);
      resolvedRows_[k] = it->second;
    }
    for (Mode m : kAllModes) {
      if (in_.listing.count(m) == 0) continue;
      const std::string& chunk = in_.listing.of(m).front();
      const std::string target = paths::resolve(chunk, cwd_);
      const std::string name = paths::fileName(chunk);
      auto& byPath = byPath_[modeIndex(m)];
      auto& byName = byName_[modeIndex(m)];
      for (size_t k = 0; k < rows_.size() && !byPath; ++k)
        if (rows_[k].outputPath && resolvedRows_[k] == target) byPath = rows_[k];
      for (size_t k = 0; k < rows_.size() && !byName; ++k)
        if (rows_[k].outputPath && paths::fileName(*rows_[k].outputPath) == name) byName = rows_[k];
    }
    in_.rows = byPath_;
    in_.rowMatch.fill(RowMatch::ByOutputPath);
  }

  /// Rows that only match by file name: what the gate says then.
  void nameMatchFindings(GateResult& res) {
    const Mode req = opt_.gate.mode;
    GateInput byNameIn = in_;
    bool nameOnly = false;
    for (Mode m : kAllModes)
      if (!byPath_[modeIndex(m)] && byName_[modeIndex(m)]) {
        nameOnly = true;
        byNameIn.rows[modeIndex(m)] = byName_[modeIndex(m)];
        byNameIn.rowMatch[modeIndex(m)] = RowMatch::ByFileName;
      }
    if (!nameOnly) {
      if (!byPath_[modeIndex(req)])
        findings_.push_back(dirFinding(
            "row_not_found", true,
            fmt::format("no row of {} names the selected chunk {}, by output_path or by file name; the pipeline "
                        "passes it unchecked",
                        csvPath_, paths::fileName(res.selectedChunk))));
      return;
    }
    GateOptions o = opt_.gate;
    o.strict = false;
    GateResult alt = evaluateGate(byNameIn, o);
    findings_.push_back(byNameFinding(alt));
    // The row findings are computed on the name-matched rows when the
    // pipeline saw none; say which rows they used.
    if (!byPath_[modeIndex(req)])
      for (auto& f : alt.findings) {
        f.details.set("rows_matched_by", "file_name");
        res.findings.push_back(std::move(f));
      }
  }

  Finding byNameFinding(const GateResult& alt) const {
    const Mode req = opt_.gate.mode;
    const auto& selName = byName_[modeIndex(req)];
    std::string s;
    if (!byPath_[modeIndex(req)] && selName)
      s = fmt::format(
          "no row's output_path resolves to the selected chunk (the directory was moved, or "
          "output_path is relative to another working directory: §8 B12), so the pipeline passes it "
          "unchecked; matched by file name ({}), the gate says: {}",
          selName->where(), alt.summary);
    else
      s = fmt::format(
          "some alternates' rows match only by file name (§8 B12); matched by file name, the gate "
          "says: {}",
          alt.summary);
    JsonValue d = JsonValue::object({{"by_name_accepted", alt.accepted},
                                     {"by_name_summary", alt.summary},
                                     {"by_name_non_empty_modes", JsonValue::stringList(alt.nonEmptyModes)},
                                     {"by_name_warnings", JsonValue::array(alt.warnings)},
                                     {"by_name_retry_mode", alt.retry ? JsonValue(alt.retry->toMode) : JsonValue()},
                                     {"by_name_decision_record", alt.recordJson()}});
    return dirFinding("rows_matched_by_name", true, s, std::move(d));
  }

  // ---- a directory from another machine: paths out of it, links, odd names ----

  /// What a directory from elsewhere may hold that the pipeline would follow
  /// blindly: rows naming files outside it, chunk files that are links, names
  /// with control or shell characters, far more rows than chunks. Reported,
  /// never followed: nothing outside the directory is read.
  void hostileDirectoryFindings() {
    const std::string dir = paths::resolve(splitDir_, cwd_);
    outsideRows_.assign(rows_.size(), false);
    std::vector<size_t> outside;
    for (size_t k = 0; k < rows_.size(); ++k)
      if (rows_[k].outputPath && !rows_[k].outputPath->empty() && !paths::isInside(resolvedRows_[k], dir)) {
        outsideRows_[k] = true;
        outside.push_back(k);
      }
    if (!outside.empty()) {
      const ChunkRow& first = rows_[outside.front()];
      findings_.push_back(dirFinding(
          "row_outside_directory", false,
          fmt::format("{}: output_path {} points outside the split directory{}; such files are not looked at",
                      first.where(), paths::printable(*first.outputPath),
                      outside.size() > 1 ? fmt::format(" (and {} more rows)", outside.size() - 1) : std::string()),
          JsonValue::object({{"rows", static_cast<int64_t>(outside.size())}})));
    }
    chunkFileFindings(dir);
    const size_t chunkFiles = chunkFileCount();
    if (rows_.size() > 1000 && rows_.size() > 100 * std::max<size_t>(chunkFiles, 1))
      findings_.push_back(
          dirFinding("details_csv_many_rows", false,
                     fmt::format("{} holds {} rows for {} chunk files; only rows that name a chunk are used", csvPath_,
                                 rows_.size(), chunkFiles)));
  }

  size_t chunkFileCount() const {
    size_t n = 0;
    for (Mode m : kAllModes) n += in_.listing.count(m);
    return n;
  }

  void chunkFileFindings(const std::string& dir) {
    static constexpr std::string_view kShell = "$`\\\"';&|<>*?()[]{}!~#";
    std::error_code ec;
    for (Mode m : kAllModes)
      for (const std::string& chunk : in_.listing.of(m)) {
        const std::string name = paths::fileName(chunk);
        if (fs::is_symlink(chunk, ec)) {
          const std::string target = paths::resolve(chunk, cwd_);
          const bool out = !paths::isInside(target, dir);
          findings_.push_back(
              dirFinding("chunk_is_symlink", false,
                         fmt::format("{} is a symbolic link{}; a chunk should be a file of its own",
                                     paths::printable(chunk), out ? " to a file outside the split directory" : ""),
                         JsonValue::object({{"outside", out}})));
        }
        const bool control = std::any_of(name.begin(), name.end(),
                                         [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
        if (control || name.find_first_of(kShell) != std::string::npos)
          findings_.push_back(
              dirFinding("unusual_file_name", false,
                         fmt::format("the chunk file name \"{}\" holds {} characters; quote it in any command line",
                                     paths::printable(name), control ? "control" : "shell")));
      }
  }

  /// Chunk files named in the details but missing on disk.
  void missingChunkFindings() {
    std::error_code ec;
    std::set<std::string> present;
    for (Mode m : kAllModes)
      for (const auto& p : in_.listing.of(m)) present.insert(paths::fileName(p));
    for (size_t k = 0; k < rows_.size(); ++k) {
      if (!rows_[k].outputPath || rows_[k].outputPath->empty()) continue;
      const std::string name = paths::fileName(*rows_[k].outputPath);
      if (present.count(name) || (!outsideRows_[k] && fs::exists(resolvedRows_[k], ec)) ||
          fs::exists(paths::join(splitDir_, name), ec))
        continue;
      const auto kind = names::classifyChunkFile(name);
      const bool affects = kind.kind == names::ChunkFileKind::SteadyState && kind.mode == opt_.gate.mode;
      findings_.push_back(dirFinding(
          "chunk_file_missing", affects,
          fmt::format("{}: the details name {} but no such file exists (neither at the resolved output_path nor in "
                      "the split directory)",
                      rows_[k].where(), name),
          JsonValue::object({{"output_path", *rows_[k].outputPath}})));
    }
  }

  const std::string& splitDir_;
  const ReviewOptions& opt_;
  const std::string csvPath_;
  fs::path cwd_;
  GateInput in_;
  std::vector<ChunkRow> rows_;
  std::vector<std::string> resolvedRows_;
  std::vector<bool> outsideRows_;  // output_path resolves outside the split directory
  bool hasRatioColumn_ = false;
  bool hasManifest_ = false;  // split_manifest.json exists (refusalFinding)
  bool aborted_ = false;      // the manifest says the split was refused
  std::array<std::optional<ChunkRow>, 4> byPath_, byName_;
  std::vector<Finding> findings_;  // about the directory, before the gate's own
};

}  // namespace

Expected<GateResult> reviewSplitDirectory(const std::string& splitDir, const ReviewOptions& opt) {
  auto listing = collectSplitChunks(splitDir);
  if (!listing) return listing.error();
  return DirectoryReview(splitDir, opt, std::move(listing.value())).run();
}

}  // namespace steadyscope::gate
