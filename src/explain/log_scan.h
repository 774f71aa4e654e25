// Small readers for the numbers inside engine log messages: "avail mem=21.63 GB",
// "#tokens: 46611", "GPU KV cache size: 42,656 tokens", "(79.22GiB)". Each returns the value,
// how many decimals it was printed with (so a comparison knows the rounding it carries), and
// where it stands in the text, so a figure that cannot be taken is refused at its column.
//
// Engines print fixed notation; what a broken or hand-edited log may hold instead is read
// whole rather than in part: an exponent ("1e308" is 1e308, not 1), Python's "inf" and "nan"
// (infinite and not-a-number values, which the caller refuses), and digits beyond any
// integer type (read as the double they denote; the caller's bounds refuse them).
#ifndef GPUMEM_EXPLAIN_LOG_SCAN_H_
#define GPUMEM_EXPLAIN_LOG_SCAN_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace gpumem {

struct PrintedNumber {
  double value = 0;
  int decimals = -1;  // -1: no decimal point (exact)
  size_t begin = 0;   // where the number starts in the text searched
  size_t length = 0;  // its characters, sign and separators included
};

// The number starting at `text` (after optional spaces), thousands separators allowed.
std::optional<PrintedNumber> number_at(std::string_view text);

// The number right after the first occurrence of `key` in `text`; `begin` counts from the
// start of `text`.
std::optional<PrintedNumber> number_after(std::string_view text, std::string_view key);

// "[1, 2, 4, 8]" after `key`: the numbers of the first bracketed list, each located in
// `text`; nothing when there is no closed list (a line cut off inside it) or an item is
// not a number.
std::optional<std::vector<PrintedNumber>> number_list_after(std::string_view text,
                                                            std::string_view key);

bool contains(std::string_view text, std::string_view part);
bool starts_with(std::string_view text, std::string_view prefix);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOG_SCAN_H_
