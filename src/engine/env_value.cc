#include "engine/env_value.h"

#include <charconv>
#include <cstdint>

namespace gpumem {
namespace {

std::optional<std::int64_t> to_int(const std::string& text) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

void EnvValueReader::bad(const std::string& expected) const {
  diags_.error(var_.value_loc, var_.name + " must be " + expected + ", got '" + var_.value + "'");
}

void EnvValueReader::as_bool(std::optional<bool>& out) const {
  const std::string& t = var_.value;
  if (t == "1" || t == "true" || t == "True") {
    out = true;
  } else if (t == "0" || t == "false" || t == "False") {
    out = false;
  } else {
    bad("0 or 1");
  }
}

void EnvValueReader::as_count(std::optional<int>& out, int lowest, int highest) const {
  std::optional<std::int64_t> i = to_int(var_.value);
  if (i && *i >= lowest && *i <= highest) {
    out = static_cast<int>(*i);
  } else {
    bad("an integer from " + std::to_string(lowest) + " to " + std::to_string(highest));
  }
}

void EnvValueReader::as_bytes(std::optional<Bytes>& out) const {
  std::optional<std::int64_t> i = to_int(var_.value);
  if (i && *i > 0) {
    out = bytes(*i);
  } else {
    bad("a positive number of bytes");
  }
}

}  // namespace gpumem
