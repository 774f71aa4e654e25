#include "core/lower_case.h"

#include <locale>

namespace gpumem {
namespace {

// The classic "C" locale's ctype, looked up once: a user's locale must not change which names
// match, and a facet lookup per character (what boost::algorithm's case functions do) cost more
// than the rest of a catalog lookup.
const std::ctype<char>& classic_ctype() {
  static const std::ctype<char>& facet = std::use_facet<std::ctype<char>>(std::locale::classic());
  return facet;
}

}  // namespace

std::string lower_case(std::string_view s) {
  std::string out(s);
  classic_ctype().tolower(out.data(), out.data() + out.size());
  return out;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const std::ctype<char>& c = classic_ctype();
  for (size_t i = 0; i < a.size(); ++i) {
    if (c.tolower(a[i]) != c.tolower(b[i])) return false;
  }
  return true;
}

}  // namespace gpumem
