#include "weights/layer_weights.h"

#include <algorithm>

#include "weights/linear_weights.h"

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

}  // namespace

Status check_attention_heads(const Architecture& a, int tp) {
  // sglang v0.5.9 llama.py LlamaAttention.__init__ (same in every standard attention)
  if (a.num_attention_heads % tp != 0) {
    return invalid_input("num_attention_heads " + str(a.num_attention_heads) +
                         " is not divisible by the attention tensor-parallel size " + str(tp));
  }
  const std::int64_t kv = a.num_key_value_heads;
  if (a.attention == AttentionKind::kStandard && (kv >= tp ? kv % tp != 0 : tp % kv != 0)) {
    return invalid_input("num_key_value_heads " + str(kv) +
                         " and the attention tensor-parallel size " + str(tp) +
                         " do not divide one another");
  }
  return Status::ok_status();
}

Result<std::int64_t> vocab_rows_per_rank(std::int64_t vocab, int tp, const WeightRules& rules) {
  // sglang v0.5.9 vocab_parallel_embedding.py pad_vocab_size and
  // VocabParallelEmbedding.__init__ (divide(num_embeddings_padded, tp_size))
  const std::int64_t padded =
      (vocab + rules.vocab_padding - 1) / rules.vocab_padding * rules.vocab_padding;
  if (padded % tp != 0) {
    return invalid_input("vocabulary of " + str(vocab) + " rows, padded to " + str(padded) +
                         ", is not divisible by tensor-parallel size " + str(tp));
  }
  return padded / tp;
}

Status add_vocab_parallel(TensorList& list, const BuildContext& ctx, const std::string& name,
                          std::int64_t vocab, int tp) {
  Result<std::int64_t> rows = vocab_rows_per_rank(vocab, tp, ctx.rules);
  if (!rows.ok()) return rows.status();
  // sglang v0.5.9 vocab_parallel_embedding.py UnquantizedEmbeddingMethod.create_weights
  list.add(name, {*rows, ctx.arch.hidden_size}, ctx.dtype);
  return Status::ok_status();
}

void add_norm(TensorList& list, const BuildContext& ctx, const std::string& name,
              std::int64_t size) {
  // sglang v0.5.9 layers/layernorm.py RMSNorm.__init__: weight of `size` in the default dtype
  list.add(name, {size}, ctx.dtype);
}

Status RopeCaches::add(TensorList& list, const BuildContext& ctx, const std::string& module,
                       const RopeSpec& spec) {
  // sglang v0.5.9 rotary_embedding.py get_rope: one module per key in _ROPE_DICT; a model
  // without rotary embedding (NemotronH, rotary_dim 0) builds none.
  if (spec.rotary_dim == 0 || std::find(specs_.begin(), specs_.end(), spec) != specs_.end()) {
    return Status::ok_status();
  }
  specs_.push_back(spec);
  if (ctx.rules.transformers_rope) {
    // transformers modeling_rope_utils.py: register_buffer("inv_freq", ..., persistent=False),
    // one module for the model (transformers smollm3 SmolLM3Model.rotary_emb).
    if (specs_.size() == 1)
      list.add("model.rotary_emb.inv_freq", {spec.rotary_dim / 2}, DType::kFloat32);
    return Status::ok_status();
  }
  if (spec.scaling.type == RopeType::kLongRope) {
    // sglang v0.5.9 rotary_embedding.py Phi3LongRoPEScaledRotaryEmbedding.__init__ (vLLM's
    // alike): a short cache of original_max_position_embeddings rows, a long one of
    // max_position rows, and their concatenation, all kept as buffers in the model dtype.
    const std::int64_t original = spec.scaling.original_max_position_embeddings;
    const std::string p = module + ".rotary_emb.";
    list.add(p + "short_cos_sin_cache", {original, spec.rotary_dim}, ctx.dtype);
    list.add(p + "long_cos_sin_cache", {spec.max_position, spec.rotary_dim}, ctx.dtype);
    list.add(p + "long_short_cos_sin_cache", {original + spec.max_position, spec.rotary_dim},
             ctx.dtype);
    return Status::ok_status();
  }
  Result<std::int64_t> rows = rope_cache_rows(spec);
  if (!rows.ok()) return rows.status();
  const std::int64_t factor = spec.scaling.mrope ? ctx.rules.mrope_cache_factor : 1;
  list.add(module + ".rotary_emb.cos_sin_cache", {*rows * factor, spec.rotary_dim},
           ctx.rules.rope_cache_dtype);
  return Status::ok_status();
}

Status add_standard_attention(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                              RopeCaches& ropes, PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const int tp = attention_tp_size(ctx.layout);
  GPUMEM_RETURN_IF_ERROR(check_attention_heads(a, tp));
  const std::int64_t heads = a.num_attention_heads / tp;
  const std::int64_t head_dim = s.head_dim > 0 ? s.head_dim : a.head_dim;
  const std::int64_t kv_heads =
      std::max<std::int64_t>(1, (s.kv_heads > 0 ? s.kv_heads : a.num_key_value_heads) / tp);
  const std::int64_t q_rows = heads * head_dim;
  const std::int64_t kv_rows = kv_heads * head_dim;
  // sglang qwen3_next.py Qwen3HybridAttentionDecoderLayer: QKVParallelLinear of
  // num_heads x (1 + attn_output_gate) query heads, the gate beside each query head
  const std::int64_t q_proj_rows = a.attn_output_gate ? 2 * q_rows : q_rows;
  const bool qkv_bias =
      a.qkv_bias || (a.family == ArchitectureFamily::kGlm4 && ctx.rules.glm4_qkv_bias_always);
  // sglang v0.5.9 layers/linear.py QKVParallelLinear.__init__; vllm gemma4.py load_weights
  // yields k_proj again as v_proj on a k_eq_v layer.
  std::vector<std::string> parts = {s.checkpoint + ".q_proj", s.checkpoint + ".k_proj"};
  if (!s.v_from_k) parts.push_back(s.checkpoint + ".v_proj");
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {s.prefix + ".qkv_proj",
                                     std::move(parts),
                                     {q_proj_rows, kv_rows, kv_rows},
                                     s.input_size,
                                     LinearParallel::kColumn,
                                     tp,
                                     qkv_bias},
                                    post_load));
  if (a.attention_sinks) list.add(s.prefix + ".sinks", {heads}, ctx.rules.attention_sinks_dtype);
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {s.prefix + ".o_proj",
                                     {s.checkpoint + ".o_proj"},
                                     {a.hidden_size},
                                     heads * (s.head_dim > 0 ? s.head_dim : a.v_head_dim),
                                     LinearParallel::kRow,
                                     tp,
                                     a.o_proj_bias},
                                    post_load));
  GPUMEM_RETURN_IF_ERROR(ropes.add(list, ctx, s.prefix, s.rope));
  if (a.qk_norm_per_layer && a.family == ArchitectureFamily::kCohere &&
      tp > a.num_key_value_heads) {
    // sglang and vllm commandr.py load k_norm by narrowing its rows to the rank's KV heads, which
    // runs past the tensor when ranks outnumber them (no replication, unlike qkv_proj).
    return invalid_input("--tensor-parallel size " + std::to_string(tp) + " above " +
                         a.hf_architecture + "'s " + std::to_string(a.num_key_value_heads) +
                         " KV heads with use_qk_norm: commandr.py cannot load k_norm");
  }
  if (a.qk_norm_per_layer) {
    // Cohere (use_qk_norm): [heads, head_dim] rows per rank, the same widths.
    // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2RMSNormTP.__init__: each rank's share of the
    // heads (one whole KV head when there are fewer than ranks); vLLM minimax_m2.py's
    // MiniMaxText01RMSNormTP splits the whole width by the TP size (weight_rules.h).
    // OLMo 2 (qk_norm_replicated) keeps both whole on every rank.
    const std::int64_t q_width = a.qk_norm_replicated ? a.num_attention_heads * a.head_dim : q_rows;
    const std::int64_t k_width = a.qk_norm_replicated ? a.num_key_value_heads * a.head_dim
                                 : ctx.rules.per_layer_k_norm_whole_heads
                                     ? kv_rows
                                     : a.num_key_value_heads * a.head_dim / tp;
    add_norm(list, ctx, s.prefix + ".q_norm.weight", q_width);
    add_norm(list, ctx, s.prefix + ".k_norm.weight", k_width);
  } else if (a.qk_norm) {
    // sglang v0.5.9 qwen3_moe.py Qwen3MoeAttention: q_norm/k_norm after the attention
    add_norm(list, ctx, s.prefix + ".q_norm.weight", head_dim);
    add_norm(list, ctx, s.prefix + ".k_norm.weight", head_dim);
  } else if (a.weightless_qk_norm && s.rope.rotary_dim > 0 && ctx.rules.llama4_qk_norm_weight) {
    // sglang llama4.py Llama4Attention: qk_norm, one RMSNorm(head_dim) for q and k on RoPE
    // layers (a NoPE layer's site carries rotary_dim 0: rank_weights.cc layer_rope), left at
    // ones (the checkpoint has no weight for it)
    add_norm(list, ctx, s.prefix + ".qk_norm.weight", a.head_dim);
  }
  return Status::ok_status();
}

Status add_sparse_indexer(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                          PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const MlaConfig& m = a.mla;
  const std::string p = s.prefix + ".indexer";
  const std::string c = s.checkpoint + ".indexer";
  // sglang layers/attention/nsa/nsa_indexer.py Indexer.__init__ (read at 005e8bf): every
  // projection a ReplicatedLinear, wq_b and wk under the checkpoint's quantization.
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {p + ".wq_b",
                                     {c + ".wq_b"},
                                     {m.index_n_heads * m.index_head_dim},
                                     m.q_lora_rank,
                                     LinearParallel::kReplicated,
                                     1,
                                     false},
                                    post_load));
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {p + ".wk",
                                     {c + ".wk"},
                                     {m.index_head_dim},
                                     a.hidden_size,
                                     LinearParallel::kReplicated,
                                     1,
                                     false},
                                    post_load));
  // ... k_norm a float32 LayerNorm (weight and bias); weights_proj without quant_config, in
  // bfloat16 on CUDA (params_dtype).
  list.add(p + ".k_norm.weight", {m.index_head_dim}, DType::kFloat32);
  list.add(p + ".k_norm.bias", {m.index_head_dim}, DType::kFloat32);
  list.add(p + ".weights_proj.weight", {m.index_n_heads, a.hidden_size}, DType::kBFloat16);
  return Status::ok_status();
}

Status add_mla_attention(TensorList& list, const BuildContext& ctx, const AttentionSite& s,
                         RopeCaches& ropes, PostLoadSteps& model_post_load,
                         PostLoadSteps& post_load) {
  const Architecture& a = ctx.arch;
  const MlaConfig& m = a.mla;
  const int tp = attention_tp_size(ctx.layout);
  GPUMEM_RETURN_IF_ERROR(check_attention_heads(a, tp));
  const std::int64_t heads = a.num_attention_heads / tp;
  const std::int64_t qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const std::int64_t h = a.hidden_size;
  const std::string& p = s.prefix;
  const std::string& c = s.checkpoint;
  // sglang v0.5.9 deepseek_v2.py DeepseekV2AttentionMLA.__init__
  if (m.q_lora_rank > 0) {
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {p + ".fused_qkv_a_proj_with_mqa",
                                       {c + ".q_a_proj", c + ".kv_a_proj_with_mqa"},
                                       {m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim},
                                       h,
                                       LinearParallel::kReplicated,
                                       1,
                                       false},
                                      post_load));
    add_norm(list, ctx, p + ".q_a_layernorm.weight", m.q_lora_rank);
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {p + ".q_b_proj",
                                       {c + ".q_b_proj"},
                                       {heads * qk_head},
                                       m.q_lora_rank,
                                       LinearParallel::kColumn,
                                       tp,
                                       false},
                                      post_load));
  } else {
    GPUMEM_RETURN_IF_ERROR(add_linear(
        list, ctx,
        {p + ".q_proj", {c + ".q_proj"}, {heads * qk_head}, h, LinearParallel::kColumn, tp, false},
        post_load));
    GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                      {p + ".kv_a_proj_with_mqa",
                                       {c + ".kv_a_proj_with_mqa"},
                                       {m.kv_lora_rank + m.qk_rope_head_dim},
                                       h,
                                       LinearParallel::kReplicated,
                                       1,
                                       false},
                                      post_load));
  }
  const int kv_b_first = list.size();
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx,
                                    {p + ".kv_b_proj",
                                     {c + ".kv_b_proj"},
                                     {heads * (m.qk_nope_head_dim + a.v_head_dim)},
                                     m.kv_lora_rank,
                                     LinearParallel::kColumn,
                                     tp,
                                     false},
                                    post_load));
  const DType kv_b_dtype = list.at(kv_b_first).dtype;
  GPUMEM_RETURN_IF_ERROR(add_linear(
      list, ctx,
      {p + ".o_proj", {c + ".o_proj"}, {h}, heads * a.v_head_dim, LinearParallel::kRow, tp, false},
      post_load));
  add_norm(list, ctx, p + ".kv_a_layernorm.weight", m.kv_lora_rank);
  GPUMEM_RETURN_IF_ERROR(ropes.add(list, ctx, p, s.rope));
  if (m.sparse_indexer()) GPUMEM_RETURN_IF_ERROR(add_sparse_indexer(list, ctx, s, post_load));

  if (!ctx.rules.mla_absorbed_copies) return Status::ok_status();
  const Quantization& q = a.quantization;
  const bool fp8 = kv_b_dtype == DType::kFloat8E4M3;
  if (kv_b_dtype != ctx.dtype &&
      !(fp8 && q.block_n == 128 && q.block_k == 128 && ctx.dtype == DType::kBFloat16)) {
    return invalid_input(p + ".kv_b_proj: absorbed MLA weights (w_kc, w_vc) from a " +
                         std::string(dtype_name(kv_b_dtype)) + " kv_b_proj are not modelled");
  }
  // sglang v0.5.9 deepseek_v2.py DeepseekV2ForCausalLM.post_load_weights: a 128x128 FP8
  // kv_b_proj is first dequantized to the model dtype (block_quant_dequant); w_kc is
  // w_kc.transpose(1, 2).contiguous() and w_vc is w_vc.contiguous(), both kept.
  const DType dtype = ctx.dtype;
  const std::int64_t nope = m.qk_nope_head_dim;
  const std::int64_t v = a.v_head_dim;
  const std::int64_t lora = m.kv_lora_rank;
  model_post_load.emplace_back([=](TensorList& l) {
    int dequantized = -1;
    if (fp8) dequantized = l.add(p + ".kv_b_proj.dequantized", {heads * (nope + v), lora}, dtype);
    l.add(p + ".w_kc", {heads, nope, lora}, dtype);
    l.add(p + ".w_vc", {heads, lora, v}, dtype);
    if (fp8) l.release(dequantized);
  });
  return Status::ok_status();
}

Status add_dense_mlp(TensorList& list, const BuildContext& ctx, const std::string& prefix,
                     const std::string& checkpoint, std::int64_t intermediate, int tp,
                     PostLoadSteps& post_load) {
  if (intermediate % tp != 0) {
    return invalid_input(prefix + ": intermediate size " + str(intermediate) +
                         " is not divisible by tensor-parallel size " + str(tp));
  }
  const std::int64_t rows = intermediate / tp;
  // sglang v0.5.9 llama.py LlamaMLP.__init__ (and every gated MLP: Qwen, DeepSeek, GLM):
  // gate_up_proj; sglang nemotron_h.py NemotronHMLP (relu2, no gate): up_proj alone.
  const bool gated = ctx.arch.gated_mlp;
  LinearModule up{prefix + ".gate_up_proj",
                  {checkpoint + ".gate_proj", checkpoint + ".up_proj"},
                  {rows, rows},
                  ctx.arch.hidden_size,
                  LinearParallel::kColumn,
                  tp,
                  false};
  if (!gated)
    up = {prefix + ".up_proj",
          {checkpoint + ".up_proj"},
          {rows},
          ctx.arch.hidden_size,
          LinearParallel::kColumn,
          tp,
          false};
  GPUMEM_RETURN_IF_ERROR(add_linear(list, ctx, up, post_load));
  return add_linear(list, ctx,
                    {prefix + ".down_proj",
                     {checkpoint + ".down_proj"},
                     {ctx.arch.hidden_size},
                     rows,
                     LinearParallel::kRow,
                     tp,
                     false},
                    post_load);
}

}  // namespace gpumem
