#include "weights/deepseek_v4_weights.h"

#include <algorithm>
#include <string>

#include "weights/layer_weights.h"
#include "weights/linear_weights.h"
#include "weights/tensor_list.h"

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }
std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

class V4Builder {
 public:
  V4Builder(const Architecture& a, const ParallelLayout& l, const WeightRules& rules)
      : ctx_{a, l, rules, parameter_dtype(a, rules)},
        list_(static_cast<size_t>(a.num_hidden_layers) * 48) {}

  Status build() {
    const Architecture& a = ctx_.arch;
    const ParallelLayout& l = ctx_.layout;
    const CompressedAttention& c = a.csa;
    // deepseek_v4.py DeepseekV4Attention.__init__: heads and output groups split over TP.
    if (a.num_attention_heads % l.tp_size != 0 || c.o_groups % l.tp_size != 0) {
      return invalid_input("DeepSeek-V4's " + str(a.num_attention_heads) + " heads and " +
                           str(c.o_groups) + " output groups must split over TP " + str(l.tp_size));
    }
    const LayerRange layers =
        pp_layer_range(a.num_hidden_layers, l.pp_rank, l.pp_size, ctx_.rules.pp_partition);
    if (l.pp_rank == 0) {
      GPUMEM_RETURN_IF_ERROR(
          add_vocab_parallel(list_, ctx_, "model.embed_tokens.weight", a.vocab_size, l.tp_size));
    }
    for (std::int64_t i = layers.start; i < layers.end; ++i) {
      GPUMEM_RETURN_IF_ERROR(layer(i, "model.layers." + str(i)));
    }
    if (l.pp_rank == l.pp_size - 1) {
      add_norm(list_, ctx_, "model.norm.weight", a.hidden_size);
      list_.add("model.hc_head_fn", {c.hc_mult, c.hc_mult * a.hidden_size}, DType::kFloat32);
      list_.add("model.hc_head_base", {c.hc_mult}, DType::kFloat32);
      list_.add("model.hc_head_scale", {1}, DType::kFloat32);
      GPUMEM_RETURN_IF_ERROR(
          add_vocab_parallel(list_, ctx_, "lm_head.weight", a.vocab_size, l.tp_size));
    }
    list_.set_phase(WeightPhase::kPostLoad);
    for (auto& step : post_load_) step(list_);
    return Status::ok_status();
  }

  std::vector<WeightTensor> take() { return list_.take(); }

 private:
  // A block-FP8 linear through vLLM's Fp8LinearMethod (weights and float32 block scales).
  Status linear(const std::string& prefix, std::vector<std::int64_t> rows, std::int64_t in,
                LinearParallel parallel) {
    const int group = parallel == LinearParallel::kReplicated ? 1 : ctx_.layout.tp_size;
    LinearModule m{prefix, {prefix}, std::move(rows), in, parallel, group, false};
    return add_linear(list_, ctx_, m, post_load_);
  }

  // get_rope: one float32 cos/sin table per RoPE base, of original positions x the YaRN factor
  // rows (rope/deepseek_v4 DeepseekV4ScalingRotaryEmbedding, "fp32 cos_sin_cache").
  void rope(const std::string& module, double base) {
    if (std::find(bases_.begin(), bases_.end(), base) != bases_.end()) return;
    bases_.push_back(base);
    const RopeScaling& r = ctx_.arch.rope_scaling;
    const std::int64_t rows =
        r.type == RopeType::kYarn
            ? static_cast<std::int64_t>(static_cast<double>(r.original_max_position_embeddings) *
                                        r.factor)
            : ctx_.arch.max_position_embeddings;
    list_.add(module + ".rotary_emb.cos_sin_cache", {rows, ctx_.arch.mla.qk_rope_head_dim},
              DType::kFloat32);
  }

  // deepseek_compressor.py DeepseekCompressor: ape [ratio, overlap x width] float32, the fused
  // wkv + wgate unquantized and replicated, an RMSNorm over the width.
  void compressor(const std::string& p, std::int64_t ratio, std::int64_t width) {
    const std::int64_t w = (ratio == 4 ? 2 : 1) * width;
    list_.add(p + ".ape", {ratio, w}, DType::kFloat32);
    list_.add(p + ".fused_wkv_wgate.weight", {2 * w, ctx_.arch.hidden_size}, DType::kBFloat16);
    add_norm(list_, ctx_, p + ".norm.weight", width);
  }

  Status attention(std::int64_t layer, const std::string& p) {
    const Architecture& a = ctx_.arch;
    const MlaConfig& m = a.mla;
    const CompressedAttention& c = a.csa;
    const int tp = ctx_.layout.tp_size;
    const std::int64_t h = a.hidden_size;
    const std::int64_t local_heads = a.num_attention_heads / tp;
    const std::int64_t ratio = c.ratio(layer);
    // get_deepseek_v4_padded_num_q_heads: FlashMLA's 64 or 128 heads, the padding -inf.
    list_.add(p + ".attn_sink", {local_heads <= 64 ? 64 : 128}, DType::kFloat32);
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".fused_wqa_wkv", {m.q_lora_rank, a.head_dim}, h, LinearParallel::kReplicated));
    add_norm(list_, ctx_, p + ".q_norm.weight", m.q_lora_rank);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".wq_b", {a.num_attention_heads * a.head_dim / tp},
                                  m.q_lora_rank, LinearParallel::kColumn));
    add_norm(list_, ctx_, p + ".kv_norm.weight", a.head_dim);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".wo_a", {c.o_groups * c.o_lora_rank / tp},
                                  a.num_attention_heads * a.head_dim / c.o_groups,
                                  LinearParallel::kColumn));
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".wo_b", {h}, c.o_groups * c.o_lora_rank / tp, LinearParallel::kRow));
    rope(p, ratio > 1 ? c.compress_rope_theta : a.rope_theta);
    if (ratio == 4) {
      // DeepseekV4Indexer: wq_b in FP8 and weights_proj unquantized, both replicated; a
      // LayerNorm over the keys; its own ratio-4 compressor over index_head_dim.
      const std::string ix = p + ".indexer";
      GPUMEM_RETURN_IF_ERROR(linear(ix + ".wq_b", {m.index_n_heads * m.index_head_dim},
                                    m.q_lora_rank, LinearParallel::kReplicated));
      list_.add(ix + ".weights_proj.weight", {m.index_n_heads, h}, DType::kBFloat16);
      list_.add(ix + ".k_norm.weight", {m.index_head_dim}, DType::kBFloat16);
      list_.add(ix + ".k_norm.bias", {m.index_head_dim}, DType::kBFloat16);
      compressor(ix + ".compressor", ratio, m.index_head_dim);
    }
    if (ratio > 1) compressor(p + ".mla_attn.compressor", ratio, a.head_dim);
    return Status::ok_status();
  }

  Status moe(std::int64_t layer, const std::string& p) {
    const Architecture& a = ctx_.arch;
    const MoeConfig& e = a.moe;
    const ParallelLayout& l = ctx_.layout;
    const std::int64_t h = a.hidden_size;
    // DeepseekV4MoE: the router in the model dtype; hash-routed layers keep tid2eid in int32,
    // the others a float32 score-correction bias.
    list_.add(p + ".gate.weight", {e.num_experts, h}, DType::kBFloat16);
    if (layer < a.csa.num_hash_layers) {
      list_.add(p + ".gate.tid2eid", {a.vocab_size, e.experts_per_token}, DType::kInt32);
    } else {
      list_.add(p + ".gate.e_score_correction_bias", {e.num_experts}, DType::kFloat32);
    }
    const std::int64_t shared = e.shared_expert_intermediate_size / l.tp_size;
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".shared_experts.gate_up_proj", {shared, shared}, h, LinearParallel::kColumn));
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".shared_experts.down_proj", {h}, shared, LinearParallel::kRow));
    // Mxfp4MoEMethod.create_weights: E2M1 pairs in uint8, an E8M0 byte per 32 values, no
    // biases; experts split over EP, each expert's width over the MoE TP group; the Marlin
    // path rounds the width up to 128 and the hidden size to 256
    // (mxfp4_round_up_hidden_size_and_intermediate_size, UNCONFIRMED for this model).
    const int moe_tp = moe_tp_size(l);
    if (e.num_experts % l.ep_size != 0 || e.moe_intermediate_size % moe_tp != 0) {
      return invalid_input(p + ".experts: " + str(e.num_experts) + " experts of width " +
                           str(e.moe_intermediate_size) + " do not split over ep_size " +
                           str(l.ep_size) + " and MoE tensor-parallel size " + str(moe_tp));
    }
    const std::int64_t experts = e.num_experts / l.ep_size;
    const std::int64_t inter = round_up(e.moe_intermediate_size / moe_tp, 128);
    const std::int64_t hidden = round_up(h, 256);
    const std::string x = p + ".experts";
    list_.add(x + ".w13_weight", {experts, 2 * inter, hidden / 2}, DType::kUInt8);
    list_.add(x + ".w13_weight_scale", {experts, 2 * inter, hidden / 32}, DType::kUInt8);
    list_.add(x + ".w2_weight", {experts, hidden, inter / 2}, DType::kUInt8);
    list_.add(x + ".w2_weight_scale", {experts, hidden, inter / 32}, DType::kUInt8);
    // prepare_moe_mxfp4_layer_for_marlin: the repack keeps the bytes and adds the kernel's
    // int32 workspace (marlin_make_workspace).
    const std::int64_t workspace = ctx_.rules.device_sm_count * ctx_.rules.marlin_blocks_per_sm;
    post_load_.push_back([x, workspace](TensorList& list) {
      list.add(x + ".workspace", {workspace}, DType::kInt32);
    });
    return Status::ok_status();
  }

  Status layer(std::int64_t i, const std::string& p) {
    const Architecture& a = ctx_.arch;
    const CompressedAttention& c = a.csa;
    GPUMEM_RETURN_IF_ERROR(attention(i, p + ".attn"));
    GPUMEM_RETURN_IF_ERROR(moe(i, p + ".ffn"));
    add_norm(list_, ctx_, p + ".attn_norm.weight", a.hidden_size);
    add_norm(list_, ctx_, p + ".ffn_norm.weight", a.hidden_size);
    // DeepseekV4DecoderLayer: the mixers of the hc_mult streams, float32.
    const std::int64_t mixes = (2 + c.hc_mult) * c.hc_mult;
    for (const char* s : {"attn", "ffn"}) {
      list_.add(p + ".hc_" + s + "_fn", {mixes, c.hc_mult * a.hidden_size}, DType::kFloat32);
    }
    for (const char* s : {"attn", "ffn"})
      list_.add(p + ".hc_" + s + "_base", {mixes}, DType::kFloat32);
    for (const char* s : {"attn", "ffn"})
      list_.add(p + ".hc_" + s + "_scale", {3}, DType::kFloat32);
    return Status::ok_status();
  }

  BuildContext ctx_;
  TensorList list_;
  PostLoadSteps post_load_;
  std::vector<double> bases_;
};

}  // namespace

Result<std::vector<WeightTensor>> deepseek_v4_rank_tensors(const Architecture& a,
                                                           const ParallelLayout& l,
                                                           const WeightRules& rules) {
  V4Builder b(a, l, rules);
  GPUMEM_RETURN_IF_ERROR(b.build());
  return b.take();
}

}  // namespace gpumem
