// --cpu-offload-gb end to end: vLLM with Qwen3-8B and SGLang with Llama-3.1-8B on one RTX 4090
// with 4 GiB of decoder-layer parameters in CPU memory, and the launches gpumem refuses by name.
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
  const Fact* f = moved.gpus.front().fact("weights_offloaded_to_cpu");
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
  const Fact* f = all.gpus.front().fact("weights_offloaded_to_cpu");
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

// Llama-3.1-8B's decoder layer in SGLang's registration order (llama.py LlamaDecoderLayer):
// qkv_proj (32 + 2 x 8 heads of 128), o_proj, gate_up_proj and down_proj (14,336 wide), two
// RMSNorms of 4,096; bfloat16.
constexpr std::int64_t kLlamaQkv = 48 * 128 * 4096 * 2;
constexpr std::int64_t kLlamaO = 4096 * 4096 * 2;
constexpr std::int64_t kLlamaMlp = 3 * 14336 * 4096 * 2;
constexpr std::int64_t kLlamaLayer = kLlamaQkv + kLlamaO + kLlamaMlp + 2 * 4096 * 2;

TEST(CpuOffload, SglangMovesLayersAndEachForwardCopiesOneBack) {
  const std::string args = "    --context-length: 8192\n";
  const Ledger kept = family_ledger("sglang", "llama-3.1-8b-instruct", 1, args, "rtx-4090");
  const Ledger moved = family_ledger("sglang", "llama-3.1-8b-instruct", 1,
                                     args + "    --cpu-offload-gb: 4\n", "rtx-4090");
  ASSERT_TRUE(kept.fits());
  ASSERT_TRUE(moved.fits());
  // OffloaderV1's per-parameter rule: 9 layers (3,926,016,000 B) are under 4 GiB, so the 10th
  // layer's qkv_proj, o_proj and gate_up_proj move (4,244,783,104 B) and its down_proj passes
  // the budget; its norms stay.
  EXPECT_EQ(kLlamaLayer, 436'224'000);
  const std::int64_t offloaded = 9 * kLlamaLayer + kLlamaQkv + kLlamaO + kLlamaMlp;
  const Fact* f = moved.gpus.front().fact("weights_offloaded_to_cpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<Bytes>(f->value).value(), offloaded);
  EXPECT_EQ(
      ledger_fact(kept, "weights_logical_bytes") - ledger_fact(moved, "weights_logical_bytes"),
      offloaded);
  // The pool is sized from the free memory after the weights, so what the GPU no longer
  // holds goes to the KV cache: 38,368 tokens become 71,648 (128 KiB each).
  EXPECT_EQ(ledger_fact(moved, "kv_budget_bytes") - ledger_fact(kept, "kv_budget_bytes"),
            ledger_fact(moved, "free_after_weights") - ledger_fact(kept, "free_after_weights"));
  EXPECT_EQ(ledger_fact(kept, "kv_tokens"), 38'368);
  EXPECT_EQ(ledger_fact(moved, "kv_tokens"), 71'648);
  // Each captured forward copies an offloaded layer's parameters back and drops them when the
  // layer returns, so the graph pool keeps one full layer's copies, which every later
  // offloaded layer reuses: 436,207,616 B more than without offloading.
  EXPECT_EQ(ledger_fact(moved, "cuda_graph_bytes") - ledger_fact(kept, "cuda_graph_bytes"),
            kLlamaQkv + kLlamaO + kLlamaMlp);
}

// SGLang's budget is an int: below 1 it makes no offloader (utils/offloader.py
// create_offloader), the largest int the flag takes moves every decoder layer, and a larger one
// is refused at its value.
TEST(CpuOffload, SglangBudgetsAtTheEndsOfTheRange) {
  const Ledger none =
      family_ledger("sglang", "llama-3.1-8b-instruct", 1, "    --cpu-offload-gb: -3\n", "rtx-4090");
  EXPECT_EQ(none.gpus.front().fact("weights_offloaded_to_cpu"), nullptr);
  const Ledger all = family_ledger("sglang", "llama-3.1-8b-instruct", 1,
                                   "    --cpu-offload-gb: 2147483647\n", "h200");
  const Fact* f = all.gpus.front().fact("weights_offloaded_to_cpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<Bytes>(f->value).value(), 32 * kLlamaLayer);
  EXPECT_EQ(family_errors("sglang", "llama-3.1-8b-instruct",
                          "    --cpu-offload-gb: 9223372036854775807\n"),
            "f.yaml:6:23: '--cpu-offload-gb' must be an integer from -2147483647 to 2147483647, "
            "got '9223372036854775807'\n");
}

// Each pipeline stage offloads its own decoder layers under its own budget, so with a budget
// beyond the model the GPUs report their stage's layers: 32 layers over 3 stages are 11, 11
// and 10 in vLLM (get_pp_indices: the extra layers before the last stage) and 10, 11 and 11
// in SGLang (on the last stages).
TEST(CpuOffload, EachPipelineStageReportsItsOwnLayers) {
  const auto offloaded = [](const Ledger& l, size_t gpu) {
    const Fact* f = l.gpus.at(gpu).fact("weights_offloaded_to_cpu");
    EXPECT_NE(f, nullptr) << gpu;
    return f == nullptr ? -1 : std::get<Bytes>(f->value).value();
  };
  const auto pipeline = [](const std::string& engine, const std::string& version,
                           const std::string& pp_flag) {
    return scenario_ledger("hardware: {gpu: h200, count: 3}\nengine:\n  name: " + engine +
                           "\n  version: " + version + "\n  args: {" + pp_flag +
                           ": 3, --cpu-offload-gb: 1000}\nmodel: llama-3.1-8b-instruct\n");
  };
  const Ledger vllm = pipeline("vllm", "0.21.0", "--pipeline-parallel-size");
  ASSERT_EQ(vllm.gpus.size(), 3U);
  EXPECT_EQ(offloaded(vllm, 0), 11 * kLlamaLayer);
  EXPECT_EQ(offloaded(vllm, 1), 11 * kLlamaLayer);
  EXPECT_EQ(offloaded(vllm, 2), 10 * kLlamaLayer);
  const Ledger sglang = pipeline("sglang", "0.5.9", "--pp-size");
  ASSERT_EQ(sglang.gpus.size(), 3U);
  EXPECT_EQ(offloaded(sglang, 0), 10 * kLlamaLayer);
  EXPECT_EQ(offloaded(sglang, 1), 11 * kLlamaLayer);
  EXPECT_EQ(offloaded(sglang, 2), 11 * kLlamaLayer);
}

TEST(CpuOffload, SglangRefusals) {
  // server_args.py: cpu_offload_gb is an int.
  EXPECT_EQ(family_errors("sglang", "llama-3.1-8b-instruct", "    --cpu-offload-gb: 2.5\n"),
            "f.yaml:6:23: '--cpu-offload-gb' must be an integer, got '2.5'\n");
  EXPECT_EQ(
      family_errors("sglang", "deepseek-ai--DeepSeek-V2-Lite-Chat", "    --cpu-offload-gb: 4\n"),
      "f.yaml:6:23: --cpu-offload-gb with DeepseekV2ForCausalLM on SGLang 0.5.9 is not "
      "modelled: whether its model file builds the layers through make_layers, where the "
      "offloader acts, has not been read\n");
  EXPECT_EQ(family_errors("sglang", "qwen3-8b", "    --cpu-offload-gb: 4\n", 1, "0.4.6"),
            "f.yaml:6:23: --cpu-offload-gb with Qwen3ForCausalLM on SGLang 0.4.6 is not "
            "modelled: whether its model file builds the layers through make_layers, where the "
            "offloader acts, has not been read\n");
  EXPECT_EQ(family_errors("sglang", "Qwen--Qwen3-8B-FP8", "    --cpu-offload-gb: 4\n"),
            "f.yaml:6:23: --cpu-offload-gb with a quantized model is not modelled: the loader "
            "brings the offloaded parameters back to the GPU for the method's post-load "
            "processing, which may replace them\n");
  EXPECT_EQ(family_errors("sglang", "llama-3.1-8b-instruct",
                          "    --cpu-offload-gb: 4\n    --enable-piecewise-cuda-graph: true\n"),
            "f.yaml:6:23: --cpu-offload-gb with --enable-piecewise-cuda-graph on SGLang 0.5.9 is "
            "not modelled: the piecewise graphs' copies of the offloaded layers have not been "
            "read\n");
  EXPECT_EQ(family_errors("sglang", "llama-3.1-8b-instruct",
                          "    --cpu-offload-gb: 4\n    --speculative-algorithm: EAGLE3\n"
                          "    --speculative-draft-model-path: eagle3-llama3.1-instruct-8b\n"),
            "f.yaml:6:23: --cpu-offload-gb with speculative decoding is not modelled\n");
  // From 0.5.10 piecewise CUDA graphs are on by default, and SGLang turns them off for it: the
  // automatic fraction no longer keeps 8 MiB for each of the 58 piecewise sizes back (13,904
  // MiB of the H200's 143,771 reserved become 13,440).
  const Ledger on = family_ledger("sglang", "llama-3.1-8b-instruct", 1, "", "h200", "0.5.10");
  const Ledger off = family_ledger("sglang", "llama-3.1-8b-instruct", 1,
                                   "    --cpu-offload-gb: 4\n", "h200", "0.5.10");
  ASSERT_TRUE(off.fits());
  EXPECT_DOUBLE_EQ(mem_fraction(on), 0.903);
  EXPECT_DOUBLE_EQ(mem_fraction(off), 0.907);
}

}  // namespace
}  // namespace gpumem
