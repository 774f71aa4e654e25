// vLLM's MXFP4 experts laid out for the backend that serves them (vllm
// layers/quantization/mxfp4.py get_mxfp4_backend, Mxfp4MoEMethod.create_weights): Marlin pads
// the intermediate size per rank to 128 and the hidden size to 256 below compute capability 9
// and on Hopper before v0.10.2 (torch 2.7); Triton on Hopper pads the intermediate size to 64.
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

// gpt-oss-20b's 24 MoE layers of 32 experts, hidden and intermediate 2,880. Marlin: 2,944 and
// 3,072: w13 [32, 5888, 1536] u8 289,406,976 + scales [32, 5888, 96] 18,087,936 + bias
// 376,832; w2 [32, 3072, 1472] 144,703,488 + scales [32, 3072, 92] 9,043,968 + bias 196,608:
// 461,815,808 B a layer, against 423,567,360 unpadded. The A100 log of the corpus loads
// 13.72 GiB, which this is (vllm-a100-x1-gpt-oss-20b-128k-blog).
TEST(Mxfp4Backend, MarlinPadsBelowHopper) {
  EXPECT_EQ(weights("gpt-oss-20b", "a100-80gb", 1, "0.21.0") -
                weights("gpt-oss-20b", "h200", 1, "0.21.0"),
            24 * (461'815'808 - 423'567'360));
}

// gpt-oss-120b at TP 2 on Hopper: 1,440 intermediate columns per rank. v0.10.1 (torch 2.7.1)
// runs Marlin: 1,536 and 3,072 for 128 experts in 36 layers; v0.10.2 on runs Triton: 1,472
// (a multiple of 64), the hidden size unpadded.
TEST(Mxfp4Backend, HopperRunsMarlinBeforeV0102AndTritonAfter) {
  const auto experts = [](std::int64_t i, std::int64_t h) {
    // w13 weight, scale, bias; w2 weight, scale, bias.
    return 128 * (2 * i * h / 2 + 2 * i * h / 32 + 2 * i * 2 + h * i / 2 + h * i / 32 + h * 2);
  };
  const std::int64_t marlin = weights("gpt-oss-120b", "h100-sxm-80gb", 2, "0.10.1");
  const std::int64_t triton = weights("gpt-oss-120b", "h100-sxm-80gb", 2, "0.10.2");
  EXPECT_EQ(marlin - triton, 36 * (experts(1536, 3072) - experts(1472, 2880)));
}

}  // namespace
}  // namespace gpumem
