// vLLM's --cpu-offload-gb end to end: Qwen3-8B on one RTX 4090 with 4 GiB of decoder-layer
// parameters in CPU memory, and the launches gpumem refuses by name.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

// Qwen3-8B's decoder layer in vLLM's registration order (qwen3.py Qwen3DecoderLayer): qkv_proj
// (32 + 2 x 8 heads of 128), o_proj, q_norm and k_norm (128 each), gate_up_proj and down_proj
// (12,288 wide), two RMSNorms of 4,096; bfloat16.
constexpr std::int64_t kQkv = 48 * 128 * 4096 * 2;
constexpr std::int64_t kLayer =
    kQkv + 4096 * 4096 * 2 + 2 * 128 * 2 + 2 * 12288 * 4096 * 2 + 12288 * 4096 * 2 + 2 * 4096 * 2;

TEST(CpuOffload, VllmMovesWholeLayersThenTheParameterThatReachesTheBudget) {
  const std::string args = "    --max-model-len: 8192\n";
  const Ledger kept = family_ledger("vllm", "qwen3-8b", 1, args, "rtx-4090");
  const Ledger moved =
      family_ledger("vllm", "qwen3-8b", 1, args + "    --cpu-offload-gb: 4\n", "rtx-4090");
  ASSERT_TRUE(kept.fits());
  ASSERT_TRUE(moved.fits());
  // 4 GiB = 4,294,967,296 B: 11 layers (4,244,821,504 B) are under it, so the 12th layer's
  // qkv_proj moves too and the check before its o_proj stops the move.
  EXPECT_EQ(kLayer, 385'892'864);
  const Fact* f = moved.fact("weights_offloaded_to_cpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<Bytes>(f->value).value(), 11 * kLayer + kQkv);
  // model_memory_usage is torch-allocated memory: each of the 22 moved 256-byte norms had
  // held a 512-byte block.
  EXPECT_EQ(ledger_fact(kept, "weights_bytes") - ledger_fact(moved, "weights_bytes"),
            11 * kLayer + kQkv + 22 * 256);
  // The KV cache gains exactly what the weights gave up.
  EXPECT_EQ(ledger_fact(moved, "kv_bytes") - ledger_fact(kept, "kv_bytes"),
            ledger_fact(kept, "weights_bytes") - ledger_fact(moved, "weights_bytes"));
}

TEST(CpuOffload, VllmRefusals) {
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --cpu-offload-gb: -1\n"),
            "f.yaml:6:23: --cpu-offload-gb must be a number of at least 0, got -1.0\n");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --cpu-offload-gb: .nan\n"),
            "f.yaml:6:23: '--cpu-offload-gb' must be a number, got '.nan'\n");
  // A budget beyond any model (10^21 GiB is beyond 2^63 bytes) moves every decoder layer.
  const Ledger all = family_ledger("vllm", "qwen3-8b", 1,
                                   "    --cpu-offload-gb: 1000000000000000000000\n", "h200");
  const Fact* f = all.fact("weights_offloaded_to_cpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<Bytes>(f->value).value(), 36 * kLayer);
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --cpu-offload-gb: 4\n    --quantization: fp8\n"),
            "f.yaml:6:23: --cpu-offload-gb with a quantized model is not modelled: a "
            "quantization method's post-load processing may replace offloaded parameters with "
            "new GPU tensors (vllm PR #32991), so what stays in CPU memory depends on the method "
            "and the release\n");
  EXPECT_EQ(family_errors("vllm", "LGAI-EXAONE--EXAONE-4.0-1.2B", "    --cpu-offload-gb: 1\n"),
            "f.yaml:6:23: --cpu-offload-gb with Exaone4ForCausalLM is not modelled: whether "
            "vLLM's model file builds its layers through make_layers, where the offloader acts, "
            "has not been read\n");
}

}  // namespace
}  // namespace gpumem
