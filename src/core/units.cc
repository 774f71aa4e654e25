#include "core/units.h"

#include <fmt/format.h>

#include <cstdlib>

namespace gpumem {

Bytes through_float32(Bytes b) {
  return bytes(static_cast<std::int64_t>(static_cast<float>(b.value())));
}

namespace {

// Groups the decimal digits of |n| in threes: 17640734720 -> "17,640,734,720".
std::string group_thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -static_cast<unsigned long long>(n)
                                            : static_cast<unsigned long long>(n));
  std::string out;
  const int lead = static_cast<int>(digits.size()) % 3;
  for (int i = 0; i < static_cast<int>(digits.size()); ++i) {
    if (i != 0 && (i - lead) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return (n < 0 ? "-" : "") + out;
}

}  // namespace

std::string format_count(std::int64_t n) { return group_thousands(n); }

std::string format_bytes(Bytes b) { return group_thousands(b.value()) + " B"; }

std::string format_mib(Bytes b) {
  // Hundredths of a MiB, rounded half away from zero, printed with grouping.
  // 128-bit: |v| * 100 leaves int64 above about 82 PiB.
  const std::int64_t v = b.value();
  const unsigned __int128 magnitude =
      v < 0 ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  const auto hundredths = static_cast<std::int64_t>((magnitude * 100 + (1U << 19)) >> 20);
  return fmt::format("{}{}.{:02d} MiB", v < 0 && hundredths != 0 ? "-" : "",
                     group_thousands(hundredths / 100), hundredths % 100);
}

std::string format_gib2(EngineGiB g) { return fmt::format("{:.2f}", g.value()); }

std::string format_gib(Bytes b) {
  return fmt::format("{:.2f} GiB", static_cast<double>(b.value()) / static_cast<double>(1LL << 30));
}

}  // namespace gpumem
