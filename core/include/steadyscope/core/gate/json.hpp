#pragma once
// A small ordered JSON value and writer for the gate's outputs (warnings as the
// pipeline sees them, the decision record, findings). Objects keep insertion
// order, like the Python dictionaries they mirror. Reals print as Python's
// repr() (shortest round trip), integers as integers; non-finite reals print
// as Python's json.dumps does (NaN, Infinity, -Infinity).
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steadyscope::gate {

class JsonValue {
 public:
  enum class Type : uint8_t { Null, Bool, Int, Real, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;  // null
  JsonValue(std::nullptr_t) {}
  JsonValue(bool b) : type_(Type::Bool), b_(b) {}
  JsonValue(int v) : type_(Type::Int), i_(v) {}
  JsonValue(int64_t v) : type_(Type::Int), i_(v) {}
  JsonValue(double v) : type_(Type::Real), d_(v) {}
  JsonValue(const char* s) : type_(Type::String), s_(s) {}
  JsonValue(std::string s) : type_(Type::String), s_(std::move(s)) {}
  JsonValue(std::string_view s) : type_(Type::String), s_(s) {}

  static JsonValue array(std::vector<JsonValue> items = {});
  static JsonValue object(std::vector<Member> members = {});
  static JsonValue stringList(const std::vector<std::string>& items);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isNumber() const { return type_ == Type::Int || type_ == Type::Real; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }

  bool asBool() const { return b_; }
  int64_t asInt() const { return i_; }
  double asDouble() const { return type_ == Type::Int ? static_cast<double>(i_) : d_; }
  const std::string& asString() const { return s_; }
  const std::vector<JsonValue>& items() const { return arr_; }
  const std::vector<Member>& members() const { return obj_; }

  /// Python truthiness: null/false/0/""/[]/{} are false.
  bool truthy() const;

  /// Object access: the last member named `key` (Python dict semantics), or null.
  const JsonValue* find(std::string_view key) const;
  /// Sets (replacing in place) or appends a member; the value must be an object.
  JsonValue& set(std::string key, JsonValue value);
  /// Appends to an array.
  JsonValue& push(JsonValue value);

  /// Compact (`indent` < 0) or pretty (`indent` spaces) JSON text.
  std::string dump(int indent = -1) const;

  friend bool operator==(const JsonValue& a, const JsonValue& b);

 private:
  void dumpTo(std::string& out, int indent, int depth) const;

  Type type_ = Type::Null;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0.0;
  std::string s_;
  std::vector<JsonValue> arr_;
  std::vector<Member> obj_;
};

/// JSON string literal (with quotes) for `s`; invalid UTF-8 bytes become U+FFFD.
std::string jsonQuote(std::string_view s);

}  // namespace steadyscope::gate
