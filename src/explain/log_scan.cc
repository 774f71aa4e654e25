#include "explain/log_scan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace gpumem {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

// Python's repr of a non-finite float ("inf", "-inf", "nan") at p; its length, or 0.
size_t non_finite_at(std::string_view text, size_t p) {
  for (std::string_view word : {"inf", "nan"}) {
    if (text.substr(p, word.size()) != word) continue;
    const size_t end = p + word.size();
    if (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) return 0;
    return word.size();
  }
  return 0;
}

}  // namespace

std::optional<PrintedNumber> number_at(std::string_view text) {
  size_t p = 0;
  while (p < text.size() && text[p] == ' ') ++p;
  PrintedNumber n;
  n.begin = p;
  std::string digits;
  if (p < text.size() && text[p] == '-') digits += text[p++];
  if (const size_t word = non_finite_at(text, p); word > 0) {
    n.value = text[p] == 'n' ? std::numeric_limits<double>::quiet_NaN()
                             : (digits.empty() ? 1 : -1) * std::numeric_limits<double>::infinity();
    n.length = p + word - n.begin;
    return n;
  }
  bool any = false;
  for (; p < text.size(); ++p) {
    const char c = text[p];
    if (digit(c)) {
      digits += c;
      any = true;
    } else if (c == ',' && any && p + 1 < text.size() && digit(text[p + 1])) {
      // "42,656": a separator is followed by exactly three digits.
      size_t run = 0;
      while (p + 1 + run < text.size() && digit(text[p + 1 + run])) ++run;
      if (run != 3) break;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  if (p + 1 < text.size() && text[p] == '.' && digit(text[p + 1])) {
    digits += '.';
    ++p;
    n.decimals = 0;
    while (p < text.size() && digit(text[p])) {
      digits += text[p++];
      ++n.decimals;
    }
  }
  // An exponent belongs to the number: "1e308" read as 1 would be a different figure.
  if (p < text.size() && (text[p] == 'e' || text[p] == 'E')) {
    size_t e = p + 1;
    if (e < text.size() && (text[e] == '+' || text[e] == '-')) ++e;
    if (e < text.size() && digit(text[e])) {
      while (e < text.size() && digit(text[e])) ++e;
      digits += text.substr(p, e - p);
      p = e;
      if (n.decimals < 0) n.decimals = 0;  // not an exact count any more
    }
  }
  n.value = std::strtod(digits.c_str(), nullptr);
  n.length = p - n.begin;
  return n;
}

std::optional<PrintedNumber> number_after(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::optional<PrintedNumber> n = number_at(text.substr(at + key.size()));
  if (n) n->begin += at + key.size();
  return n;
}

std::optional<std::vector<PrintedNumber>> number_list_after(std::string_view text,
                                                            std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = text.find('[', at + key.size());
  const size_t close = open == std::string_view::npos ? open : text.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<PrintedNumber> out;
  size_t p = open + 1;
  while (p < close) {
    // Each item up to its comma: a list has no thousands separators.
    const size_t comma = std::min(text.find(',', p), close);
    std::optional<PrintedNumber> n = number_at(text.substr(p, comma - p));
    if (!n) return std::nullopt;
    n->begin += p;
    size_t end = n->begin + n->length;
    while (end < comma && text[end] == ' ') ++end;
    if (end != comma) return std::nullopt;
    out.push_back(*n);
    p = comma + 1;
  }
  return out;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace gpumem
