// vLLM's MXFP4 experts laid out for the backend that serves them (vllm
// layers/quantization/mxfp4.py get_mxfp4_backend, Mxfp4MoEMethod.create_weights and
// process_weights_after_loading): Marlin pads the intermediate size per rank to 128 and the
// hidden size to 256 below compute capability 9 and on Hopper before v0.10.2 (torch 2.7);
// Triton on Hopper pads the intermediate size to 64, then keeps the loaded scales beside
// triton_kernels' Hopper scale layout (rows padded to 256) and float32 biases. Each layout is
// set against a B200's, which keeps the checkpoint's shapes here.
#include <gtest/gtest.h>

#include <string>

#include "support/family_simulation.h"

namespace gpumem {
namespace {

// The tensors' own bytes (the allocator's packing of the small ones aside).
std::int64_t weights(const std::string& model, const std::string& gpu, int tp,
                     const std::string& version) {
  return ledger_fact(family_ledger("vllm", model, tp, "    --max-model-len: 8192\n", gpu, version),
                     "weights_logical_bytes");
}

// One layer's MXFP4 experts as loaded: E experts of intermediate i and hidden h, weights
// packed two to a byte, a uint8 scale per 32 values, bfloat16 biases.
std::int64_t experts(std::int64_t e, std::int64_t i, std::int64_t h) {
  return e * (2 * i * h / 2 + 2 * i * h / 32 + 2 * i * 2 + h * i / 2 + h * i / 32 + h * 2);
}

// gpt-oss-20b (24 layers of 32 experts, hidden and intermediate 2,880) on an A100: Marlin's
// 2,944 and 3,072. The corpus's A100 log loads 13.72 GiB, which this is
// (vllm-a100-x1-gpt-oss-20b-128k-blog).
TEST(Mxfp4Backend, MarlinPadsBelowHopper) {
  EXPECT_EQ(experts(32, 2944, 3072) - experts(32, 2880, 2880), 461'815'808 - 423'567'360);
  EXPECT_EQ(weights("gpt-oss-20b", "a100-80gb", 1, "0.21.0") -
                weights("gpt-oss-20b", "b200", 1, "0.21.0"),
            std::int64_t{24} * (461'815'808 - 423'567'360));
}

// gpt-oss-120b (36 layers of 128 experts) on one H100. v0.10.1 (torch 2.7.1) runs Marlin.
// From v0.10.2 Triton adds the scales in the Hopper layout, 5,760 rows padded to 5,888 and
// 2,880 to 3,072 (103,219,200 B), beside the loaded ones (99,532,800 B, kept), and replaces
// the biases by float32 copies (+2,211,840 B): 105,431,040 B a layer more than loaded, the
// corpus's 64.38 GiB under v0.14.1 (vllm-h100-x1-gpt-oss-120b-v0141-upgrade-oom).
TEST(Mxfp4Backend, HopperRunsMarlinBeforeV0102AndTritonAfter) {
  const std::int64_t plain = weights("gpt-oss-120b", "b200", 1, "0.10.2");
  EXPECT_EQ(weights("gpt-oss-120b", "h100-sxm-80gb", 1, "0.10.1") - plain,
            36 * (experts(128, 2944, 3072) - experts(128, 2880, 2880)));
  EXPECT_EQ(128 * (5888 * 90 + 3072 * 90) + 2'211'840, 105'431'040);
  EXPECT_EQ(weights("gpt-oss-120b", "h100-sxm-80gb", 1, "0.10.2") - plain,
            std::int64_t{36} * 105'431'040);
}

}  // namespace
}  // namespace gpumem
