// DeepSeek-V4's checkpoint and parameters derived from its published configs
// (deepseek_v4_checkpoint.h), checked against the bytes this test computes from the configs'
// own numbers and against the checkpoints' sizes (support/model_configs.h cites them: the sum
// of a downloaded Flash checkpoint's per-tensor table, and Pro's).
#include "weights/deepseek_v4_checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/parameter_count.h"
#include "core/atomic_file.h"
#include "support/model_configs.h"

namespace gpumem {
namespace {

Architecture v4(const std::string& repo) {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(repo) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

std::int64_t published(const std::string& repo) {
  Result<std::string> text =
      read_file(public_config_dir(repo) + "/total_size.txt", InputKind::kModelConfig);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? std::stoll(*text) : -1;
}

std::vector<CheckpointTensor> tensors(const Architecture& a) {
  Result<std::vector<CheckpointTensor>> t = checkpoint_tensors(a);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : std::vector<CheckpointTensor>{};
}

const CheckpointTensor* find(const std::vector<CheckpointTensor>& list, const std::string& name) {
  auto it = std::find_if(list.begin(), list.end(),
                         [&](const CheckpointTensor& t) { return t.name == name; });
  return it == list.end() ? nullptr : &*it;
}

// Bytes of one decoder or MTP layer of ratio `ratio`, from the config's numbers: FP8 linears
// at a byte a value plus a byte per 128 x 128 block, MXFP4 experts at 17/32 bytes a value.
struct V4Sizes {
  std::int64_t h, heads, q_lora, experts, topk, inter, vocab, o_groups, o_lora;
  std::int64_t fp8(std::int64_t out, std::int64_t in) const {
    return out * in + ((out + 127) / 128) * ((in + 127) / 128);
  }
  std::int64_t layer(std::int64_t ratio, bool hash) const {
    std::int64_t n = 2 * h * 2 + q_lora * 2 + 512 * 2;  // norms, q_norm, kv_norm
    n += fp8(q_lora, h) + fp8(heads * 512, q_lora) + fp8(512, h) +
         fp8(o_groups * o_lora, heads * 512 / o_groups) + fp8(h, o_groups * o_lora);
    n += heads * 4;                              // attn_sink
    n += 2 * (24 * 4 * h * 4 + 24 * 4 + 3 * 4);  // hc_attn_* and hc_ffn_*
    if (ratio == 4) {
      n += 2 * 1024 * h * 2 + 4 * 1024 * 4 + 512 * 2;  // compressor
      n += fp8(64 * 128, q_lora) + 64 * h * 2;         // wq_b, weights_proj
      n += 2 * 256 * h * 2 + 4 * 256 * 4 + 128 * 2;    // its compressor
    } else if (ratio == 128) {
      n += 2 * 512 * h * 2 + 128 * 512 * 4 + 512 * 2;
    }
    n += experts * h * 2 + (hash ? vocab * topk * 8 : experts * 4);  // router
    n += 2 * fp8(inter, h) + fp8(h, inter);                          // shared expert
    return n + experts * 3 * h * inter * 17 / 32;
  }
  std::int64_t model(const std::vector<std::int64_t>& ratios, std::int64_t layers) const {
    std::int64_t n = 2 * vocab * h * 2 + h * 2 + (4 * 4 * h + 4 + 1) * 4;
    for (std::int64_t i = 0; i < layers; ++i) n += layer(ratios[static_cast<size_t>(i)], i < 3);
    // The MTP layer: e_proj, h_proj, three norms and its own head mixer.
    n += layer(ratios.back(), false) + 2 * fp8(h, h) + 3 * h * 2 + (4 * 4 * h + 4 + 1) * 4;
    return n;
  }
};

TEST(DeepseekV4Checkpoint, FlashDerivesItsCheckpointToTheByte) {
  const Architecture a = v4("deepseek-ai--DeepSeek-V4-Flash");
  ASSERT_EQ(a.family, ArchitectureFamily::kDeepseekV4);
  const std::vector<CheckpointTensor> t = tensors(a);
  const V4Sizes flash{4096, 64, 1024, 256, 6, 2048, 129280, 8, 1024};
  EXPECT_EQ(checkpoint_bytes(t).value(), flash.model(a.csa.compress_ratios, 43));
  // The per-tensor table of the downloaded checkpoint: 69,187 tensors, 159,609,485,896 bytes.
  EXPECT_EQ(checkpoint_bytes(t).value(), published("deepseek-ai--DeepSeek-V4-Flash"));
  EXPECT_EQ(t.size(), 69'187u);
  // Routed experts of the 43 layers and the MTP layer: 44 x 256 x 3 x 4096 x 2048 x 17/32.
  std::int64_t experts = 0;
  for (const CheckpointTensor& x : t) {
    if (x.name.find(".ffn.experts.") != std::string::npos) experts += x.bytes.value();
  }
  EXPECT_EQ(experts, 150'592'290'816);
  const CheckpointTensor* tid2eid = find(t, "layers.2.ffn.gate.tid2eid");
  ASSERT_NE(tid2eid, nullptr);
  EXPECT_EQ(tid2eid->dtype, "I64");
  EXPECT_EQ(tid2eid->shape, (std::vector<std::int64_t>{129280, 6}));
  EXPECT_EQ(find(t, "layers.3.ffn.gate.tid2eid"), nullptr);
  const CheckpointTensor* scale = find(t, "layers.5.ffn.experts.7.w2.scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->dtype, "F8_E8M0");
  EXPECT_EQ(scale->shape, (std::vector<std::int64_t>{4096, 64}));
  const CheckpointTensor* ape = find(t, "layers.3.attn.compressor.ape");
  ASSERT_NE(ape, nullptr);
  EXPECT_EQ(ape->shape, (std::vector<std::int64_t>{128, 512}));
  // Flash's layers 0 and 1 and its MTP layer attend over the window alone.
  EXPECT_EQ(find(t, "layers.1.attn.compressor.norm.weight"), nullptr);
  EXPECT_EQ(find(t, "mtp.0.attn.compressor.norm.weight"), nullptr);
  EXPECT_NE(find(t, "mtp.0.hc_head_fn"), nullptr);
}

TEST(DeepseekV4Checkpoint, ProDerivesItsCheckpointToTheByte) {
  const Architecture a = v4("deepseek-ai--DeepSeek-V4-Pro");
  const V4Sizes pro{7168, 128, 1536, 384, 6, 3072, 129280, 16, 1024};
  const std::int64_t derived = checkpoint_bytes(tensors(a)).value();
  EXPECT_EQ(derived, pro.model(a.csa.compress_ratios, 61));
  EXPECT_EQ(derived, published("deepseek-ai--DeepSeek-V4-Pro"));
  EXPECT_EQ(derived, 864'704'792'696);
}

TEST(DeepseekV4Checkpoint, ParametersCountValuesWithoutScalesOrTheMtpLayer) {
  // An MXFP4 byte holds two values; scales are not parameters; the MTP layer is left out as
  // DeepSeek's model cards count it (Flash 284B, Pro 1.6T).
  const Architecture flash = v4("deepseek-ai--DeepSeek-V4-Flash");
  std::int64_t values = 0;
  for (const CheckpointTensor& x : tensors(flash)) {
    if (x.name.starts_with("mtp.") || x.dtype == "F8_E8M0") continue;
    values += x.dtype == "I8" ? 2 * x.bytes.value()
                              : x.bytes.value() / (x.dtype == "BF16"  ? 2
                                                   : x.dtype == "F32" ? 4
                                                   : x.dtype == "I64" ? 8
                                                                      : 1);
  }
  EXPECT_EQ(parameter_count(flash), values);
  EXPECT_EQ(parameter_count(flash), 284'334'567'511);
}

TEST(DeepseekV4Checkpoint, ConfigKeysTheEnginesAssertAreRefusedAtTheirKey) {
  const std::string base = public_config_dir("deepseek-ai--DeepSeek-V4-Flash") + "/config.json";
  Result<std::string> text = read_file(base, InputKind::kModelConfig);
  ASSERT_TRUE(text.ok());
  const auto refusal = [&](const std::string& from, const std::string& to) {
    std::string edited = *text;
    const size_t at = edited.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    edited.replace(at, from.size(), to);
    Diagnostics diags;
    EXPECT_FALSE(parse_hf_config("v4.json", YAML::Load(edited), "v4", diags).ok());
    return diags.to_string();
  };
  EXPECT_NE(refusal("\"head_dim\": 512", "\"head_dim\": 256")
                .find("'head_dim' 256 is not modelled: both engines assert DeepSeek-V4's 512"),
            std::string::npos);
  EXPECT_NE(refusal("[0, 0, 4, 128,", "[0, 0, 8, 128,")
                .find("compress ratio 8 is not modelled: the engines build the ratios 0 (sliding "
                      "window only), 4 and 128"),
            std::string::npos);
  EXPECT_NE(refusal("[0, 0, 4, 128,", "[0, 4, 128,")
                .find("'compress_ratios' has 43 entries; DeepSeek-V4 needs one per decoder layer "
                      "and MTP layer (43 + 1)"),
            std::string::npos);
  EXPECT_NE(refusal("\"compress_rope_theta\": 160000", "\"compress_rope_theta\": -1")
                .find("'compress_rope_theta' must be positive"),
            std::string::npos);
  EXPECT_NE(refusal("\"compress_rope_theta\": 160000,", "").find("'compress_rope_theta'"),
            std::string::npos);
  EXPECT_NE(refusal("\"o_groups\": 8", "\"o_groups\": 7")
                .find("'o_groups' 7 does not divide the 64 attention heads"),
            std::string::npos);
  EXPECT_NE(refusal("\"tie_word_embeddings\": false,",
                    "\"tie_word_embeddings\": false, \"expert_dtype\": \"fp8\",")
                .find("'expert_dtype' 'fp8' is not modelled: gpumem models DeepSeek-V4's MXFP4 "
                      "experts (expert_dtype fp4, the default)"),
            std::string::npos);
}

// DeepSeek-V4-Flash-0731 is Flash with a DSpark module and three MTP modules in its checkpoint;
// its compress_ratios lists 46 entries, of which the engines read the 44 its config counts (43
// layers, one MTP layer): the same as Flash's, and so is every parameter the engines build.
TEST(DeepseekV4Checkpoint, Flash0731ReadsAsFlashWithAnUnreadTail) {
  Diagnostics diags;
  Result<Architecture> flash =
      load_hf_config(public_config_dir("deepseek-ai--DeepSeek-V4-Flash") + "/config.json", diags);
  Result<Architecture> july = load_hf_config(
      public_config_dir("deepseek-ai--DeepSeek-V4-Flash-0731") + "/config.json", diags);
  ASSERT_TRUE(flash.ok() && july.ok()) << diags.to_string();
  EXPECT_EQ(july->csa.compress_ratios.size(), 44u);
  EXPECT_EQ(july->csa.compress_ratios, flash->csa.compress_ratios);
  EXPECT_EQ(parameter_count(*july), 284'334'567'511);
}

}  // namespace
}  // namespace gpumem
