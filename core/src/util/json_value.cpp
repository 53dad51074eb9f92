// The project's JSON value and its Python-exact writer (see json_value.hpp).
#include <steadyscope/core/util/json_value.hpp>
#include <steadyscope/core/util/utf8.hpp>

#include <cmath>
#include <cstdio>

namespace steadyscope {

JsonValue JsonValue::array(std::vector<JsonValue> items) {
  JsonValue v;
  v.type_ = Type::Array;
  v.arr_ = std::move(items);
  return v;
}

JsonValue JsonValue::object(std::vector<Member> members) {
  JsonValue v;
  v.type_ = Type::Object;
  v.obj_ = std::move(members);
  return v;
}

JsonValue JsonValue::stringList(const std::vector<std::string>& items) {
  JsonValue v = array();
  for (const auto& s : items) v.arr_.emplace_back(s);
  return v;
}

bool JsonValue::truthy() const {
  switch (type_) {
    case Type::Null: return false;
    case Type::Bool: return b_;
    case Type::Int: return i_ != 0;
    case Type::Real: return d_ != 0.0;  // NaN is truthy in Python, and NaN != 0
    case Type::String: return !s_.empty();
    case Type::Array: return !arr_.empty();
    case Type::Object: return !obj_.empty();
  }
  return false;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (auto it = obj_.rbegin(); it != obj_.rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

JsonValue& JsonValue::set(std::string_view key, JsonValue value) {
  if (type_ != Type::Object) *this = object();
  for (auto& m : obj_)
    if (m.first == key) {
      m.second = std::move(value);
      return m.second;
    }
  obj_.emplace_back(std::string(key), std::move(value));
  return obj_.back().second;
}

bool JsonValue::erase(std::string_view key) {
  for (auto it = obj_.begin(); it != obj_.end(); ++it)
    if (it->first == key) {
      obj_.erase(it);
      return true;
    }
  return false;
}

JsonValue& JsonValue::push(JsonValue value) {
  if (type_ != Type::Array) *this = array();
  arr_.push_back(std::move(value));
  return arr_.back();
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  if (a.type_ != b.type_) {
    if (a.isNumber() && b.isNumber()) return a.asDouble() == b.asDouble();
    return false;
  }
  switch (a.type_) {
    case JsonValue::Type::Null: return true;
    case JsonValue::Type::Bool: return a.b_ == b.b_;
    case JsonValue::Type::Int: return a.i_ == b.i_;
    case JsonValue::Type::Real: return a.d_ == b.d_ || (std::isnan(a.d_) && std::isnan(b.d_));
    case JsonValue::Type::String: return a.s_ == b.s_;
    case JsonValue::Type::Array: return a.arr_ == b.arr_;
    case JsonValue::Type::Object: return a.obj_ == b.obj_;
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
  switch (type_) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += b_ ? "true" : "false"; return;
    case Type::Int: out += std::to_string(i_); return;
    case Type::Real: out += pyReprDouble(d_); return;
    case Type::String: out += jsonQuote(s_, style.ensureAscii); return;
    case Type::Array:
    case Type::Object: break;
  }
  const bool isObj = type_ == Type::Object;
  const size_t n = isObj ? obj_.size() : arr_.size();
  if (n == 0) {
    out += isObj ? "{}" : "[]";
    return;
  }
  out += isObj ? '{' : '[';
  for (size_t k = 0; k < n; ++k) {
    if (k) out += pretty ? "," : ", ";
    if (pretty) newline(out, style.indent, depth + 1);
    if (isObj) {
      out += jsonQuote(obj_[k].first, style.ensureAscii);
      out += ": ";
      obj_[k].second.dumpTo(out, style, depth + 1);
    } else {
      arr_[k].dumpTo(out, style, depth + 1);
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
