#include <steadyscope/core/gate/csv.hpp>
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace steadyscope::gate {

namespace {

constexpr size_t kFieldLimit = 131072;  // Python csv.field_size_limit() default

Error csvError(const std::string& file, uint64_t line, std::string message) {
  Error e;
  e.kind = Error::Kind::Format;
  e.file = file;
  e.line = line;
  e.message = std::move(message);
  e.code = "csv_unreadable";
  return e;
}

// Returns the 1-based line of the first invalid UTF-8 sequence, or 0.
uint64_t firstInvalidUtf8Line(std::string_view s) {
  uint64_t line = 1;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\n') ++line;
    const size_t n = decodeUtf8(s, i).second;
    if (n == 0) return line;
    i += n;
  }
  return 0;
}

enum class State { StartRecord, StartField, InField, InQuoted, QuoteInQuoted, EatCrnl };

/// The excel-dialect state machine of Python's csv reader, fed line by line
/// (universal line ends: \n, \r\n and \r all end a line). Collects the rows
/// with the line each starts on; tolerated irregularities go to the table.
class CsvReader {
 public:
  explicit CsvReader(CsvTable& t) : t_(t) {}

  /// false when a field exceeds the field limit (at line()).
  bool read(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
      ++line_;
      size_t end = pos;
      while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
      size_t next = end;
      if (next < text.size()) {
        if (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n') {
          t_.crlf = true;
          next += 2;
        } else {
          ++next;
        }
      }
      if (st_ == State::StartRecord) recordStart_ = line_;
      for (char c : text.substr(pos, next - pos))  // the line with its line end
        if (!feed(c)) return false;
      pos = next;
      endLine();
    }
    if (st_ == State::InQuoted) {
      // Python's non-strict reader keeps what it has; say so.
      t_.issues.push_back({quoteOpenLine_, "a quoted field is never closed; the rest of the file became part of it"});
      saveField();
      endRecord();
    }
    return true;
  }

  uint64_t line() const { return line_; }
  std::vector<std::vector<std::string>> rows;
  std::vector<uint64_t> rowLines;

 private:
  static bool isLineEnd(char c) { return c == '\n' || c == '\r'; }

  void saveField() {
    fields_.push_back(std::move(field_));
    field_.clear();
    fieldChars_ = 0;
  }
  bool addChar(char c) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++fieldChars_;  // count characters, not bytes
    if (fieldChars_ > kFieldLimit) return false;
    field_ += c;
    return true;
  }
  void endRecord() {
    rows.push_back(std::move(fields_));
    rowLines.push_back(recordStart_);
    fields_.clear();
  }

  bool feed(char c) {
    switch (st_) {
      case State::StartRecord:
        if (isLineEnd(c)) {
          st_ = State::EatCrnl;
          return true;
        }
        st_ = State::StartField;
        [[fallthrough]];
      case State::StartField:
        if (isLineEnd(c)) {
          saveField();
          st_ = State::EatCrnl;
        } else if (c == '"') {
          st_ = State::InQuoted;
          quoteOpenLine_ = line_;
        } else if (c == ',') {
          saveField();
        } else {
          st_ = State::InField;
          return addChar(c);
        }
        return true;
      case State::InField:
        if (isLineEnd(c) || c == ',') {
          saveField();
          st_ = c == ',' ? State::StartField : State::EatCrnl;
          return true;
        }
        if (c == '"') t_.issues.push_back({line_, "a quote character inside an unquoted field is kept literally"});
        return addChar(c);
      case State::InQuoted:
        if (c != '"') return addChar(c);
        st_ = State::QuoteInQuoted;
        return true;
      case State::QuoteInQuoted: return afterQuote(c);
      case State::EatCrnl: return true;  // only line-end characters reach here
    }
    return true;
  }

  bool afterQuote(char c) {
    if (c == '"') {
      st_ = State::InQuoted;
      return addChar(c);
    }
    if (c == ',' || isLineEnd(c)) {
      saveField();
      st_ = c == ',' ? State::StartField : State::EatCrnl;
      return true;
    }
    t_.issues.push_back({line_, "characters after a closing quote are appended to the field"});
    st_ = State::InField;
    return addChar(c);
  }

  // End of the physical line (no line end at EOF after ',' etc.).
  void endLine() {
    switch (st_) {
      case State::StartField:
      case State::InField:
      case State::QuoteInQuoted:
        saveField();
        st_ = State::StartRecord;
        break;
      case State::EatCrnl: st_ = State::StartRecord; break;
      case State::StartRecord:
      case State::InQuoted: break;
    }
    if (st_ == State::StartRecord) endRecord();
  }

  CsvTable& t_;
  State st_ = State::StartRecord;
  std::vector<std::string> fields_;
  std::string field_;
  size_t fieldChars_ = 0;
  uint64_t line_ = 0;
  uint64_t recordStart_ = 1;
  uint64_t quoteOpenLine_ = 0;
};

/// DictReader: the first row is the header (even an empty one); blank rows skipped.
void takeRecords(CsvTable& t, std::vector<std::vector<std::string>>& rows, const std::vector<uint64_t>& rowLines) {
  t.header = std::move(rows[0]);
  if (t.header.empty()) t.issues.push_back({rowLines[0], "the first line is blank, so the header has no columns"});
  for (size_t k = 0; k < t.header.size(); ++k)
    for (size_t j = 0; j < k; ++j)
      if (t.header[j] == t.header[k] && !t.header[k].empty()) {
        t.issues.push_back(
            {rowLines[0], fmt::format("column '{}' appears more than once; the last one is used", t.header[k])});
        break;
      }
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].empty()) continue;
    if (rows[r].size() != t.header.size())
      t.issues.push_back(
          {rowLines[r], fmt::format("the row has {} fields, the header {}", rows[r].size(), t.header.size())});
    t.records.push_back({rowLines[r], std::move(rows[r])});
  }
}

}  // namespace

int CsvTable::column(std::string_view name) const {
  for (size_t k = header.size(); k-- > 0;)
    if (header[k] == name) return static_cast<int>(k);
  return -1;
}

std::optional<std::string> CsvTable::cell(const CsvRecord& rec, std::string_view name) const {
  int c = column(name);
  if (c < 0 || static_cast<size_t>(c) >= rec.fields.size()) return std::nullopt;
  return rec.fields[static_cast<size_t>(c)];
}

Expected<CsvTable> parseCsv(std::string_view text, const std::string& file) {
  CsvTable t;
  t.file = file;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    t.hadBom = true;
    text.remove_prefix(3);
  }
  if (text.empty()) return csvError(file, 1, "the file is empty (no header line)");
  if (uint64_t bad = firstInvalidUtf8Line(text)) return csvError(file, bad, "the file is not valid UTF-8");
  CsvReader reader(t);
  if (!reader.read(text))
    return csvError(file, reader.line(), fmt::format("field larger than the field limit ({})", kFieldLimit));
  if (reader.rows.empty()) return csvError(file, 1, "the file is empty (no header line)");
  takeRecords(t, reader.rows, reader.rowLines);
  return t;
}

Expected<CsvTable> readCsvFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Error e;
    e.kind = Error::Kind::Io;
    e.file = path;
    e.message = std::error_code(errno, std::generic_category()).message();
    e.code = "csv_unreadable";
    return e;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    Error e;
    e.kind = Error::Kind::Io;
    e.file = path;
    e.message = "read error";
    e.code = "csv_unreadable";
    return e;
  }
  return parseCsv(ss.str(), path);
}

namespace {
bool isPySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' ||
         c == '\x1e' || c == '\x1f';
}
bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    char x = a[k];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[k]) return false;
  }
  return true;
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// digitpart: digit (["_"] digit)*; appends the digits to `out`, advances `i`.
bool digitPart(std::string_view s, size_t& i, std::string& out) {
  if (i >= s.size() || !isDigit(s[i])) return false;
  out += s[i++];
  while (i < s.size()) {
    if (isDigit(s[i]))
      out += s[i++];
    else if (s[i] == '_' && i + 1 < s.size() && isDigit(s[i + 1])) {
      out += s[i + 1];
      i += 2;
    } else
      break;
  }
  return true;
}
}  // namespace

std::optional<double> parsePyFloat(std::string_view s) {
  while (!s.empty() && isPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPySpace(s.back())) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (ieq(s, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (ieq(s, "inf") || ieq(s, "infinity"))
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  std::string clean;
  size_t i = 0;
  bool intDigits = digitPart(s, i, clean);
  bool fracDigits = false;
  if (i < s.size() && s[i] == '.') {
    clean += '.';
    ++i;
    fracDigits = digitPart(s, i, clean);
  }
  if (!intDigits && !fracDigits) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean += 'e';
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
    if (!digitPart(s, i, clean)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  double v = 0.0;
  auto res = std::from_chars(clean.data(), clean.data() + clean.size(), v);
  if (res.ec == std::errc::result_out_of_range) {
    // from_chars leaves v unchanged on range errors; Python gives inf or 0.0.
    size_t e = clean.find('e');
    bool negExp = e != std::string::npos && e + 1 < clean.size() && clean[e + 1] == '-';
    v = negExp ? 0.0 : std::numeric_limits<double>::infinity();
  } else if (res.ec != std::errc() || res.ptr != clean.data() + clean.size()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

}  // namespace steadyscope::gate
