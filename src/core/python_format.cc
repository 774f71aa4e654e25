#include "core/python_format.h"

#include <fmt/format.h>

#include <cstdlib>

namespace gpumem {

std::string python_float_repr(double x) {
  // fmt's default is the shortest round-trip form, as CPython's repr; only integral values
  // differ ("1" vs "1.0").
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string python_fixed(double x, int decimals) { return fmt::format("{:.{}f}", x, decimals); }

double python_round(double x, int ndigits) {
  return std::strtod(python_fixed(x, ndigits).c_str(), nullptr);
}

}  // namespace gpumem
