#include <steadyscope/core/util/pynum.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace steadyscope {

std::string pyReprDouble(double v) {
  if (std::isnan(v)) return "NaN";  // json.dumps spelling; repr() would print nan
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Python repr: shortest round-trip digits; exponent form when exp < -4 or >= 16.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci = d[.ddd]e[+-]XX
  auto epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp = std::stoi(sci.substr(epos + 1));
  bool neg = false;
  if (!mant.empty() && mant[0] == '-') {
    neg = true;
    mant.erase(0, 1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp >= 0) {
    if (static_cast<int>(digits.size()) <= exp + 1) {
      out = digits + std::string(static_cast<size_t>(exp + 1) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
    }
  } else {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  return neg ? "-" + out : out;
}

std::string pyJson(const PyNum& n) {
  if (n.isInt) return std::to_string(n.i);
  return pyReprDouble(n.d);
}

std::string formatFixed2(double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace steadyscope
