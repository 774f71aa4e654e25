#include "weights/draft_weights.h"

#include <algorithm>
#include <string>

#include "weights/layer_weights.h"
#include "weights/linear_weights.h"
#include "weights/list_memo.h"
#include "weights/rank_weights.h"
#include "weights/rope_cache.h"
#include "weights/tensor_list.h"

namespace gpumem {
namespace {

// The RoPE spec the target's full-attention layers registered in the process-wide cache.
RopeSpec target_rope(const Architecture& target) {
  return rope_spec(target, target.max_position_embeddings);
}

Result<std::vector<WeightTensor>> build_draft_weights(const Architecture& draft,
                                                      const Architecture& target,
                                                      std::int64_t target_context_len,
                                                      const ParallelLayout& l,
                                                      const WeightRules& rules) {
  GPUMEM_RETURN_IF_ERROR(validate_layout(l));
  if (!draft.is_draft_head()) {
    return invalid_input(draft.name + " is neither an EAGLE-3 draft head nor a NextN draft");
  }
  const BuildContext ctx{draft, l, rules, parameter_dtype(draft, rules)};
  TensorList list(32);
  PostLoadSteps post_load;
  RopeCaches ropes;
  ropes.seed(target_rope(target));
  const std::int64_t h = draft.hidden_size;
  const int tp = l.tp_size;

  // sglang v0.5.9 llama_eagle3.py LlamaModel.__init__
  const int embed = list.size();
  GPUMEM_RETURN_IF_ERROR(
      add_vocab_parallel(list, ctx, "model.embed_tokens.weight", draft.vocab_size, tp));
  list.add("model.fc.weight", {h, draft.eagle_fc_input_size}, ctx.dtype);

  // sglang v0.5.9 llama_eagle3.py LlamaDecoderLayer.__init__: the Llama layer first...
  const std::string layer = "model.midlayer";
  const std::string attn = layer + ".self_attn";
  const int attn_tp = attention_tp_size(l);
  GPUMEM_RETURN_IF_ERROR(check_attention_heads(draft, attn_tp));
  const std::int64_t heads = draft.num_attention_heads / attn_tp;
  const std::int64_t kv_heads = std::max<std::int64_t>(1, draft.num_key_value_heads / attn_tp);
  auto qkv = [&](std::int64_t input, bool bias) {
    return LinearModule{
        attn + ".qkv_proj",
        {attn + ".q_proj", attn + ".k_proj", attn + ".v_proj"},
        {heads * draft.head_dim, kv_heads * draft.head_dim, kv_heads * draft.head_dim},
        input,
        LinearParallel::kColumn,
        attn_tp,
        bias};
  };
  const int plain_qkv = list.size();
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx, qkv(h, draft.attention_bias), post_load));
  const int plain_qkv_end = list.size();
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {attn + ".o_proj",
                                     {attn + ".o_proj"},
                                     {h},
                                     heads * draft.v_head_dim,
                                     LinearParallel::kRow,
                                     attn_tp,
                                     draft.o_proj_bias},
                                    post_load));
  // configs/model_config.py _derive_context_length: a draft's max_position_embeddings is
  // raised to the target's context length.
  GPUMEM_RETURN_IF_ERROR(
      ropes.add(list, ctx, attn,
                rope_spec(draft, std::max(draft.max_position_embeddings, target_context_len))));
  const int plain_mlp = list.size();
  GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list, ctx, layer + ".mlp", layer + ".mlp",
                                       draft.intermediate_size, tp, post_load));
  const int plain_mlp_end = list.size();
  add_norm(list, ctx, layer + ".input_layernorm.weight", h);
  add_norm(list, ctx, layer + ".post_attention_layernorm.weight", h);
  // ... then its qkv_proj rebuilt without bias for [embedding, hidden] (2 x hidden) inputs
  // and its MLP rebuilt; the replaced modules' tensors are freed on assignment.
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx, qkv(2 * h, false), post_load));
  for (int i = plain_qkv; i < plain_qkv_end; ++i) list.release(i);
  GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list, ctx, layer + ".mlp", layer + ".mlp",
                                       draft.intermediate_size, tp, post_load));
  for (int i = plain_mlp; i < plain_mlp_end; ++i) list.release(i);
  add_norm(list, ctx, layer + ".hidden_norm.weight", h);
  add_norm(list, ctx, "model.norm.weight", h);
  // sglang v0.5.9 llama_eagle3.py LlamaForCausalLMEagle3.__init__
  GPUMEM_RETURN_IF_ERROR(
      add_vocab_parallel(list, ctx, "lm_head.weight", draft.draft_vocab_size, tp));

  list.set_phase(WeightPhase::kPostLoad);
  for (auto& step : post_load) step(list);

  // sglang v0.5.9 speculative/eagle_worker.py EAGLEWorker.__init__: the hot-token ids move to
  // the GPU; set_embed(target embed) frees the draft's own embedding unless the config gives
  // a target_hidden_size different from its hidden size (llama.py set_embed), once the
  // draft's KV pool is allocated (vLLM: while loading, rules.draft_embedding_freed_after_kv).
  list.set_phase(WeightPhase::kDraftSetup);
  const bool shares_embedding = draft.eagle_fc_input_size == 3 * h;
  if (shares_embedding && !rules.draft_embedding_freed_after_kv) list.release(embed);
  list.add("hot_token_id", {draft.draft_vocab_size}, DType::kInt64);
  if (shares_embedding && rules.draft_embedding_freed_after_kv) list.release_later(embed);
  return list.take();
}

}  // namespace

Result<WeightList> draft_weights(const Architecture& draft, const Architecture& target,
                                 std::int64_t target_context_len, const ParallelLayout& l,
                                 const WeightRules& rules, WeightListCache* cache) {
  const auto build = [&]() -> Result<std::vector<WeightTensor>> {
    if (draft.is_nextn_draft()) return nextn_draft_tensors(draft, target_rope(target), l, rules);
    return build_draft_weights(draft, target, target_context_len, l, rules);
  };
  if (cache != nullptr) {
    return cache->draft_lists.get(draft, target, target_context_len, l, rules, build);
  }
  Result<std::vector<WeightTensor>> built = build();
  if (!built.ok()) return built.status();
  return WeightList(std::make_shared<const std::vector<WeightTensor>>(std::move(*built)));
}

}  // namespace gpumem
