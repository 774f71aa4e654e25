#include "core/spelling.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace gpumem {

// One row of memory.
int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const int next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_spelling(std::string_view word,
                                            std::span<const std::string> candidates) {
  const int allowed = std::max(2, static_cast<int>(word.size()) / 3);
  std::optional<std::string> best;
  int best_distance = allowed + 1;
  for (const std::string& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // A word the user cut short ("fp8" for "fp8_e4m3") is far in edits but plainly meant: the
  // shortest candidate it begins beats one two or more edits away ("mxfp8").
  const auto begins = [&](const std::string& c) {
    return c.size() > word.size() && c.compare(0, word.size(), word) == 0;
  };
  if (best && (best_distance < 2 || begins(*best))) return best;
  const std::string* shortest = nullptr;
  if (word.size() >= 2) {
    for (const std::string& c : candidates) {
      if (begins(c) && (shortest == nullptr || c.size() < shortest->size())) shortest = &c;
    }
  }
  if (shortest != nullptr) return *shortest;
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  std::optional<std::string> best = closest_spelling(word, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

}  // namespace gpumem
