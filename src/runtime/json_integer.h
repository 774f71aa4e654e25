// Checked reads of integers from JSON (ledgers, probe traces).
//
// nlohmann's get<int>() converts whatever number it finds with a plain cast: 1e300 read as
// an int is undefined behaviour, and 2^40 read as an int or 2.5 read as a count silently
// become something else. These accept only an integer that fits the target type, and
// otherwise throw nlohmann's own type_error, so readers that already turn a
// nlohmann::json::exception into "malformed …" report these the same way.
#ifndef GPUMEM_RUNTIME_JSON_INTEGER_H_
#define GPUMEM_RUNTIME_JSON_INTEGER_H_

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace gpumem {

// The integer `j` holds, when it is one, fits the signed type `Int` and is at least `min`.
template <typename Int, typename Json>
Int json_integer(const Json& j, Int min = std::numeric_limits<Int>::min()) {
  static_assert(std::is_signed_v<Int> && sizeof(Int) <= sizeof(std::int64_t));
  constexpr Int kMax = std::numeric_limits<Int>::max();
  if (j.is_number_unsigned()) {
    const auto u = j.template get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(kMax) && static_cast<Int>(u) >= min) {
      return static_cast<Int>(u);
    }
  } else if (j.is_number_integer()) {
    const auto v = j.template get<std::int64_t>();
    if (v >= min && v <= kMax) return static_cast<Int>(v);
  }
  throw Json::type_error::create(302,
                                 "expected an integer from " + std::to_string(min) + " to " +
                                     std::to_string(kMax) + ", got " + j.dump(),
                                 &j);
}

// A list of such integers (64-bit, any sign).
template <typename Json>
std::vector<std::int64_t> json_integers(const Json& j) {
  if (!j.is_array()) {
    throw Json::type_error::create(302, "expected a list of integers, got " + j.dump(), &j);
  }
  std::vector<std::int64_t> out;
  out.reserve(j.size());
  for (const Json& item : j) out.push_back(json_integer<std::int64_t>(item));
  return out;
}

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_JSON_INTEGER_H_
