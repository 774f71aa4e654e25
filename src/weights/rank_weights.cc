#include "weights/rank_weights.h"

#include <string>

#include "weights/decoder_norms.h"
#include "weights/deepseek_v4_weights.h"
#include "weights/layer_weights.h"
#include "weights/linear_attention_weights.h"
#include "weights/linear_weights.h"
#include "weights/list_memo.h"
#include "weights/moe_weights.h"
#include "weights/rank_builder.h"
#include "weights/tensor_list.h"
#include "weights/vision_weights.h"

namespace gpumem {

std::string ModelBuilder::mlp_name(const Architecture& a, std::int64_t layer) {
  if (a.family == ArchitectureFamily::kLlama4) return "feed_forward";
  // vllm kimi_linear.py KimiDecoderLayer: block_sparse_moe where the layer has experts, mlp
  // (the dense KimiMLP) where it has none.
  if (a.family == ArchitectureFamily::kKimiLinear) {
    return a.is_moe_layer(layer) ? "block_sparse_moe" : "mlp";
  }
  return a.family == ArchitectureFamily::kMixtral || a.family == ArchitectureFamily::kMiniMaxM2 ||
                 a.family == ArchitectureFamily::kPhiMoe || a.family == ArchitectureFamily::kGrok
             ? "block_sparse_moe"
             : "mlp";
}

Status ModelBuilder::build() {
  const Architecture& a = ctx_.arch;
  const ParallelLayout& l = ctx_.layout;
  if ((a.family == ArchitectureFamily::kGemma2 || a.family == ArchitectureFamily::kGemma3 ||
       a.family == ArchitectureFamily::kGranite) &&
      l.pp_size > 1) {
    // sglang v0.5.9 gemma2.py Gemma2Model and gemma3_causal.py Gemma3TextModel build every
    // layer (make_layers without the PP range); granite.py GraniteModel an nn.ModuleList of
    // all layers
    return invalid_input("pipeline parallelism is not modelled for " + a.hf_architecture);
  }
  if (a.family == ArchitectureFamily::kCohere && l.pp_size > 1) {
    // sglang commandr.py CohereModel builds every layer with no pipeline stage; vllm's builds
    // the embedding and final norm on every stage.
    return invalid_input("pipeline parallelism is not modelled for " + a.hf_architecture +
                         ": SGLang's commandr.py has none, vLLM's keeps the embedding on every "
                         "stage");
  }
  const LayerRange layers =
      pp_layer_range(a.num_hidden_layers, l.pp_rank, l.pp_size, ctx_.rules.pp_partition);
  const bool first_stage = l.pp_rank == 0;
  const bool last_stage = l.pp_rank == l.pp_size - 1;
  int first_norm = -1;
  // sglang v0.5.9 gemma3_mm.py Gemma3ForConditionalGeneration.__init__: the vision tower
  // and projector are built before the language model.
  if (a.vision.present()) GPUMEM_RETURN_IF_ERROR(add_vision_tower(list_, ctx_, post_load_));
  if (first_stage) GPUMEM_RETURN_IF_ERROR(embedding(first_norm));
  for (std::int64_t i = layers.start; i < layers.end; ++i) {
    const std::string prefix = root() + ".layers." + str(i);
    GPUMEM_RETURN_IF_ERROR(layer(i, prefix, prefix));
  }
  if (last_stage) {
    // vllm jamba.py JambaModel names its last norm final_layernorm, mamba2.py and mamba.py
    // norm_f.
    decoder_norm(a.family == ArchitectureFamily::kJamba ? "model.final_layernorm"
                 : a.attention_free()                   ? "backbone.norm_f"
                                                        : "model.norm");
    // sglang v0.5.9 gemma2.py Gemma2Model.__init__: register_buffer("normalizer",
    // torch.tensor(hidden_size ** 0.5)), a scalar in the default (model) dtype.
    if (a.family == ArchitectureFamily::kGemma2) list_.add("model.normalizer", {}, ctx_.dtype);
    // sglang v0.5.9 gemma3_causal.py Gemma3TextModel.__init__ assigns self.norm twice;
    // the first RMSNorm is freed when the second replaces it.
    if (first_norm >= 0) list_.release(first_norm);
    GPUMEM_RETURN_IF_ERROR(lm_head());
  }
  run_post_load();
  return Status::ok_status();
}

// sglang v0.5.9 deepseek_nextn.py DeepseekModelNextN.__init__ and
// DeepseekV3ForCausalLMNextN.__init__ (glm4_moe_nextn.py builds the same modules): the
// embedding, enorm, hnorm, eh_proj, the decoder, shared_head.norm, then the head. The
// embedding and head stay allocated until the EAGLE worker replaces them by the target's.
Status ModelBuilder::build_nextn(const RopeSpec& target_rope) {
  const Architecture& a = ctx_.arch;
  const ParallelLayout& l = ctx_.layout;
  const std::int64_t h = a.hidden_size;
  ropes_.seed(target_rope);
  // VocabParallelEmbedding(use_attn_tp_group=is_dp_attention_enabled()): over the attention
  // TP group, which is the whole TP group without DP attention.
  const int embed = list_.size();
  GPUMEM_RETURN_IF_ERROR(add_vocab_parallel(list_, ctx_, "model.embed_tokens.weight", a.vocab_size,
                                            attention_tp_size(l)));
  add_norm(list_, ctx_, "model.enorm.weight", h);
  add_norm(list_, ctx_, "model.hnorm.weight", h);
  // nn.Linear(2 x hidden, hidden, bias=False): never quantized, whole on every rank.
  list_.add("model.eh_proj.weight", {h, 2 * h}, ctx_.dtype);
  GPUMEM_RETURN_IF_ERROR(
      layer(0, "model.decoder", "model.layers." + str(a.nextn_checkpoint_layer)));
  add_norm(list_, ctx_, "model.shared_head.norm.weight", h);
  const int head = list_.size();
  GPUMEM_RETURN_IF_ERROR(
      add_vocab_parallel(list_, ctx_, "lm_head.weight", a.vocab_size, l.tp_size));
  run_post_load();
  if (ctx_.rules.draft_embedding_freed_after_kv) {
    list_.release_later(embed);
    if (ctx_.rules.nextn_head_shared) list_.release_later(head);
  } else {
    // vllm v1/spec_decode/eagle.py EagleProposer.load_model: the draft's embedding is
    // deleted for the target's once the draft has loaded (and, from PR #34385, its head).
    list_.release(embed);
    if (ctx_.rules.nextn_head_shared) list_.release(head);
  }
  return Status::ok_status();
}

// vllm qwen3_next_mtp.py Qwen3NextMultiTokenPredictor.__init__ and qwen3_5_mtp.py
// Qwen3_5MultiTokenPredictor.__init__: the embedding, fc (a ColumnParallelLinear from
// [embedding, hidden] to hidden, gathered), the full-attention MTP layer, then norm,
// pre_fc_norm_hidden and pre_fc_norm_embedding; Qwen3NextMTP / Qwen3_5MTP add the head (the
// embedding itself when tied). EagleProposer.load_model then hands the draft the target's
// embedding and head ("Detected MTP model. Sharing target model embedding weights" and
// "... lm_head weights", vllm llm_base_proposer.py; before PR #28549 eagle.py replaced
// both for every method but eagle3), freeing the draft's own.
Status ModelBuilder::build_qwen_mtp(const RopeSpec& target_rope) {
  const Architecture& a = ctx_.arch;
  const ParallelLayout& l = ctx_.layout;
  const std::int64_t h = a.hidden_size;
  if (h % l.tp_size != 0) {
    return invalid_input("the MTP fc's " + str(h) + " outputs do not split over TP " +
                         str(l.tp_size));
  }
  ropes_.seed(target_rope);
  const int embed = list_.size();
  GPUMEM_RETURN_IF_ERROR(
      add_vocab_parallel(list_, ctx_, "model.embed_tokens.weight", a.vocab_size, l.tp_size));
  if (a.quantization.method == QuantMethod::kModelOptNvfp4) {
    // qwen3_5_mtp.py / qwen3_next_mtp.py (PR #38832): fc_quant is None for modelopt_fp4, the
    // ModelOpt exports keeping mtp.fc in bfloat16.
    list_.add("model.fc.weight", {h / l.tp_size, 2 * h}, ctx_.dtype);
  } else {
    GPUMEM_RETURN_IF_ERROR(add_linear(
        list_, ctx_,
        {"model.fc", {"mtp.fc"}, {h / l.tp_size}, 2 * h, LinearParallel::kColumn, l.tp_size, false},
        post_load_));
  }
  GPUMEM_RETURN_IF_ERROR(layer(0, "model.layers.0", "mtp.layers.0"));
  add_norm(list_, ctx_, "model.norm.weight", h);
  add_norm(list_, ctx_, "model.pre_fc_norm_hidden.weight", h);
  add_norm(list_, ctx_, "model.pre_fc_norm_embedding.weight", h);
  int head = -1;
  if (!a.tie_word_embeddings) {
    head = list_.size();
    GPUMEM_RETURN_IF_ERROR(
        add_vocab_parallel(list_, ctx_, "lm_head.weight", a.vocab_size, l.tp_size));
  }
  run_post_load();
  list_.release(embed);
  if (head >= 0) list_.release(head);
  return Status::ok_status();
}

// sglang v0.5.9 model_loader/loader.py DefaultModelLoader.load_weights_and_postprocess: the
// model's load_weights (ending in its post_load_weights) runs first, then every module's
// quant_method.process_weights_after_loading in module order.
void ModelBuilder::run_post_load() {
  list_.set_phase(WeightPhase::kPostLoad);
  for (auto& step : model_post_load_) step(list_);
  for (auto& step : post_load_) step(list_);
}

Status ModelBuilder::embedding(int& first_norm) {
  const Architecture& a = ctx_.arch;
  if (a.family == ArchitectureFamily::kGemma3 && ctx_.rules.gemma3_hf_text_model) {
    // sglang v0.5.9 gemma3_causal.py Gemma3TextModel.__init__ (read at 038c87d): the
    // embedding is a plain nn.Embedding of the whole vocabulary on every rank, then the
    // first norm and two HF-style rotary modules holding float32 inv_freq buffers.
    list_.add("model.embed_tokens.weight", {a.vocab_size, a.hidden_size}, ctx_.dtype);
    first_norm = list_.size();
    add_norm(list_, ctx_, "model.norm.weight", a.hidden_size);
    list_.add("model.rotary_emb.inv_freq", {a.head_dim / 2}, DType::kFloat32);
    list_.add("model.rotary_emb_local.inv_freq", {a.head_dim / 2}, DType::kFloat32);
    return Status::ok_status();
  }
  // sglang v0.5.9 llama.py / deepseek_v2.py: VocabParallelEmbedding(...,
  // enable_tp=not is_dp_attention_enabled()): replicated under DP attention. vllm mamba2.py
  // and mamba.py name it backbone.embeddings.
  const int tp = ctx_.layout.enable_dp_attention ? 1 : ctx_.layout.tp_size;
  const std::string name =
      a.attention_free() ? "backbone.embeddings.weight" : "model.embed_tokens.weight";
  GPUMEM_RETURN_IF_ERROR(add_vocab_parallel(list_, ctx_, name, a.vocab_size, tp));
  // vllm gemma3.py Gemma3Model.__init__ (read at 004dc92): register_buffer("normalizer",
  // torch.tensor(hidden_size ** 0.5)), a scalar in the default (model) dtype.
  if (a.family == ArchitectureFamily::kGemma3) list_.add("model.normalizer", {1}, ctx_.dtype);
  return Status::ok_status();
}

Status ModelBuilder::lm_head() {
  const Architecture& a = ctx_.arch;
  // sglang v0.5.9 llama.py LlamaForCausalLM.__init__: a tied head reuses embed_tokens,
  // which only the first stage holds; with PP the last stage builds its own.
  if (a.tie_word_embeddings && ctx_.layout.pp_size == 1) {
    if (a.family == ArchitectureFamily::kGranite ||
        a.family == ArchitectureFamily::kGraniteHybrid) {
      // sglang (read at 0b8c97e) granite.py GraniteForCausalLM.__init__ builds its ParallelLMHead
      // before tie_weights replaces the weight (vllm granite.py the same; granitemoehybrid.py
      // assigns embed_tokens.weight to it): allocated, then freed.
      Result<std::int64_t> rows =
          vocab_rows_per_rank(a.vocab_size, ctx_.layout.tp_size, ctx_.rules);
      if (!rows.ok()) return rows.status();
      list_.release(list_.add("lm_head.weight", {*rows, a.hidden_size}, ctx_.dtype));
    }
    return Status::ok_status();
  }
  // sglang v0.5.9 gemma2.py Gemma2ForCausalLM: logits always come from embed_tokens.
  if (a.family == ArchitectureFamily::kGemma2) return Status::ok_status();
  GPUMEM_RETURN_IF_ERROR(
      add_vocab_parallel(list_, ctx_, "lm_head.weight", a.vocab_size, ctx_.layout.tp_size));
  if (a.lm_head_bias) {
    // sglang and vllm vocab_parallel_embedding.py ParallelLMHead.__init__ (bias=True): one
    // entry per row this rank holds, in the default dtype.
    Result<std::int64_t> rows = vocab_rows_per_rank(a.vocab_size, ctx_.layout.tp_size, ctx_.rules);
    if (!rows.ok()) return rows.status();
    list_.add("lm_head.bias", {*rows}, ctx_.dtype);
  }
  return Status::ok_status();
}

// A decoder norm: an RMSNorm's weight, or (Phi-3.5-MoE's nn.LayerNorm) a weight and a bias.
void ModelBuilder::decoder_norm(const std::string& module) {
  const Architecture& a = ctx_.arch;
  add_norm(list_, ctx_, module + ".weight", a.hidden_size);
  if (a.layer_norm_bias) list_.add(module + ".bias", {a.hidden_size}, ctx_.dtype);
}

RopeSpec ModelBuilder::layer_rope(std::int64_t i) const {
  const Architecture& a = ctx_.arch;
  RopeSpec spec = rope_spec(a, a.max_position_embeddings);
  if (a.family == ArchitectureFamily::kGemma3) {
    // sglang v0.5.9 gemma3_causal.py Gemma3Attention (read at 038c87d): get_rope with
    // {"rope_type": "default"}; sliding layers use rope_local_base_freq as the base. An
    // older copy builds no per-layer cache at all (HF rotary only): UNCONFIRMED for v0.5.9.
    // vllm gemma3.py Gemma3Attention (read at 004dc92): the same on sliding layers, the
    // config's rope_scaling on global ones (a linear factor 8 caches 8 x the positions).
    if (ctx_.rules.gemma3_hf_text_model || a.is_sliding_layer(i)) {
      spec.scaling = RopeScaling{RopeType::kDefault, 1.0, 0, {}};
    }
    if (a.is_sliding_layer(i)) spec.base = a.rope_local_base_freq;
  }
  if (a.family == ArchitectureFamily::kGemma4) {
    // vllm gemma4.py Gemma4Attention: get_rope over the layer's head with its layer type's
    // parameters; sliding layers rotate the whole head at rope_local_base_freq, full ones
    // through gemma4_rope.py Gemma4RotaryEmbedding, whose cache is as wide as the head
    // (zero-padded frequencies for partial_rotary_factor) at rope_theta.
    spec.head_size = a.layer_head_dim(i);
    spec.rotary_dim = a.layer_head_dim(i);
    spec.scaling = RopeScaling{};
    if (a.is_sliding_layer(i)) spec.base = a.rope_local_base_freq;
  }
  // vllm olmo2.py Olmo2Attention (OLMo 3): RoPE scaling only on the full-attention layers.
  if (a.family == ArchitectureFamily::kOlmo2 && a.is_sliding_layer(i)) spec.scaling = {};
  // sglang and vllm llama4.py Llama4Attention: a NoPE layer builds no rotary embedding.
  if (!a.uses_rope(i)) spec.rotary_dim = 0;
  return spec;
}

// Layer `i` under the engine's module name `prefix` and the checkpoint's `checkpoint`.
Status ModelBuilder::layer(std::int64_t i, const std::string& prefix,
                           const std::string& checkpoint) {
  const Architecture& a = ctx_.arch;
  if (a.single_module_layers) return single_module_layer(i);
  if (a.family == ArchitectureFamily::kJamba) return jamba_layer(i, prefix);
  if (a.family == ArchitectureFamily::kDeciLM) return decilm_layer(i, prefix);
  AttentionSite site{prefix + ".self_attn", checkpoint + ".self_attn", a.hidden_size,
                     layer_rope(i)};
  if (a.global_head_dim > 0) {
    // vllm gemma4.py Gemma4Attention: the layer's own head size and KV heads; a k_eq_v full
    // layer's V slot loaded from k_proj.
    site.head_dim = a.layer_head_dim(i);
    site.kv_heads = a.layer_kv_heads(i);
    site.v_from_k = a.attention_k_eq_v && !a.is_sliding_layer(i);
  }
  if (a.is_linear_layer(i) && a.linear.kind == LinearKind::kMamba2) {
    // sglang granitemoehybrid.py GraniteMoeHybridMambaDecoderLayer: self.mamba, a MambaMixer2
    GPUMEM_RETURN_IF_ERROR(add_mamba2_mixer(list_, ctx_, prefix + ".mamba", post_load_));
  } else if (a.is_linear_layer(i) && a.linear.kind == LinearKind::kKimiDelta) {
    // vllm and sglang kimi_linear.py KimiDecoderLayer: KimiDeltaAttention as self_attn
    GPUMEM_RETURN_IF_ERROR(
        add_kimi_delta_attention(list_, ctx_, prefix + ".self_attn", post_load_));
  } else if (a.is_linear_layer(i)) {
    // sglang qwen3_next.py Qwen3HybridLinearDecoderLayer: the Gated DeltaNet in place of
    // self-attention
    GPUMEM_RETURN_IF_ERROR(add_gated_delta_net(list_, ctx_, prefix + ".linear_attn", post_load_));
  } else if (a.attention == AttentionKind::kMla) {
    GPUMEM_RETURN_IF_ERROR(
        add_mla_attention(list_, ctx_, site, ropes_, model_post_load_, post_load_));
  } else {
    GPUMEM_RETURN_IF_ERROR(add_standard_attention(list_, ctx_, site, ropes_, post_load_));
  }
  if (a.per_layer_rope_rows > 0) {
    // sglang grok.py Grok1Attention: its own ScalingRotaryEmbedding, whose cos_sin_cache
    // stays float32 on CUDA (rotary_embedding.py), beside get_rope's shared one.
    list_.add(site.prefix + ".rotary_emb.cos_sin_cache", {a.per_layer_rope_rows, a.head_dim},
              ctx_.rules.rope_cache_dtype);
  }
  const std::string mlp = prefix + "." + mlp_name(a, i);
  if (a.layer_scalar) {
    // vllm gemma4.py Gemma4DecoderLayer: register_buffer("layer_scalar", torch.ones(1)).
    list_.add(prefix + ".layer_scalar", {1}, ctx_.dtype);
  }
  if (a.moe_beside_mlp) {
    GPUMEM_RETURN_IF_ERROR(gemma4_feed_forward(i, prefix, checkpoint));
  } else if (a.family == ArchitectureFamily::kGraniteHybrid) {
    GPUMEM_RETURN_IF_ERROR(granite_feed_forward(prefix));
  } else if (a.is_moe_layer(i)) {
    GPUMEM_RETURN_IF_ERROR(moe_block(mlp));
    if (a.family == ArchitectureFamily::kGrok && a.moe.shared_expert_intermediate_size > 0) {
      // sglang grok.py Grok1DecoderLayer: residual_moe's Grok1MLP beside the experts
      GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list_, ctx_, prefix + ".mlp", checkpoint + ".mlp",
                                           a.moe.shared_expert_intermediate_size,
                                           ctx_.layout.tp_size, post_load_));
    }
  } else {
    GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list_, ctx_, mlp, checkpoint + "." + mlp_name(a, i),
                                         a.intermediate_size, ctx_.layout.tp_size, post_load_));
  }
  if (a.family == ArchitectureFamily::kGrok) {
    for (const char* norm :
         {".pre_attn_norm", ".post_attn_norm", ".pre_moe_norm", ".post_moe_norm"}) {
      add_norm(list_, ctx_, prefix + norm + ".weight", a.hidden_size);
    }
    return Status::ok_status();
  }
  const DecoderNorms norms = decoder_norms(a);
  for (const std::string_view n : norms.decoder) decoder_norm(prefix + std::string(n));
  for (const std::string_view n : norms.sandwich) {
    add_norm(list_, ctx_, prefix + std::string(n) + ".weight", a.hidden_size);
  }
  return Status::ok_status();
}

bool fuses_shared_experts(const Architecture& a, const ParallelLayout& l,
                          const WeightRules& rules) {
  // sglang v0.5.9 deepseek_v2.py determine_num_fused_shared_experts: only a config whose
  // architecture is the class's own ("DeepseekV3ForCausalLM"; DeepseekV32ForCausalLM keeps that
  // default, so DeepSeek-V3.2 does not fuse) with 256 routed experts and one shared, on CUDA,
  // and not with expert parallelism; glm4_moe.py GlmMoeDsaForCausalLM names its own (PR
  // #18804, in v0.5.9); sglang (read at 03b1e88) glm4_moe_lite.py
  // shared_experts_fusion_disable_reason: GLM-4.7-Flash's one shared expert likewise.
  // deepseek_nextn.py DeepseekV3ForCausalLMNextN names its own class, which the draft's
  // config carries (nextn_draft.h): a DeepSeek-V3.2 draft fuses though its target does not.
  const bool fusing_architecture = a.hf_architecture == "Glm4MoeLiteForCausalLM" ||
                                   ((a.hf_architecture == "DeepseekV3ForCausalLM" ||
                                     a.hf_architecture == "DeepseekV3ForCausalLMNextN" ||
                                     a.hf_architecture == "GlmMoeDsaForCausalLM") &&
                                    a.moe.num_experts == 256);
  return rules.shared_experts_fusion && fusing_architecture && a.moe.num_shared_experts == 1 &&
         l.ep_size == 1;
}

namespace {

Result<std::vector<WeightTensor>> build_rank_weights(const Architecture& a, const ParallelLayout& l,
                                                     const WeightRules& rules) {
  GPUMEM_RETURN_IF_ERROR(validate_layout(l));
  if (a.is_draft_head()) {
    return invalid_input(a.name +
                         " is an EAGLE-3 draft head; its weights come from "
                         "draft_weights with the target model");
  }
  if (a.is_nextn_draft()) {
    return invalid_input(a.name + " is a NextN draft; its weights come from draft_weights");
  }
  if (a.family == ArchitectureFamily::kDeepseekV4) return deepseek_v4_rank_tensors(a, l, rules);
  ModelBuilder builder(a, l, rules);
  GPUMEM_RETURN_IF_ERROR(builder.build());
  return builder.take();
}

}  // namespace

Result<std::vector<WeightTensor>> nextn_draft_tensors(const Architecture& draft,
                                                      const RopeSpec& target_rope,
                                                      const ParallelLayout& l,
                                                      const WeightRules& rules) {
  GPUMEM_RETURN_IF_ERROR(validate_layout(l));
  if (!draft.is_nextn_draft()) return invalid_input(draft.name + " is not a NextN draft");
  ModelBuilder builder(draft, l, rules);
  GPUMEM_RETURN_IF_ERROR(draft.is_qwen_hybrid() ? builder.build_qwen_mtp(target_rope)
                                                : builder.build_nextn(target_rope));
  return builder.take();
}

Result<WeightList> rank_weights(const Architecture& a, const ParallelLayout& l,
                                const WeightRules& rules, WeightListCache* cache) {
  const auto build = [&]() -> Result<std::vector<WeightTensor>> {
    return build_rank_weights(a, l, rules);
  };
  if (cache != nullptr) return cache->rank_lists.get(a, l, rules, build);
  Result<std::vector<WeightTensor>> built = build();
  if (!built.ok()) return built.status();
  return WeightList(std::make_shared<const std::vector<WeightTensor>>(std::move(*built)));
}

}  // namespace gpumem
