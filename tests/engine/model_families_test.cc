// Hugging Face configs of the families users serve, as published (support/model_configs.h,
// each with its source), simulated in both engines: each starts, and its KV layout and the
// weights one GPU holds are the bytes computed here from the config.
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/parameter_count.h"
#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

// Parameters of a dense GQA decoder with a gated MLP on one of `tp` ranks, the vocabulary
// padded to 64 rows and split; `norms` RMSNorms per layer; `tied`: no lm_head.
std::int64_t dense_rank_params(std::int64_t hidden, std::int64_t layers, std::int64_t heads,
                               std::int64_t kv_heads, std::int64_t head_dim,
                               std::int64_t intermediate, std::int64_t vocab, int tp, bool tied,
                               std::int64_t norms = 2) {
  const std::int64_t q = heads / tp * head_dim;
  const std::int64_t kv = std::max<std::int64_t>(1, kv_heads / tp) * head_dim;
  const std::int64_t layer =
      hidden * (q + 2 * kv) + q * hidden + 3 * hidden * (intermediate / tp) + norms * hidden;
  const std::int64_t rows = (vocab + 63) / 64 * 64 / tp;
  return rows * hidden * (tied ? 1 : 2) + layers * layer + hidden;
}

struct Family {
  std::string repo;
  int gpus;
  std::int64_t sglang_cell;     // SGLang's bytes per token: every layer's K and V
  std::int64_t sglang_weights;  // what GPU 0 allocates for the weights in SGLang
  std::int64_t vllm_weights;    // ... and in vLLM (its RoPE cache is in the model dtype)
};

// RoPE caches: [positions, rotary dim], float32 in SGLang, bfloat16/float16 in vLLM.
constexpr std::int64_t rope(std::int64_t positions, std::int64_t dim, std::int64_t bytes) {
  return positions * dim * bytes;
}

TEST(ModelFamilies, StartInBothEnginesWithTheirKvCellAndWeights) {
  // DeepSeek-V2-Lite: the checkpoint's 31,412,968,448 bytes (checkpoint_tensors_test), the
  // yarn RoPE cache of 4096 x 40 positions x 64, and in SGLang the absorbed w_kc and w_vc
  // copies (16 heads x 128 x 512, twice, bf16) of its 27 layers.
  const std::int64_t v2 = 31'412'968'448;
  // Gemma 2: tied embedding, four norms per layer, a 2-byte `normalizer` scalar.
  const std::int64_t g9 = 2 * dense_rank_params(3584, 42, 16, 8, 256, 14336, 256000, 1, true, 4);
  const std::int64_t g27 = 2 * dense_rank_params(4608, 46, 32, 16, 128, 36864, 256000, 2, true, 4);
  const std::int64_t m8 = 2 * dense_rank_params(4096, 36, 32, 8, 128, 12288, 131072, 1, false);
  const std::int64_t nemo = 2 * dense_rank_params(5120, 40, 32, 8, 128, 14336, 131072, 1, false);
  // Mistral-Small-24B-Instruct-2501 declares no torch_dtype: served in float16, 2 bytes too.
  const std::int64_t small = 2 * dense_rank_params(5120, 40, 32, 8, 128, 32768, 131072, 1, false);
  // Mixtral-8x22B at TP 4: 8 experts of 16384 / 4 (w13 and w2) and an [8, 6144] gate per layer.
  const std::int64_t mixtral = 2 * (dense_rank_params(6144, 56, 48, 8, 128, 0, 32000, 4, false) +
                                    56 * (std::int64_t{8} * 3 * 6144 * (16384 / 4) + 8 * 6144));
  // Phi-3-mini-4k and Phi-3.5-mini: 32 layers of 32 heads of 96 (no GQA), 8192, vocab 32064;
  // Phi-4: 40 layers of 40/10 heads of 128, 17920, vocab 100352, no torch_dtype (16-bit).
  const std::int64_t phi3 = 2 * dense_rank_params(3072, 32, 32, 32, 96, 8192, 32064, 1, false);
  const std::int64_t phi4 = 2 * dense_rank_params(5120, 40, 40, 10, 128, 17920, 100352, 1, false);
  const std::int64_t granite = 2 * dense_rank_params(4096, 40, 32, 8, 128, 12800, 49159, 1, true);
  const std::int64_t seed = 2 * (dense_rank_params(5120, 64, 80, 8, 128, 27648, 155136, 2, false) +
                                 64 * (40 + 2 * 4) * 128);
  // Phi-3.5-mini's longrope keeps a short (4096 rows), a long (131072) and a concatenated
  // (135168) cache of 96, in bf16 in both engines.
  const std::int64_t longrope = (4096 + 131072 + 135168) * 96 * 2;
  const Family families[] = {
      {"deepseek-ai--DeepSeek-V2-Lite-Chat", 1, (512 + 64) * 27 * 2,
       v2 + rope(4096 * 40, 64, 4) + 27 * 2 * (16 * 128 * 512 * 2), v2 + rope(4096 * 40, 64, 2)},
      // 8 KV heads of 256, 42 layers: SGLang keeps one full pool (not a hybrid-SWA arch).
      {"google--gemma-2-9b-it", 1, 8 * (256 + 256) * 42 * 2, g9 + rope(8192, 256, 4) + 2,
       g9 + rope(8192, 256, 2) + 2},
      {"google--gemma-2-27b-it", 2, 16 / 2 * (128 + 128) * 46 * 2, g27 + rope(8192, 128, 4) + 2,
       g27 + rope(8192, 128, 2) + 2},
      // Ministral's sliding_window (32768, without layer_types) windows no layer in either.
      {"mistralai--Ministral-8B-Instruct-2410", 1, 8 * (128 + 128) * 36 * 2,
       m8 + rope(32768, 128, 4), m8 + rope(32768, 128, 2)},
      {"mistralai--Mistral-Nemo-Instruct-2407", 1, 8 * (128 + 128) * 40 * 2,
       nemo + rope(1024000, 128, 4), nemo + rope(1024000, 128, 2)},
      {"mistralai--Mistral-Small-24B-Instruct-2501", 1, 8 * (128 + 128) * 40 * 2,
       small + rope(32768, 128, 4), small + rope(32768, 128, 2)},
      // Phi-3-mini's sliding_window 2047 comes without layer_types: no layer is windowed.
      {"microsoft--Phi-3-mini-4k-instruct", 1, 32 * (96 + 96) * 32 * 2, phi3 + rope(4096, 96, 4),
       phi3 + rope(4096, 96, 2)},
      {"microsoft--Phi-3.5-mini-instruct", 1, 32 * (96 + 96) * 32 * 2, phi3 + longrope,
       phi3 + longrope},
      {"microsoft--phi-4", 1, 10 * (128 + 128) * 40 * 2, phi4 + rope(16384, 128, 4),
       phi4 + rope(16384, 128, 2)},
      // Granite 3.3 8B: Llama's layout; its tied ParallelLMHead is built, then replaced by
      // the embedding (freed: not among the weights held).
      {"ibm-granite--granite-3.3-8b-instruct", 1, 8 * (128 + 128) * 40 * 2,
       granite + rope(131072, 128, 4), granite + rope(131072, 128, 2)},
      // Seed-OSS-36B at TP 2: 40 of 80 query heads, 4 of 8 KV heads, q/k/v biases.
      {"ByteDance-Seed--Seed-OSS-36B-Instruct", 2, 8 / 2 * (128 + 128) * 64 * 2,
       seed + rope(524288, 128, 4), seed + rope(524288, 128, 2)},
      {"mistralai--Mixtral-8x22B-v0.1", 4, 8 / 4 * (128 + 128) * 56 * 2,
       mixtral + rope(65536, 128, 4), mixtral + rope(65536, 128, 2)},
  };
  for (const Family& f : families) {
    const Ledger sglang = family_ledger("sglang", f.repo, f.gpus, "");
    EXPECT_TRUE(sglang.fits()) << f.repo;
    EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), f.sglang_cell) << f.repo;
    EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), f.sglang_weights) << f.repo;
    const Ledger vllm = family_ledger("vllm", f.repo, f.gpus, "    --max-model-len: 4096\n");
    EXPECT_TRUE(vllm.fits()) << f.repo;
    EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), f.vllm_weights) << f.repo;
  }
}

// A block-FP8 linear of `out` x `in` on one rank: e4m3 weight and a float32 scale per 128 x 128.
constexpr std::int64_t fp8_linear(std::int64_t out, std::int64_t in) {
  return out * in + (out + 127) / 128 * ((in + 127) / 128) * 4;
}

// MiniMax-M2.5 (block FP8) on four H200s, TP 4: 62 layers, each 12 of 48 query heads and 2 of 8
// KV heads of 128, q_norm/k_norm over this rank's heads, a float32 router [256, 3072] and
// correction bias, 256 FP8 experts of 1536 / 4 = 384 (w13 and w2 with their block scales);
// embedding and head of 200,064 rows in bf16, split four ways; one RoPE cache of 196,608
// positions x 64 rotary dims, float32 in SGLang, bf16 in vLLM.
TEST(ModelFamilies, MiniMaxM2StartsInBothEnginesAtTp4) {
  const std::int64_t h = 3072;
  const std::int64_t i = 1536 / 4;
  const std::int64_t experts =
      256 * (2 * i * h + h * i) + 256 * (2 * (i / 128) * (h / 128) + (h / 128) * (i / 128)) * 4;
  const std::int64_t layer = fp8_linear(12 * 128 + 2 * 2 * 128, h) + fp8_linear(h, 12 * 128) +
                             (12 * 128 + 2 * 128) * 2 + 256 * 4 + experts + 256 * h * 4 + 2 * h * 2;
  const std::int64_t weights = 2 * (200064 / 4) * h * 2 + h * 2 + 62 * layer;
  const std::string repo = "MiniMaxAI--MiniMax-M2.5";
  const Ledger sglang = family_ledger("sglang", repo, 4, "");
  EXPECT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 62 * 2 * (128 + 128) * 2);  // 63,488 per token
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), weights + rope(196608, 64, 4));
  EXPECT_EQ(weights + rope(196608, 64, 4), 57'727'639'296);
  const Ledger vllm = family_ledger("vllm", repo, 4, "    --max-model-len: 4096\n");
  EXPECT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), weights + rope(196608, 64, 2));
  // The catalog entry model/llm/minimax-m2.5.yaml holds the same config.
  EXPECT_EQ(ledger_fact(family_ledger("sglang", "minimax-m2.5", 4, ""), "weights_logical_bytes"),
            weights + rope(196608, 64, 4));
}

// At TP 8 each expert keeps 192 columns, not a multiple of the 128-wide FP8 block: both
// engines refuse it (sglang v0.5.9 / vllm fp8.py Fp8MoEMethod.create_weights).
TEST(ModelFamilies, MiniMaxM2Fp8ExpertsDoNotSplitEightWays) {
  const std::string text =
      family_errors("sglang", "MiniMaxAI--MiniMax-M2.5", "    --tp-size: 8\n", 8);
  EXPECT_NE(text.find("The output_size of gate's and up's weight = 192 is not divisible by "
                      "weight quantization block_n = 128."),
            std::string::npos)
      << text;
}

// Qwen2-57B-A14B on two H200s, TP 2: 28 MoE layers of 14 of 28 query heads and 2 of 4 KV heads
// of 128 (q/k/v biases), 64 experts of 2560 / 2 = 1280, the [64, 3584] router, the shared expert
// (20480 / 2 wide, the dense MLP below) and its [1, 3584] gate; one RoPE cache of 131,072 x 128.
TEST(ModelFamilies, Qwen2MoeStartsInBothEnginesAtTp2) {
  const std::int64_t h = 3584;
  const std::int64_t params = dense_rank_params(h, 28, 28, 4, 128, 20480, 151936, 2, false) +
                              28 * ((14 + 2 * 2) * 128 + 64 * 3 * h * 1280 + 64 * h + h);
  const std::int64_t weights = 2 * params;
  const std::string repo = "Qwen--Qwen2-57B-A14B";
  const Ledger sglang = family_ledger("sglang", repo, 2, "");
  EXPECT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 28 * 2 * (128 + 128) * 2);  // 28,672 per token
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), weights + rope(131072, 128, 4));
  EXPECT_EQ(weights + rope(131072, 128, 4), 57'482'494'976);
  const Ledger vllm = family_ledger("vllm", repo, 2, "    --max-model-len: 4096\n");
  EXPECT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), weights + rope(131072, 128, 2));
}

// AWQ and GPTQ checkpoints (int4_linear_weights_test derives their per-rank bytes): both
// engines load them through Marlin, except vLLM's GPTQ on an H200 (compute capability 9.0),
// which takes Machete and keeps g_idx and the zero points instead of the workspaces.
TEST(ModelFamilies, AwqAndGptqStartInBothEngines) {
  const auto h200_difference = [](std::int64_t in, std::int64_t out) {
    return 4 * in + 4 * (in / 128) * (out / 8) - 4 * 132;
  };
  const std::int64_t machete = 28 * (h200_difference(1536, 2048) + h200_difference(1536, 1536) +
                                     h200_difference(1536, 17920) + h200_difference(8960, 1536));
  struct Case {
    std::string repo;
    int gpus;
    std::int64_t sglang_weights;
    std::int64_t vllm_weights;
  };
  const Case cases[] = {
      {"Qwen--Qwen3-32B-AWQ", 2, 9'684'432'896, 9'684'432'896 - rope(40960, 128, 2)},
      {"Qwen--Qwen2.5-Coder-1.5B-Instruct-GPTQ-Int4", 1, 1'159'443'200,
       1'159'443'200 - rope(32768, 128, 2) + machete},
  };
  for (const Case& c : cases) {
    const Ledger sglang = family_ledger("sglang", c.repo, c.gpus, "");
    EXPECT_TRUE(sglang.fits()) << c.repo;
    EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), c.sglang_weights) << c.repo;
    const Ledger vllm = family_ledger("vllm", c.repo, c.gpus, "    --max-model-len: 4096\n");
    EXPECT_TRUE(vllm.fits()) << c.repo;
    EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), c.vllm_weights) << c.repo;
  }
}

// --quantization awq or gptq forces the engines' older kernels, which gpumem does not model;
// awq_marlin / gptq_marlin (or marlin) name the methods it does.
TEST(ModelFamilies, AQuantizationFlagMustNameTheMarlinMethod) {
  const std::string coder = "Qwen--Qwen2.5-Coder-1.5B-Instruct-GPTQ-Int4";
  EXPECT_EQ(family_errors("sglang", coder, "    --quantization: gptq\n"),
            "f.yaml:6:21: --quantization gptq selects SGLang's gptq kernels instead of "
            "gptq_marlin, which gpumem does not model; leave it unset or name gptq_marlin\n");
  EXPECT_EQ(family_errors("sglang", coder, "    --quantization: gptq_marlin\n"), "");
  EXPECT_EQ(family_errors("sglang", coder, "    --quantization: awq_marlin\n"),
            "f.yaml:6:21: --quantization awq_marlin differs from the checkpoint's gptq "
            "quantization; gpumem models a checkpoint's own method only\n");
  EXPECT_EQ(family_errors("vllm", coder, "    --quantization: gptq\n    --max-model-len: 4096\n"),
            "f.yaml:6:21: --quantization gptq selects vLLM's gptq kernels instead of "
            "gptq_marlin, which gpumem does not model; leave it unset or name gptq_marlin\n");
  EXPECT_EQ(family_errors("vllm", coder, "    --quantization: fp8\n    --max-model-len: 4096\n"),
            "f.yaml:6:21: --quantization fp8 does not name the checkpoint's gptq quantization "
            "as gpumem models it (vLLM: \"Quantization method specified in the model config "
            "does not match the quantization method specified in the `quantization` "
            "argument\")\n");
  EXPECT_EQ(family_errors("vllm", "Qwen--Qwen3-32B-AWQ",
                          "    --quantization: awq_marlin\n    --max-model-len: 4096\n"),
            "");
}

// A method without a Marlin override runs the same whether --quantization names it or not
// (sglang v0.5.9 and vllm configs/model_config.py _verify_quantization accept the checkpoint's
// own name): gpt-oss's mxfp4, a block-FP8 checkpoint's fp8.
TEST(ModelFamilies, NamingTheCheckpointsOwnMethodChangesNothing) {
  struct Case {
    std::string engine;
    std::string model;
    std::string flag;
    std::string args;
  };
  const Case cases[] = {
      {"sglang", "gpt-oss-20b", "mxfp4", ""},
      {"vllm", "gpt-oss-20b", "mxfp4", "    --max-model-len: 4096\n"},
      {"sglang", "Qwen--Qwen3-8B-FP8", "fp8", ""},
      {"vllm", "Qwen--Qwen3-8B-FP8", "fp8", "    --max-model-len: 4096\n"},
  };
  for (const Case& c : cases) {
    const Ledger unset = family_ledger(c.engine, c.model, 1, c.args);
    const Ledger named =
        family_ledger(c.engine, c.model, 1, c.args + "    --quantization: " + c.flag + "\n");
    ASSERT_FALSE(unset.gpus.empty()) << c.engine << " " << c.model;
    ASSERT_FALSE(named.gpus.empty()) << c.engine << " " << c.model;
    EXPECT_EQ(ledger_fact(named, "weights_logical_bytes"),
              ledger_fact(unset, "weights_logical_bytes"))
        << c.engine << " " << c.model;
    EXPECT_EQ(named.gpus.front().steps.back().free_after.value(),
              unset.gpus.front().steps.back().free_after.value())
        << c.engine << " " << c.model;
  }
}

// A runner other than the generative one (vLLM) and the inductor compiler for SGLang's
// piecewise graphs are refused by name; the defaults they replace simulate.
TEST(ModelFamilies, UnmodelledRunnersAndCompilersAreRefused) {
  const std::string m = "Qwen--Qwen3-8B-FP8";
  EXPECT_EQ(family_errors("vllm", m, "    --runner: pooling\n    --max-model-len: 4096\n"),
            "f.yaml:6:15: --runner pooling is not modelled: gpumem models vLLM's generative "
            "runner\n");
  EXPECT_EQ(family_errors("vllm", m, "    --runner: generate\n    --max-model-len: 4096\n"), "");
  EXPECT_EQ(family_errors("sglang", m, "    --piecewise-cuda-graph-compiler: inductor\n"),
            "f.yaml:6:38: --piecewise-cuda-graph-compiler inductor compiles the piecewise CUDA "
            "graphs with torch.compile's inductor, whose buffers gpumem does not model\n");
  EXPECT_EQ(family_errors("sglang", m, "    --piecewise-cuda-graph-compiler: eager\n"), "");
}

// sglang v0.5.9 configs/model_config.py is_hybrid_swa_model names the architectures whose
// KV pool splits into sliding and full layers (gpt-oss among them); Gemma 3 is not one, so
// its 52 sliding and 10 global layers all keep full K and V.
TEST(ModelFamilies, SglangSplitsItsPoolForHybridSwaArchitecturesOnly) {
  const Ledger gemma = family_ledger("sglang", "gemma-3-27b-it", 2, "");
  EXPECT_EQ(ledger_fact(gemma, "kv_cell_bytes"), 16 / 2 * (128 + 128) * 62 * 2);
  // gpt-oss-20b: 12 sliding and 12 full layers of 8 KV heads of 64, sized together.
  const Ledger oss = family_ledger("sglang", "gpt-oss-20b", 1, "");
  EXPECT_EQ(ledger_fact(oss, "kv_cell_bytes"), 8 * (64 + 64) * 24 * 2);
}

// Qwen2.5-VL-7B-Instruct at TP 2 in SGLang: the Qwen2 language model (q/k/v biases, untied
// head, one float32 RoPE cache of 128,000 x 128: "mrope" keeps the default cache) after the ViT
// (qwen2_5_vl.py): a bias-free Conv3d [1280, 3, 2, 14, 14], 32 blocks of two norms, q/k/v of 8
// of 16 heads of 80 and proj, gate/up of 3420 / 2 and down, all biased, the merger's norm and
// linears over 4 x 1280 = 5120 (split rows, then split inputs to 3584), the float32 inv_freq
// buffer of 80 / 4 entries. Served multimodal by default, the automatic fraction shrinks. vLLM
// loads the same tower.
TEST(ModelFamilies, Qwen25VlLoadsItsVitInSglang) {
  const std::string repo = "Qwen--Qwen2.5-VL-7B-Instruct";
  const std::int64_t text = 2 * (dense_rank_params(3584, 28, 28, 4, 128, 18944, 152064, 2, false) +
                                 28 * (28 / 2 + 2 * 4 / 2) * 128);
  const std::int64_t h = 1280;
  const std::int64_t block =
      2 * h + 1920 * h + 1920 + h * 640 + h + 2 * (1710 * h + 1710) + h * 1710 + h;
  const std::int64_t vit =
      2 * (h * 3 * 2 * 14 * 14 + 32 * block + h + 2560 * 5120 + 2560 + 3584 * 2560 + 3584) + 20 * 4;
  // The checkpoint: the language model's 7,615,616,512 parameters and the ViT's 676,550,144
  // (Hugging Face's page for Qwen/Qwen2.5-VL-7B-Instruct reads 8.29B params).
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(*a), 7'615'616'512 + 676'550'144);
  const Ledger l = family_ledger("sglang", repo, 2, "");
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), text + rope(128000, 128, 4) + vit);
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 4 / 2 * (128 + 128) * 28 * 2);
  // The automatic fraction of the same Qwen2 language model alone, times the ViT's factor.
  const Ledger qwen2 = family_ledger("sglang", "qwen2.5-7b-instruct", 2, "");
  // SGLang reads the ViT's layers as getattr(vision_config, "num_hidden_layers", 24), and
  // Qwen2.5-VL names them "depth": 0.95 x (1 - 0.1 x (24 x 1280^2 / (24 x 1024^2) - 1)).
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(qwen2) * 0.8965625);
  // vLLM (0.16.0 on) builds the same tower, profiled on its dummy image
  // (vllm_encoder_profile_test.cc); with 0 images and 0 videos it builds none.
  const Ledger vllm_mm = family_ledger("vllm", repo, 2, "    --max-model-len: 8192\n");
  const Ledger vllm_text = family_ledger(
      "vllm", repo, 2,
      "    --max-model-len: 8192\n    --limit-mm-per-prompt: '{\"image\": 0, \"video\": 0}'\n");
  EXPECT_EQ(ledger_fact(vllm_mm, "weights_logical_bytes") -
                ledger_fact(vllm_text, "weights_logical_bytes"),
            vit);
  // vLLM's language model: the same shards, with its MRotaryEmbedding's bf16 cache of four
  // times the 128,000 positions (mrope.py: video positions run past the context).
  EXPECT_EQ(ledger_fact(vllm_text, "weights_logical_bytes"), text + rope(4 * 128000, 128, 2));
}

// Qwen3-VL-8B-Instruct at TP 2 in SGLang: the Qwen3 language model (text_config: q/k norms,
// untied head, a float32 RoPE cache of 262,144 x 128) after its ViT (qwen3_vl.py
// Qwen3VLMoeVisionModel): a biased Conv3d [1152, 3, 2, 16, 16], the 2304-row position table, 27
// blocks of two LayerNorms, q/k/v of 8 of 16 heads of 72 and proj, linear_fc1 of 4304 / 2 and
// linear_fc2, all biased, the merger (LayerNorm of 1152) and three deepstack mergers (LayerNorm of
// 4 x 1152 = 4608), each with linears of 4608 -> 4608 / 2 and 4608 / 2 -> 4096, and the float32
// inv_freq of 72 / 4 entries.
TEST(ModelFamilies, Qwen3VlLoadsItsVitWithDeepstackMergersInSglang) {
  const std::string repo = "Qwen--Qwen3-VL-8B-Instruct";
  // The checkpoint holds 8,767,123,696 parameters (SOURCE.md: the model-info report of the
  // loaded checkpoint): 8,190,735,360 in the language model, 576,388,336 in the ViT.
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(*a), 8'767'123'696);
  const std::int64_t text =
      2 * (dense_rank_params(4096, 36, 32, 8, 128, 12288, 151936, 2, false) + 36 * 2 * 128);
  const std::int64_t h = 1152;
  const std::int64_t block = 4 * h + 1728 * h + 1728 + h * 576 + h + 2152 * h + 2152 + h * 2152 + h;
  const std::int64_t merger = 4608 * 2304 + 2304 + 4096 * 2304 + 4096;
  const std::int64_t vit = 2 * (h * 3 * 2 * 16 * 16 + h + 2304 * h + 27 * block + 2 * h + merger +
                                3 * (2 * 4608 + merger)) +
                           18 * 4;
  const Ledger l = family_ledger("sglang", repo, 2, "");
  EXPECT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), text + rope(262144, 128, 4) + vit);
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), 8 / 2 * (128 + 128) * 36 * 2);
  // "depth", not num_hidden_layers: 0.95 x (1 - 0.1 x (24 x 1152^2 / (24 x 1024^2) - 1)).
  const Ledger qwen3 = family_ledger("sglang", "qwen3-8b", 2, "");
  EXPECT_DOUBLE_EQ(mem_fraction(l), mem_fraction(qwen3) * 0.924765625);
}

// Qwen3-VL-30B-A3B-Instruct at TP 2 in SGLang: the Qwen3-MoE language model of Qwen3-30B-A3B
// (same layers, experts and vocabulary; its RoPE cache covers 262,144 positions instead of
// 40,960) beside the Qwen3-VL ViT, whose mergers project to 2048.
TEST(ModelFamilies, Qwen3VlMoeIsQwen3MoeBesideTheQwen3Vit) {
  const std::string repo = "Qwen--Qwen3-VL-30B-A3B-Instruct";
  // Qwen3-30B-A3B's 30,532,122,624 parameters and the ViT's 538,631,408 (HF reads 31.1B).
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(*a), 30'532'122'624 + 538'631'408);
  const std::int64_t h = 1152;
  const std::int64_t block = 4 * h + 1728 * h + 1728 + h * 576 + h + 2152 * h + 2152 + h * 2152 + h;
  const std::int64_t merger = 4608 * 2304 + 2304 + 2048 * 2304 + 2048;
  const std::int64_t vit = 2 * (h * 3 * 2 * 16 * 16 + h + 2304 * h + 27 * block + 2 * h + merger +
                                3 * (2 * 4608 + merger)) +
                           18 * 4;
  const Ledger vl = family_ledger("sglang", repo, 2, "");
  const Ledger text = family_ledger("sglang", "qwen3-30b-a3b", 2, "");
  EXPECT_TRUE(vl.fits());
  EXPECT_EQ(ledger_fact(vl, "weights_logical_bytes"),
            ledger_fact(text, "weights_logical_bytes") + vit + rope(262144 - 40960, 128, 4));
  EXPECT_EQ(ledger_fact(vl, "kv_cell_bytes"), ledger_fact(text, "kv_cell_bytes"));
}

// Gemma3ForConditionalGeneration: SGLang builds the SigLIP tower and projector beside the
// language model (gemma3_mm.py) whether or not multimodal serving is on; only
// --enable-multimodal shrinks the automatic fraction (server_args.py
// adjust_mem_fraction_for_vlm).
TEST(ModelFamilies, Gemma3VisionShrinksSglangsFractionOnlyWhenMultimodal) {
  const Ledger text = family_ledger("sglang", "gemma-3-27b-it", 1, "");
  const Ledger mm = family_ledger("sglang", "gemma-3-27b-it", 1, "    --enable-multimodal: true\n");
  // 27 x 1152^2 against ViT-L/14's 24 x 1024^2 is 1.423828125: 0.95 x (1 - 0.0423828125).
  EXPECT_DOUBLE_EQ(mem_fraction(mm), mem_fraction(text) * 0.909736328125);
  EXPECT_LT(ledger_fact(mm, "kv_tokens"), ledger_fact(text, "kv_tokens"));
  EXPECT_EQ(ledger_fact(mm, "weights_logical_bytes"), ledger_fact(text, "weights_logical_bytes"));
  // A given fraction is kept as given.
  const Ledger given =
      family_ledger("sglang", "gemma-3-27b-it", 1,
                    "    --enable-multimodal: true\n    --mem-fraction-static: 0.8\n");
  EXPECT_DOUBLE_EQ(mem_fraction(given), 0.8);
  // vLLM profiles the tower (vllm_encoder_profile_test.cc) and loads the same bytes of it.
  EXPECT_EQ(family_errors("vllm", "gemma-3-27b-it", "    --max-model-len: 8192\n"), "");
  EXPECT_EQ(
      family_errors("sglang", "gemma-3-27b-it", "    --enable-multimodal: true\n", 1, "0.4.9"),
      "f.yaml:6:26: serving Gemma3ForConditionalGeneration multimodal with SGLang 0.4.9 is "
      "not modelled (from 0.5.0: the vision tower's mem-fraction rule)\n");
}

// Qwen3-Next-80B-A3B on four H200s, TP 4, in SGLang: only the 12 full-attention layers hold
// KV (one replicated KV head of 256 per rank); each request slot of the state cache holds, per
// Gated DeltaNet layer, a bf16 conv window of 2048 channels x 3 and a float32 state of 8 value
// heads x 128 x 128. Per rank: every layer's 128 of 512 experts' widths, the router, the shared
// expert (128 of 512) and its gate; the 36 GDN modules (2048 conv channels, 3072 qkvz rows, 16
// ba rows, 8 dt_bias, 8 float32 A_log, the [128] gated norm, out_proj of 1024 columns); the 12
// attention layers' 8 query-and-gate heads and one K and one V head; one float32 RoPE cache
// of 262,144 x 64.
TEST(ModelFamilies, Qwen3NextKeepsItsLinearAttentionStateInBothEngines) {
  const std::int64_t h = 2048;
  const std::int64_t moe = 512 * (2 * 128 * h + h * 128) + 512 * h + (2 * 128 * h + h * 128) + h;
  const std::int64_t gdn = 2048 * 4 + 3072 * h + 16 * h + 8 + 128 + h * 1024;
  const std::int64_t attention = (2048 + 2 * 256) * h + h * 1024 + 2 * 256;
  const std::int64_t params =
      48 * (moe + 2 * h) + 36 * gdn + 12 * attention + 2 * (151936 / 4) * h + h;
  const std::string repo = "Qwen--Qwen3-Next-80B-A3B-Instruct";
  const Ledger sglang = family_ledger("sglang", repo, 4, "");
  EXPECT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"),
            2 * params + 36 * 8 * 4 + rope(262144, 64, 4));
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 12 * 1 * (256 + 256) * 2);
  EXPECT_EQ(ledger_fact(sglang, "mamba_cache_per_req_bytes"),
            36 * (2048 * 3 * 2 + 8 * 128 * 128 * 4));
  const std::int64_t slots = ledger_fact(sglang, "max_mamba_cache_size");
  EXPECT_EQ(ledger_fact(sglang, "mamba_state_bytes"), (slots + 1) * 19'316'736);
  // The request pool holds a third of the slots (radix cache on: three slots per request).
  EXPECT_EQ(ledger_fact(sglang, "req_to_token_rows"), std::min<std::int64_t>(4096, slots / 3));
  // Without radix cache and with --max-running-requests, the slots are those requests.
  const Ledger no_radix = family_ledger(
      "sglang", repo, 4, "    --disable-radix-cache: true\n    --max-running-requests: 64\n");
  EXPECT_EQ(ledger_fact(no_radix, "max_mamba_cache_size"), 64);
  EXPECT_EQ(ledger_fact(no_radix, "req_to_token_rows"), 64);
  EXPECT_GT(ledger_fact(no_radix, "kv_tokens"), ledger_fact(sglang, "kv_tokens"));
  // vLLM: the same weights with its bfloat16 RoPE cache; the attention block raised to 272
  // tokens so that one page of a KV head (272 x 1,024 B) holds a GDN state (274,432 B), four
  // KV-cache groups of 12 layers.
  const Ledger vllm = family_ledger("vllm", repo, 4, "");
  EXPECT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"),
            2 * params + 36 * 8 * 4 + rope(262144, 64, 2));
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 272 * 1024);
  EXPECT_EQ(ledger_fact(vllm, "kv_layers_per_group"), 12);
  EXPECT_EQ(family_errors("vllm", "qwen3-next-80b-a3b-instruct", "    --tensor-parallel-size: 4\n",
                          4, "0.10.1"),
            "f.yaml:4:12: Qwen3NextForCausalLM is not served by vLLM 0.10.1 (from 0.10.2)\n");
  EXPECT_EQ(family_errors("sglang", repo,
                          "    --tp-size: 4\n    --speculative-algorithm: EAGLE\n"
                          "    --speculative-draft-model-path: eagle3-llama3.1-instruct-8b\n",
                          4),
            "f.yaml:7:30: --speculative-algorithm with Qwen3NextForCausalLM's linear-attention "
            "layers is not modelled (the state cache's intermediate buffers per draft token); "
            "vLLM's MTP of this model is modelled\n");
}

// A ViT whose heads the TP size does not divide stops the engine that builds it, named as
// such (Qwen3.5-0.8B's 12 heads over 8 ranks; vLLM's message said SGLang).
TEST(ModelFamilies, AVitTheTpSizeDoesNotDivideStopsItsEngine) {
  for (const std::string engine : {"sglang", "vllm"}) {
    const std::string flag = engine == "sglang" ? "--tp-size" : "--tensor-parallel-size";
    const std::string errors =
        family_errors(engine, "Qwen--Qwen3.5-0.8B-Base", "    " + flag + ": 8\n", 8);
    EXPECT_NE(errors.find("the vision tower's attention heads (12) is not divisible by the "
                          "tensor-parallel size 8; " +
                          std::string(engine == "sglang" ? "SGLang" : "vLLM") +
                          " stops with AssertionError: 12 is not divisible by 8"),
              std::string::npos)
        << errors;
  }
}

// Qwen3.6-27B (Qwen3_5ForConditionalGeneration) on one H200: 16 full-attention layers of 4 KV
// heads of 256 hold KV; each of the 48 Gated DeltaNet layers keeps a bf16 conv window of 10240 x
// 3 and a float32 state of 48 x 128 x 128 per request. SGLang builds the ViT and serves it
// multimodal (its automatic fraction shrinks); vLLM profiles the ViT too
// (vllm_encoder_profile_test.cc), or with --language-model-only builds the language model alone:
// the checkpoint's 26,895,998,464 text parameters in bf16, A_log in float32, and a bf16 RoPE
// cache of 4 x 262,144 x 64 (vLLM's MRotaryEmbedding caches four times the positions).
TEST(ModelFamilies, Qwen36HybridWithItsVitInSglangAndTextOnlyInVllm) {
  const std::string repo = "Qwen--Qwen3.6-27B";
  const Ledger sglang = family_ledger("sglang", repo, 1, "");
  EXPECT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 16 * 4 * (256 + 256) * 2);
  EXPECT_EQ(ledger_fact(sglang, "mamba_cache_per_req_bytes"),
            48 * (10240 * 3 * 2 + 48 * 128 * 128 * 4));
  EXPECT_LT(mem_fraction(sglang), 0.88);
  const Ledger vllm = family_ledger("vllm", repo, 1, "    --language-model-only: true\n");
  EXPECT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"),
            2 * 26'895'998'464LL + 48 * 48 * 2 + rope(4 * 262144, 64, 2));
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 784 * 4096);
  const Ledger limits =
      family_ledger("vllm", repo, 1, "    --limit-mm-per-prompt: '{\"image\": 0, \"video\": 0}'\n");
  EXPECT_EQ(ledger_fact(limits, "weights_logical_bytes"),
            ledger_fact(vllm, "weights_logical_bytes"));
  const Ledger pairs =
      family_ledger("vllm", repo, 1, "    --limit-mm-per-prompt: image=0,video=0\n");
  EXPECT_EQ(ledger_fact(pairs, "weights_logical_bytes"),
            ledger_fact(vllm, "weights_logical_bytes"));
  EXPECT_EQ(family_errors("vllm", repo, "    --limit-mm-per-prompt: image=0;video=0\n")
                .rfind("f.yaml:6:28: --limit-mm-per-prompt: the limit of 'image' must be a "
                       "non-negative integer\n",
                       0),
            0u);
  EXPECT_EQ(family_errors("vllm", repo, "    --language-model-only: true\n", 1, "0.15.1"),
            "f.yaml:6:28: --language-model-only needs vLLM 0.16.0 or newer; older releases "
            "take --limit-mm-per-prompt '{\"image\": 0, \"video\": 0}'\n");
}

// Nemotron-H-8B on one H200: the 4 attention layers' 8 KV heads of 128 hold KV; each of the 24
// Mamba-2 layers keeps a bf16 conv window of 10240 x 3 and a state of 128 heads x 64 x 128
// (float32 in SGLang, float16 in vLLM, whose attention block rises to 528 tokens of 4,096 B).
// Weights are the checkpoint's bytes with A in float32, and no RoPE cache.
TEST(ModelFamilies, NemotronHKeepsItsMamba2StateInBothEngines) {
  const std::string repo = "nvidia--Nemotron-H-8B-Base-8K";
  const std::int64_t weights = 2 * 8'100'852'736LL + 24 * 128 * 2;
  const Ledger sglang = family_ledger("sglang", repo, 1, "");
  EXPECT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), weights);
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 4 * 8 * (128 + 128) * 2);
  EXPECT_EQ(ledger_fact(sglang, "mamba_cache_per_req_bytes"),
            24 * (10240 * 3 * 2 + 128 * 64 * 128 * 4));
  // TP 2: 64 heads and 4 of the 8 groups per rank.
  const Ledger tp2 = family_ledger("sglang", repo, 2, "");
  EXPECT_EQ(ledger_fact(tp2, "mamba_cache_per_req_bytes"), 24 * (5120 * 3 * 2 + 64 * 64 * 128 * 4));
  const Ledger vllm = family_ledger("vllm", repo, 1, "");
  EXPECT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "weights_logical_bytes"), weights);
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 528 * 4096);
  EXPECT_EQ(ledger_fact(vllm, "kv_layers_per_group"),
            4);  // one attention and six Mamba-2 groups of 4
  EXPECT_EQ(family_errors("sglang", repo, "    --attention-backend: triton\n"),
            "f.yaml:6:26: AssertionError: NemotronH does not support the triton attention "
            "backend\n");
}

// DeepSeek Sparse Attention in SGLang: each of the 61 layers of DeepSeek-V3.2 (61 + the MTP
// layer in the checkpoint) adds an indexer, replicated on every rank: wq_b [64 x 128, 1536] and
// wk [128, 7168] in block FP8, a float32 LayerNorm k_norm of 128 (weight and bias) and a
// bfloat16 weights_proj [64, 7168] (nsa_indexer.py Indexer.__init__). Otherwise its config is
// DeepSeek-V3.1's, so on each GPU the weights differ from V3.1's by the indexers. Each token
// keeps, per layer, a 576-wide bfloat16 latent (Hopper's default KV dtype under the nsa backend)
// and a 132-byte indexer key.
TEST(ModelFamilies, DeepSeekV32AddsTheIndexerWeightsAndKeysInSglang) {
  const std::int64_t indexer =
      fp8_linear(64 * 128, 1536) + fp8_linear(128, 7168) + 2 * 128 * 4 + 64 * 7168 * 2;
  EXPECT_EQ(indexer, 14'422'240);
  const Ledger v32 = family_ledger("sglang", "deepseek-ai/DeepSeek-V3.2", 8, "");
  const Ledger v31 = family_ledger("sglang", "deepseek-ai/DeepSeek-V3.1", 8, "");
  EXPECT_TRUE(v32.fits());
  EXPECT_EQ(ledger_fact(v32, "weights_logical_bytes") - ledger_fact(v31, "weights_logical_bytes"),
            61 * indexer);
  EXPECT_EQ(ledger_fact(v32, "kv_cell_bytes"), 61 * ((512 + 64) * 2 + 128 + 4));  // 78,324
  EXPECT_EQ(ledger_fact(v31, "kv_cell_bytes"), 61 * (512 + 64) * 2);
  Diagnostics diags;
  Result<ResolvedModel> a = test_catalogs().models.resolve("deepseek-ai/DeepSeek-V3.2", "", diags);
  Result<ResolvedModel> b = test_catalogs().models.resolve("deepseek-ai/DeepSeek-V3.1", "", diags);
  ASSERT_TRUE(a.ok() && b.ok()) << diags.to_string();
  EXPECT_EQ(parameter_count(a->architecture) - parameter_count(b->architecture),
            61 * (1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64));
}

// GLM-5.1-FP8 on eight B200s (compute capability 10): SGLang's default KV cache is FP8, each
// latent row stored in DeepSeek's 656-byte layout (512 + 512 / 128 x 4 + 64 x 2) beside a
// 132-byte indexer key per layer. v0.5.9 budgets the latent at 576 bytes; v0.5.18 as stored; a
// trtllm NSA kernel stores 576 plain FP8 bytes.
TEST(ModelFamilies, Glm5Fp8KvOnBlackwellByRelease) {
  auto cell = [](const std::string& version, const std::string& args) {
    return ledger_fact(family_ledger("sglang", "zai-org/GLM-5.1-FP8", 8, args, "b200", version),
                       "kv_cell_bytes");
  };
  EXPECT_EQ(cell("0.5.9", ""), 78 * (576 + 132));
  EXPECT_EQ(cell("0.5.18", ""), 78 * (656 + 132));
  EXPECT_EQ(cell("0.5.18", "    --nsa-decode-backend: trtllm\n"), 78 * (576 + 132));
  EXPECT_EQ(cell("0.5.9", "    --kv-cache-dtype: bfloat16\n"), 78 * (576 * 2 + 132));
}

// DeepSeek Sparse Attention in vLLM on eight H200s: per layer the latent (576 bfloat16 values
// a token, or fp8_ds_mla's 656 bytes) and the indexer's 132-byte keys form one KV-cache group
// of 64-token blocks, so a block spans 61 x 64 x (1152 + 132) = 5,012,736 bytes and the token
// count is whole blocks of it. DeepSeek-V3.2's "auto" cache is fp8_ds_mla in v0.11.0 only.
// The model keeps a top-k index buffer of max_num_batched_tokens x 2048 int32; from v0.13 the
// profile's indexer workspace (40 x max_model_len keys of 128 + 4 bytes and 1 MiB) stays.
TEST(ModelFamilies, DeepSeekSparseAttentionInVllm) {
  const std::string repo = "deepseek-ai/DeepSeek-V3.2";
  const Ledger v32 = family_ledger("vllm", repo, 8, "");
  EXPECT_TRUE(v32.fits());
  EXPECT_EQ(ledger_fact(v32, "kv_page_bytes"), 61 * 64 * (1152 + 132));
  EXPECT_EQ(ledger_fact(v32, "kv_layers_per_group"), 1);
  EXPECT_EQ(ledger_fact(v32, "kv_tokens"), ledger_fact(v32, "kv_blocks") * 64);
  // max_num_batched_tokens: vllm serve's default on a GPU of 70 GiB or more, 8192.
  EXPECT_EQ(ledger_fact(v32, "dsa_topk_indices_bytes"), 8192 * 2048 * 4);
  const std::int64_t keys = 40 * 163'840;
  EXPECT_EQ(ledger_fact(v32, "dsa_workspace_bytes"), keys * 128 + keys * 4 + (1 << 20));
  EXPECT_EQ(ledger_fact(family_ledger("vllm", repo, 8, "", "h200", "0.11.0"), "kv_page_bytes"),
            61 * 64 * (656 + 132));
  EXPECT_EQ(ledger_fact(family_ledger("vllm", repo, 8, "", "h200", "0.11.1"), "kv_page_bytes"),
            61 * 64 * (1152 + 132));
  const Ledger fp8 = family_ledger("vllm", repo, 8, "    --kv-cache-dtype: fp8\n");
  EXPECT_EQ(ledger_fact(fp8, "kv_page_bytes"), 61 * 64 * (656 + 132));
  // fp8_ds_mla: FlashMLA sparse's bfloat16 prefill copy of 5 x max_model_len rows is larger.
  EXPECT_EQ(ledger_fact(fp8, "dsa_workspace_bytes"), 5 * 163'840 * 576 * 2);
  const Ledger glm = family_ledger("vllm", "zai-org--GLM-5.1-FP8", 8, "");
  EXPECT_EQ(ledger_fact(glm, "kv_page_bytes"), 78 * 64 * (1152 + 132));
}

// What SGLang refuses for a DSA model, in its words, and what gpumem does not model, by name.
TEST(ModelFamilies, DeepSeekSparseAttentionRefusals) {
  const std::string repo = "deepseek-ai/DeepSeek-V3.2";
  EXPECT_EQ(family_errors("sglang", repo, "    --tp-size: 8\n    --kv-cache-dtype: fp8_e5m2\n", 8),
            "f.yaml:7:23: AssertionError: DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 "
            "kv_cache_dtype, got fp8_e5m2\n");
  EXPECT_EQ(family_errors("sglang", repo, "    --tp-size: 8\n", 8, "0.5.6"),
            "f.yaml:4:12: DeepseekV32ForCausalLM with SGLang 0.5.6 without --enable-dp-attention "
            "and --dp-size 8 is not modelled (releases before 0.5.7 may force DP attention for "
            "DeepSeek DSA models)\n");
  EXPECT_EQ(
      family_errors("sglang", repo, "    --tp-size: 8\n", 8, "0.5.3"),
      "f.yaml:4:12: DeepseekV32ForCausalLM with SGLang 0.5.3 is not modelled (from 0.5.4: the "
      "indexer keys joined the KV budget in PR #11309)\n");
  // The layout those releases forced is modelled.
  EXPECT_EQ(family_errors("sglang", repo,
                          "    --tp-size: 8\n    --dp-size: 8\n    --enable-dp-attention: true\n",
                          8, "0.5.6"),
            "");
  EXPECT_EQ(family_errors("sglang", repo,
                          "    --tp-size: 8\n    --speculative-algorithm: EAGLE\n"
                          "    --speculative-draft-model-path: deepseek-ai/DeepSeek-V3.2\n"
                          "    --speculative-eagle-topk: 2\n",
                          8),
            "f.yaml:9:31: SGLang refuses --speculative-eagle-topk 2 with DeepSeek DSA: a top-k "
            "above 1 with 64-token pages needs the flashinfer or fa3 attention backend; pass "
            "--speculative-eagle-topk 1\n");
  EXPECT_EQ(family_errors("sglang", "deepseek-ai/DeepSeek-V3.1",
                          "    --tp-size: 8\n    --attention-backend: nsa\n", 8),
            "f.yaml:7:26: --attention-backend nsa serves DeepSeek DSA models (a config with "
            "index_topk); deepseek-ai/DeepSeek-V3.1 has no sparse-attention indexer\n");
  EXPECT_EQ(family_errors("sglang", "deepseek-ai/DeepSeek-V3.1",
                          "    --tp-size: 8\n    --nsa-decode-backend: fa3\n", 8),
            "f.yaml:7:27: --nsa-decode-backend chooses DeepSeek DSA kernels; "
            "deepseek-ai/DeepSeek-V3.1 has no sparse-attention indexer\n");
  const std::string tp8 = "    --tensor-parallel-size: 8\n";
  EXPECT_EQ(family_errors("vllm", repo, tp8, 8, "0.10.2"),
            "f.yaml:7:8: deepseek-ai/DeepSeek-V3.2 (DeepseekV32ForCausalLM): DeepSeek Sparse "
            "Attention needs vLLM 0.11.0 or later (DeepseekV32ForCausalLM, PR #25896)\n");
  EXPECT_NE(family_errors("vllm", "zai-org--GLM-5.1-FP8", tp8, 8, "0.14.0")
                .find("(GlmMoeDsaForCausalLM): vLLM 0.14.0 with GlmMoeDsaForCausalLM is not "
                      "modelled (from 0.17.0; the release that added it is not pinned down)\n"),
            std::string::npos);
  EXPECT_EQ(family_errors("vllm", repo, tp8, 8, "", "a100-80gb"),
            "f.yaml:7:8: deepseek-ai/DeepSeek-V3.2 (DeepseekV32ForCausalLM): vLLM's sparse MLA "
            "backend and indexer kernels run on Hopper and datacenter Blackwell only (compute "
            "capability 9.0 or 10.x); a100-80gb is 8.0\n");
  EXPECT_EQ(family_errors("vllm", repo, tp8 + "    --kv-cache-dtype: fp8_e5m2\n", 8),
            "f.yaml:8:8: deepseek-ai/DeepSeek-V3.2 (DeepseekV32ForCausalLM): --kv-cache-dtype "
            "fp8_e5m2 is not a layout of the sparse MLA cache (fp8_ds_mla is e4m3); fp8 or "
            "fp8_e4m3 is modelled\n");
}

// SGLang's NEXTN on DeepSeek-V3: the checkpoint's MTP layer (model.layers.61) is the draft,
// built as DeepseekV3ForCausalLMNextN with one MLA layer of KV (576 bfloat16 values per token).
// Its own embedding and head (129,280 / 8 = 16,160 rows x 7,168 x 2 = 231,669,760 B each, a
// 111 x 2 MiB segment each) stay until the worker hands it the target's, after its KV pool.
TEST(ModelFamilies, DeepSeekV3NextNDraftsWithTheCheckpointsMtpLayer) {
  const std::string repo = "deepseek-ai/DeepSeek-V3";
  const std::string nextn = "    --speculative-algorithm: NEXTN\n";
  const auto steps = [](const Ledger& l) {
    std::vector<std::string> names;
    for (const LedgerStep& s : l.gpus.front().steps) names.push_back(s.name);
    return names;
  };
  const auto step = [](const Ledger& l, std::string_view name) -> const LedgerStep& {
    for (const LedgerStep& s : l.gpus.front().steps) {
      if (s.name == name) return s;
    }
    ADD_FAILURE() << name;
    return l.gpus.front().steps.front();
  };
  const Ledger v059 = family_ledger("sglang", repo, 8, nextn);
  EXPECT_TRUE(v059.fits());
  EXPECT_EQ(ledger_fact(v059, "draft_kv_cell_bytes"), 576 * 2);
  EXPECT_EQ(step(v059, "draft_shares_target_embedding").delta().value(), -2 * 111 * 2'097'152LL);
  const std::vector<std::string>& log = step(v059, "draft_weights").log_lines;
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(log[1].starts_with("Load weight end. type=DeepseekV3ForCausalLMNextN,")) << log[1];
  // v0.5.9 builds the draft after the target's graphs.
  EXPECT_EQ(steps(v059),
            (std::vector<std::string>{
                "context", "distributed", "free_memory", "weights", "kv_cache", "cublas",
                "attention_backend", "cuda_graphs", "draft_weights", "draft_kv_cache",
                "draft_shares_target_embedding", "draft_cuda_graphs", "ready"}));
  // From v0.5.14 the draft is loaded before the target's KV pool is sized, and its own
  // embedding and head are still held while it is.
  const Ledger v0518 = family_ledger("sglang", repo, 8, nextn, "h200", "0.5.18");
  EXPECT_EQ(steps(v0518),
            (std::vector<std::string>{
                "context", "distributed", "free_memory", "weights", "draft_weights", "kv_cache",
                "draft_kv_cache", "draft_shares_target_embedding", "cublas", "attention_backend",
                "cuda_graphs", "draft_cuda_graphs", "ready"}));
  // Kimi-K2 is DeepseekV3ForCausalLM without an MTP layer.
  EXPECT_EQ(family_errors("sglang", "moonshotai/Kimi-K2-Instruct", "    --tp-size: 8\n" + nextn, 8),
            "f.yaml:7:30: --speculative-algorithm NEXTN: kimi-k2-instruct has 0 MTP layers "
            "(num_nextn_predict_layers); SGLang's NextN draft loads exactly one\n");
}

}  // namespace
}  // namespace gpumem
