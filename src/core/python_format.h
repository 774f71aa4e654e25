// How the Python engines print numbers, so gpumem's copies of their log lines match a real
// log character for character.
#ifndef GPUMEM_CORE_PYTHON_FORMAT_H_
#define GPUMEM_CORE_PYTHON_FORMAT_H_

#include <string>

namespace gpumem {

// repr(float): the shortest text that reads back as the same double ("0.55", "1.0").
std::string python_float_repr(double x);

// f"{x:.Nf}": fixed notation, N decimals, correctly rounded from the exact binary value.
std::string python_fixed(double x, int decimals);

// round(x, ndigits): the double nearest to x rounded to `ndigits` decimals. CPython rounds
// the exact binary value correctly, as fixed-notation formatting does.
double python_round(double x, int ndigits);

}  // namespace gpumem

#endif  // GPUMEM_CORE_PYTHON_FORMAT_H_
