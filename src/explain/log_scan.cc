#include "explain/log_scan.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace gpumem {

std::optional<PrintedNumber> number_at(std::string_view text) {
  size_t p = 0;
  while (p < text.size() && text[p] == ' ') ++p;
  std::string digits;
  if (p < text.size() && text[p] == '-') digits += text[p++];
  bool any = false;
  for (; p < text.size(); ++p) {
    const char c = text[p];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      any = true;
    } else if (c == ',' && any && p + 1 < text.size() &&
               std::isdigit(static_cast<unsigned char>(text[p + 1]))) {
      // "42,656": a separator is followed by exactly three digits.
      size_t run = 0;
      while (p + 1 + run < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[p + 1 + run]))) {
        ++run;
      }
      if (run != 3) break;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  PrintedNumber n;
  if (p + 1 < text.size() && text[p] == '.' &&
      std::isdigit(static_cast<unsigned char>(text[p + 1]))) {
    digits += '.';
    ++p;
    n.decimals = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) {
      digits += text[p++];
      ++n.decimals;
    }
  }
  n.value = std::strtod(digits.c_str(), nullptr);
  return n;
}

std::optional<PrintedNumber> number_after(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  return number_at(text.substr(at + key.size()));
}

std::optional<std::vector<long long>> int_list_after(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = text.find('[', at + key.size());
  const size_t close = open == std::string_view::npos ? open : text.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<long long> out;
  std::string_view inner = text.substr(open + 1, close - open - 1);
  while (!inner.empty()) {
    const std::optional<PrintedNumber> n = number_at(inner);
    if (!n || n->decimals >= 0) return std::nullopt;
    out.push_back(static_cast<long long>(n->value));
    const size_t comma = inner.find(',');
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
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
