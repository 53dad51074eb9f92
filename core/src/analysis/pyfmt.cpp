// Python-compatible rounding, CSV formatting and CPython set order (see pyfmt.hpp).
#include "analysis/pyfmt.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace steadyscope::analysis {

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
