#include "weights/draft_weights.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/weight_test_models.h"

// Expected byte counts are derived by hand from SGLang's EAGLE-3 draft modules (the
// derivation sits next to the number); none is copied from gpumem's output.

namespace gpumem {
namespace {

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
  //   -> 702,007,296
  EXPECT_EQ(resident_bytes(w).value(), 702'007'296);
  // Built and freed: its own embed_tokens 20480 x 7168 x 2 = 293,601,280 (replaced by the
  // target's), the first qkv_proj for hidden-sized input 3072 x 7168 x 2 = 44,040,192 and
  // the first MLP 99,090,432 -> 436,731,904 more allocated in total.
  EXPECT_EQ(allocated_bytes(w).value(), 702'007'296 + 436'731'904);
  EXPECT_EQ(w[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(w[static_cast<size_t>(w[0].released_after)].name, "lm_head.weight");
  EXPECT_EQ(w.back().name, "hot_token_id");
  EXPECT_EQ(w.back().phase, WeightPhase::kDraftSetup);
  const WeightTensor* first_qkv = &w[2];
  EXPECT_EQ(first_qkv->shape, (std::vector<std::int64_t>{3072, 7168}));
  EXPECT_EQ(w[static_cast<size_t>(first_qkv->released_after)].shape,
            (std::vector<std::int64_t>{3072, 14336}));
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
