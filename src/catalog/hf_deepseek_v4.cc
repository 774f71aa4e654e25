#include "catalog/hf_deepseek_v4.h"

#include <string>

namespace gpumem {
namespace {

// vllm deepseek_v4_attention.py DeepseekV4MultiHeadLatentAttentionWrapper and sglang
// deepseek_v4_backend.py: the latent is 448 FP8 values, 64 rotary bf16 values and their scales,
// and both assert a head_dim of 512.
constexpr std::int64_t kLatentWidth = 512;

void parse_compress_ratios(const ConfigMap& text, Architecture& a) {
  CompressedAttention& c = a.csa;
  std::optional<std::vector<std::int64_t>> ratios = text.integers("compress_ratios");
  if (!ratios) {
    if (!text.has("compress_ratios")) text.missing("compress_ratios");
    return;
  }
  // Both engines index the list by layer (decoder layers, then MTP layers); entries past those
  // the config counts are never read: DeepSeek-V4-Flash-0731 lists 46 for 43 layers and one
  // MTP layer, its checkpoint holding three MTP modules.
  const std::int64_t expected = a.num_hidden_layers + a.num_nextn_predict_layers;
  if (static_cast<std::int64_t>(ratios->size()) < expected) {
    text.error("compress_ratios",
               "'compress_ratios' has " + std::to_string(ratios->size()) +
                   " entries; DeepSeek-V4 needs one per decoder layer and MTP layer (" +
                   std::to_string(a.num_hidden_layers) + " + " +
                   std::to_string(a.num_nextn_predict_layers) + ")");
    return;
  }
  for (const std::int64_t r : *ratios) {
    // vllm deepseek_compressor.py DeepseekCompressor and sglang deepseek_v4_memory_pool.py
    // build compressors of ratio 4 (overlapping, with an indexer) and 128 only.
    if (r != 0 && r != 4 && r != 128) {
      text.error("compress_ratios", "compress ratio " + std::to_string(r) +
                                        " is not modelled: the engines build the ratios 0 "
                                        "(sliding window only), 4 and 128");
      return;
    }
  }
  ratios->resize(static_cast<size_t>(expected));
  c.compress_ratios = std::move(*ratios);
}

}  // namespace

void parse_deepseek_v4(const ConfigMap& text, Architecture& a) {
  a.hidden_size = text.positive("hidden_size");
  a.num_hidden_layers = text.positive("num_hidden_layers");
  a.num_attention_heads = text.positive("num_attention_heads");
  a.num_key_value_heads = 1;  // one latent per token, shared by every head
  a.head_dim = text.positive("head_dim");
  if (a.head_dim > 0 && a.head_dim != kLatentWidth) {
    text.error("head_dim", "'head_dim' " + std::to_string(a.head_dim) +
                               " is not modelled: both engines assert DeepSeek-V4's 512");
  }
  a.v_head_dim = a.head_dim;
  a.vocab_size = text.positive("vocab_size");
  a.max_position_embeddings = text.positive("max_position_embeddings");
  a.tie_word_embeddings = text.boolean("tie_word_embeddings").value_or(false);
  if (a.tie_word_embeddings) {
    text.error("tie_word_embeddings",
               "tied embeddings are not modelled for DeepSeek-V4: its embed and head are separate "
               "tensors in the engines' models");
  }
  a.sliding_window = text.positive("sliding_window");
  if (a.num_hidden_layers > 0) {
    a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kFull);
  }

  MlaConfig& m = a.mla;
  m.q_lora_rank = text.positive("q_lora_rank");
  m.qk_rope_head_dim = text.positive("qk_rope_head_dim");
  if (m.qk_rope_head_dim >= kLatentWidth) {
    text.error("qk_rope_head_dim", "'qk_rope_head_dim' must be below 'head_dim' (512)");
  }
  m.qk_nope_head_dim = kLatentWidth - m.qk_rope_head_dim;
  m.index_n_heads = text.positive("index_n_heads");
  m.index_head_dim = text.positive("index_head_dim");
  m.index_topk = text.positive("index_topk");
  if (m.index_head_dim % 128 != 0) {
    // One float32 scale per 128 key values (vllm DeepseekV4IndexerCache: head_size 128 + 4).
    text.error("index_head_dim", "'index_head_dim' must be a multiple of 128");
  }

  MoeConfig& e = a.moe;
  e.num_experts = text.positive("n_routed_experts");
  e.experts_per_token = text.positive("num_experts_per_tok");
  e.moe_intermediate_size = text.positive("moe_intermediate_size");
  e.num_shared_experts = text.integer("n_shared_experts").value_or(1);
  e.shared_expert_intermediate_size = e.moe_intermediate_size * e.num_shared_experts;
  // vllm deepseek_v4.py DeepseekV4MoE: every layer past the hash-routed ones keeps a float32
  // score-correction bias.
  e.router_correction_bias = true;

  CompressedAttention& c = a.csa;
  c.hc_mult = text.positive("hc_mult");
  c.o_groups = text.positive("o_groups");
  c.o_lora_rank = text.positive("o_lora_rank");
  c.num_hash_layers = text.integer("num_hash_layers").value_or(0);
  if (c.num_hash_layers < 0 || c.num_hash_layers > a.num_hidden_layers) {
    text.error("num_hash_layers",
               "'num_hash_layers' must be from 0 to " + std::to_string(a.num_hidden_layers));
    c.num_hash_layers = 0;
  }
  if (!text.has("compress_rope_theta")) {
    text.missing("compress_rope_theta");
  } else {
    c.compress_rope_theta = text.number("compress_rope_theta").value_or(0.0);
    if (c.compress_rope_theta <= 0.0) {
      text.error("compress_rope_theta", "'compress_rope_theta' must be positive");
    }
  }
  if (c.o_groups > 0 && a.num_attention_heads % c.o_groups != 0) {
    text.error("o_groups", "'o_groups' " + std::to_string(c.o_groups) + " does not divide the " +
                               std::to_string(a.num_attention_heads) + " attention heads");
  }
  // vllm deepseek_v4.py: expert_dtype "fp4" (the default) gives MXFP4 experts; "fp8" (the Base
  // checkpoints) block-FP8 experts with float32 scales, whose files gpumem has not read.
  const std::string experts = text.string("expert_dtype").value_or("fp4");
  if (experts != "fp4") {
    text.error("expert_dtype", "'expert_dtype' '" + experts +
                                   "' is not modelled: gpumem models DeepSeek-V4's MXFP4 experts "
                                   "(expert_dtype fp4, the default)");
  }
  a.num_nextn_predict_layers = text.integer("num_nextn_predict_layers").value_or(0);
  if (a.num_nextn_predict_layers < 0) {
    text.error("num_nextn_predict_layers", "'num_nextn_predict_layers' must not be negative");
    a.num_nextn_predict_layers = 0;
  }
  parse_compress_ratios(text, a);
}

}  // namespace gpumem
