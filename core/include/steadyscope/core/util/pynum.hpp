#pragma once
// Python-semantics numbers for bit-exact parity with the reference splitter:
// a JSON integer stays an integer (exact int64 arithmetic) and a JSON real is
// an IEEE double; int (op) real promotes to real exactly as CPython does
// (the int is rounded to the nearest double first).
#include <cstdint>
#include <string>

namespace steadyscope {

struct PyNum {
  bool isInt = true;
  int64_t i = 0;
  double d = 0.0;

  static PyNum fromInt(int64_t v) { return PyNum{true, v, 0.0}; }
  static PyNum fromReal(double v) { return PyNum{false, 0, v}; }
  double asDouble() const { return isInt ? static_cast<double>(i) : d; }

  friend PyNum operator+(const PyNum& a, const PyNum& b) {
    if (a.isInt && b.isInt) return fromInt(a.i + b.i);
    return fromReal(a.asDouble() + b.asDouble());
  }
  friend PyNum operator-(const PyNum& a, const PyNum& b) {
    if (a.isInt && b.isInt) return fromInt(a.i - b.i);
    return fromReal(a.asDouble() - b.asDouble());
  }
  friend bool operator<(const PyNum& a, const PyNum& b) {
    if (a.isInt && b.isInt) return a.i < b.i;
    return a.asDouble() < b.asDouble();  // exact enough for trace magnitudes
  }
  friend bool operator>(const PyNum& a, const PyNum& b) { return b < a; }
  friend bool operator<=(const PyNum& a, const PyNum& b) { return !(b < a); }
  friend bool operator>=(const PyNum& a, const PyNum& b) { return !(a < b); }
};

/// Python's repr() of a float (shortest round-trip, "1.0", "1e-07", "inf").
std::string pyReprDouble(double v);
/// JSON text of a PyNum as Python's json.dumps writes it.
std::string pyJson(const PyNum& n);
/// C printf "%.2f" (correct rounding of the binary value), as pandas float_format.
std::string formatFixed2(double v);

}  // namespace steadyscope
