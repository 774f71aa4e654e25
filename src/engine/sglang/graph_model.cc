#include "engine/sglang/graph_model.h"

#include <algorithm>

namespace gpumem::sglang {
namespace {

Bytes elems(std::int64_t n, std::int64_t element_bytes) { return bytes(n * element_bytes); }

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

constexpr std::int64_t kInt64 = 8;
constexpr std::int64_t kInt32 = 4;
constexpr std::int64_t kFloat32 = 4;
constexpr std::int64_t kHalf = 2;  // activations in bf16/fp16
// sglang v0.5.9 server_args.py --triton-attention-num-kv-splits default.
constexpr std::int64_t kTritonKvSplits = 8;

}  // namespace

std::vector<GraphBuffer> graph_static_buffers(const Architecture& a, const ModelFacts& facts,
                                              const GraphShape& s, bool speculative) {
  const std::int64_t max_tokens = s.max_bs * s.tokens_per_bs;
  std::vector<GraphBuffer> out;
  // sglang v0.5.9 model_executor/input_buffers.py GraphInputBuffers.create
  out.push_back({"input_ids", elems(max_tokens, kInt64)});
  out.push_back({"req_pool_indices", elems(s.max_bs, kInt32)});
  out.push_back({"seq_lens", elems(s.max_bs, kInt32)});
  out.push_back({"out_cache_loc", elems(max_tokens, kInt64)});
  out.push_back({"positions", elems(max_tokens, kInt64)});
  out.push_back({"mrope_positions", elems(3 * max_tokens, kInt64)});
  out.push_back({"input_embeds", elems(max_tokens * a.hidden_size, kHalf)});
  out.push_back({"next_token_logits_buffer", elems(max_tokens * a.vocab_size, kFloat32)});
  // The attention backend's graph state (init_cuda_graph_state of each backend).
  const std::int64_t pages = ceil_div(facts.context_len, facts.page_size);
  const std::string& b = facts.attention_backend;
  if (b == "fa3" || b == "fa4") {
    // flashattention_backend.py: decode page table, plus the target-verify one with spec.
    out.push_back({"fa3 decode page_table", elems(s.max_bs * pages, kInt32)});
    out.push_back({"fa3 cache_seqlens and cu_seqlens", elems(3 * (s.max_bs + 1), kInt32)});
    if (speculative) {
      out.push_back({"fa3 target_verify page_table", elems(s.max_bs * pages, kInt32)});
    }
  } else if (b == "nsa") {
    // nsa_backend.py NativeSparseAttnBackend.init_cuda_graph_state (read at 005e8bf): a page
    // table of one entry per token of the context (page size 1), per-token cache lengths and
    // the query and key offsets.
    out.push_back({"nsa page_table", elems(max_tokens * facts.context_len, kInt32)});
    out.push_back({"nsa cache_seqlens", elems(max_tokens, kInt32)});
    out.push_back({"nsa cu_seqlens_q and cu_seqlens_k", elems(2 * (s.max_bs + 1), kInt32)});
  } else if (b == "flashinfer" || b == "triton") {
    // flashinfer_backend.py / triton_backend.py: kv_indices of max_bs x context, indptr.
    out.push_back({b + " cuda_graph_kv_indices", elems(s.max_bs * facts.context_len, kInt32)});
    out.push_back({b + " kv_indptr", elems(s.max_bs + 1, kInt32)});
    if (b == "triton") {
      const std::int64_t heads = std::max<std::int64_t>(1, a.num_attention_heads / s.attention_tp);
      const std::int64_t v_dim = facts.use_mla ? a.mla.kv_lora_rank : a.head_dim;
      out.push_back(
          {"triton attn_logits", elems(s.max_bs * heads * kTritonKvSplits * v_dim, kFloat32)});
      out.push_back({"triton attn_lse", elems(s.max_bs * heads * kTritonKvSplits, kFloat32)});
    }
  } else {
    // trtllm_mha / trtllm_mla / flashmla / cutlass_mla: a block table.
    out.push_back({b + " block_table", elems(s.max_bs * pages, kInt32)});
  }
  return out;
}

std::vector<ActivationTensor> layer_activations(const Architecture& a, const ModelFacts& facts,
                                                const GraphShape& s, std::int64_t layer,
                                                std::int64_t n) {
  std::vector<ActivationTensor> out;
  out.reserve(24);
  const std::int64_t h = a.hidden_size;
  const std::int64_t heads = std::max<std::int64_t>(1, a.num_attention_heads / s.attention_tp);
  const std::int64_t kv_heads = std::max<std::int64_t>(1, a.num_key_value_heads / s.attention_tp);
  out.push_back({"input_layernorm", elems(n * h, kHalf)});
  if (facts.use_mla) {
    const MlaConfig& m = a.mla;
    const std::int64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) out.push_back({"q_a_proj", elems(n * m.q_lora_rank, kHalf)});
    out.push_back({"q_b_proj", elems(n * heads * qk, kHalf)});
    out.push_back({"kv_a_proj", elems(n * (m.kv_lora_rank + m.qk_rope_head_dim), kHalf)});
    out.push_back({"q_nope_absorbed", elems(n * heads * m.kv_lora_rank, kHalf)});
    if (facts.sparse_attention) {
      // nsa/nsa_indexer.py Indexer.forward: the indexer's queries, key and head weights, its
      // float32 logits over every cached token (context_len wide in a captured decode) and
      // the top-k token indices the sparse kernel reads.
      out.push_back({"indexer_q", elems(n * m.index_n_heads * m.index_head_dim, kHalf)});
      out.push_back({"indexer_k", elems(n * m.index_head_dim, kHalf)});
      out.push_back({"indexer_weights", elems(n * m.index_n_heads, kFloat32)});
      out.push_back({"indexer_logits", elems(n * facts.context_len, kFloat32)});
      out.push_back({"indexer_topk", elems(n * m.index_topk, kInt32)});
    }
    out.push_back({"attn_output_latent", elems(n * heads * m.kv_lora_rank, kHalf)});
    out.push_back({"attn_output", elems(n * heads * a.v_head_dim, kHalf)});
  } else {
    out.push_back({"qkv_proj", elems(n * (heads + 2 * kv_heads) * a.head_dim, kHalf)});
    out.push_back({"attn_output", elems(n * heads * a.head_dim, kHalf)});
  }
  out.push_back({"o_proj", elems(n * h, kHalf)});
  out.push_back({"post_attention_layernorm", elems(n * h, kHalf)});
  if (a.is_moe_layer(layer)) {
    const MoeConfig& m = a.moe;
    const std::int64_t inter = m.moe_intermediate_size / s.moe_tp;
    out.push_back({"router_logits", elems(n * m.num_experts, kFloat32)});
    out.push_back({"topk_weights_ids", elems(n * m.experts_per_token * 2, kFloat32)});
    // fused_moe: intermediate_cache1 [n, topk, 2I], cache2 [n*topk, I], cache3 [n, topk, H]
    out.push_back({"fused_moe_cache1", elems(n * m.experts_per_token * 2 * inter, kHalf)});
    out.push_back({"fused_moe_cache2", elems(n * m.experts_per_token * inter, kHalf)});
    out.push_back({"fused_moe_cache3", elems(n * m.experts_per_token * h, kHalf)});
    if (m.num_shared_experts > 0) {
      const std::int64_t shared = m.shared_expert_intermediate_size / s.tp;
      out.push_back({"shared_expert_gate_up", elems(n * 2 * shared, kHalf)});
    }
  } else {
    const std::int64_t inter = a.intermediate_size / s.tp;
    out.push_back({"gate_up_proj", elems(n * 2 * inter, kHalf)});
    out.push_back({"act", elems(n * inter, kHalf)});
  }
  out.push_back({"mlp_output", elems(n * h, kHalf)});
  return out;
}

std::vector<ActivationTensor> head_activations(const Architecture& a, const GraphShape& s,
                                               std::int64_t n, std::int64_t vocab) {
  std::vector<ActivationTensor> out;
  out.reserve(4);
  out.push_back({"final_norm", elems(n * a.hidden_size, kHalf), false});
  const std::int64_t padded = (vocab + 63) / 64 * 64;
  out.push_back({"lm_head", elems(n * padded / s.tp, kHalf), false});
  if (s.tp > 1) out.push_back({"logits_all_gather", elems(n * padded, kHalf), false});
  out.push_back({"logits_float", elems(n * vocab, kFloat32), false});
  return out;
}

int kernels_per_layer(const Architecture& a, std::int64_t layer, const GraphKernelCounts& k) {
  int n = a.is_moe_layer(layer) ? k.moe_layer : k.dense_layer;
  if (a.attention == AttentionKind::kMla) n += k.mla_extra;
  return n;
}

}  // namespace gpumem::sglang
