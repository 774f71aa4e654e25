#include "weights/draft_weights.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/nextn_draft.h"
#include "support/model_configs.h"
#include "support/weight_test_models.h"

// Expected byte counts are derived by hand from SGLang's EAGLE-3 draft modules (the
// derivation sits next to the number); none is copied from gpumem's output.

namespace gpumem {
namespace {

using weight_tests::bytes_of;
using weight_tests::find;
using weight_tests::model;

TEST(DraftWeights, KimiK2Eagle3DraftHeadTp8) {
  const Architecture draft = model("eagle3-kimi-k2");
  const Architecture target = model("kimi-k2-thinking");
  Result<WeightList> r = draft_weights(draft, target, 262144, {.tp_size = 8}, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<WeightTensor>& w = **r;
  // Resident, one of 8 ranks (64 heads -> 8, 64 KV heads -> 8, head_dim 128, hidden 7168):
  //   fc [7168, 3 x 7168] bf16, unsharded                 = 308,281,344
  //   qkv_proj [(8 + 16) x 128 = 3072, 2 x 7168] x 2       =  88,080,384
  //   o_proj [7168, 1024] x 2                              =  14,680,064
  //   gate_up [2 x 18432/8 = 4608, 7168] x 2               =  66,060,288
  //   down [7168, 2304] x 2                                =  33,030,144
  //   input, post-attention, hidden and final norms 4 x 14,336 = 57,344
  //   lm_head 32000 / 8 = 4000 rows x 7168 x 2             =  57,344,000
  //   RoPE theta 1e6, no scaling, context raised to the target's 262,144 positions:
  //   [262144, 128] x 4                                    = 134,217,728
  //   hot_token_id int64 [32000]                           =     256,000
  //   -> 702,007,296 once its own embed_tokens 20480 x 7168 x 2 = 293,601,280 is replaced by
  //   the target's, which a later start-up step does.
  EXPECT_EQ(resident_bytes(w).value(), 702'007'296 + 293'601'280);
  EXPECT_EQ(released_later_bytes(w).value(), 293'601'280);
  // Built and freed while building: the first qkv_proj for hidden-sized input
  // 3072 x 7168 x 2 = 44,040,192 and the first MLP 99,090,432.
  EXPECT_EQ(allocated_bytes(w).value(), 702'007'296 + 436'731'904);
  EXPECT_EQ(w[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(w[0].released_after, kReleasedLater);
  EXPECT_EQ(w.back().name, "hot_token_id");
  EXPECT_EQ(w.back().phase, WeightPhase::kDraftSetup);
  const WeightTensor* first_qkv = &w[2];
  EXPECT_EQ(first_qkv->shape, (std::vector<std::int64_t>{3072, 7168}));
  EXPECT_EQ(w[static_cast<size_t>(first_qkv->released_after)].shape,
            (std::vector<std::int64_t>{3072, 14336}));
}

// The tensors of `target`'s NextN draft on one of `tp` ranks, after checking the
// class SGLang builds it as and the checkpoint layer it loads.
std::vector<WeightTensor> nextn_tensors(const Architecture& target, int tp,
                                        const std::string& architecture, std::int64_t layer) {
  Result<Architecture> draft = nextn_draft(target);
  if (!draft.ok()) {
    ADD_FAILURE() << draft.status().message();
    return {};
  }
  EXPECT_EQ(draft->hf_architecture, architecture);
  EXPECT_EQ(draft->nextn_checkpoint_layer, layer);
  Result<WeightList> r = draft_weights(*draft, target, 131072, {.tp_size = tp}, {});
  if (!r.ok()) {
    ADD_FAILURE() << r.status().message();
    return {};
  }
  return **r;
}

TEST(DraftWeights, DeepSeekV3NextNDraftTp8) {
  // SGLang's NEXTN draft: DeepSeek-V3's MTP layer (model.layers.61) as DeepseekV3ForCausalLMNextN.
  const std::vector<WeightTensor> w =
      nextn_tensors(model("deepseek-v3"), 8, "DeepseekV3ForCausalLMNextN", 61);
  ASSERT_FALSE(w.empty());
  // One of 8 ranks, FP8 with a float32 scale per 128x128 block (as rank_weights_test's
  // DeepSeekV3Fp8Tp8 derives a layer):
  //   embed_tokens and lm_head 129280 / 8 = 16160 rows x 7168 x 2 = 231,669,760 each
  //   enorm, hnorm, shared_head.norm 3 x 7168 x 2                 =      43,008
  //   eh_proj [7168, 2 x 7168] bf16, whole on every rank          = 205,520,896
  //   MLA attention and its norms                                  =  36,647,776
  //   input and post-attention norms                               =      28,672
  //   MoE (the NextN layer is always one): gate 3,670,016 + bias 1,024, experts with the
  //   shared one fused as the 257th: w13 [257, 512, 7168] 943,194,112 + scales 230,272,
  //   w2 [257, 7168, 256] 471,597,056 + scales 115,136             = 1,418,807,616
  //   post-load w_kc + w_vc 2 x 2,097,152                          =   4,194,304
  //   (no RoPE cache: its key is the target's)
  // -> 2,128,581,792, of which 463,339,520 (embedding and head) a later step frees.
  EXPECT_EQ(resident_bytes(w).value(), 2'128'581'792);
  EXPECT_EQ(released_later_bytes(w).value(), 463'339'520);
  // The bf16 kv_b_proj dequantized for w_kc/w_vc (4,194,304) is transient.
  EXPECT_EQ(allocated_bytes(w).value(), 2'128'581'792 + 4'194'304);
  EXPECT_EQ(w.front().name, "model.embed_tokens.weight");
  EXPECT_EQ(w.front().released_after, kReleasedLater);
  EXPECT_EQ(bytes_of(w, "model.eh_proj.weight"), 205'520'896);
  EXPECT_EQ(find(w, "model.decoder.self_attn.rotary_emb.cos_sin_cache"), nullptr);
  EXPECT_EQ(find(w, "model.decoder.mlp.experts.w13_weight")->shape,
            (std::vector<std::int64_t>{257, 512, 7168}));
  const WeightTensor* head = find(w, "lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->released_after, kReleasedLater);
}

TEST(DraftWeights, Glm45AirNextNDraftTp4) {
  // GLM-4.5-Air's MTP layer (model.layers.46) as Glm4MoeForCausalLMNextN, bfloat16, TP 4.
  const std::vector<WeightTensor> w =
      nextn_tensors(model("glm-4.5-air"), 4, "Glm4MoeForCausalLMNextN", 46);
  ASSERT_FALSE(w.empty());
  // eh_proj [4096, 2 x 4096] x 2 whole; the layer is MoE though layer 0 of the target is
  // dense: 128 experts of 1408 / 4 = 352 rows, w13 [128, 704, 4096] x 2 = 738,197,504.
  EXPECT_EQ(bytes_of(w, "model.eh_proj.weight"), 67'108'864);
  EXPECT_EQ(bytes_of(w, "model.decoder.mlp.experts.w13_weight"), 738'197'504);
  // Embedding and head 151552 / 4 = 37888 rows x 4096 x 2 = 310,378,496 each, freed later.
  EXPECT_EQ(released_later_bytes(w).value(), 2 * 310'378'496);
}

TEST(DraftWeights, NextNDraftOfV32FusesTheSharedExpertItsTargetKeepsApart) {
  // determine_num_fused_shared_experts compares the config's class with the model's own:
  // DeepseekV32ForCausalLM keeps 256 routed experts plus a separate shared MLP, its draft
  // (renamed DeepseekV3ForCausalLMNextN) folds the shared expert in as the 257th.
  Diagnostics diags;
  Result<Architecture> v32 =
      load_hf_config(public_config_dir("deepseek-ai--DeepSeek-V3.2") + "/config.json", diags);
  ASSERT_TRUE(v32.ok()) << diags.to_string();
  const std::vector<WeightTensor> w = nextn_tensors(*v32, 8, "DeepseekV3ForCausalLMNextN", 61);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(find(w, "model.decoder.mlp.experts.w13_weight")->shape[0], 257);
  EXPECT_EQ(find(w, "model.decoder.mlp.shared_experts.gate_up_proj.weight"), nullptr);
  // A modelopt_fp4 checkpoint's MTP layer is bfloat16: the draft drops the quantization.
  Architecture fp4 = model("deepseek-v3");
  fp4.quantization.method = QuantMethod::kModelOptNvfp4;
  Result<Architecture> draft = nextn_draft(fp4);
  ASSERT_TRUE(draft.ok());
  EXPECT_EQ(draft->quantization.method, QuantMethod::kNone);
}

TEST(DraftWeights, NextNDraftsNeedOneMtpLayerAndAKnownClass) {
  // Kimi-K2 is DeepseekV3ForCausalLM without MTP layers; Qwen3-32B has no NextN class.
  Result<Architecture> kimi = nextn_draft(model("kimi-k2-instruct"));
  EXPECT_EQ(kimi.status().message(),
            "kimi-k2-instruct has 0 MTP layers (num_nextn_predict_layers); SGLang's NextN "
            "draft loads exactly one");
  Result<Architecture> qwen = nextn_draft(model("qwen3-32b"));
  EXPECT_EQ(qwen.status().message(),
            "the MTP draft of Qwen3ForCausalLM is not modelled (gpumem models DeepSeek-V3, "
            "V3.2, GLM-4.5 and GLM-5 NextN drafts)");
}

TEST(DraftWeights, DraftRopeCacheIsSharedWhenItsKeyEqualsTheTargets) {
  // Same architecture as its own target: the draft's RoPE spec equals the target's, so
  // get_rope returns the cached module and the draft allocates no cache.
  Architecture draft = model("eagle3-llama3.3-instruct-70b");
  Architecture target = draft;
  target.family = ArchitectureFamily::kLlama;
  Result<WeightList> w = draft_weights(draft, target, 4096, {.tp_size = 8}, {});
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(find(**w, "model.midlayer.self_attn.rotary_emb.cos_sin_cache"), nullptr);
}

TEST(DraftWeights, EqualArgumentsGetTheSameListBackFromTheCache) {
  // The simulator's weight-load memo recognises the draft's list by identity, as the target's.
  const Architecture draft = model("eagle3-llama3.1-instruct-8b");
  const Architecture target = model("llama-3.1-8b-instruct");
  WeightListCache cache;
  Result<WeightList> a = draft_weights(draft, target, 131072, {.tp_size = 1}, {}, &cache);
  Result<WeightList> b = draft_weights(draft, target, 131072, {.tp_size = 1}, {}, &cache);
  Result<WeightList> longer = draft_weights(draft, target, 262144, {.tp_size = 1}, {}, &cache);
  ASSERT_TRUE(a.ok() && b.ok() && longer.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(a->get(), longer->get());
  // Without a cache every call builds its own list: nothing is shared behind the caller.
  Result<WeightList> c = draft_weights(draft, target, 131072, {.tp_size = 1}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->get(), c->get());
  EXPECT_EQ((*a)->size(), (*c)->size());
}

}  // namespace
}  // namespace gpumem
