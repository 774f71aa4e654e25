#include "engine/env_value.h"

#include <charconv>

namespace gpumem {

std::optional<std::int64_t> env_int(const std::string& text) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<bool> env_bool(const std::string& text) {
  if (text == "1" || text == "true" || text == "True") return true;
  if (text == "0" || text == "false" || text == "False") return false;
  return std::nullopt;
}

}  // namespace gpumem
