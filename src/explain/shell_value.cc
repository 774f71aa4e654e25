#include "explain/shell_value.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace gpumem {
namespace {

// A recursive-descent reader of bash's integer expressions; every step checks for 64-bit
// overflow, which bash would wrap silently and which no real command intends.
class Arithmetic {
 public:
  explicit Arithmetic(std::string_view s) : s_(s) {}

  std::optional<std::int64_t> all() {
    std::optional<std::int64_t> v = sum(0);
    skip();
    if (!v || p_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  // Parentheses nest at most this deep; deeper is not a command anyone wrote.
  static constexpr int kMaxDepth = 32;

  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }

  std::optional<std::int64_t> sum(int depth) {
    std::optional<std::int64_t> v = product(depth);
    while (v) {
      skip();
      if (p_ >= s_.size() || (s_[p_] != '+' && s_[p_] != '-')) break;
      const char op = s_[p_++];
      const std::optional<std::int64_t> r = product(depth);
      if (!r) return std::nullopt;
      std::int64_t out = 0;
      if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out)) {
        return std::nullopt;
      }
      v = out;
    }
    return v;
  }

  std::optional<std::int64_t> product(int depth) {
    std::optional<std::int64_t> v = unary(depth);
    while (v) {
      skip();
      if (p_ >= s_.size() || (s_[p_] != '*' && s_[p_] != '/' && s_[p_] != '%')) break;
      const char op = s_[p_++];
      const std::optional<std::int64_t> r = unary(depth);
      if (!r) return std::nullopt;
      std::int64_t out = 0;
      if (op == '*') {
        if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      } else {
        if (*r == 0 || (*v == std::numeric_limits<std::int64_t>::min() && *r == -1)) {
          return std::nullopt;
        }
        out = op == '/' ? *v / *r : *v % *r;
      }
      v = out;
    }
    return v;
  }

  std::optional<std::int64_t> unary(int depth) {
    skip();
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) {
      const char op = s_[p_++];
      const std::optional<std::int64_t> v = unary(depth);
      if (!v || (op == '-' && *v == std::numeric_limits<std::int64_t>::min())) return std::nullopt;
      return op == '-' ? -*v : *v;
    }
    if (p_ < s_.size() && s_[p_] == '(') {
      if (depth >= kMaxDepth) return std::nullopt;
      ++p_;
      const std::optional<std::int64_t> v = sum(depth + 1);
      skip();
      if (!v || p_ >= s_.size() || s_[p_] != ')') return std::nullopt;
      ++p_;
      return v;
    }
    std::int64_t v = 0;
    const size_t start = p_;
    while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[p_] - '0', &v)) {
        return std::nullopt;
      }
      ++p_;
    }
    if (p_ == start) return std::nullopt;
    return v;
  }

  std::string_view s_;
  size_t p_ = 0;
};

}  // namespace

std::optional<std::int64_t> shell_arithmetic(std::string_view word) {
  if (!word.starts_with("$((") || !word.ends_with("))")) return std::nullopt;
  return Arithmetic(word.substr(3, word.size() - 5)).all();
}

std::optional<std::int64_t> human_readable_int(std::string_view word) {
  if (word.size() < 2) return std::nullopt;
  const char suffix = word.back();
  const std::string_view number = word.substr(0, word.size() - 1);
  size_t dots = 0;
  for (char c : number) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return std::nullopt;
    }
  }
  if (dots > 1 || number.front() == '.' || number.back() == '.') return std::nullopt;
  const double decimal = suffix == 'k' ? 1e3 : suffix == 'm' ? 1e6 : suffix == 'g' ? 1e9 : 0;
  const double binary = suffix == 'K'   ? 1024.0
                        : suffix == 'M' ? 1048576.0
                        : suffix == 'G' ? 1073741824.0
                                        : 0;
  if (decimal == 0 && binary == 0) return std::nullopt;
  // human_readable_int: int(float(number) * mult) for k/m/g; int(number) * mult for K/M/G,
  // which refuses decimals.
  if (binary != 0 && dots > 0) return std::nullopt;
  const double value =
      std::strtod(std::string(number).c_str(), nullptr) * (decimal != 0 ? decimal : binary);
  if (!(value < 9.2e18)) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

bool names_shell_variable(std::string_view word) {
  const size_t dollar = word.find('$');
  return dollar != std::string_view::npos && dollar + 1 < word.size() &&
         (word[dollar + 1] == '{' || word[dollar + 1] == '_' ||
          std::isalpha(static_cast<unsigned char>(word[dollar + 1])));
}

}  // namespace gpumem
