// "Did you mean …?" for misspelt keys, flags, model and GPU names.
#ifndef GPUMEM_CORE_SPELLING_H_
#define GPUMEM_CORE_SPELLING_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpumem {

// Levenshtein distance between `a` and `b`, letters compared case-insensitively.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` by edit distance (case-insensitive), if it is close
// enough to be a plausible typo: at most max(2, |word| / 3) edits. Failing that, the first
// candidate that `word` is a prefix of (at least two letters).
std::optional<std::string> closest_spelling(std::string_view word,
                                            std::span<const std::string> candidates);

// "; did you mean 'x'?" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace gpumem

#endif  // GPUMEM_CORE_SPELLING_H_
