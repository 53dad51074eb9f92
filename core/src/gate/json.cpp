#include <steadyscope/core/gate/json.hpp>

#include <steadyscope/core/util/pynum.hpp>

#include <cmath>
#include <cstdio>

namespace steadyscope::gate {

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

JsonValue& JsonValue::set(std::string key, JsonValue value) {
  if (type_ != Type::Object) *this = object();
  for (auto& m : obj_)
    if (m.first == key) {
      m.second = std::move(value);
      return m.second;
    }
  obj_.emplace_back(std::move(key), std::move(value));
  return obj_.back().second;
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

// Length of the valid UTF-8 sequence starting at s[i], or 0 if invalid.
size_t utf8Len(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void newline(std::string& out, int indent, int depth) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(depth), ' ');
}

}  // namespace

std::string jsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
      continue;
    }
    size_t n = utf8Len(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  out += '"';
  return out;
}

void JsonValue::dumpTo(std::string& out, int indent, int depth) const {
  switch (type_) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += b_ ? "true" : "false"; return;
    case Type::Int: out += std::to_string(i_); return;
    case Type::Real:
      if (std::isnan(d_))
        out += "NaN";
      else if (std::isinf(d_))
        out += d_ > 0 ? "Infinity" : "-Infinity";
      else
        out += pyReprDouble(d_);
      return;
    case Type::String: out += jsonQuote(s_); return;
    case Type::Array:
      if (arr_.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t k = 0; k < arr_.size(); ++k) {
        if (k) out += indent < 0 ? ", " : ",";
        if (indent >= 0) newline(out, indent, depth + 1);
        arr_[k].dumpTo(out, indent, depth + 1);
      }
      if (indent >= 0) newline(out, indent, depth);
      out += ']';
      return;
    case Type::Object:
      if (obj_.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t k = 0; k < obj_.size(); ++k) {
        if (k) out += indent < 0 ? ", " : ",";
        if (indent >= 0) newline(out, indent, depth + 1);
        out += jsonQuote(obj_[k].first);
        out += ": ";
        obj_[k].second.dumpTo(out, indent, depth + 1);
      }
      if (indent >= 0) newline(out, indent, depth);
      out += '}';
      return;
  }
}

std::string JsonValue::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

}  // namespace steadyscope::gate
