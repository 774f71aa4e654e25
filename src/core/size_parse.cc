#include "core/size_parse.h"

#include <array>
#include <cctype>
#include <limits>
#include <string>

#include "core/spelling.h"

namespace gpumem {
namespace {

struct UnitFactor {
  const char* name;
  std::int64_t factor;
};

constexpr std::array<UnitFactor, 9> kUnits = {{
    {"B", 1},
    {"KB", 1'000},
    {"MB", 1'000'000},
    {"GB", 1'000'000'000},
    {"TB", 1'000'000'000'000},
    {"KiB", 1LL << 10},
    {"MiB", 1LL << 20},
    {"GiB", 1LL << 30},
    {"TiB", 1LL << 40},
}};

// 10^24: with a TiB factor (2^40) and the rounding below, nothing overflows 128 bits.
constexpr __int128 kMaxMantissa = static_cast<__int128>(1'000'000'000'000) * 1'000'000'000'000;

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

Result<Bytes> parse_size(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return invalid_input("empty size; write a number and a unit, e.g. 80GiB");
  if (s.front() == '-') return invalid_input("negative size " + quoted(text));
  if (s.front() == '+') s.remove_prefix(1);

  // Decimal mantissa: digits, optionally '.', digits. Kept as an integer plus a scale.
  __int128 mantissa = 0;
  int fraction_digits = 0;
  bool seen_digit = false;
  bool seen_point = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      seen_digit = true;
      if (mantissa > kMaxMantissa) {
        return invalid_input("size " + quoted(text) + " is too large");
      }
      mantissa = mantissa * 10 + (c - '0');
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) {
    return invalid_input("size " + quoted(text) + " does not start with a number");
  }
  if (fraction_digits > 18) {
    return invalid_input("size " + quoted(text) + " has more than 18 decimals");
  }
  std::string_view unit = s.substr(i);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) {
    unit.remove_prefix(1);
  }
  if (unit.empty()) {
    return invalid_input("size " + quoted(text) +
                         " has no unit; write it with one of B, KB, MB, GB, TB, KiB, MiB, GiB, "
                         "TiB (e.g. " + std::string(s) + "GiB)");
  }
  const UnitFactor* found = nullptr;
  for (const UnitFactor& u : kUnits) {
    if (unit == u.name) found = &u;
  }
  if (found == nullptr) {
    std::array<std::string, kUnits.size()> names;
    for (size_t k = 0; k < kUnits.size(); ++k) names[k] = kUnits[k].name;
    return invalid_input("unknown size unit " + quoted(unit) + " in " + quoted(text) +
                         did_you_mean(unit, names));
  }

  __int128 scale = 1;
  for (int k = 0; k < fraction_digits; ++k) scale *= 10;
  const __int128 numerator = mantissa * found->factor;
  const __int128 rounded = (2 * numerator + scale) / (2 * scale);  // nearest, halves up
  if (rounded > std::numeric_limits<std::int64_t>::max()) {
    return invalid_input("size " + quoted(text) + " is too large");
  }
  return bytes(static_cast<std::int64_t>(rounded));
}

}  // namespace gpumem
