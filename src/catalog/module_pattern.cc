#include "catalog/module_pattern.h"

#include <re2/re2.h>

namespace gpumem {
namespace {

constexpr std::string_view kRegexPrefix = "re:";

// Whole-string glob match where `*` matches any run of characters (including none).
bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0;
  size_t t = 0;
  size_t star = std::string_view::npos;
  size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// True when `matcher` accepts `module` itself or one of its dotted prefixes
// ("a.b.c" -> "a.b.c", "a.b", "a").
template <typename Matcher>
bool matches_module_or_parent(std::string_view module, const Matcher& matcher) {
  std::string_view candidate = module;
  while (true) {
    if (matcher(candidate)) return true;
    const size_t dot = candidate.rfind('.');
    if (dot == std::string_view::npos) return false;
    candidate = candidate.substr(0, dot);
  }
}

}  // namespace

Result<ModulePattern> ModulePattern::parse(std::string text) {
  if (text.starts_with(kRegexPrefix)) {
    RE2::Options options;
    options.set_log_errors(false);  // the message is returned, not printed
    auto regex = std::make_shared<const RE2>(text.substr(kRegexPrefix.size()), options);
    if (!regex->ok()) {
      return invalid_input("invalid regular expression in module pattern '" + text +
                           "': " + regex->error());
    }
    return ModulePattern(std::move(text), Kind::kRegex, std::move(regex));
  }
  const Kind kind = text.find('*') != std::string::npos ? Kind::kGlob : Kind::kName;
  return ModulePattern(std::move(text), kind, nullptr);
}

bool ModulePattern::matches(std::string_view module) const {
  switch (kind_) {
    case Kind::kName:
      return matches_module_or_parent(module, [this](std::string_view m) { return m == text_; });
    case Kind::kGlob:
      return matches_module_or_parent(module,
                                      [this](std::string_view m) { return glob_match(text_, m); });
    case Kind::kRegex:
      return regex_->Match(re2::StringPiece(module.data(), module.size()), 0, module.size(),
                           RE2::ANCHOR_START, nullptr, 0);
  }
  return false;
}

bool ModulePatternSet::matches(std::string_view module) const {
  for (const ModulePattern& p : patterns_) {
    if (p.matches(module)) return true;
  }
  return false;
}

}  // namespace gpumem
