// GPUs below compute capability 8.0 (T4, V100): SGLang serves sm75 (in float16, the bytes of
// bfloat16) and stops on sm70 with its own RuntimeError; vLLM's engine below 8.0 (V0 in 0.10.1,
// then release-dependent attention backends) is refused by name.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

TEST(TuringVolta, SglangServesATuringGpu) {
  const Ledger l = family_ledger("sglang", "qwen3-0.6b", 1, "", "t4");
  EXPECT_TRUE(l.fits());
  // Qwen3-0.6B's 28 layers of 8 KV heads of 128, K and V in float16 (bfloat16's bytes).
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 8 * (128 + 128) * 28 * 2);
}

TEST(TuringVolta, SglangStopsOnVolta) {
  EXPECT_EQ(family_errors("sglang", "qwen3-0.6b", "    --tp-size: 1\n", 1, "", "v100-sxm2-32gb"),
            "f.yaml:1:17: RuntimeError: SGLang only supports sm75 and above (v100-sxm2-32gb is "
            "sm70)\n");
}

TEST(TuringVolta, VllmBelowAmpereIsRefusedByName) {
  EXPECT_EQ(family_errors("vllm", "qwen3-0.6b", "    --tensor-parallel-size: 1\n", 1, "", "t4"),
            "f.yaml:1:17: t4 has compute capability 7.5: vLLM's engine below 8.0 (V0 in 0.10.1, "
            "then FlexAttention, FlashInfer or Triton attention by release, float16 for "
            "bfloat16) is not modelled\n");
}

}  // namespace
}  // namespace gpumem
