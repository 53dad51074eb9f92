// The project's JSON value and its Python-exact writer (see json_value.hpp).
#include <steadyscope/core/util/json_value.hpp>
#include "util/utf8.hpp"

#include <cmath>
#include <cstdio>

namespace steadyscope {

static_assert(sizeof(JsonValue) <= 16, "a JsonValue is a tag and one word: manifests hold several per root");

JsonValue::JsonValue(const JsonValue& o) : type_(o.type_), u_(o.u_) {
  switch (type_) {
    case Type::String: u_.s = new std::string(*o.u_.s); break;
    case Type::Array: u_.arr = new std::vector<JsonValue>(*o.u_.arr); break;
    case Type::Object: u_.obj = new std::vector<Member>(*o.u_.obj); break;
    default: break;
  }
}

JsonValue::~JsonValue() {
  switch (type_) {
    case Type::String: delete u_.s; break;
    case Type::Array: delete u_.arr; break;
    case Type::Object: delete u_.obj; break;
    default: break;
  }
}

JsonValue JsonValue::array(std::vector<JsonValue> items) {
  JsonValue v;
  v.u_.arr = new std::vector<JsonValue>(std::move(items));
  v.type_ = Type::Array;
  return v;
}

JsonValue JsonValue::object(std::vector<Member> members) {
  JsonValue v;
  v.u_.obj = new std::vector<Member>(std::move(members));
  v.type_ = Type::Object;
  return v;
}

JsonValue JsonValue::stringList(const std::vector<std::string>& items) {
  std::vector<JsonValue> v;
  v.reserve(items.size());
  for (const auto& s : items) v.emplace_back(s);
  return array(std::move(v));
}

const std::string& JsonValue::asString() const {
  static const std::string none;
  return type_ == Type::String ? *u_.s : none;
}

const std::vector<JsonValue>& JsonValue::items() const {
  static const std::vector<JsonValue> none;
  return type_ == Type::Array ? *u_.arr : none;
}

const std::vector<JsonValue::Member>& JsonValue::members() const {
  static const std::vector<Member> none;
  return type_ == Type::Object ? *u_.obj : none;
}

bool JsonValue::truthy() const {
  switch (type()) {
    case Type::Null: return false;
    case Type::Bool: return asBool();
    case Type::Int: return asInt() != 0;
    case Type::Real: return asDouble() != 0.0;  // NaN is truthy in Python, and NaN != 0
    case Type::String: return !asString().empty();
    case Type::Array: return !items().empty();
    case Type::Object: return !members().empty();
  }
  return false;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  const std::vector<Member>& obj = members();
  for (auto it = obj.rbegin(); it != obj.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

JsonValue& JsonValue::set(std::string_view key, JsonValue value) {
  if (!isObject()) *this = object();
  auto& obj = *u_.obj;
  for (auto& m : obj)
    if (m.first == key) {
      m.second = std::move(value);
      return m.second;
    }
  obj.emplace_back(std::string(key), std::move(value));
  return obj.back().second;
}

bool JsonValue::erase(std::string_view key) {
  if (type_ != Type::Object) return false;
  auto* obj = u_.obj;
  for (auto it = obj->begin(); it != obj->end(); ++it)
    if (it->first == key) {
      obj->erase(it);
      return true;
    }
  return false;
}

JsonValue& JsonValue::push(JsonValue value) {
  if (!isArray()) *this = array();
  auto& arr = *u_.arr;
  arr.push_back(std::move(value));
  return arr.back();
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  if (a.type() != b.type()) {
    if (a.isNumber() && b.isNumber()) return a.asDouble() == b.asDouble();
    return false;
  }
  switch (a.type()) {
    case JsonValue::Type::Null: return true;
    case JsonValue::Type::Bool: return a.asBool() == b.asBool();
    case JsonValue::Type::Int: return a.asInt() == b.asInt();
    case JsonValue::Type::Real: {
      const double x = a.asDouble(), y = b.asDouble();
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case JsonValue::Type::String: return a.asString() == b.asString();
    case JsonValue::Type::Array: return a.items() == b.items();
    case JsonValue::Type::Object: return a.members() == b.members();
  }
  return false;
}

namespace {

void appendHex4(std::string& out, uint32_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(v & 0xFFFFu));
  out += buf;
}

// The escapes json's encoders use for ASCII; false for a plain character.
// DEL is escaped by the ensure_ascii encoder only (as in CPython).
bool appendAsciiEscape(std::string& out, unsigned char c, bool ensureAscii) {
  switch (c) {
    case '"': out += "\\\""; return true;
    case '\\': out += "\\\\"; return true;
    case '\n': out += "\\n"; return true;
    case '\r': out += "\\r"; return true;
    case '\t': out += "\\t"; return true;
    case '\b': out += "\\b"; return true;
    case '\f': out += "\\f"; return true;
    default: break;
  }
  if (c < 0x20 || (c == 0x7F && ensureAscii)) {
    appendHex4(out, c);
    return true;
  }
  return false;
}

void newline(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

}  // namespace

std::string jsonQuote(std::string_view s, bool ensureAscii) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (!appendAsciiEscape(out, c, ensureAscii)) out += static_cast<char>(c);
      ++i;
      continue;
    }
    const auto [cp, n] = decodeUtf8(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (!ensureAscii) {
      out.append(s.substr(i, n));
    } else if (cp >= 0x10000) {
      appendHex4(out, 0xD800 + ((cp - 0x10000) >> 10));
      appendHex4(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      appendHex4(out, cp);
    }
    i += n;
  }
  out += '"';
  return out;
}

void JsonValue::dumpTo(std::string& out, JsonStyle style, int depth) const {
  const bool pretty = style.indent >= 0;
  switch (type()) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += asBool() ? "true" : "false"; return;
    case Type::Int: out += std::to_string(asInt()); return;
    case Type::Real: out += pyReprDouble(asDouble()); return;
    case Type::String: out += jsonQuote(asString(), style.ensureAscii); return;
    case Type::Array:
    case Type::Object: break;
  }
  const bool isObj = isObject();
  const std::vector<Member>& obj = members();
  const std::vector<JsonValue>& arr = items();
  const size_t n = isObj ? obj.size() : arr.size();
  if (n == 0) {
    out += isObj ? "{}" : "[]";
    return;
  }
  out += isObj ? '{' : '[';
  for (size_t k = 0; k < n; ++k) {
    if (k) out += pretty ? "," : ", ";
    if (pretty) newline(out, style.indent, depth + 1);
    if (isObj) {
      out += jsonQuote(obj[k].first, style.ensureAscii);
      out += ": ";
      obj[k].second.dumpTo(out, style, depth + 1);
    } else {
      arr[k].dumpTo(out, style, depth + 1);
    }
  }
  if (pretty) newline(out, style.indent, depth);
  out += isObj ? '}' : ']';
}

std::string JsonValue::dump(JsonStyle style) const {
  std::string out;
  dumpTo(out, style, 0);
  return out;
}

}  // namespace steadyscope
