#include "catalog/architecture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/model_catalog.h"
#include "catalog/parameter_count.h"
#include "catalog/yaml_reader.h"
#include "support/config_errors.h"
#include "support/model_configs.h"
#include "support/scratch_dir.h"

namespace gpumem {
namespace {

const std::string kModelDir = GPUMEM_SOURCE_DIR "/model/llm";
const std::string kDataDir = GPUMEM_SOURCE_DIR "/tests/data";

Architecture catalog_model(const std::string& slug) {
  Diagnostics diags;
  Result<Architecture> a = load_architecture_file(kModelDir + "/" + slug + ".yaml", diags);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? *a : Architecture{};
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (scratch_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(Architecture, ReadsADenseGqaModel) {
  const Architecture a = catalog_model("llama-3.1-70b-instruct");
  EXPECT_EQ(a.name, "llama-3.1-70b-instruct");
  EXPECT_EQ(a.family, ArchitectureFamily::kLlama);
  EXPECT_EQ(family_name(a.family), "llama");
  EXPECT_EQ(a.dtype, DType::kBFloat16);
  EXPECT_EQ(a.hidden_size, 8192);
  EXPECT_EQ(a.num_key_value_heads, 8);
  EXPECT_EQ(a.head_dim, 128);  // absent in the config: 8192 / 64
  EXPECT_EQ(a.rotary_dim, 128);
  EXPECT_EQ(a.rope_scaling.type, RopeType::kLlama3);
  EXPECT_EQ(a.rope_scaling.original_max_position_embeddings, 8192);
  EXPECT_EQ(a.layer_types.size(), 80u);
  EXPECT_FALSE(a.is_sliding_layer(79));
  EXPECT_FALSE(a.is_moe_layer(0));
  EXPECT_EQ(a.quantization.method, QuantMethod::kNone);
}

TEST(Architecture, ReadsDeepSeekMlaMoeAndFp8Blocks) {
  const Architecture a = catalog_model("deepseek-v3");
  EXPECT_EQ(a.attention, AttentionKind::kMla);
  EXPECT_EQ(a.mla.q_lora_rank, 1536);
  EXPECT_EQ(a.mla.kv_lora_rank, 512);
  EXPECT_EQ(a.head_dim, 192);  // qk_nope 128 + qk_rope 64
  EXPECT_EQ(a.v_head_dim, 128);
  EXPECT_EQ(a.rotary_dim, 64);
  EXPECT_EQ(a.moe.num_experts, 256);
  EXPECT_EQ(a.moe.shared_expert_intermediate_size, 2048);
  EXPECT_TRUE(a.moe.router_correction_bias);  // topk_method defaults to noaux_tc
  EXPECT_FALSE(a.is_moe_layer(2));            // first_k_dense_replace 3
  EXPECT_TRUE(a.is_moe_layer(3));
  EXPECT_EQ(a.num_nextn_predict_layers, 1);
  EXPECT_EQ(a.quantization.method, QuantMethod::kFp8Block);
  EXPECT_EQ(quant_method_name(a.quantization.method), "fp8 block-wise");
  EXPECT_EQ(a.quantization.block_n, 128);
  EXPECT_EQ(a.quantization.block_k, 128);
  EXPECT_EQ(a.rope_scaling.type, RopeType::kYarn);
  EXPECT_EQ(a.rope_scaling.factor, 40.0);
}

TEST(Architecture, ReadsGptOssLayerTypesSinksAndMxfp4) {
  const Architecture a = catalog_model("gpt-oss-20b");
  EXPECT_EQ(a.dtype, DType::kFloat32);  // no torch_dtype in the config
  EXPECT_EQ(a.sliding_window, 128);
  EXPECT_TRUE(a.is_sliding_layer(0));
  EXPECT_FALSE(a.is_sliding_layer(1));
  EXPECT_TRUE(a.is_sliding_layer(22));
  EXPECT_FALSE(a.is_sliding_layer(23));
  EXPECT_TRUE(a.attention_sinks);
  EXPECT_TRUE(a.qkv_bias);
  EXPECT_TRUE(a.o_proj_bias);
  EXPECT_EQ(a.moe.num_experts, 32);
  EXPECT_EQ(a.moe.experts_per_token, 4);
  EXPECT_EQ(a.moe.moe_intermediate_size, 2880);
  EXPECT_TRUE(a.moe.router_bias);
  EXPECT_EQ(a.quantization.method, QuantMethod::kMxfp4);
  EXPECT_TRUE(a.quantization.not_converted.matches("model.layers.7.self_attn.q_proj"));
  EXPECT_TRUE(a.quantization.not_converted.matches("lm_head"));
  EXPECT_FALSE(a.quantization.not_converted.matches("model.layers.7.mlp.experts"));
}

TEST(Architecture, ReadsGemma3TextConfigWithTransformersDefaults) {
  const Architecture a = catalog_model("gemma-3-27b-it");
  EXPECT_EQ(a.family, ArchitectureFamily::kGemma3);
  EXPECT_EQ(a.dtype, DType::kBFloat16);  // top-level torch_dtype
  EXPECT_EQ(a.hidden_size, 5376);
  EXPECT_EQ(a.vocab_size, 262208);  // Gemma3TextConfig default
  EXPECT_EQ(a.max_position_embeddings, 131072);
  EXPECT_TRUE(a.tie_word_embeddings);
  EXPECT_EQ(a.rope_local_base_freq, 10000.0);
  EXPECT_EQ(a.rope_scaling.type, RopeType::kLinear);
  EXPECT_TRUE(a.qk_norm);
  EXPECT_TRUE(a.sandwich_norms);
  int global = 0;
  for (std::int64_t i = 0; i < a.num_hidden_layers; ++i) global += !a.is_sliding_layer(i);
  EXPECT_EQ(global, 10);  // layers 5, 11, ..., 59
  EXPECT_FALSE(a.is_sliding_layer(5));
  EXPECT_TRUE(a.is_sliding_layer(61));
}

TEST(Architecture, ReadsTransformersFiveRopeParametersPerLayerType) {
  // transformers 5 writes Gemma 3's RoPE per layer type: the full layers' linear scaling and
  // base, the sliding layers' own base.
  Diagnostics diags;
  const std::string path = write_temp(
      "gemma3-rope-parameters.json",
      R"({"architectures": ["Gemma3ForCausalLM"], "hidden_size": 640, "num_hidden_layers": 6,
          "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
          "intermediate_size": 2048, "vocab_size": 262144, "max_position_embeddings": 32768,
          "rope_parameters": {
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            "sliding_attention": {"rope_type": "default", "rope_theta": 20000.0}}})");
  const Result<Architecture> a = load_hf_config(path, diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->rope_theta, 1000000.0);
  EXPECT_EQ(a->rope_local_base_freq, 20000.0);
  EXPECT_EQ(a->rope_scaling.type, RopeType::kLinear);
  EXPECT_EQ(a->rope_scaling.factor, 8.0);
}

TEST(Architecture, ReadsCompressedTensorsInt4AndItsIgnoreList) {
  const Architecture a = catalog_model("kimi-k2-thinking");
  const Quantization& q = a.quantization;
  EXPECT_EQ(q.method, QuantMethod::kCompressedTensorsWna16);
  EXPECT_EQ(q.num_bits, 4);
  EXPECT_EQ(q.group_size, 32);
  EXPECT_FALSE(q.kv_cache_fp8);
  // The modules the research file's tensor_cast test expects to stay unconverted ...
  EXPECT_TRUE(q.not_converted.matches("lm_head"));
  EXPECT_TRUE(q.not_converted.matches("model.layers.0.mlp.gate_proj"));
  EXPECT_TRUE(q.not_converted.matches("model.layers.60.mlp.shared_experts.down_proj"));
  EXPECT_TRUE(q.not_converted.matches("model.layers.3.self_attn.kv_b_proj"));
  // ... and routed experts, which no pattern reaches, quantized.
  EXPECT_FALSE(q.not_converted.matches("model.layers.1.mlp.experts"));
  EXPECT_FALSE(q.not_converted.matches("model.layers.1.mlp.experts.0.gate_proj"));
  EXPECT_EQ(a.max_position_embeddings, 262144);
  EXPECT_EQ(a.rope_scaling.factor, 64.0);
}

TEST(Architecture, ReadsExplicitModulesToNotConvert) {
  const Architecture a = catalog_model("qwen3-235b-a22b-fp8");
  EXPECT_EQ(a.quantization.not_converted.patterns().size(), 283u);
  EXPECT_TRUE(a.quantization.not_converted.matches("model.layers.93.mlp.gate"));
  EXPECT_FALSE(a.quantization.not_converted.matches("model.layers.93.mlp.experts"));
  EXPECT_FALSE(a.quantization.not_converted.matches("model.layers.0.self_attn.q_proj"));
}

TEST(Architecture, ReadsAnEagle3DraftHead) {
  const Architecture a = catalog_model("eagle3-kimi-k2");
  EXPECT_TRUE(a.is_draft_head());
  EXPECT_EQ(a.draft_vocab_size, 32000);
  EXPECT_EQ(a.eagle_fc_input_size, 3 * 7168);
  EXPECT_EQ(a.eagle_aux_layer_ids, (std::vector<std::int64_t>{2, 30, 58}));
  EXPECT_EQ(a.attention, AttentionKind::kStandard);  // model_type kimi_k2, but no kv_lora_rank
  EXPECT_EQ(a.head_dim, 128);
}

TEST(Architecture, LoadsARealHuggingFaceConfigJson) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(kDataDir + "/qwen2.5-7b-instruct/config.json", diags);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(a->family, ArchitectureFamily::kQwen2);
  EXPECT_EQ(a->head_dim, 128);  // 3584 / 28
  EXPECT_TRUE(a->qkv_bias);     // Qwen2: implicit q/k/v bias
  EXPECT_FALSE(a->o_proj_bias);
  EXPECT_FALSE(a->is_sliding_layer(27));  // use_sliding_window false
  EXPECT_EQ(a->rope_theta, 1000000.0);
  // 7.61B on the model card; the same total as the catalog entry of the same model.
  EXPECT_EQ(parameter_count(*a), 7'615'616'512);
}

TEST(Architecture, ReadsModelOptQuantizationBesideConfigJson) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(kDataDir + "/llama-3.1-70b-instruct-fp8/config.json", diags);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->quantization.method, QuantMethod::kModelOptFp8);
  EXPECT_TRUE(a->quantization.kv_cache_fp8);
  EXPECT_TRUE(a->quantization.not_converted.matches("lm_head"));
  EXPECT_FALSE(a->quantization.not_converted.matches("model.layers.0.self_attn.o_proj"));
  // The catalog entry folds the same block into config.quantization_config.
  const Architecture c = catalog_model("llama-3.1-70b-instruct-fp8-nvidia");
  EXPECT_EQ(c.quantization.method, QuantMethod::kModelOptFp8);
  EXPECT_TRUE(c.quantization.kv_cache_fp8);
}

// MiniMax-M2.5 as published (support/model_configs.h, with its source): MoE on every layer,
// the norms of q and k over all heads, 64 of 128 dims rotated, block FP8 with the router and
// head left out.
TEST(Architecture, ReadsMiniMaxM2) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(public_config_dir("MiniMaxAI--MiniMax-M2.5") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kMiniMaxM2);
  EXPECT_EQ(family_name(a->family), "minimax_m2");
  EXPECT_EQ(a->head_dim, 128);
  EXPECT_EQ(a->rotary_dim, 64);
  EXPECT_EQ(a->rope_theta, 5000000.0);
  EXPECT_TRUE(a->qk_norm);
  EXPECT_TRUE(a->qk_norm_per_layer);
  EXPECT_FALSE(a->qkv_bias);
  EXPECT_EQ(a->moe.num_experts, 256);
  EXPECT_EQ(a->moe.experts_per_token, 8);
  EXPECT_EQ(a->moe.moe_intermediate_size, 1536);
  EXPECT_EQ(a->moe.num_shared_experts, 0);
  EXPECT_TRUE(a->moe.router_correction_bias);
  EXPECT_TRUE(a->is_moe_layer(0));
  EXPECT_TRUE(a->is_moe_layer(61));
  EXPECT_EQ(a->num_nextn_predict_layers, 0);  // its num_mtp_modules are loaded by no engine
  EXPECT_EQ(a->quantization.method, QuantMethod::kFp8Block);
  EXPECT_EQ(a->quantization.block_n, 128);
  EXPECT_TRUE(a->quantization.not_converted.matches("lm_head"));
}

// Qwen2-57B-A14B as published: every layer MoE with a gated shared expert, q/k/v biases.
TEST(Architecture, ReadsQwen2Moe) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(public_config_dir("Qwen--Qwen2-57B-A14B") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kQwen2Moe);
  EXPECT_EQ(family_name(a->family), "qwen2_moe");
  EXPECT_EQ(a->head_dim, 128);
  EXPECT_TRUE(a->qkv_bias);
  EXPECT_FALSE(a->o_proj_bias);
  EXPECT_EQ(a->moe.num_experts, 64);
  EXPECT_EQ(a->moe.experts_per_token, 8);
  EXPECT_EQ(a->moe.moe_intermediate_size, 2560);
  EXPECT_EQ(a->moe.num_shared_experts, 1);
  EXPECT_EQ(a->moe.shared_expert_intermediate_size, 20480);
  EXPECT_TRUE(a->moe.shared_expert_gate);
  EXPECT_TRUE(a->is_moe_layer(0));
  EXPECT_EQ(a->sliding_window, 0);  // use_sliding_window false
}

// SGLang builds every Qwen2-MoE layer sparse, vLLM follows decoder_sparse_step and
// mlp_only_layers: where they would differ the config is refused.
TEST(ArchitectureErrors, Qwen2MoeDenseLayersAreRefused) {
  const std::string head =
      "{\n"
      "  \"architectures\": [\"Qwen2MoeForCausalLM\"],\n"
      "  \"hidden_size\": 2048, \"num_hidden_layers\": 4, \"num_attention_heads\": 16,\n"
      "  \"intermediate_size\": 5632,\n";
  EXPECT_EQ(config_errors(head + "  \"decoder_sparse_step\": 2\n}\n"),
            "t.json:5:26: 'decoder_sparse_step' 2 is not modelled: SGLang's qwen2_moe.py makes "
            "every layer sparse, vLLM's follows it\n");
  EXPECT_EQ(config_errors(head + "  \"mlp_only_layers\": [0]\n}\n"),
            "t.json:5:22: 'mlp_only_layers' is not modelled: SGLang's qwen2_moe.py makes every "
            "layer sparse, vLLM's follows it\n");
}

TEST(ArchitectureErrors, MiniMaxM2WithoutQkNormIsRefused) {
  EXPECT_EQ(config_errors("{\n"
                          "  \"architectures\": [\"MiniMaxM2ForCausalLM\"],\n"
                          "  \"hidden_size\": 3072, \"num_hidden_layers\": 2,\n"
                          "  \"num_attention_heads\": 48, \"num_key_value_heads\": 8,\n"
                          "  \"intermediate_size\": 1536, \"num_local_experts\": 8,\n"
                          "  \"num_experts_per_tok\": 2, \"use_qk_norm\": false\n"
                          "}\n"),
            "t.json:6:44: a MiniMax-M2 config without use_qk_norm is not modelled: SGLang's "
            "minimax_m2.py then builds no q_norm/k_norm, vLLM's builds them regardless\n");
}

// Granite and Seed-OSS configs whose biases SGLang and vLLM would build differently.
TEST(ArchitectureErrors, GraniteAndSeedOssBiasesTheEnginesDisagreeOnAreRefused) {
  const std::string dims =
      "  \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,\n"
      "  \"intermediate_size\": 128, \"vocab_size\": 256, \"max_position_embeddings\": 64,\n";
  EXPECT_EQ(config_errors("{\n  \"architectures\": [\"GraniteForCausalLM\"],\n" + dims +
                          "  \"mlp_bias\": true\n}\n"),
            "t.json:5:15: 'mlp_bias' true is not modelled for Granite: SGLang's granite.py "
            "builds no biases, vLLM's does\n");
  EXPECT_EQ(config_errors("{\n  \"architectures\": [\"SeedOssForCausalLM\"],\n" + dims +
                          "  \"attention_bias\": false\n}\n"),
            "t.json:5:21: 'attention_bias' false is not modelled for Seed-OSS: SGLang's "
            "seed_oss.py then builds q/k/v without biases, vLLM's with them\n");
}

// Families looked at for issue 20 and not modelled yet: each refused saying what it needs.
TEST(ArchitectureErrors, FamiliesLookedAtAndNotModelledAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"FalconH1ForCausalLM",
       "its layers of attention and a Mamba-2 mixer side by side (two cache layers per layer)"},
      // Not "did you mean 'MiMoForCausalLM'": MiMo-V2 is another architecture.
      {"MiMoV2ForCausalLM",
       "its sliding-window layers, whose head counts and sizes (swa_num_key_value_heads, "
       "swa_head_dim, swa_v_head_dim) differ from its full-attention layers'"},
      {"MllamaForConditionalGeneration",
       "its cross-attention layers (cross_attention_layers), which attend to the vision "
       "encoder's outputs"},
      {"Gemma3nForConditionalGeneration",
       "its per-layer embeddings and the key-value cache its last layers share "
       "(num_kv_shared_layers)"},
  };
  for (const auto& [architecture, what] : cases) {
    EXPECT_EQ(config_errors("{\"architectures\": [\"" + std::string(architecture) + "\"]}\n"),
              "t.json:1:20: architecture '" + std::string(architecture) +
                  "' is not modelled: gpumem does not model " + what + "\n");
  }
}

TEST(ArchitectureErrors, UnknownArchitectureSuggestsTheClosest) {
  EXPECT_EQ(config_errors("{\n  \"architectures\": [\"LlamaForCausalLMM\"]\n}\n"),
            "t.json:2:21: unknown architecture 'LlamaForCausalLMM'; did you mean "
            "'LlamaForCausalLM'?\n");
  EXPECT_EQ(config_errors("{\"architectures\": [\"Qwen3MoEForCausalLM\"]}\n"),
            "t.json:1:20: unknown architecture 'Qwen3MoEForCausalLM'; did you mean "
            "'Qwen3MoeForCausalLM'?\n");
  // Another model, not a typo: no class is proposed for it.
  EXPECT_EQ(config_errors("{\"architectures\": [\"ApertusForCausalLM\"]}\n"),
            "t.json:1:20: unknown architecture 'ApertusForCausalLM'\n");
  EXPECT_EQ(config_errors("{\"architectures\": [\"HunYuanDenseV1ForCausalLM\"]}\n"),
            "t.json:1:20: unknown architecture 'HunYuanDenseV1ForCausalLM'\n");
}

TEST(ArchitectureErrors, MissingAndMistypedValuesAreEachReported) {
  EXPECT_EQ(config_errors("{\n"
                          "  \"architectures\": [\"LlamaForCausalLM\"],\n"
                          "  \"hidden_size\": \"4096x\",\n"
                          "  \"num_hidden_layers\": 0,\n"
                          "  \"num_attention_heads\": 32,\n"
                          "  \"vocab_size\": 128256,\n"
                          "  \"tie_word_embeddings\": \"no\",\n"
                          "  \"max_position_embeddings\": 8192\n"
                          "}\n"),
            "t.json:3:18: 'hidden_size' must be an integer, got '4096x'\n"
            "t.json:4:24: 'num_hidden_layers' must be positive, got 0\n"
            "t.json:1:1: missing key 'intermediate_size' in 'config'\n"
            "t.json:7:26: 'tie_word_embeddings' must be true or false, got 'no'\n");
}

TEST(ArchitectureErrors, DimensionsAreBoundedSoTheirProductsCannotWrap) {
  // A context of 2^62 tokens used to wrap the request table's size and report "fits".
  EXPECT_EQ(config_errors("architectures: [LlamaForCausalLM]\n"
                          "hidden_size: 4096\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 32\n"
                          "intermediate_size: 11008\n"
                          "vocab_size: 32000\n"
                          "max_position_embeddings: 4611686018427387904\n"),
            "t.json:7:26: 'max_position_embeddings' is 4611686018427387904; gpumem reads model "
            "dimensions up to 67108864 (2^26)\n");
}

TEST(ArchitectureErrors, HeadsMustDivideHiddenWithoutHeadDim) {
  EXPECT_EQ(config_errors("architectures: [LlamaForCausalLM]\n"
                          "hidden_size: 4000\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 30\n"
                          "num_key_value_heads: 10\n"
                          "intermediate_size: 11008\n"
                          "vocab_size: 32000\n"
                          "max_position_embeddings: 4096\n"),
            "t.json:4:22: 'hidden_size' 4000 is not divisible by 'num_attention_heads' 30 and "
            "'head_dim' is not given\n");
}

// Hostile vision_config values: the small dimensions are bounded so that the Conv3d weight's
// five-factor product cannot overflow.
TEST(ArchitectureErrors, VisionTowerDimensionsAreBounded) {
  const std::string head =
      "architectures: [Qwen3VLForConditionalGeneration]\n"
      "text_config: {hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 2,\n"
      "  intermediate_size: 128, vocab_size: 100, max_position_embeddings: 64}\n";
  EXPECT_EQ(config_errors(head + "vision_config: {patch_size: 67108864, out_hidden_size: 64}\n"),
            "t.json:4:29: 'patch_size' 67108864 is more than gpumem reads for a vision tower's "
            "channels, patches and merges (1024)\n");
  EXPECT_EQ(config_errors("architectures: [Gemma3ForConditionalGeneration]\n"
                          "text_config: {hidden_size: 64, num_hidden_layers: 1, "
                          "num_attention_heads: 2, num_key_value_heads: 1, "
                          "intermediate_size: 128}\n"
                          "vision_config: {image_size: 67108864, patch_size: 1, "
                          "vision_use_head: false}\n"),
            "t.json:3:29: 'image_size' 67108864 makes more than 1024 patches per side\n");
  // Gemma 3's projector pools the 896-pixel image's 64 x 64 patches to a square of
  // mm_tokens_per_image: 200 is no square, 9 (3 x 3) does not divide 64, and a count beyond
  // any grid is refused without searching it.
  const std::string gemma =
      "architectures: [Gemma3ForConditionalGeneration]\n"
      "text_config: {hidden_size: 64, num_hidden_layers: 1, num_attention_heads: 2, "
      "num_key_value_heads: 1, intermediate_size: 128}\n"
      "vision_config: {image_size: 896, patch_size: 14, vision_use_head: false}\n";
  const auto tokens = [&](const std::string& n) {
    return config_errors(gemma + "mm_tokens_per_image: " + n + "\n");
  };
  EXPECT_EQ(tokens("200"),
            "t.json:4:22: 'mm_tokens_per_image' 200 is not the square of a divisor of the 64 "
            "patches a side of the vision tower's image\n");
  EXPECT_NE(tokens("9").find("'mm_tokens_per_image' 9 is not the square"), std::string::npos);
  EXPECT_EQ(tokens("9223372036854775807"),
            "t.json:4:22: 'mm_tokens_per_image' is 9223372036854775807; gpumem reads model "
            "dimensions up to 67108864 (2^26)\n");
  EXPECT_NE(tokens("67108864").find("'mm_tokens_per_image' 67108864 is not the square"),
            std::string::npos);
}

TEST(ArchitectureErrors, KvHeadsMustDivideHeads) {
  EXPECT_EQ(config_errors("architectures: [LlamaForCausalLM]\n"
                          "hidden_size: 4096\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 32\n"
                          "num_key_value_heads: 5\n"
                          "intermediate_size: 11008\n"
                          "vocab_size: 32000\n"
                          "max_position_embeddings: 4096\n"),
            "t.json:5:22: 'num_attention_heads' 32 is not a multiple of 'num_key_value_heads' "
            "5\n");
}

TEST(ArchitectureErrors, UnknownDtypeRopeAndQuantization) {
  EXPECT_EQ(config_errors("architectures: [LlamaForCausalLM]\n"
                          "torch_dtype: bfloat61\n"
                          "hidden_size: 4096\n"
                          "num_hidden_layers: 2\n"
                          "num_attention_heads: 32\n"
                          "intermediate_size: 11008\n"
                          "vocab_size: 32000\n"
                          "max_position_embeddings: 4096\n"
                          "rope_scaling: {rope_type: mrope, factor: 4}\n"
                          "quantization_config: {quant_method: hqq, nbits: 4}\n"),
            "t.json:2:14: unknown dtype 'bfloat61' in 'torch_dtype'; expected bfloat16, "
            "float16 or float32; did you mean 'bfloat16'?\n"
            "t.json:9:27: rope_scaling type 'mrope' is not modelled; gpumem models default, "
            "linear, dynamic, llama3, yarn and longrope\n"
            "t.json:10:37: quant_method 'hqq' is not modelled; gpumem models fp8, modelopt, "
            "compressed-tensors, mxfp4, awq, gptq, auto-round and bitsandbytes\n");
}

TEST(ArchitectureErrors, AwqAndGptqTheMarlinMethodsCannotRun) {
  const std::string model = kSmallLlamaConfig;
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: awq, bits: 3, "
                                  "group_size: 256, zero_point: false, version: gemv}\n"),
            "t.json:8:96: AWQ version 'gemv' is not modelled; gpumem models gemm\n"
            "t.json:8:48: AWQ with 3 bits does not run as awq_marlin; gpumem models 4 and 8 "
            "bits\n"
            "t.json:8:63: AWQ group size 256 does not run as awq_marlin; gpumem models -1, 32, "
            "64 and 128\n"
            "t.json:8:80: AWQ without zero points does not run as awq_marlin and is not "
            "modelled\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: awq, bits: 4, "
                                  "group_size: 128}\n"),
            "t.json:8:22: missing key 'zero_point' in 'quantization_config'\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: gptq, bits: 4, "
                                  "group_size: 128, sym: false, checkpoint_format: gptq_v2, "
                                  "lm_head: true, dynamic: {}}\n"),
            "t.json:8:74: asymmetric GPTQ does not run as gptq_marlin and is not modelled\n"
            "t.json:8:133: GPTQ 'dynamic' per-module overrides are not modelled\n"
            "t.json:8:100: GPTQ checkpoint_format 'gptq_v2' is not modelled; gpumem models "
            "gptq\n"
            "t.json:8:118: GPTQ with a quantized lm_head is not modelled\n");
}

TEST(ArchitectureErrors, AutoRoundAndNvfp4FormsNotModelled) {
  const std::string model = kSmallLlamaConfig;
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: auto-round, bits: 4, "
                                  "group_size: 128, sym: false}\n"),
            "t.json:8:80: asymmetric AutoRound does not run as gptq_marlin and is not "
            "modelled\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: auto-round, bits: 4, "
                                  "packing_format: 'auto_round:auto_awq'}\n"),
            "t.json:8:74: AutoRound packing_format 'auto_round:auto_awq' is not modelled; "
            "gpumem models auto_round:auto_gptq\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: auto-round, bits: 4, "
                                  "group_size: 128, extra_config: {model.layers.0.mlp: "
                                  "{bits: 8}}}\n"),
            "t.json:8:117: AutoRound layers of 8 bits beside 4-bit ones are not modelled\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: modelopt, "
                                  "quant_algo: NVFP4, group_size: 32}\n"),
            "t.json:8:78: NVFP4 group size 32 is not modelled; gpumem models 16\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: modelopt, "
                                  "quant_algo: NVFP4, nvfp4_embed: true}\n"),
            "t.json:8:79: an NVFP4 embedding (nvfp4_embed) is not modelled\n");
  EXPECT_EQ(config_errors(model + "quantization_config: {quant_method: modelopt, "
                                  "quant_algo: MIXED_PRECISION}\n"),
            "t.json:8:59: ModelOpt quant_algo 'MIXED_PRECISION' is not modelled; gpumem models "
            "FP8, FP8_PER_CHANNEL_PER_TOKEN and NVFP4\n");
}

TEST(ArchitectureErrors, AConfigThatIsNotAMappingSaysWhatItIs) {
  EXPECT_EQ(config_errors("[1, 2]"), "t.json:1:1: 'config' must be a mapping, got a list\n");
  EXPECT_EQ(config_errors("null"), "t.json:1:1: 'config' must be a mapping, got nothing\n");
}

TEST(ArchitectureErrors, CatalogEntryTopLevelKeysAreStrict) {
  const std::string path = write_temp("tiny-llama.yaml",
                                      "name: tiny-lama\n"
                                      "model_id: example/tiny\n"
                                      "source: {config_json: hand-written}\n"
                                      "published_params: {value: 1B}\n"
                                      "confg: {}\n");
  Diagnostics diags;
  Result<ModelEntry> e = load_model_entry(path, diags);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(diags.to_string(),
            path + ":1:1: missing key 'config' in catalog entry\n" + path +
                ":5:1: unknown key 'confg' in catalog entry; did you mean 'config'?\n" + path +
                ":1:7: 'name' is 'tiny-lama' but the file is named 'tiny-llama.yaml'\n");
}

TEST(ModelCatalog, ListsSlugsAndSuggestsOnUnknownNames) {
  Result<ModelCatalog> c = ModelCatalog::open(kModelDir);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->slugs().size(), 36u);
  EXPECT_EQ(c->slugs().front(), "deepseek-r1");
  Diagnostics diags;
  Result<ModelEntry> truncated = c->find("llama-3.1-70b", diags);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(truncated.status().message(),
            "unknown model 'llama-3.1-70b'; did you mean 'llama-3.1-70b-instruct'?");
  EXPECT_EQ(c->find("qwen3-8bb", diags).status().message(),
            "unknown model 'qwen3-8bb'; did you mean 'qwen3-8b'?");
  EXPECT_EQ(c->find("falcon-180b", diags).status().message(), "unknown model 'falcon-180b'");
  Result<ModelEntry> found = c->find("mixtral-8x7b-instruct-v0.1", diags);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->model_id, "mistralai/Mixtral-8x7B-Instruct-v0.1");
  EXPECT_EQ(found->published_params.value, "46.7B total, 12.9B active per token");
  EXPECT_TRUE(diags.empty());
}

TEST(ModelCatalog, EveryEntryLoadsAndNamesItsFile) {
  Result<ModelCatalog> c = ModelCatalog::open(kModelDir);
  ASSERT_TRUE(c.ok());
  for (const std::string& slug : c->slugs()) {
    Diagnostics diags;
    Result<ModelEntry> e = c->find(slug, diags);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->slug, slug);
    EXPECT_EQ(e->architecture.name, slug);
    EXPECT_FALSE(e->sources.empty()) << slug;
  }
  EXPECT_EQ(ModelCatalog::open(kModelDir + "/missing").status().message(),
            kModelDir + "/missing: model catalog directory not found");
}

}  // namespace
}  // namespace gpumem

namespace gpumem {
namespace {

// XiaomiMiMo/MiMo-7B-RL (a partial copy, support/model_configs.h): the engines build MiMo's
// main model as Qwen2's and leave its MTP layer to a draft model, so the main model is Qwen2's
// 36 layers: q/k/v with biases (4096 + 2 x 1024 rows), o, a 11008-wide MLP, two norms each;
// the untied embedding and head of 151680 rows; the final norm.
TEST(ArchitectureFamilies, MiMoIsQwen2WithItsMtpLayerLeftToADraft) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(public_config_dir("XiaomiMiMo--MiMo-7B-RL") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kQwen2);
  EXPECT_EQ(a->hf_architecture, "MiMoForCausalLM");
  EXPECT_EQ(a->num_nextn_predict_layers, 1);
  const std::int64_t h = 4096;
  const std::int64_t attention = 2 * h * h + 2 * 1024 * h + h + 2 * 1024;
  const std::int64_t layer = attention + 3 * h * 11008 + 2 * h;
  EXPECT_EQ(parameter_count(*a), 36 * layer + 2 * 151680 * h + h);
  EXPECT_EQ(parameter_count(*a), 7'622'619'136);
}

// Published configs of families whose memory needs what gpumem does not model yet: each is
// refused by its architecture, saying what (support/model_configs.h, with sources).
TEST(ArchitectureErrors, UnmodelledFamiliesAreRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"MiniMaxAI--MiniMax-M1-80k",
       "'MiniMaxM1ForCausalLM' is not modelled: gpumem does not model the per-request state of "
       "its lightning-attention layers"},
  };
  for (const auto& [repo, message] : cases) {
    const std::string path = public_config_dir(repo) + "/config.json";
    Diagnostics diags;
    Result<Architecture> a = load_hf_config(path, diags);
    EXPECT_FALSE(a.ok()) << repo;
    const std::string text = diags.to_string();
    EXPECT_NE(text.find(": architecture " + std::string(message) + "\n"), std::string::npos)
        << text;
  }
}

}  // namespace
}  // namespace gpumem
