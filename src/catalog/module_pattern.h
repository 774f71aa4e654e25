// Which modules of a checkpoint a quantization config leaves unconverted.
//
// Quantized checkpoints list the modules kept in the model dtype, in three spellings that
// occur in real config.json files:
//   * an exact module name, `lm_head` or `model.layers.0.mlp.gate` (fp8
//     `modules_to_not_convert`, ModelOpt `exclude_modules`);
//   * a `*` glob, `model.layers.*.self_attn` (MXFP4 `modules_to_not_convert`);
//   * a compressed-tensors regular expression, `re:.*self_attn.*` (`ignore`).
// A name or glob matches a module when it matches the whole module name or a dotted prefix
// of it (the module lives inside the listed one); `*` matches any run of characters. A `re:`
// pattern follows Python's re.match: anchored at the start of the module name, not at the
// end. RE2 runs it: Python's syntax without look-around and back-references (which RE2
// rejects with a message), in time linear in the module name. Module names are the checkpoint's
// (Hugging Face) names, e.g. `model.layers.3.self_attn.q_proj`.
#ifndef GPUMEM_CATALOG_MODULE_PATTERN_H_
#define GPUMEM_CATALOG_MODULE_PATTERN_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace re2 {
class RE2;
}

namespace gpumem {

class ModulePattern {
 public:
  // An invalid `re:` expression is an error whose message names the pattern.
  static Result<ModulePattern> parse(std::string text);

  bool matches(std::string_view module) const;
  const std::string& text() const { return text_; }
  // The text decides the kind and the expression, so equal texts are equal patterns.
  friend bool operator==(const ModulePattern& a, const ModulePattern& b) {
    return a.text_ == b.text_;
  }

 private:
  enum class Kind { kName, kGlob, kRegex };
  ModulePattern(std::string text, Kind kind, std::shared_ptr<const re2::RE2> regex)
      : text_(std::move(text)), kind_(kind), regex_(std::move(regex)) {}

  std::string text_;
  Kind kind_;
  // Shared so that an Architecture stays cheap to copy; the regex is immutable.
  std::shared_ptr<const re2::RE2> regex_;
};

// Any-of a list of patterns; empty matches nothing.
class ModulePatternSet {
 public:
  void add(ModulePattern p) { patterns_.push_back(std::move(p)); }
  bool matches(std::string_view module) const;
  bool empty() const { return patterns_.empty(); }
  const std::vector<ModulePattern>& patterns() const { return patterns_; }
  friend bool operator==(const ModulePatternSet&, const ModulePatternSet&) = default;

 private:
  std::vector<ModulePattern> patterns_;
};

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_MODULE_PATTERN_H_
