// Flags of older releases that the newest no longer has (engine/retired_flags.h): read at the
// releases that take them, with their memory effect modelled, accepted as none, or refused by
// name, and an error from the release that dropped them.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

TEST(RetiredFlags, VllmTakesAReleasesOwnFlagsUntilItDropsThem) {
  // V0's CUDA-graph length cap: V1 reads nothing of it; PR #25543 removed it for 0.11.0.
  const std::string cap = "    --max-seq-len-to-capture: 8192\n";
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", cap, 1, "0.10.2"), "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", cap, 1, "0.11.0"),
            "f.yaml:6:31: '--max-seq-len-to-capture' is not a flag of vLLM 0.11.0 (removed in "
            "0.11.0; a command of an earlier release simulates with that release as the engine "
            "version)\n");
  // --task chose the runner: generate is what gpumem models, a pooling task is refused; 0.13.0
  // rejects the flag.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --task: generate\n", 1, "0.12.0"), "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --task: embed\n", 1, "0.12.0"),
            "f.yaml:6:13: '--task' is not modelled: a pooling or embedding task runs a pooling "
            "model, which gpumem does not model\n");
  EXPECT_EQ(
      family_errors("vllm", "qwen3-8b", "    --task: generate\n", 1, "0.13.0"),
      "f.yaml:6:13: '--task' is not a flag of vLLM 0.13.0 (removed in 0.13.0"
      "; a command of an earlier release simulates with that release as the engine version)\n");
  // Still taken by 0.21 (removed in July 2026): the fp8 cache's size does not change.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b",
                          "    --calculate-kv-scales: true\n    --kv-cache-dtype: fp8\n"),
            "");
  // Host-side flags dropped after 0.21's table was read: --disable-log-requests from 0.17.0,
  // --swap-space from 0.18.0, --calculate-kv-scales from 0.28.0 (releases past 0.21 are not
  // simulated, so their removals show only in the range check's wording).
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --swap-space: 4\n", 1, "0.17.0"), "");
  EXPECT_EQ(
      family_errors("vllm", "qwen3-8b", "    --swap-space: 4\n", 1, "0.18.0"),
      "f.yaml:6:19: '--swap-space' is not a flag of vLLM 0.18.0 (removed in 0.18.0"
      "; a command of an earlier release simulates with that release as the engine version)\n");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --disable-log-requests: true\n", 1, "0.16.0"),
            "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --disable-log-requests: true\n", 1, "0.17.0"),
            "f.yaml:6:29: '--disable-log-requests' is not a flag of vLLM 0.17.0 (removed in "
            "0.17.0; a command of an earlier release simulates with that release as the engine "
            "version)\n");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --max-num-partial-prefills: 2\n"), "");
  // --cuda-graph-sizes, deprecated by PR #26016 for removal in 0.13.0: a spelling of the
  // capture sizes through 0.12.x, an error after.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --cuda-graph-sizes: 64\n", 1, "0.12.0"), "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --cuda-graph-sizes: 64\n", 1, "0.13.0"),
            "f.yaml:6:25: '--cuda-graph-sizes' is not a flag of vLLM 0.13.0 or newer (removed in "
            "0.13.0, as PR #26016 announced; give --cudagraph-capture-sizes or "
            "--max-cudagraph-capture-size)\n");
  // V0's multi-step scheduling: one step is V1's own; more is refused.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --num-scheduler-steps: 1\n", 1, "0.10.1"), "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --num-scheduler-steps: 8\n", 1, "0.10.1"),
            "f.yaml:6:28: '--num-scheduler-steps' is not modelled: V0's multi-step scheduling; "
            "gpumem models the V1 engine\n");
}

// Before PR #28006 (0.12.0), --rope-scaling replaced config.json's rope_scaling: Qwen3-8B with
// Qwen's YaRN factor 4 over 32,768 positions serves 131,072 tokens, as with --hf-overrides.
TEST(RetiredFlags, VllmRopeScalingIsAConfigOverride) {
  const std::string yarn =
      "'{\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": "
      "32768}'";
  const Ledger l =
      family_ledger("vllm", "qwen3-8b", 1, "    --rope-scaling: " + yarn + "\n", "h200", "0.11.0");
  const Fact* f = l.fact("max_model_len");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<std::int64_t>(f->value), 131'072);
  EXPECT_EQ(
      family_errors("vllm", "qwen3-8b", "    --rope-scaling: '{\"rope_type\": 3}'\n", 1, "0.11.0"),
      "f.yaml:6:21: --rope-scaling: rope_scaling type '3' is not modelled; gpumem models "
      "default, linear, dynamic, llama3, yarn and longrope\n");
}

// SGLang's: the MoE switches work through 0.5.2 (PR #10770 made them stop the launch from
// 0.5.3), host-side options are accepted, and PR #38375's aliases are gone from 0.5.20.
TEST(RetiredFlags, SglangTakesAReleasesOwnFlagsUntilItDropsThem) {
  EXPECT_EQ(family_errors("sglang", "qwen3-8b", "    --enable-ep-moe: true\n", 1, "0.5.2"),
            "f.yaml:6:22: '--enable-ep-moe' is not modelled: it sets --ep-size to --tp-size; give "
            "--ep-size, which gpumem models\n");
  EXPECT_EQ(
      family_errors("sglang", "qwen3-8b", "    --enable-ep-moe: true\n", 1, "0.5.3"),
      "f.yaml:6:22: '--enable-ep-moe' is not a flag of SGLang 0.5.3 (removed in 0.5.3"
      "; a command of an earlier release simulates with that release as the engine version)\n");
  EXPECT_EQ(family_errors("sglang", "qwen3-8b", "    --stream-output: true\n", 1, "0.5.19"), "");
  EXPECT_EQ(
      family_errors("sglang", "qwen3-8b", "    --stream-output: true\n", 1, "0.5.20"),
      "f.yaml:6:22: '--stream-output' is not a flag of SGLang 0.5.20 (removed in 0.5.20"
      "; a command of an earlier release simulates with that release as the engine version)\n");
  EXPECT_EQ(family_errors("sglang", "qwen3-8b", "    --enable-nan-detection: true\n", 1, "0.5.9"),
            "");
}

}  // namespace
}  // namespace gpumem
