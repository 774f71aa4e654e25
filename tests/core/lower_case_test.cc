// Case folding as every name lookup does it: ASCII letters only, whatever the user's locale.
#include "core/lower_case.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

TEST(LowerCase, FoldsAsciiLettersAndKeepsOtherBytes) {
  EXPECT_EQ(lower_case("Qwen/QWEN3-32B-Instruct_2507"), "qwen/qwen3-32b-instruct_2507");
  EXPECT_EQ(lower_case("NVIDIA GeForce RTX 4090 Ü"), "nvidia geforce rtx 4090 Ü");
  EXPECT_EQ(lower_case(""), "");
}

TEST(LowerCase, ComparesIgnoringCase) {
  EXPECT_TRUE(equals_ignoring_case("AUTO", "auto"));
  EXPECT_TRUE(equals_ignoring_case("FlashInfer", "FLASHINFER"));
  EXPECT_FALSE(equals_ignoring_case("auto", "autox"));
  EXPECT_FALSE(equals_ignoring_case("auto", "aut0"));
}

}  // namespace
}  // namespace gpumem
