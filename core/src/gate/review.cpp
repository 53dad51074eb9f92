#include <steadyscope/core/gate/review.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace steadyscope::gate {

namespace {

const std::array<const char*, 4> kExtensions = {"trace.json.gz", "json.gz", "trace.json", "json"};

bool matchesPattern(const std::string& name, const std::string& prefix, const std::string& ext) {
  // fnmatch("{prefix}*.{ext}"): prefix, anything (possibly empty), "." + ext.
  const std::string suffix = "." + ext;
  return name.size() >= prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string joinDir(const std::string& dir, const std::string& rel) {
  if (dir.empty()) return rel;
  return dir.back() == '/' ? dir + rel : dir + "/" + rel;
}

std::string baseName(const std::string& p) {
  auto k = p.find_last_of("/\\");
  return k == std::string::npos ? p : p.substr(k + 1);
}

std::string resolvePath(const std::string& p, const fs::path& cwd) {
  fs::path x(p);
  if (x.is_relative()) x = cwd / x;
  std::error_code ec;
  fs::path r = fs::weakly_canonical(x, ec);
  if (ec) r = x.lexically_normal();
  std::string s = r.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

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

}  // namespace

Expected<SplitListing> collectSplitChunks(const std::string& splitDir) {
  std::error_code ec;
  fs::path root(splitDir);
  if (splitDir.empty()) return ioError(splitDir, "no split directory given");
  if (!fs::exists(root, ec)) return ioError(splitDir, "no such directory");
  if (!fs::is_directory(root, ec)) return ioError(splitDir, "not a directory");
  {
    fs::directory_iterator probe(root, ec);
    if (ec) return ioError(splitDir, "cannot read the directory: " + ec.message());
  }
  SplitListing L;
  L.splitDir = splitDir;
  // found[mode][ext] = paths
  std::array<std::array<std::vector<std::string>, 4>, 4> found;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  const fs::recursive_directory_iterator end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    std::error_code ec2;
    if (e.is_directory(ec2)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();
      if (e.is_symlink(ec2)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec2)) continue;
    std::string rel = e.path().lexically_relative(root).generic_string();
    for (Mode m : kAllModes) {
      std::string prefix = modeFilePrefix(m);
      for (size_t x = 0; x < kExtensions.size(); ++x)
        if (matchesPattern(name, prefix, kExtensions[x])) found[modeIndex(m)][x].push_back(joinDir(splitDir, rel));
    }
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

Expected<GateResult> reviewSplitDirectory(const std::string& splitDir, const ReviewOptions& opt) {
  auto listing = collectSplitChunks(splitDir);
  if (!listing) return listing.error();

  std::error_code ec;
  fs::path cwd = opt.workingDirectory ? fs::path(*opt.workingDirectory) : fs::current_path(ec);
  const std::string csvPath = joinDir(splitDir, "execution_details.csv");

  GateInput in;
  in.listing = std::move(listing.value());
  in.evidence = opt.evidence;
  in.traceInput = opt.traceInput;
  in.splitReturnCode = opt.splitReturnCode;

  std::vector<Finding> dirFindings;
  std::vector<RuleEvaluation> layoutRules;
  std::vector<ChunkRow> rows;
  bool hasRatioColumn = false;

  if (!fs::exists(csvPath, ec)) {
    in.details = DetailsState::Absent;
    dirFindings.push_back(
        dirFinding("details_csv_missing", true,
                   fmt::format("{} does not exist; the pipeline passes any chunk unchecked", csvPath)));
  } else {
    auto table = readCsvFile(csvPath);
    if (!table) {
      in.details = DetailsState::Unreadable;
      in.detailsProblem = table.error().describe();
      dirFindings.push_back(dirFinding(
          "details_csv_unreadable", true,
          fmt::format("{}; the pipeline cannot read it and passes any chunk unchecked", in.detailsProblem),
          JsonValue::object(
              {{"file", csvPath},
               {"line", table.error().line ? JsonValue(static_cast<int64_t>(*table.error().line)) : JsonValue()}})));
    } else {
      const CsvTable& t = table.value();
      rows = chunkRowsFromTable(t);
      hasRatioColumn = t.column("busy_ratio") >= 0;
      if (!t.issues.empty()) {
        JsonValue list = JsonValue::array();
        for (const auto& is : t.issues) list.push(fmt::format("{} line {}: {}", csvPath, is.line, is.message));
        const auto& first = t.issues.front();
        dirFindings.push_back(dirFinding(
            "details_csv_irregular", false,
            fmt::format("{} line {}: {}{}", csvPath, first.line, first.message,
                        t.issues.size() > 1 ? fmt::format(" (and {} more irregularities)", t.issues.size() - 1)
                                            : std::string()),
            JsonValue::object({{"issues", list}})));
      }
      if (t.hadBom && !t.header.empty()) {
        static const std::set<std::string> kRead = {"output_path", "num_gpu_events", "gpu_duration",
                                                    "gpu_busy_duration", "busy_ratio"};
        if (kRead.count(t.header[0]))
          dirFindings.push_back(dirFinding(
              "details_csv_bom", true,
              fmt::format("{} line 1: the file starts with a byte-order mark, so the pipeline reads the column '{}' "
                          "under another name and does not see it",
                          csvPath, t.header[0])));
      }
      if (t.column("output_path") < 0)
        dirFindings.push_back(
            dirFinding("details_csv_no_output_path", true,
                       fmt::format("{} line 1: there is no output_path column, so no row can match a chunk", csvPath)));
    }
  }

  // Layout notes for the record.
  {
    const std::string manifest = joinDir(splitDir, "split_manifest.json");
    JsonValue i = JsonValue::object({{"split_manifest", fs::exists(manifest, ec)},
                                     {"execution_details_csv", in.details == DetailsState::Readable},
                                     {"busy_ratio_column", hasRatioColumn},
                                     {"rows", static_cast<int64_t>(rows.size())}});
    std::string s = fs::exists(manifest, ec) ? "split_manifest.json present (newest layout)"
                                             : "no split_manifest.json (Aug-2026 layout or older, or not written)";
    if (fs::exists(manifest, ec)) {
      std::ifstream mf(manifest, std::ios::binary);
      std::stringstream ss;
      ss << mf.rdbuf();
      std::string text = ss.str();
      auto k = text.find("\"aborted\"");
      if (k != std::string::npos && text.find("true", k) != std::string::npos &&
          text.find("true", k) < text.find_first_of(",}", k)) {
        s += "; the manifest says the split was aborted";
        i.set("aborted", true);
      }
    }
    s += hasRatioColumn
             ? "; execution_details.csv has a busy_ratio column"
             : (in.details == DetailsState::Readable ? "; execution_details.csv has no busy_ratio column" : "");
    for (const auto& n : in.listing.notes) s += "; " + n;
    RuleEvaluation r;
    r.rule = "layout";
    r.inputs = std::move(i);
    r.outcome = RuleOutcome::Info;
    r.sentence = s;
    layoutRules.push_back(std::move(r));
  }

  // Row matching: by resolved output_path (the pipeline), and by file name.
  std::array<std::optional<ChunkRow>, 4> byPath, byName;
  std::vector<std::string> resolvedRows(rows.size());
  for (size_t k = 0; k < rows.size(); ++k)
    if (rows[k].outputPath) resolvedRows[k] = resolvePath(*rows[k].outputPath, cwd);
  for (Mode m : kAllModes) {
    if (in.listing.count(m) == 0) continue;
    const std::string& chunk = in.listing.of(m).front();
    const std::string target = resolvePath(chunk, cwd);
    const std::string name = baseName(chunk);
    for (size_t k = 0; k < rows.size() && !byPath[modeIndex(m)]; ++k)
      if (rows[k].outputPath && resolvedRows[k] == target) byPath[modeIndex(m)] = rows[k];
    for (size_t k = 0; k < rows.size() && !byName[modeIndex(m)]; ++k)
      if (rows[k].outputPath && baseName(*rows[k].outputPath) == name) byName[modeIndex(m)] = rows[k];
  }
  in.rows = byPath;
  in.rowMatch.fill(RowMatch::ByOutputPath);

  GateResult res = evaluateGate(in, opt.gate);

  // Rows that only match by file name: what the gate says then.
  const Mode req = opt.gate.mode;
  if (in.details == DetailsState::Readable && !res.selectedChunk.empty()) {
    bool nameOnly = false;
    GateInput byNameIn = in;
    for (Mode m : kAllModes) {
      if (!byPath[modeIndex(m)] && byName[modeIndex(m)]) {
        nameOnly = true;
        byNameIn.rows[modeIndex(m)] = byName[modeIndex(m)];
        byNameIn.rowMatch[modeIndex(m)] = RowMatch::ByFileName;
      }
    }
    if (nameOnly) {
      GateOptions o = opt.gate;
      o.strict = false;
      GateResult alt = evaluateGate(byNameIn, o);
      const auto& selName = byName[modeIndex(req)];
      std::string s;
      if (!byPath[modeIndex(req)] && selName)
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
      dirFindings.push_back(dirFinding("rows_matched_by_name", true, s, std::move(d)));
      // The row findings are computed on the name-matched rows when the
      // pipeline saw none; say which rows they used.
      if (!byPath[modeIndex(req)])
        for (auto& f : alt.findings) {
          f.details.set("rows_matched_by", "file_name");
          res.findings.push_back(std::move(f));
        }
    } else if (!byPath[modeIndex(req)]) {
      dirFindings.push_back(dirFinding(
          "row_not_found", true,
          fmt::format("no row of {} names the selected chunk {}, by output_path or by file name; the pipeline "
                      "passes it unchecked",
                      csvPath, baseName(res.selectedChunk))));
    }
  }

  // Chunk files named in the details but missing on disk.
  {
    std::set<std::string> present;
    for (Mode m : kAllModes)
      for (const auto& p : in.listing.of(m)) present.insert(baseName(p));
    const std::string reqPrefix = modeFilePrefix(req);
    for (size_t k = 0; k < rows.size(); ++k) {
      if (!rows[k].outputPath || rows[k].outputPath->empty()) continue;
      const std::string name = baseName(*rows[k].outputPath);
      if (fs::exists(resolvedRows[k], ec) || present.count(name) || fs::exists(joinDir(splitDir, name), ec)) continue;
      const bool affects = name.compare(0, reqPrefix.size(), reqPrefix) == 0;
      dirFindings.push_back(dirFinding(
          "chunk_file_missing", affects,
          fmt::format("{}: the details name {} but no such file exists (neither at the resolved output_path nor in "
                      "the split directory)",
                      rows[k].where(), name),
          JsonValue::object({{"output_path", *rows[k].outputPath}})));
    }
  }

  res.record.insert(res.record.begin(), layoutRules.begin(), layoutRules.end());
  res.findings.insert(res.findings.begin(), dirFindings.begin(), dirFindings.end());
  finalizeStrict(res);
  return res;
}

}  // namespace steadyscope::gate
