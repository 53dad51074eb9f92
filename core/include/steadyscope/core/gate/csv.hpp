#pragma once
// Reading `execution_details.csv` the way the pipeline's header-keyed reader
// does (Python csv.DictReader, excel dialect): RFC-4180 quoting with the
// dialect's leniency, \n / \r\n / \r line ends, blank lines skipped, short rows
// padded with "missing", long rows' extra fields kept aside. Where Python
// would raise (undecodable UTF-8, a field over 131072 characters) the read
// fails with an Error naming the file and line; irregularities Python
// tolerates are returned as issues (file + line) so the review can report them.
#include <steadyscope/core/util/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace steadyscope::gate {

struct CsvIssue {
  uint64_t line = 0;  // 1-based physical line
  std::string message;
};

struct CsvRecord {
  uint64_t line = 0;                // physical line where the record starts
  std::vector<std::string> fields;  // as read (may be shorter/longer than the header)
};

struct CsvTable {
  std::string file;                 // path the table was read from (for messages)
  std::vector<std::string> header;  // BOM stripped from the first name
  std::vector<CsvRecord> records;   // data records (blank lines skipped)
  std::vector<CsvIssue> issues;     // tolerated irregularities
  bool hadBom = false;
  bool crlf = false;  // at least one \r\n line end

  /// Index of the column Python's DictReader would use for `name` (the last
  /// header cell with that name), or -1.
  int column(std::string_view name) const;
  /// The cell of `rec` in column `name`: nullopt when the column is absent or
  /// the record is too short (DictReader's restval None).
  std::optional<std::string> cell(const CsvRecord& rec, std::string_view name) const;
};

/// Parses CSV text; `file` is used in messages only. An empty text is an error
/// ("the file is empty"), a header without records is not.
Expected<CsvTable> parseCsv(std::string_view text, const std::string& file);

/// Reads and parses a file; never modifies it.
Expected<CsvTable> readCsvFile(const std::string& path);

/// Python float(): surrounding whitespace, sign, digits with single
/// underscores, fraction, exponent, "nan", "inf", "infinity" (any case).
/// nullopt when Python would raise ValueError.
std::optional<double> parsePyFloat(std::string_view text);

}  // namespace steadyscope::gate
