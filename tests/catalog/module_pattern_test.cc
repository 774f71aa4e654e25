#include "catalog/module_pattern.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

ModulePattern pattern(const std::string& text) {
  Result<ModulePattern> p = ModulePattern::parse(text);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

TEST(ModulePattern, NamesMatchTheModuleAndWhatIsInsideIt) {
  const ModulePattern p = pattern("model.layers.0.mlp.gate");
  EXPECT_TRUE(p.matches("model.layers.0.mlp.gate"));
  EXPECT_TRUE(p.matches("model.layers.0.mlp.gate.weight"));
  EXPECT_FALSE(p.matches("model.layers.0.mlp.gate_up_proj"));
  EXPECT_FALSE(p.matches("model.layers.10.mlp.gate"));
}

TEST(ModulePattern, GlobsMatchAnyRun) {
  const ModulePattern p = pattern("model.layers.*.self_attn");
  EXPECT_TRUE(p.matches("model.layers.17.self_attn.q_proj"));
  EXPECT_FALSE(p.matches("model.layers.17.mlp.router"));
  EXPECT_TRUE(pattern("*.router").matches("model.layers.3.mlp.router"));
}

TEST(ModulePattern, RegexesAreAnchoredAtTheStartOnly) {
  const ModulePattern p = pattern("re:.*mlp\\.(gate|up|gate_up|down)_proj.*");
  EXPECT_TRUE(p.matches("model.layers.0.mlp.down_proj"));
  EXPECT_FALSE(p.matches("model.layers.1.mlp.experts.0.down_proj"));
  EXPECT_TRUE(pattern("re:model").matches("model.norm"));  // prefix, like re.match
  EXPECT_FALSE(pattern("re:norm").matches("model.norm"));  // not a search
}

TEST(ModulePattern, RegexesUsePythonSyntax) {
  // A named group, as Python writes it; ECMAScript (std::regex) has no (?P<...>).
  const ModulePattern p = pattern("re:model\\.layers\\.(?P<layer>[0-9]+)\\.self_attn");
  EXPECT_TRUE(p.matches("model.layers.12.self_attn.o_proj"));
  EXPECT_FALSE(p.matches("model.layers.x.self_attn.o_proj"));
}

TEST(ModulePattern, InvalidRegexIsAnError) {
  Result<ModulePattern> p = ModulePattern::parse("re:(unclosed");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "invalid regular expression in module pattern 're:(unclosed': missing ): (unclosed");
}

TEST(ModulePattern, LookAroundIsRejectedNotMisread) {
  // Python accepts look-ahead; RE2 does not run it, so the pattern is refused, by name.
  Result<ModulePattern> p = ModulePattern::parse("re:.*(?!mlp).*");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "invalid regular expression in module pattern 're:.*(?!mlp).*': invalid perl "
            "operator: (?!");
}

}  // namespace
}  // namespace gpumem
