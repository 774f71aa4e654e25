// Small readers for the numbers inside engine log messages: "avail mem=21.63 GB",
// "#tokens: 46611", "GPU KV cache size: 42,656 tokens", "(79.22GiB)". Each returns the value
// and how many decimals it was printed with, so a comparison knows the rounding it carries.
#ifndef GPUMEM_EXPLAIN_LOG_SCAN_H_
#define GPUMEM_EXPLAIN_LOG_SCAN_H_

#include <optional>
#include <string_view>
#include <vector>

namespace gpumem {

struct PrintedNumber {
  double value = 0;
  int decimals = -1;  // -1: no decimal point (exact)
};

// The number starting at `text` (after optional spaces), thousands separators allowed.
std::optional<PrintedNumber> number_at(std::string_view text);

// The number right after the first occurrence of `key` in `text`.
std::optional<PrintedNumber> number_after(std::string_view text, std::string_view key);

// "[1, 2, 4, 8]" after `key`: the integers of the first bracketed list.
std::optional<std::vector<long long>> int_list_after(std::string_view text, std::string_view key);

bool contains(std::string_view text, std::string_view part);
bool starts_with(std::string_view text, std::string_view prefix);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOG_SCAN_H_
