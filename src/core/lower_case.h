// ASCII case folding for names users type in any case: model ids, GPU names, flag values such
// as vLLM's "auto". One helper, so that every lookup folds case the same way.
#ifndef GPUMEM_CORE_LOWER_CASE_H_
#define GPUMEM_CORE_LOWER_CASE_H_

#include <string>
#include <string_view>

namespace gpumem {

// `s` with its ASCII letters lower-cased; other bytes (UTF-8 included) kept.
std::string lower_case(std::string_view s);

// Whether `a` and `b` are equal once both are lower-cased.
bool equals_ignoring_case(std::string_view a, std::string_view b);

}  // namespace gpumem

#endif  // GPUMEM_CORE_LOWER_CASE_H_
