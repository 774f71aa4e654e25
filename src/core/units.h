// Memory sizes as types.
//
// Two quantities exist and they never mix:
//
//  * `Bytes` — an exact byte count (Boost.Units information quantity over int64). Every
//    allocation, capacity, free-memory reading and buffer size in gpumem is a `Bytes`.
//  * `EngineGiB` — a size in GiB held in a double, the way SGLang computes (its
//    `get_available_gpu_memory` returns `bytes / 2**30` as a Python float). Only code that
//    reproduces an engine's own floating-point arithmetic uses it.
//
// `EngineGiB - Bytes` does not compile (tests/compile_fail proves it): converting between
// them is always an explicit call below, which is exactly where the engine converts.
// Integer arithmetic on `Bytes` is exact; multiplying by an integer count is allowed, by a
// floating factor is not (use the named rounding helpers instead).
#ifndef GPUMEM_CORE_UNITS_H_
#define GPUMEM_CORE_UNITS_H_

#include <boost/units/make_scaled_unit.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/systems/information.hpp>
#include <concepts>
#include <cstdint>
#include <string>

namespace gpumem {

namespace bu = boost::units;

using ByteUnit = bu::information::info;
using Bytes = bu::quantity<ByteUnit, std::int64_t>;

using GiBUnit = bu::make_scaled_unit<ByteUnit, bu::scale<2, bu::static_rational<30>>>::type;
using EngineGiB = bu::quantity<GiBUnit, double>;

constexpr Bytes bytes(std::int64_t n) { return Bytes::from_value(n); }
constexpr Bytes kib(std::int64_t n) { return bytes(n << 10); }
constexpr Bytes mib(std::int64_t n) { return bytes(n << 20); }
constexpr Bytes gib(std::int64_t n) { return bytes(n << 30); }

constexpr EngineGiB engine_gib(double v) { return EngineGiB::from_value(v); }

// No real size comes near this (4 EiB); a product that would pass it stops here instead, so
// that sums and roundings of a few such values still fit int64. A model or flag absurd enough
// to reach it (a context of 2^62 tokens) then asks for 4 EiB and runs out of memory, where a
// wrapped product would have reported "fits".
inline constexpr std::int64_t kSizeCeiling = std::int64_t{1} << 62;

// Integer scaling of an exact byte count (counts of tensors, tokens, layers, ranks),
// saturating at ±kSizeCeiling. The int64 overload replaces Boost.Units' unchecked one: a
// non-template function wins overload resolution over Boost's template.
constexpr Bytes scaled(Bytes b, std::int64_t n) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(b.value(), n, &product) || product > kSizeCeiling ||
      product < -kSizeCeiling) {
    return bytes((b.value() < 0) != (n < 0) ? -kSizeCeiling : kSizeCeiling);
  }
  return bytes(product);
}
constexpr Bytes operator*(Bytes b, std::int64_t n) { return scaled(b, n); }
constexpr Bytes operator*(std::int64_t n, Bytes b) { return scaled(b, n); }
template <std::integral N>
requires(!std::same_as<N, std::int64_t>) constexpr Bytes operator*(Bytes b, N n) {
  return scaled(b, static_cast<std::int64_t>(n));
}
template <std::integral N>
requires(!std::same_as<N, std::int64_t>) constexpr Bytes operator*(N n, Bytes b) {
  return scaled(b, static_cast<std::int64_t>(n));
}
// Exact quotient of two byte counts, floored toward zero (C++ integer division).
constexpr std::int64_t operator/(Bytes a, Bytes b) { return a.value() / b.value(); }
template <std::integral N>
constexpr Bytes operator/(Bytes b, N n) {
  return bytes(b.value() / static_cast<std::int64_t>(n));
}

constexpr Bytes round_up(Bytes b, Bytes granule) {
  const std::int64_t g = granule.value();
  return bytes((b.value() + g - 1) / g * g);
}

// SGLang: `free_bytes / (1 << 30)` — exact for every byte count below 2^53.
constexpr EngineGiB to_engine_gib(Bytes b) {
  return engine_gib(static_cast<double>(b.value()) / static_cast<double>(1LL << 30));
}

// SGLang: `int(gib * (1 << 30))` — Python's int() truncates toward zero.
constexpr Bytes truncate_to_bytes(EngineGiB g) {
  return bytes(static_cast<std::int64_t>(g.value() * static_cast<double>(1LL << 30)));
}

// A byte count after a round trip through float32, as `torch.tensor(b, dtype=float32)`
// does before SGLang's distributed MIN (round to nearest even, 24-bit mantissa).
Bytes through_float32(Bytes b);

// "17,640,734,720": any count with thousands separators.
std::string format_count(std::int64_t n);
// "17,640,734,720 B"
std::string format_bytes(Bytes b);
// "16,892.00 MiB" — two decimals, thousands separators.
std::string format_mib(Bytes b);
// "16.43" — GiB with two decimals, the way SGLang prints `{x:.2f} GB`.
std::string format_gib2(EngineGiB g);
// "16.43 GiB" — an exact byte count in GiB with two decimals, as reports and notes print it.
std::string format_gib(Bytes b);

}  // namespace gpumem

#endif  // GPUMEM_CORE_UNITS_H_
