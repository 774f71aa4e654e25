#include "engine/release_spelling.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace gpumem {

namespace {

// Longer than any release either engine has published, with a git hash in its local part.
constexpr size_t kMaxReleaseLength = 48;

}  // namespace

std::string release_spelling_error(std::string_view text) {
  // PEP 440's public version (release segments, rc, post, dev) and a local part after '+'.
  static const RE2 kRelease(
      R"(v?[0-9]+(\.[0-9]+){1,3}(rc[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[0-9A-Za-z.]+)?)");
  if (text.size() <= kMaxReleaseLength && RE2::FullMatch(text, kRelease)) return {};
  return fmt::format(
      "{:?} is not a release number (as 0.5.9, 0.4.6.post1, 0.11.0rc1 or 0.20.1.dev1+g1a2b3c4)",
      text.substr(0, kMaxReleaseLength));
}

}  // namespace gpumem
