// Llama 4 (Scout, Maverick) from their published configs in both engines: the MoE layers
// interleaved with dense ones, the replicated router beside the shared expert, the chunked
// layers in SGLang's hybrid SWA pool and as full layers in vLLM, the RoPE cache of
// max_position_embeddings rows, and what each engine refuses, all derived here from the config.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <string_view>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

const std::string kScout = "meta-llama--Llama-4-Scout-17B-16E-Instruct";
const std::string kMaverick = "meta-llama--Llama-4-Maverick-17B-128E-Instruct";

constexpr std::int64_t kHidden = 5120;
constexpr std::int64_t kLayers = 48;
constexpr std::int64_t kVocab = 202048;  // a multiple of 64: no padding

// One rank's attention at TP 8: q of 40 / 8 heads, one of the 8 KV heads each for k and v, all
// of 128, and o_proj; no biases.
constexpr std::int64_t kAttentionParams = kHidden * (5 + 2) * 128 + 5 * 128 * kHidden;

// One rank's MoE block at TP 8: the replicated router [experts, hidden], w13 and w2 of every
// expert over 8192 / 8 = 1,024 columns, and the shared expert (gate, up, down) of the same width.
constexpr std::int64_t moe_params(std::int64_t experts) {
  return experts * kHidden + experts * 3 * kHidden * 1024 + 3 * kHidden * 1024;
}

// Parameters GPU 0 of 8 holds: embedding and untied head (202,048 / 8 rows each), 48 layers of
// attention, FFN and two norms, the final norm, and `qk_norms` RMSNorm(128) weights.
constexpr std::int64_t rank_params(std::int64_t ffn_params, std::int64_t qk_norms) {
  return 2 * (kVocab / 8) * kHidden + kLayers * (kAttentionParams + 2 * kHidden) + ffn_params +
         kHidden + qk_norms * 128;
}

// Scout: 16 experts in every layer (interleave_moe_layer_step 1); use_qk_norm puts an
// RMSNorm(128) on each of the 36 RoPE layers, which SGLang allocates (llama4.py
// Llama4Attention) and vLLM does not (has_weight=False); the RoPE cache holds
// max_position_embeddings = 10,485,760 rows of 128, float32 in SGLang, bfloat16 in vLLM.
constexpr std::int64_t kScoutSglangWeights =
    2 * rank_params(kLayers * moe_params(16), 36) + 10'485'760LL * 128 * 4;
constexpr std::int64_t kScoutVllmWeights =
    2 * rank_params(kLayers * moe_params(16), 0) + 10'485'760LL * 128 * 2;

TEST(Llama4, ScoutInSglangSplitsItsChunkedLayersIntoTheSwaPool) {
  const Ledger l = family_ledger("sglang", kScout, 8, "    --context-length: 1000000\n");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), kScoutSglangWeights);
  EXPECT_EQ(kScoutSglangWeights, 32'318'934'016LL);
  // Every layer's K and V (one KV head of 128 per rank, bfloat16) in the cell.
  EXPECT_EQ(ledger_fact(l, "kv_cell_bytes"), kLayers * 2 * 128 * 2);
  // model_runner_kv_cache_mixin.py: full = profiled x 48 / (12 + 0.8 x 36), swa = 0.8 x full.
  const std::int64_t profiled = ledger_fact(l, "profiled_tokens");
  const std::int64_t full = ledger_fact(l, "kv_tokens");
  EXPECT_EQ(full,
            static_cast<std::int64_t>(static_cast<double>(profiled) * 48.0 / (12 + 0.8 * 36)));
  EXPECT_EQ(ledger_fact(l, "swa_kv_tokens"), static_cast<std::int64_t>(0.8 * full));
}

// SGLang's context length is max_position_embeddings (10,485,760; the llama3 factor is not
// applied), and its req_to_token table of 2,048 x (10,485,760 + 4) int32, 80.00 GiB (one 2 MiB
// granule more as a cudaMalloc), comes out of the headroom, as in sglang issue #5755 on 8 x H100
// (whose 0.4.x release kept one row more: 80.04 GiB).
TEST(Llama4, ScoutsDefaultContextDoesNotFitEightH100sInSglang) {
  const Ledger l = family_ledger("sglang", kScout, 8, "", "h100-sxm-80gb");
  ASSERT_FALSE(l.fits());
  const GpuLedger* g = l.first_failure();
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->steps.back().name, "kv_cache");
  const std::int64_t table = 2048LL * (10'485'760 + 4) * 4;
  const std::int64_t granule = 2 << 20;
  EXPECT_EQ(g->steps.back().requested.value(), (table + granule - 1) / granule * granule);
}

// Maverick: MoE (128 experts) on the odd layers, dense layers of intermediate_size_mlp 16,384
// on the even ones (interleave_moe_layer_step 2); no q/k norm; a float32 RoPE cache of
// 1,048,576 rows in SGLang.
TEST(Llama4, MaverickInterleavesMoeAndDenseLayers) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kMaverick) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_FALSE(a->is_moe_layer(0));
  EXPECT_TRUE(a->is_moe_layer(1));
  EXPECT_EQ(a->intermediate_size, 16384);
  EXPECT_EQ(a->moe.moe_intermediate_size, 8192);
  const Ledger l = family_ledger("sglang", kMaverick, 8, "    --context-length: 65536\n");
  ASSERT_TRUE(l.fits());
  const std::int64_t dense = 3 * kHidden * (16384 / 8);
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"),
            2 * rank_params(24 * moe_params(128) + 24 * dense, 0) + 1'048'576LL * 128 * 4);
}

std::string scout_variant(const std::string& name, const std::string& from, const std::string& to) {
  return config_variant(kScout, "llama4-" + name, from, to);
}

// Scout's text model alone (Llama4ForCausalLM): vLLM serves it; the multimodal checkpoint is
// refused there (its vision encoder's profile is not modelled).
TEST(Llama4, VllmBudgetsChunkedLayersAsFullAttentionUntil012) {
  const std::string dir =
      scout_variant("text", "Llama4ForConditionalGeneration", "Llama4ForCausalLM");
  const Ledger l =
      family_ledger("vllm", dir, 8, "    --max-model-len: 1000000\n", "h200", "0.11.0");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), kScoutVllmWeights);
  // The hybrid KV-cache manager is off for chunked local attention: one group of all 48 layers.
  EXPECT_EQ(ledger_fact(l, "kv_layers_per_group"), kLayers);
  EXPECT_EQ(ledger_fact(l, "kv_page_bytes"), 16 * 2 * 128 * 2);
  // SGLang keeps the text-only class in one pool (is_hybrid_swa_model names only
  // Llama4ForConditionalGeneration), and builds the same weights as for the multimodal one.
  const Ledger sglang = family_ledger("sglang", dir, 8, "    --context-length: 1000000\n");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_tokens"), ledger_fact(sglang, "profiled_tokens"));
  EXPECT_EQ(ledger_fact(sglang, "weights_logical_bytes"), kScoutSglangWeights);
  EXPECT_EQ(family_errors("vllm", dir, "    --tensor-parallel-size: 8\n", 8, "0.12.0"),
            "f.yaml:4:12: Llama4ForCausalLM's chunked-attention layers with vLLM 0.12.0 are not "
            "modelled: whether the hybrid KV-cache manager keeps only their chunks (PR #29627) is "
            "not pinned to a release; 0.10.1 to 0.11.x are modelled\n");
  EXPECT_EQ(family_errors("vllm", kScout, "    --tensor-parallel-size: 8\n", 8),
            "f.yaml:7:8: " + public_config_dir(kScout) +
                " (Llama4ForConditionalGeneration) is multimodal: vLLM profiles its vision "
                "encoder on dummy images, which gpumem does not model; SGLang is modelled\n");
}

TEST(Llama4, SglangRefusesWhatLlama4DoesNotAccept) {
  EXPECT_EQ(
      family_errors("sglang", kScout, "    --tp-size: 8\n    --attention-backend: flashinfer\n", 8),
      "f.yaml:7:26: SGLang stops with AssertionError: fa3, aiter, triton, trtllm_mha or "
      "intel_xpu is required for Llama4 model but got flashinfer\n");
  EXPECT_EQ(family_errors("sglang", kScout, "    --tp-size: 8\n", 8, "0.5.5"),
            "f.yaml:4:12: SGLang 0.5.5 stops with AssertionError: fa3, aiter, triton, or "
            "trtllm_mha is required for Llama4 model (the backend is chosen for Llama 4 from "
            "0.5.6, PR #13421); give --attention-backend\n");
  EXPECT_EQ(family_errors("sglang", kScout, "    --tp-size: 8\n    --enable-multimodal: true\n", 8),
            "f.yaml:7:26: Llama 4's vision tower (--enable-multimodal) is not modelled; without "
            "the flag SGLang serves the text model alone, which is\n");
}

// Configs on which SGLang and vLLM would build different models are refused at their key.
TEST(Llama4, ConfigsTheEnginesReadDifferentlyAreRefused) {
  const auto error_of = [](const std::string& dir) {
    Diagnostics diags;
    EXPECT_FALSE(load_hf_config(dir + "/config.json", diags).ok());
    const std::string text = diags.to_string();
    return text.substr(text.find(": ") + 2);
  };
  EXPECT_EQ(error_of(scout_variant("step0", "\"interleave_moe_layer_step\": 1",
                                   "\"interleave_moe_layer_step\": 0")),
            "'interleave_moe_layer_step' 0 is not modelled: SGLang's llama4.py then makes every "
            "layer MoE, vLLM's none\n");
  EXPECT_EQ(error_of(scout_variant("nope", "\"no_rope_layers\": [\n      1,",
                                   "\"no_rope_layers\": [\n      0,")),
            "'no_rope_layers' other than every fourth layer NoPE is not modelled: vLLM's llama4.py "
            "reads the list, SGLang's hard-codes the interval\n");
  EXPECT_EQ(error_of(scout_variant("quantized", "\"tie_word_embeddings\": false,",
                                   "\"tie_word_embeddings\": false, \"quantization_config\": "
                                   "{\"quant_method\": \"fbgemm_fp8\"},")),
            "a quantized Llama 4 checkpoint is not modelled; its bfloat16 checkpoint is\n");
}

// A resolved engine argument of the run, as its ledger states it.
std::string resolved_text(const Ledger& l, std::string_view id) {
  for (const Fact& f : l.facts) {
    if (f.id == id) return std::get<std::string>(f.value);
  }
  return "";
}

// sglang server_args.py (PR #13421): trtllm_mha on sm100, fa3 on sm90, triton elsewhere.
TEST(Llama4, SglangChoosesItsAttentionBackendByGpu) {
  const std::string args = "    --context-length: 65536\n";
  EXPECT_EQ(resolved_text(family_ledger("sglang", kScout, 8, args), "attention_backend"), "fa3");
  EXPECT_EQ(resolved_text(family_ledger("sglang", kScout, 8, args, "b200"), "attention_backend"),
            "trtllm_mha");
  EXPECT_EQ(
      resolved_text(family_ledger("sglang", kScout, 8, args, "a100-80gb"), "attention_backend"),
      "triton");
}

// attention_chunk_size null: no layer is chunked (vllm llama4.py builds ChunkedLocalAttention
// only when it is set); the NoPE interval still applies.
TEST(Llama4, NullChunkSizeAttendsGloballyInEveryLayer) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(
      scout_variant("nochunk", "\"attention_chunk_size\": 8192", "\"attention_chunk_size\": null") +
          "/config.json",
      diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_FALSE(a->chunked_attention);
  EXPECT_EQ(a->attention_layers(0, kLayers), kLayers);
  EXPECT_FALSE(a->is_sliding_layer(0));
  EXPECT_FALSE(a->uses_rope(3));
  EXPECT_TRUE(a->uses_rope(4));
}

// A ModelOpt export declares its quantization beside config.json (hf_quant_config.json), and is
// refused as the config's own quantization_config is; a hostile vision image size is bounded.
TEST(Llama4, QuantizedExportsAndHostileVisionSizesAreRefused) {
  const std::string dir =
      scout_variant("modelopt", "\"torch_dtype\": \"bfloat16\",\n  \"transformers",
                    "\"torch_dtype\": \"bfloat16\",\n  \"transformers");
  std::ofstream(dir + "/hf_quant_config.json") << "{\"quantization\": {\"quant_algo\": \"FP8\"}}\n";
  Diagnostics diags;
  EXPECT_FALSE(load_hf_config(dir + "/config.json", diags).ok());
  EXPECT_EQ(diags.to_string(), dir +
                                   "/hf_quant_config.json:1:18: a quantized Llama 4 checkpoint is "
                                   "not modelled; its bfloat16 checkpoint is\n");
  Diagnostics vision;
  EXPECT_FALSE(
      load_hf_config(
          scout_variant("huge", "\"image_size\": 336", "\"image_size\": 67108864") + "/config.json",
          vision)
          .ok());
  EXPECT_NE(vision.to_string().find("'image_size' 67108864 makes more than 1024 patches per side"),
            std::string::npos)
      << vision.to_string();
}

// Scout's parameters as gpumem counts them for the catalog: the text model (107,769,861,120:
// 48 layers of attention, 16 experts, the shared expert and router, embedding and head) and the
// vision tower with its adapter and projector (871,932,416).
TEST(Llama4, ScoutParameterCountIncludesTheVisionTower) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kScout) + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->vision.kind, VisionKind::kLlama4Vit);
  const std::int64_t vh = 1408;
  const std::int64_t vision = vh * 3 * 14 * 14 + vh + (24 * 24 + 1) * vh + 4 * vh +
                              34 * (4 * vh + 4 * (vh * vh + vh) + 2 * 5632 * vh + 5632 + vh) +
                              5632 * 4096 + 4096 * 4096 + 4096 * kHidden;
  EXPECT_EQ(vision, 871'932'416);
  const std::int64_t text = 2 * kVocab * kHidden +
                            kLayers * (kHidden * 7168 + 5120 * kHidden + 2 * kHidden +
                                       16 * kHidden + 17 * 3 * kHidden * 8192) +
                            kHidden;
  EXPECT_EQ(text, 107'769'861'120);
  EXPECT_EQ(parameter_count(*a), text + vision);
}

}  // namespace
}  // namespace gpumem
