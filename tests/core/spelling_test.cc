#include "core/spelling.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumem {
namespace {

const std::vector<std::string> kKeys = {"hardware", "engine", "model", "observed"};

TEST(Spelling, SuggestsCloseWord) {
  EXPECT_EQ(did_you_mean("hardwre", kKeys), "; did you mean 'hardware'?");
  EXPECT_EQ(did_you_mean("Model", kKeys), "; did you mean 'model'?");
  EXPECT_EQ(did_you_mean("engin", kKeys), "; did you mean 'engine'?");
}

TEST(Spelling, StaysQuietForFarWords) {
  EXPECT_EQ(did_you_mean("scheduler", kKeys), "");
  EXPECT_EQ(closest_spelling("x", std::vector<std::string>{}), std::nullopt);
}

TEST(Spelling, SuggestsTheWordAPrefixWasCutFrom) {
  const std::vector<std::string> dtypes = {"auto", "fp8_e4m3", "fp8_e5m2", "bf16"};
  EXPECT_EQ(did_you_mean("fp8", dtypes), "; did you mean 'fp8_e4m3'?");
  EXPECT_EQ(did_you_mean("f", dtypes), "");
  // The cut-short word beats a candidate two edits away, and the shortest it begins wins.
  const std::vector<std::string> newest = {"auto", "fp8_e4m3", "mxfp8", "nvfp4"};
  EXPECT_EQ(did_you_mean("fp8", newest), "; did you mean 'fp8_e4m3'?");
  const std::vector<std::string> calibrations = {"h200-sxm-141gb-torch", "h200-sxm-141gb"};
  EXPECT_EQ(did_you_mean("h200-sxm-141", calibrations), "; did you mean 'h200-sxm-141gb'?");
}

}  // namespace
}  // namespace gpumem
