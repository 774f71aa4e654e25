#include "engine/sglang/model_facts.h"

#include <algorithm>
#include <array>

namespace gpumem::sglang {

std::int64_t derived_context_length(const Architecture& a) {
  double factor = 1.0;
  const RopeScaling& r = a.rope_scaling;
  if (r.type != RopeType::kNone) {
    factor = r.factor;
    if (r.original_max_position_embeddings > 0 || r.type == RopeType::kLlama3) factor = 1.0;
  }
  return static_cast<std::int64_t>(factor * static_cast<double>(a.max_position_embeddings));
}

namespace {

// sglang v0.5.9 server_args.py _get_default_attn_backend (and its DeepSeek special case).
std::string default_attention_backend(const Architecture& a, bool use_mla,
                                      const SpeculativeSettings& spec, const GpuSpec& gpu) {
  const int major = gpu.compute_capability_major;
  if (use_mla) {
    if (major == 10 && a.hf_architecture == "DeepseekV3ForCausalLM") return "trtllm_mla";
    if (major == 9) return "fa3";
    return "triton";
  }
  // sglang server_args.py _handle_model_specific_adjustments ("Llama4" in model_arch, PR
  // #13421): trtllm_mha on sm100, fa3 on sm90, triton elsewhere, whatever the speculation.
  if (a.family == ArchitectureFamily::kLlama4) {
    return major == 10 ? "trtllm_mha" : major == 9 ? "fa3" : "triton";
  }
  const bool topk_one = spec.algorithm.empty() || spec.eagle_topk == 1;
  if (major == 9 && topk_one) return "fa3";
  // server_args.py _handle_model_specific_adjustments (Qwen3NextForCausalLM):
  // _handle_mamba_radix_cache(sm100_default_attention_backend="triton")
  if (major == 10 && a.is_qwen_hybrid()) return "triton";
  // ... (NemotronHForCausalLM): sm100_default_attention_backend="flashinfer"
  if (major == 10 && a.family == ArchitectureFamily::kNemotronH) return "flashinfer";
  if (major == 10) return "trtllm_mha";
  if (a.attention_sinks) return "triton";
  return "flashinfer";
}

// sglang v0.5.9 server_args.py _handle_page_size / backend-specific page sizes.
std::int64_t page_size_for(const std::string& backend, std::optional<std::int64_t> user) {
  if (backend == "trtllm_mha") {
    return user && (*user == 16 || *user == 32 || *user == 64) ? *user : 64;
  }
  if (backend == "trtllm_mla") return user && (*user == 32 || *user == 64) ? *user : 64;
  if (backend == "flashmla") return 64;
  if (backend == "cutlass_mla") return 128;
  if (backend == "fa4") return 128;
  return user.value_or(1);
}

// sglang server_args.py (read at the v0.5.8/9-era snapshot 271536807)
// _handle_model_specific_adjustments for is_deepseek_nsa models: the nsa attention backend
// unless one is given, 64-token pages on CUDA whatever --page-size says,
// _set_default_nsa_kv_cache_dtype (auto: FP8 e4m3 from compute capability 10, bfloat16 below)
// and _set_default_nsa_backends (user choices kept). plan.cc refuses what it does not model.
void resolve_sparse_attention(const ServerFlags& flags, const GpuSpec& gpu, ModelFacts& f) {
  const bool blackwell = gpu.compute_capability_major >= 10;
  f.attention_backend = flags.attention_backend.value_or("nsa");
  f.page_size = 64;
  const std::string& kv = flags.kv_cache_dtype;
  const bool fp8 = kv == "fp8_e4m3" || (kv == "auto" && blackwell);
  f.kv_cache_dtype = fp8 ? "torch.float8_e4m3fn" : "torch.bfloat16";
  f.kv_element_size = fp8 ? 1 : 2;
  if (fp8) {
    f.nsa_prefill_backend = flags.nsa_prefill_backend.value_or("flashmla_auto");
    f.nsa_decode_backend = flags.nsa_decode_backend.value_or("flashmla_kv");
  } else {
    f.nsa_prefill_backend = flags.nsa_prefill_backend.value_or("flashmla_sparse");
    f.nsa_decode_backend = flags.nsa_decode_backend.value_or(blackwell ? "trtllm" : "fa3");
  }
  // model_runner_kv_cache_mixin.py calculate_mla_kv_cache_dim: 656 bytes unless either kernel
  // is trtllm (nsa_kv_cache_store_fp8).
  f.nsa_fp8_latent_layout =
      fp8 && f.nsa_prefill_backend != "trtllm" && f.nsa_decode_backend != "trtllm";
}

}  // namespace

ModelFacts resolve_model_facts(const Architecture& a, const ServerFlags& flags,
                               const SpeculativeSettings& spec, const GpuSpec& gpu,
                               bool allow_longer_context, Diagnostics& diags) {
  ModelFacts f;
  const std::int64_t derived = derived_context_length(a);
  f.context_len = derived;
  if (flags.context_length) {
    if (*flags.context_length > derived && !allow_longer_context) {
      // sglang v0.5.9 configs/model_config.py ModelConfig.__init__
      diags.error(*flags.raw.location("--context-length"),
                  "User-specified context_length (" + std::to_string(*flags.context_length) +
                      ") is greater than the derived context_length (" + std::to_string(derived) +
                      "). This may lead to incorrect model outputs or CUDA errors. SGLang "
                      "stops with ValueError unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 "
                      "is set.");
    }
    f.context_len = *flags.context_length;
  }
  f.use_mla = a.attention == AttentionKind::kMla;
  bool has_sliding = false;
  for (std::int64_t l = 0; l < a.num_hidden_layers; ++l) has_sliding |= a.is_sliding_layer(l);
  // sglang v0.5.9 configs/model_config.py is_hybrid_swa_model: only these architectures get
  // the hybrid sliding-window KV pool (get_hybrid_layer_ids); every other model with sliding
  // layers (Gemma 2 and 3, Qwen with use_sliding_window) keeps one full pool and windows its
  // attention only.
  constexpr std::array<std::string_view, 6> kHybridSwa = {"Llama4ForConditionalGeneration",
                                                          "GptOssForCausalLM",
                                                          "MiMoV2FlashForCausalLM",
                                                          "MiMoV2MTP",
                                                          "Step3p5ForCausalLM",
                                                          "Step3p5MTP"};
  f.hybrid_swa =
      has_sliding && !f.use_mla &&
      std::find(kHybridSwa.begin(), kHybridSwa.end(), a.hf_architecture) != kHybridSwa.end();
  f.attention_backend =
      flags.attention_backend.value_or(default_attention_backend(a, f.use_mla, spec, gpu));
  f.page_size = page_size_for(f.attention_backend, flags.page_size);
  f.sparse_attention = f.use_mla && a.mla.sparse_indexer();
  if (f.sparse_attention) resolve_sparse_attention(flags, gpu, f);

  // sglang v0.5.9 model_runner.py configure_kv_cache_dtype.
  const std::string& kv = flags.kv_cache_dtype;
  if (f.sparse_attention) {
    // resolve_sparse_attention has chosen the KV dtype.
  } else if (kv == "auto") {
    if (a.quantization.kv_cache_fp8) {
      f.kv_cache_dtype = "torch.float8_e4m3fn";
      f.kv_element_size = 1;
    } else {
      const bool half = flags.dtype == "half" || flags.dtype == "float16" ||
                        (flags.dtype == "auto" && a.dtype == DType::kFloat16);
      f.kv_cache_dtype = half ? "torch.float16" : "torch.bfloat16";
      f.kv_element_size = 2;
    }
  } else if (kv == "fp8_e4m3") {
    f.kv_cache_dtype = "torch.float8_e4m3fn";
    f.kv_element_size = 1;
  } else if (kv == "fp8_e5m2") {
    f.kv_cache_dtype = "torch.float8_e5m2";
    f.kv_element_size = 1;
  } else if (kv == "fp4_e2m1") {
    f.kv_cache_dtype = "torch.float4_e2m1fn_x2";
    f.kv_element_size = 1;
    f.kv_fp4 = true;
  } else {
    f.kv_cache_dtype = "torch.bfloat16";
    f.kv_element_size = 2;
  }
  return f;
}

KvGeometry kv_geometry(const Architecture& a, const ModelFacts& facts, int attention_tp,
                       LayerRange stage) {
  KvGeometry g;
  g.mla = facts.use_mla;
  // sglang v0.5.9 profile_max_num_token: a hybrid linear-attention model counts only its
  // full-attention layers in [start_layer, end_layer).
  g.layers = a.attention_layers(stage.start, stage.end);
  // sglang model_runner.py sizes the pool over every layer of the stage (num_effective_layers)
  // for any model it does not know as hybrid; nemotron_nas.py's no-op attention layers keep
  // their unused slice, indexed by the absolute layer_id of RadixAttention (inferred: nothing
  // in nemotron_nas.py or model_runner.py skips them).
  if (a.family == ArchitectureFamily::kDeciLM) g.layers = stage.end - stage.start;
  // sglang v0.5.9 configs/model_config.py get_num_kv_heads: max(1, total // tp).
  g.kv_heads = std::max<std::int64_t>(1, a.num_key_value_heads / attention_tp);
  g.head_dim = a.head_dim;
  g.v_head_dim = facts.use_mla ? a.v_head_dim : a.head_dim;
  g.kv_lora_rank = a.mla.kv_lora_rank;
  g.qk_rope_head_dim = a.mla.qk_rope_head_dim;
  if (facts.sparse_attention) {
    g.index_key_bytes = a.mla.index_key_bytes();
    g.fp8_latent_layout = facts.nsa_fp8_latent_layout;
  }
  g.kv_element_size = facts.kv_element_size;
  g.fp4 = facts.kv_fp4;
  if (facts.hybrid_swa) {
    g.hybrid_swa = true;
    for (std::int64_t l = stage.start; l < stage.end; ++l) {
      (a.is_sliding_layer(l) ? g.swa_layers : g.full_layers) += 1;
    }
    g.swa_kv_heads = g.kv_heads;
    g.swa_head_dim = a.head_dim;
    g.swa_v_head_dim = a.head_dim;
  }
  return g;
}

}  // namespace gpumem::sglang
