#include "core/file_name.h"

#include <fmt/format.h>

#include <filesystem>

namespace gpumem {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool in_safe_set(char c) { return is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '-'; }

// A character as a reader can see it in a message: printable as itself, others as \xNN.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return fmt::format("'{}'", c);
  if (c == ' ') return "a space";
  return fmt::format("\\x{:02x}", u);
}

// The name as a message can quote it: control bytes as \xNN, at most 64 characters.
std::string quoted(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 64)) {
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out;
}

}  // namespace

Status check_file_name(std::string_view name, std::string_view what) {
  constexpr std::string_view kSet =
      "letters, digits, '.', '_', '+' and '-', starting with a letter or a digit";
  if (name.empty()) return invalid_input(fmt::format("{} is empty; it must be {}", what, kSet));
  if (name.size() > kMaxFileNameLength) {
    return invalid_input(fmt::format("{} has {} characters; at most {} become a file name", what,
                                     name.size(), kMaxFileNameLength));
  }
  for (size_t i = 0; i < name.size(); ++i) {
    const bool ok = i == 0 ? is_alnum(name[i]) : in_safe_set(name[i]);
    if (!ok) {
      return invalid_input(
          fmt::format("{} '{}' cannot become a file name: {} at position {}; it "
                      "must be {}",
                      what, quoted(name), shown(name[i]), i + 1, kSet));
    }
  }
  return {};
}

Result<std::string> file_in_directory(const std::string& dir, std::string_view name,
                                      std::string_view extension, std::string_view what) {
  if (Status s = check_file_name(name, what); !s.ok()) return s;
  namespace fs = std::filesystem;
  const fs::path base = fs::path(dir.empty() ? "." : dir).lexically_normal();
  const fs::path file = (base / (std::string(name) + std::string(extension))).lexically_normal();
  // With the name in the safe set this always holds; it is checked because a path written
  // outside its directory is the one failure this module exists to rule out.
  fs::path parent = file.parent_path();
  fs::path expected = base;
  if (expected.filename().empty()) expected = expected.parent_path();
  if (parent.empty()) parent = ".";
  if (parent != expected) {
    return internal_error(fmt::format("{} would be written outside {}", file.string(), dir));
  }
  return file.string();
}

}  // namespace gpumem
