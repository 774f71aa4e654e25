// Builders for the pieces every decoder model is made of, on one rank: vocabulary-parallel
// embeddings, norms, RoPE caches, attention (standard and MLA) and dense MLPs.
//
// Each appends tensors in the order SGLang v0.5.9 creates them and checks the divisibility
// the engine asserts (heads by TP, widths by TP). Names are the engine's parameter names, so
// a listing can be held next to `model.named_parameters()`. `checkpoint` names passed along
// are the Hugging Face module names the quantization's not-converted patterns are matched
// against.
#ifndef GPUMEM_WEIGHTS_LAYER_WEIGHTS_H_
#define GPUMEM_WEIGHTS_LAYER_WEIGHTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "weights/rope_cache.h"
#include "weights/tensor_list.h"

namespace gpumem {

// Rows one rank holds of a VocabParallelEmbedding / ParallelLMHead of `vocab` rows split
// over `tp` ranks: the vocabulary padded to rules.vocab_padding, divided by tp.
Result<std::int64_t> vocab_rows_per_rank(std::int64_t vocab, int tp, const WeightRules& rules);

Status add_vocab_parallel(TensorList& list, const BuildContext& ctx, const std::string& name,
                          std::int64_t vocab, int tp);
void add_norm(TensorList& list, const BuildContext& ctx, const std::string& name,
              std::int64_t size);

// The RoPE caches a process already holds; a spec seen before allocates nothing.
class RopeCaches {
 public:
  void seed(const RopeSpec& spec) { specs_.push_back(spec); }
  Status add(TensorList& list, const BuildContext& ctx, const std::string& module,
             const RopeSpec& spec);

 private:
  std::vector<RopeSpec> specs_;
};

// Query heads must split evenly over the attention TP group; KV heads split when there are
// at least as many as ranks, otherwise each rank keeps one replicated KV head (so the rank
// count must be a multiple of the KV heads).
Status check_attention_heads(const Architecture& a, int tp);

struct AttentionSite {
  std::string prefix;           // engine module, "model.layers.3.self_attn"
  std::string checkpoint;       // HF module, "model.layers.3.self_attn"
  std::int64_t input_size = 0;  // hidden size (2 x hidden for an EAGLE-3 midlayer)
  RopeSpec rope;
  // The layer's head size and KV heads where they are not the architecture's (Gemma 4's
  // full-attention layers); 0: the architecture's.
  std::int64_t head_dim = 0;
  std::int64_t kv_heads = 0;
  bool v_from_k = false;  // Gemma 4 attention_k_eq_v: the V slot is loaded from k_proj
};

// QKVParallelLinear (KV heads replicated when attention TP exceeds them), [sinks], o_proj,
// the RoPE cache on first use, [q_norm, k_norm].
Status add_standard_attention(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                              RopeCaches& ropes, PostLoadSteps& post_load);

// DeepSeek Sparse Attention's lightning indexer beside an MLA layer (SGLang's layout):
// wq_b, wk, k_norm, weights_proj, all replicated on every rank.
Status add_sparse_indexer(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                          PostLoadSteps& post_load);

// DeepSeek MLA: fused_qkv_a_proj_with_mqa + q_a_layernorm + q_b_proj (or q_proj +
// kv_a_proj_with_mqa), kv_b_proj, o_proj, kv_a_layernorm, RoPE cache, [the indexer]. With
// rules.mla_absorbed_copies, queues the w_kc / w_vc copies on `model_post_load`.
Status add_mla_attention(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                         RopeCaches& ropes, PostLoadSteps& model_post_load,
                         PostLoadSteps& post_load);

// gate_up_proj (column) + down_proj (row) of width `intermediate` split over `tp` ranks; a
// model without gated MLPs (arch.gated_mlp false) has up_proj and down_proj.
Status add_dense_mlp(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                     const std::string& checkpoint, std::int64_t intermediate, int tp,
                     PostLoadSteps& post_load);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_LAYER_WEIGHTS_H_
