#pragma once
// Python-compatible output helpers for the splitter's files (the JSON ones
// are written with steadyscope::JsonValue, util/json_value.hpp, in
// JsonStyle::pythonFile()):
//  * CsvTable: pandas DataFrame(rows).to_csv(index=False, float_format="%.2f");
//  * pyRound: Python round(x, n) on a float;
//  * CPython set iteration order for integer keys (the order the reference
//    walks a window's correlation ids, which fixes its float summation order).
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/pynum.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steadyscope::analysis {

/// Python round(x, ndigits) for a float (correctly rounded, half-even on the binary value).
double pyRound(double x, int ndigits);

/// One CSV cell: missing, int, real or string.
struct CsvCell {
  enum class Type : uint8_t { Missing, Int, Real, String } type = Type::Missing;
  int64_t i = 0;
  double d = 0.0;
  std::string s;
  static CsvCell integer(int64_t v) {
    CsvCell c;
    c.type = Type::Int;
    c.i = v;
    return c;
  }
  static CsvCell real(double v) {
    CsvCell c;
    c.type = Type::Real;
    c.d = v;
    return c;
  }
  static CsvCell number(const PyNum& n) { return n.isInt ? integer(n.i) : real(n.d); }
  static CsvCell string(std::string v) {
    CsvCell c;
    c.type = Type::String;
    c.s = std::move(v);
    return c;
  }
};

/// Rows of (column, cell); columns are the union in first-appearance order.
/// Formatting follows pandas to_csv(index=False, float_format="%.2f").
std::string formatPandasCsv(const std::vector<std::vector<std::pair<std::string, CsvCell>>>& rows);

/// Iteration order of a CPython (3.x) set built by adding `keys` in order
/// (duplicates ignored). Keys are Python ints (hash = value mod 2^61-1).
/// Returns the distinct keys in the order `for k in s` yields them.
std::vector<int64_t> cpythonSetOrder(const std::vector<int64_t>& keys);

/// CPython's hash() of an int.
int64_t cpythonIntHash(int64_t v);

}  // namespace steadyscope::analysis
