// Python-compatible JSON / CSV formatting and CPython set order (see pyfmt.hpp).
#include <steadyscope/core/analysis/pyfmt.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace steadyscope::analysis {

// ---------------------------------------------------------------- JSON

JsonValue& JsonValue::set(std::string_view key, JsonValue v) {
  for (auto& [k, val] : obj_) {
    if (k == key) {
      val = std::move(v);
      return val;
    }
  }
  obj_.emplace_back(std::string(key), std::move(v));
  return obj_.back().second;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, val] : obj_)
    if (k == key) return &val;
  return nullptr;
}

bool JsonValue::erase(std::string_view key) {
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (it->first == key) {
      obj_.erase(it);
      return true;
    }
  }
  return false;
}

std::string pyJsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  auto hex4 = [&](unsigned v) {
    char b[8];
    std::snprintf(b, sizeof b, "\\u%04x", v & 0xFFFFu);
    out += b;
  };
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            if (c == 0x7f)
              out += static_cast<char>(c);
            else
              hex4(c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence (invalid bytes are written as U+FFFD).
    unsigned cp = 0xFFFD;
    size_t len = 1;
    if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
      len = 2;
    } else if ((c & 0xF0) == 0xE0 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
      len = 3;
    } else if ((c & 0xF8) == 0xF0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
      len = 4;
    }
    if (cp >= 0x10000) {
      unsigned v = cp - 0x10000;
      hex4(0xD800 + (v >> 10));
      hex4(0xDC00 + (v & 0x3FF));
    } else {
      hex4(cp);
    }
    i += len;
  }
  out += '"';
  return out;
}

void JsonValue::dumpTo(std::string& out, int indent, int level) const {
  auto newline = [&](int lvl) {
    out += '\n';
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  switch (type_) {
    case Type::Null: out += "null"; return;
    case Type::Bool: out += b_ ? "true" : "false"; return;
    case Type::Int: out += std::to_string(i_); return;
    case Type::Real: out += pyReprDouble(d_); return;
    case Type::String: out += pyJsonString(s_); return;
    case Type::Array:
      if (arr_.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t k = 0; k < arr_.size(); ++k) {
        if (k) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(level + 1);
        arr_[k].dumpTo(out, indent, level + 1);
      }
      if (indent >= 0) newline(level);
      out += ']';
      return;
    case Type::Object:
      if (obj_.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      for (size_t k = 0; k < obj_.size(); ++k) {
        if (k) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(level + 1);
        out += pyJsonString(obj_[k].first);
        out += ": ";
        obj_[k].second.dumpTo(out, indent, level + 1);
      }
      if (indent >= 0) newline(level);
      out += '}';
      return;
  }
}

std::string JsonValue::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

double pyRound(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);  // glibc: correctly rounded, half-even on exact ties
  return std::strtod(buf, nullptr);
}

// ---------------------------------------------------------------- CSV

namespace {

std::string csvQuote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += "\"\"";
    else
      out += c;
  }
  out += '"';
  return out;
}

}  // namespace

std::string formatPandasCsv(const std::vector<std::vector<std::pair<std::string, CsvCell>>>& rows) {
  std::vector<std::string> cols;
  std::unordered_map<std::string, size_t> colIndex;
  for (const auto& row : rows)
    for (const auto& [k, v] : row)
      if (colIndex.emplace(k, cols.size()).second) cols.push_back(k);
  // Column dtype: object if any string, else float if any real or missing, else int.
  enum class Kind { Int, Float, Object };
  std::vector<Kind> kind(cols.size(), Kind::Int);
  std::vector<std::vector<const CsvCell*>> grid(rows.size(), std::vector<const CsvCell*>(cols.size(), nullptr));
  for (size_t r = 0; r < rows.size(); ++r)
    for (const auto& [k, v] : rows[r]) grid[r][colIndex[k]] = &v;
  for (size_t c = 0; c < cols.size(); ++c) {
    bool anyStr = false, anyFloat = false;
    for (size_t r = 0; r < rows.size(); ++r) {
      const CsvCell* cell = grid[r][c];
      if (!cell || cell->type == CsvCell::Type::Missing || cell->type == CsvCell::Type::Real) anyFloat = true;
      if (cell && cell->type == CsvCell::Type::String) anyStr = true;
    }
    kind[c] = anyStr ? Kind::Object : anyFloat ? Kind::Float : Kind::Int;
  }
  std::string out;
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out += ',';
    out += csvQuote(cols[c]);
  }
  out += '\n';
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out += ',';
      const CsvCell* cell = grid[r][c];
      if (!cell || cell->type == CsvCell::Type::Missing) continue;
      switch (cell->type) {
        case CsvCell::Type::Int:
          out += kind[c] == Kind::Float ? formatFixed2(static_cast<double>(cell->i)) : std::to_string(cell->i);
          break;
        case CsvCell::Type::Real: out += kind[c] == Kind::Float ? formatFixed2(cell->d) : pyReprDouble(cell->d); break;
        case CsvCell::Type::String: out += csvQuote(cell->s); break;
        case CsvCell::Type::Missing: break;
      }
    }
    out += '\n';
  }
  return out;
}

// ---------------------------------------------------------------- CPython set order

int64_t cpythonIntHash(int64_t v) {
  constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;
  if (v >= 0) return static_cast<int64_t>(static_cast<uint64_t>(v) % kMod);
  uint64_t mag = static_cast<uint64_t>(-(v + 1)) + 1;  // |v| without overflow
  auto h = -static_cast<int64_t>(mag % kMod);
  return h == -1 ? -2 : h;
}

namespace {

constexpr size_t kLinearProbes = 9;
constexpr unsigned kPerturbShift = 5;

struct SetSlot {
  bool used = false;
  int64_t key = 0;
  int64_t hash = 0;
};

void insertClean(std::vector<SetSlot>& table, size_t mask, int64_t key, int64_t hash) {
  size_t perturb = static_cast<size_t>(hash);
  size_t i = static_cast<size_t>(hash) & mask;
  while (true) {
    if (!table[i].used) {
      table[i] = {true, key, hash};
      return;
    }
    if (i + kLinearProbes <= mask) {
      for (size_t j = 1; j <= kLinearProbes; ++j) {
        if (!table[i + j].used) {
          table[i + j] = {true, key, hash};
          return;
        }
      }
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + perturb) & mask;
  }
}

}  // namespace

std::vector<int64_t> cpythonSetOrder(const std::vector<int64_t>& keys) {
  std::vector<SetSlot> table(8);
  size_t mask = 7, fill = 0, used = 0;
  for (int64_t key : keys) {
    int64_t hash = cpythonIntHash(key);
    size_t perturb = static_cast<size_t>(hash);
    size_t i = static_cast<size_t>(hash) & mask;
    bool present = false;
    SetSlot* target = nullptr;
    while (!target && !present) {
      size_t probes = (i + kLinearProbes <= mask) ? kLinearProbes : 0;
      for (size_t j = 0; j <= probes; ++j) {
        SetSlot& e = table[i + j];
        if (!e.used) {
          target = &e;
          break;
        }
        if (e.hash == hash && e.key == key) {
          present = true;
          break;
        }
      }
      if (target || present) break;
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask;
    }
    if (present) continue;
    *target = {true, key, hash};
    ++fill;
    ++used;
    if (fill * 5 < mask * 3) continue;
    size_t minused = used > 50000 ? used * 2 : used * 4;
    size_t newsize = 8;
    while (newsize <= minused) newsize <<= 1;
    std::vector<SetSlot> fresh(newsize);
    for (const SetSlot& e : table)
      if (e.used) insertClean(fresh, newsize - 1, e.key, e.hash);
    table.swap(fresh);
    mask = newsize - 1;
    fill = used;
  }
  std::vector<int64_t> out;
  out.reserve(used);
  for (const SetSlot& e : table)
    if (e.used) out.push_back(e.key);
  return out;
}

}  // namespace steadyscope::analysis
