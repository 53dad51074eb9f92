#pragma once
// Python-compatible output helpers for the splitter's files:
//  * JsonValue: an ordered JSON tree written exactly like Python's
//    json.dump(obj, f, indent=2) (ensure_ascii, repr floats, no trailing newline);
//  * CsvTable: pandas DataFrame(rows).to_csv(index=False, float_format="%.2f");
//  * pyRound: Python round(x, n) on a float;
//  * CPython set iteration order for integer keys (the order the reference
//    walks a window's correlation ids, which fixes its float summation order).
#include <steadyscope/core/util/pynum.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steadyscope::analysis {

class JsonValue {
 public:
  enum class Type : uint8_t { Null, Bool, Int, Real, String, Array, Object };

  JsonValue() = default;
  static JsonValue null() { return JsonValue(); }
  static JsonValue boolean(bool b) {
    JsonValue v;
    v.type_ = Type::Bool;
    v.b_ = b;
    return v;
  }
  static JsonValue integer(int64_t i) {
    JsonValue v;
    v.type_ = Type::Int;
    v.i_ = i;
    return v;
  }
  static JsonValue real(double d) {
    JsonValue v;
    v.type_ = Type::Real;
    v.d_ = d;
    return v;
  }
  static JsonValue number(const PyNum& n) { return n.isInt ? integer(n.i) : real(n.d); }
  static JsonValue string(std::string s) {
    JsonValue v;
    v.type_ = Type::String;
    v.s_ = std::move(s);
    return v;
  }
  static JsonValue array() {
    JsonValue v;
    v.type_ = Type::Array;
    return v;
  }
  static JsonValue object() {
    JsonValue v;
    v.type_ = Type::Object;
    return v;
  }

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool asBool() const { return b_; }
  int64_t asInt() const { return i_; }
  double asReal() const { return type_ == Type::Int ? static_cast<double>(i_) : d_; }
  const std::string& asString() const { return s_; }
  const std::vector<JsonValue>& items() const { return arr_; }
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return obj_; }

  /// Array append.
  JsonValue& push(JsonValue v) {
    arr_.push_back(std::move(v));
    return arr_.back();
  }
  /// Object set: replaces the value of an existing key in place (Python dict
  /// semantics: the key keeps its first position), else appends.
  JsonValue& set(std::string_view key, JsonValue v);
  const JsonValue* find(std::string_view key) const;
  bool erase(std::string_view key);

  /// Python json.dumps(indent=...) text; indent < 0 means compact
  /// (json.dumps default separators ", " and ": ").
  std::string dump(int indent = 2) const;

 private:
  void dumpTo(std::string& out, int indent, int level) const;
  Type type_ = Type::Null;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0.0;
  std::string s_;
  std::vector<JsonValue> arr_;
  std::vector<std::pair<std::string, JsonValue>> obj_;
};

/// json.dumps of a string (ensure_ascii=True).
std::string pyJsonString(std::string_view s);

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
