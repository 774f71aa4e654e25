// Hybrid linear-attention configs (catalog/hf_linear_attention.h): Qwen3-Next as published,
// its layer pattern from layer_types or from full_attention_interval, and the refusals.
#include <gtest/gtest.h>

#include "catalog/architecture.h"
#include "catalog/parameter_count.h"
#include "support/config_errors.h"
#include "support/model_configs.h"

namespace gpumem {
namespace {

const std::string kNext = public_config_dir("Qwen--Qwen3-Next-80B-A3B-Instruct") + "/config.json";

TEST(LinearAttention, ReadsQwen3NextAsPublished) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(kNext, diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kQwen3Next);
  EXPECT_EQ(family_name(a->family), "qwen3_next");
  EXPECT_EQ(a->linear, (LinearAttentionConfig{LinearKind::kGatedDeltaNet, 16, 32, 128, 128, 4,
                                              false, std::nullopt, std::nullopt}));
  EXPECT_EQ(a->linear.conv_dim(), 8192);
  EXPECT_EQ(a->attention_layers(0, 48), 12);
  for (std::int64_t i = 0; i < 48; ++i) EXPECT_EQ(a->is_linear_layer(i), (i + 1) % 4 != 0) << i;
  EXPECT_TRUE(a->attn_output_gate);
  EXPECT_TRUE(a->qk_norm);
  EXPECT_FALSE(a->qkv_bias);
  EXPECT_EQ(a->rotary_dim, 64);  // partial_rotary_factor 0.25 of head_dim 256
  EXPECT_EQ(a->moe.num_experts, 512);
  EXPECT_EQ(a->moe.shared_expert_intermediate_size, 512);
  EXPECT_TRUE(a->moe.shared_expert_gate);
  // 36 Gated DeltaNet layers of 33,718,464 parameters, 12 gated attention layers of
  // 27,263,488, 48 MoE blocks of 1,614,809,088 (512 experts of 3 x 2048 x 512, the router,
  // the shared expert and its gate), two norms per layer, embedding, head and final norm.
  EXPECT_EQ(parameter_count(*a), 36 * 33'718'464LL + 12 * 27'263'488LL +
                                     48 * (1'614'809'088LL + 2 * 2048) + 2 * 151936LL * 2048 +
                                     2048);
}

// The published config.json gives full_attention_interval where transformers 5 writes
// layer_types: both give the same layers.
TEST(LinearAttention, IntervalGivesTheLayerPattern) {
  Result<YamlDocument> doc = parse_yaml(
      "t.json",
      "architectures: [Qwen3NextForCausalLM]\nhidden_size: 64\nnum_hidden_layers: 6\n"
      "num_attention_heads: 2\nnum_key_value_heads: 1\nhead_dim: 32\nintermediate_size: 128\n"
      "vocab_size: 100\nmax_position_embeddings: 64\nnum_experts: 4\nnum_experts_per_tok: 2\n"
      "moe_intermediate_size: 16\nshared_expert_intermediate_size: 16\n"
      "full_attention_interval: 3\nattn_output_gate: false\nlinear_num_key_heads: 2\n"
      "linear_num_value_heads: 4\nlinear_key_head_dim: 8\nlinear_value_head_dim: 8\n"
      "linear_conv_kernel_dim: 4\nmtp_num_hidden_layers: 1\n");
  ASSERT_TRUE(doc.ok());
  Diagnostics diags;
  Result<Architecture> a = parse_hf_config("t.json", doc->root, "t", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->layer_types,
            (std::vector<LayerAttention>{LayerAttention::kLinear, LayerAttention::kLinear,
                                         LayerAttention::kFull, LayerAttention::kLinear,
                                         LayerAttention::kLinear, LayerAttention::kFull}));
  EXPECT_FALSE(a->attn_output_gate);
  EXPECT_EQ(a->num_nextn_predict_layers, 1);
}

TEST(LinearAttention, RefusesShapesItCannotRead) {
  const std::string head =
      "architectures: [Qwen3NextForCausalLM]\nhidden_size: 64\nnum_hidden_layers: 2\n"
      "num_attention_heads: 2\nintermediate_size: 128\nvocab_size: 100\n"
      "max_position_embeddings: 64\nnum_experts: 4\nnum_experts_per_tok: 2\n"
      "moe_intermediate_size: 16\nshared_expert_intermediate_size: 16\n";
  const std::string linear =
      "linear_num_key_heads: 16\nlinear_num_value_heads: 30\nlinear_key_head_dim: 8\n"
      "linear_value_head_dim: 8\nlinear_conv_kernel_dim: 4\n";
  EXPECT_EQ(config_errors(head + linear),
            "t.json:13:25: 'linear_num_value_heads' 30 is not a multiple of "
            "'linear_num_key_heads' 16\n");
  EXPECT_EQ(config_errors(head + "layer_types: [sliding_attention, full_attention]\n" +
                          "linear_num_key_heads: 2\nlinear_num_value_heads: 4\n"
                          "linear_key_head_dim: 8\nlinear_value_head_dim: 8\n"
                          "linear_conv_kernel_dim: 4\n"),
            "t.json:12:14: unknown layer type 'sliding_attention'; expected full_attention or "
            "linear_attention\n");
  EXPECT_EQ(config_errors(head + "linear_num_key_heads: 2\nlinear_num_value_heads: 4\n"
                                 "linear_value_head_dim: 8\nlinear_conv_kernel_dim: 4\n"),
            "t.json:1:1: missing key 'linear_key_head_dim' in 'config'\n");
  EXPECT_EQ(config_errors(head + "linear_num_key_heads: 2\nlinear_num_value_heads: 4\n"
                                 "linear_key_head_dim: 67108864\nlinear_value_head_dim: 8\n"
                                 "linear_conv_kernel_dim: 4\n"),
            "t.json:14:22: 'linear_key_head_dim' 67108864 is more than gpumem reads for a "
            "linear-attention dimension (1024)\n");
}

// NemotronH: hybrid_override_pattern names each layer's one module; the Mamba-2 mixer's shape
// is read in the same terms as a Gated DeltaNet's (groups, heads, state, head dim, kernel).
TEST(LinearAttention, ReadsNemotronHsPattern) {
  Diagnostics diags;
  Result<Architecture> a =
      load_hf_config(public_config_dir("nvidia--Nemotron-H-8B-Base-8K") + "/config.json", diags);
  ASSERT_TRUE(a.ok()) << diags.to_string();
  EXPECT_EQ(a->family, ArchitectureFamily::kNemotronH);
  EXPECT_EQ(a->linear, (LinearAttentionConfig{LinearKind::kMamba2, 8, 128, 128, 64, 4, true,
                                              std::nullopt, std::nullopt}));
  std::int64_t mamba = 0;
  std::int64_t mlp = 0;
  for (std::int64_t i = 0; i < 52; ++i) {
    mamba += a->is_linear_layer(i) ? 1 : 0;
    mlp += a->has_mlp(i) ? 1 : 0;
  }
  EXPECT_EQ(mamba, 24);
  EXPECT_EQ(mlp, 24);
  EXPECT_EQ(a->attention_layers(0, 52), 4);
  EXPECT_FALSE(a->is_linear_layer(7));  // '*': the first attention layer
  EXPECT_EQ(a->head_dim, 128);
  EXPECT_EQ(a->rotary_dim, 0);
  EXPECT_FALSE(a->gated_mlp);
  // 24 Mamba-2 layers (in_proj 18560 x 4096, conv1d 10240 x 4 and its bias, A_log, D and
  // dt_bias of 128, the norm of 8192, out_proj 4096 x 8192), 4 attention layers (q and o
  // 4096 x 4096, k and v 1024 x 4096), 24 relu2 MLPs (up and down 21504 x 4096), one norm per
  // layer, embedding, head and final norm: 8.1B, as the model's name says.
  const std::int64_t m = 18560LL * 4096 + 10240 * 5 + 3 * 128 + 8192 + 4096LL * 8192;
  const std::int64_t att = 2 * 4096LL * 4096 + 2 * 1024LL * 4096;
  const std::int64_t ffn = 2 * 21504LL * 4096;
  EXPECT_EQ(parameter_count(*a),
            24 * m + 4 * att + 24 * ffn + 52 * 4096 + 2 * 131072LL * 4096 + 4096);
  EXPECT_EQ(parameter_count(*a), 8'100'852'736);
}

TEST(LinearAttention, NemotronHMoeNeedsItsExpertKeysAndPatternsMustMatch) {
  const std::string head =
      "architectures: [NemotronHForCausalLM]\nhidden_size: 64\nnum_hidden_layers: 3\n"
      "num_attention_heads: 2\nintermediate_size: 128\nvocab_size: 100\n"
      "max_position_embeddings: 64\nn_groups: 1\nmamba_num_heads: 4\nssm_state_size: 8\n"
      "mamba_head_dim: 8\nconv_kernel: 4\n";
  // 'E' layers read the MoE keys, which NemotronHConfig's defaults (8 experts of 7688) do not
  // describe any published model with; they are required.
  EXPECT_EQ(config_errors(head + "hybrid_override_pattern: M*E\n"),
            "t.json:1:1: missing key 'n_routed_experts' in 'config'\n"
            "t.json:1:1: missing key 'num_experts_per_tok' in 'config'\n"
            "t.json:1:1: missing key 'moe_intermediate_size' in 'config'\n"
            "t.json:1:1: missing key 'moe_shared_expert_intermediate_size' in 'config'\n");
  EXPECT_EQ(config_errors(head + "hybrid_override_pattern: M*X\n"),
            "t.json:13:26: unknown layer 'X' in 'hybrid_override_pattern'; expected M (Mamba-2), "
            "* (attention), - (MLP) or E (MoE)\n");
  EXPECT_EQ(config_errors(head + "hybrid_override_pattern: M*-\nmamba_ssm_dtype: fp32\n"),
            "t.json:14:18: unknown dtype 'fp32' in 'mamba_ssm_dtype'; expected bfloat16, float16 "
            "or float32\n");
  EXPECT_EQ(config_errors(head + "hybrid_override_pattern: M*\n"),
            "t.json:13:26: 'hybrid_override_pattern' has 2 layers but 'num_hidden_layers' is 3\n");
}

}  // namespace
}  // namespace gpumem
