#include "core/lower_case.h"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/predicate.hpp>
#include <locale>

namespace gpumem {

// The classic "C" locale, not the process's: a user's locale must not change which names match.
std::string lower_case(std::string_view s) {
  return boost::algorithm::to_lower_copy(std::string(s), std::locale::classic());
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return boost::algorithm::iequals(a, b, std::locale::classic());
}

}  // namespace gpumem
