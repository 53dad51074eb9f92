#pragma once
// The one ordered JSON value of the project, written exactly as Python's json
// module writes the dict/list tree it mirrors. Objects keep insertion order;
// integers print as integers, reals as Python's repr() (shortest round trip;
// NaN, Infinity, -Infinity as json.dumps spells them). Every caller picks the
// output form explicitly (JsonStyle): the splitter's files are json.dump
// (indent=2, ensure_ascii), the gate's records json.dumps(ensure_ascii=False).
#include <steadyscope/core/util/pynum.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steadyscope {

/// How JsonValue::dump writes: indentation and string escaping.
struct JsonStyle {
  int indent = -1;           // spaces per level; < 0: one line with ", " and ": "
  bool ensureAscii = false;  // true: non-ASCII as \uXXXX escapes (surrogate pairs above U+FFFF)

  /// json.dump(v, f, indent=2): the splitter's manifest and execution_details.json.
  static constexpr JsonStyle pythonFile() { return {2, true}; }
  /// json.dumps(v, ensure_ascii=False): one line (the gate's warnings in text output).
  static constexpr JsonStyle oneLine() { return {-1, false}; }
  /// json.dumps(v, indent=2, ensure_ascii=False): the gate's printed records.
  static constexpr JsonStyle indented() { return {2, false}; }
};

class JsonValue {
 public:
  enum class Type : uint8_t { Null, Bool, Int, Real, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  // Implicit conversions from the scalar a member holds ...
  JsonValue() = default;  // null
  JsonValue(std::nullptr_t) {}
  JsonValue(bool b) : type_(Type::Bool) { u_.b = b; }
  JsonValue(int v) : type_(Type::Int) { u_.i = v; }
  JsonValue(int64_t v) : type_(Type::Int) { u_.i = v; }
  JsonValue(double v) : type_(Type::Real) { u_.d = v; }
  JsonValue(const char* s) : type_(Type::String) { u_.s = new std::string(s); }
  JsonValue(std::string s) : type_(Type::String) { u_.s = new std::string(std::move(s)); }
  JsonValue(std::string_view s) : type_(Type::String) { u_.s = new std::string(s); }
  JsonValue(const JsonValue& o);
  JsonValue(JsonValue&& o) noexcept : type_(o.type_), u_(o.u_) { o.type_ = Type::Null; }
  JsonValue& operator=(JsonValue o) noexcept {  // by value: copy or move, then swap
    std::swap(type_, o.type_);
    std::swap(u_, o.u_);
    return *this;
  }
  ~JsonValue();

  // ... and named factories where the type should be spelled out.
  static JsonValue null() { return JsonValue(); }
  static JsonValue boolean(bool b) { return JsonValue(b); }
  static JsonValue integer(int64_t i) { return JsonValue(i); }
  static JsonValue real(double d) { return JsonValue(d); }
  /// A Python number: an int stays an int.
  static JsonValue number(const PyNum& n) { return n.isInt ? integer(n.i) : real(n.d); }
  static JsonValue string(std::string s) { return JsonValue(std::move(s)); }
  static JsonValue array(std::vector<JsonValue> items = {});
  static JsonValue object(std::vector<Member> members = {});
  static JsonValue stringList(const std::vector<std::string>& items);

  Type type() const { return type_; }
  bool isNull() const { return type() == Type::Null; }
  bool isBool() const { return type() == Type::Bool; }
  bool isNumber() const { return type() == Type::Int || type() == Type::Real; }
  bool isString() const { return type() == Type::String; }
  bool isArray() const { return type() == Type::Array; }
  bool isObject() const { return type() == Type::Object; }

  // Of another type: false, 0, 0.0, "", [] or {}.
  bool asBool() const { return type_ == Type::Bool && u_.b; }
  int64_t asInt() const { return type_ == Type::Int ? u_.i : 0; }
  /// The number as a double (an int converted).
  double asDouble() const {
    return type_ == Type::Int ? static_cast<double>(u_.i) : type_ == Type::Real ? u_.d : 0.0;
  }
  double asReal() const { return asDouble(); }
  const std::string& asString() const;
  const std::vector<JsonValue>& items() const;
  const std::vector<Member>& members() const;

  /// Python truthiness: null/false/0/""/[]/{} are false.
  bool truthy() const;

  /// Object access: the last member named `key` (Python dict semantics), or null.
  const JsonValue* find(std::string_view key) const;
  /// Sets (replacing in place: the key keeps its first position, as in a
  /// Python dict) or appends a member; a non-object becomes an empty object first.
  JsonValue& set(std::string_view key, JsonValue value);
  /// Removes the member named `key`; false when there is none.
  bool erase(std::string_view key);
  /// Appends to an array; a non-array becomes an empty array first.
  JsonValue& push(JsonValue value);

  std::string dump(JsonStyle style) const;

  friend bool operator==(const JsonValue& a, const JsonValue& b);

 private:
  void dumpTo(std::string& out, JsonStyle style, int depth) const;

  // 16 bytes a value (a manifest holds several per root): the scalar inline,
  // a string, array or object in a block of its own that this value owns.
  Type type_ = Type::Null;
  union Payload {
    bool b;
    int64_t i;
    double d;
    std::string* s;
    std::vector<JsonValue>* arr;
    std::vector<Member>* obj;
  } u_{.i = 0};
};

/// A JSON string literal (with quotes) as Python's json module writes `s`
/// (ensureAscii: json.dumps' default). Each byte that is not valid UTF-8 is
/// written as the escape \ufffd (Python strings cannot hold such bytes).
std::string jsonQuote(std::string_view s, bool ensureAscii);

}  // namespace steadyscope
