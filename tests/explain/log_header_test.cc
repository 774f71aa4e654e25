// A log's `# explain-args:` header (explain/log_header.h): the options it may give, and the
// errors, at the header's line and column, for anything else.
#include "explain/log_header.h"

#include <gtest/gtest.h>

#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const GpuCatalog& gpus() { return test_catalogs().gpus; }

TEST(LogHeader, ReadsGpuModelAndCountUpToTheReason) {
  const std::string text =
      "# source: https://example.org/thread\n"
      "# explain-args: --gpu rtx-4090 --gpu-count 2 --model qwen3-8b   (the post: \"2x 4090\")\n"
      "INFO 08-27 00:58:38 something\n";
  Result<ExplainOverrides> o = overrides_from_header(text, "a.log", gpus());
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->gpu, "rtx-4090");
  EXPECT_EQ(o->model, "qwen3-8b");
  EXPECT_EQ(o->gpu_count, 2);
  EXPECT_EQ(o->engine_version, "");
  EXPECT_FALSE(o->from_scratch);
}

TEST(LogHeader, ReadsTheEngineRelease) {
  Result<ExplainOverrides> o = overrides_from_header(
      "# explain-args: --gpu h200 --engine-version 0.4.6.post1   (the PR's base)\n", "e.log",
      gpus());
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->engine_version, "0.4.6.post1");
}

TEST(LogHeader, NoHeaderGivesNothing) {
  Result<ExplainOverrides> o = overrides_from_header("INFO line\n# why: a note\n", "a.log", gpus());
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->gpu, "");
  EXPECT_EQ(o->model, "");
  EXPECT_EQ(o->gpu_count, 0);
}

TEST(LogHeader, AnyOtherOptionIsRefusedByNameWithItsColumn) {
  Result<ExplainOverrides> o = overrides_from_header(
      "line one\n# explain-args: --gpu l4 --gpus 4   (why)\n", "b.log", gpus());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "b.log:2:26: explain-args: '--gpus' is not an option the header may give (--gpu, "
            "--model, --gpu-count, --engine-version); did you mean '--gpu'?");
}

TEST(LogHeader, CountMustBeAWholeNumberAndEveryOptionNeedsAValue) {
  Result<ExplainOverrides> bad_count =
      overrides_from_header("# explain-args: --gpu-count two   (why)\n", "c.log", gpus());
  ASSERT_FALSE(bad_count.ok());
  EXPECT_EQ(bad_count.status().message(),
            "c.log:1:29: explain-args: --gpu-count takes a whole number of GPUs, not 'two'");
  Result<ExplainOverrides> no_value =
      overrides_from_header("# explain-args: --model\n", "d.log", gpus());
  ASSERT_FALSE(no_value.ok());
  EXPECT_EQ(no_value.status().message(), "d.log:1:17: explain-args: --model needs a value");
}

TEST(LogHeader, AReleaseNumberMustBeSpelledAsOne) {
  Result<ExplainOverrides> o =
      overrides_from_header("# explain-args: --engine-version 0.4.x   (why)\n", "e.log", gpus());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "e.log:1:34: explain-args: --engine-version: \"0.4.x\" is not a release number (as "
            "0.5.9, 0.4.6.post1, 0.11.0rc1 or 0.20.1.dev1+g1a2b3c4)");
}

TEST(LogHeader, AGpuMustBeOneOfTheCatalogOrASize) {
  Result<ExplainOverrides> o = overrides_from_header(
      "# explain-args: --gpu a100-sxm-80gb --gpu-count 2   (why)\n", "f.log", gpus());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "f.log:1:23: explain-args: --gpu: unknown GPU 'a100-sxm-80gb'; did you mean "
            "'a100-sxm4-80gb'? (a catalog name, an nvidia-smi name, or the CUDA total of an "
            "unlisted GPU as 47.37GiB; gpumem catalog gpus lists them)");
  for (const std::string given : {"a100-sxm4-80gb", "47.37GiB"}) {
    EXPECT_TRUE(
        overrides_from_header("# explain-args: --gpu " + given + "   (why)\n", "g.log", gpus())
            .ok())
        << given;
  }
}

}  // namespace
}  // namespace gpumem
