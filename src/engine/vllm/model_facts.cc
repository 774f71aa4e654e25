#include "engine/vllm/model_facts.h"

#include <algorithm>

namespace gpumem::vllm {

std::int64_t derived_max_model_len(const Architecture& a) {
  // vllm config/model.py _get_and_verify_max_len: "Gemma3's max_model_len (128K) is already
  // scaled by RoPE scaling": a model_type naming gemma3 is not scaled again.
  if (a.model_type.find("gemma3") != std::string::npos) return a.max_position_embeddings;
  const RopeScaling& r = a.rope_scaling;
  const auto positions = static_cast<double>(a.max_position_embeddings);
  switch (r.type) {
    case RopeType::kNone:
    case RopeType::kDefault:
    case RopeType::kLlama3:
    case RopeType::kLongRope:
      // vllm config/model.py _get_and_verify_max_len: su, longrope and llama3 scale nothing.
      return a.max_position_embeddings;
    case RopeType::kYarn:
      if (r.original_max_position_embeddings > 0) {
        return static_cast<std::int64_t>(static_cast<double>(r.original_max_position_embeddings) *
                                         r.factor);
      }
      return static_cast<std::int64_t>(positions * r.factor);
    case RopeType::kLinear:
    case RopeType::kDynamic:
      return static_cast<std::int64_t>(positions * r.factor);
  }
  return a.max_position_embeddings;
}

namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// vllm config/cache.py mamba_cache_dtype / mamba_ssm_cache_dtype: "auto" is the model dtype.
std::int64_t state_dtype_bytes(const std::string& flag, DType served) {
  if (flag == "float32") return 4;
  if (flag == "float16" || flag == "bfloat16") return 2;
  return element_size(served).value();
}

// vllm model_executor/models/config.py HybridAttentionMambaModelConfig.verify_and_update_config
// with mamba_utils.py MambaStateShapeCalculator.gated_delta_net_state_shape: the state is a
// conv window (kernel - 1, conv_dim / tp) and a temporal state (value heads / tp, v, k); the
// attention block is the smallest multiple of the alignment whose page holds it.
void align_hybrid_block_size(const Architecture& a, const EngineFlags& flags, const GpuSpec& gpu,
                             const VersionRules& rules, int tp, ModelFacts& f) {
  const LinearAttentionConfig& g = a.linear;
  // mamba2_state_shape: a group count that does not split over TP is raised to tp (one group
  // copied to every rank).
  const std::int64_t groups = g.num_key_heads % tp == 0 ? g.num_key_heads : tp;
  const std::int64_t conv_dim = g.value_dim() + 2 * groups * g.key_head_dim;
  // gated_delta_net_state_shape(num_spec): the conv window keeps the speculative tokens too,
  // kernel - 1 + num_speculative_tokens rows (qwen3_next.py / qwen3_5.py
  // get_mamba_state_shape_from_config pass the speculative config's count).
  const std::int64_t num_spec = flags.speculative ? flags.speculative->num_speculative_tokens : 0;
  const std::int64_t conv = (g.conv_kernel - 1 + num_spec) * (conv_dim / tp) *
                            state_dtype_bytes(flags.mamba_cache_dtype, f.served_dtype);
  const std::string& ssm_flag =
      flags.mamba_ssm_cache_dtype == "auto" ? flags.mamba_cache_dtype : flags.mamba_ssm_cache_dtype;
  std::int64_t ssm_bytes = state_dtype_bytes(ssm_flag, f.served_dtype);
  // config.py Qwen3_5ForConditionalGenerationConfig.verify_and_update_config: an "auto"
  // --mamba-ssm-cache-dtype takes the config's mamba_ssm_dtype.
  if (a.family == ArchitectureFamily::kQwen35 && flags.mamba_ssm_cache_dtype == "auto" &&
      g.ssm_dtype) {
    ssm_bytes = element_size(*g.ssm_dtype).value();
  }
  // config.py NemotronHForCausalLMConfig.verify_and_update_config (VersionRules::
  // nemotron_ssm_dtype_from_config): an "auto" SSM cache dtype becomes the config's
  // mamba_ssm_cache_dtype, else float16 (float32 from PR #39032, whose release is not pinned).
  if (a.family == ArchitectureFamily::kNemotronH && flags.mamba_ssm_cache_dtype == "auto" &&
      rules.nemotron_ssm_dtype_from_config) {
    ssm_bytes = g.ssm_cache_dtype ? element_size(*g.ssm_cache_dtype).value() : 2;
  }
  // mamba_utils.py MambaStateDtypeCalculator.kda_state_dtype: Kimi Delta Attention's recurrent
  // state is float32 whatever --mamba-ssm-cache-dtype says.
  if (g.kind == LinearKind::kKimiDelta) ssm_bytes = 4;
  const std::int64_t ssm = g.num_value_heads / tp * g.value_head_dim * g.key_head_dim * ssm_bytes;
  f.mamba_state_bytes = conv + ssm;
  if (a.attention_free()) {
    // A model without attention aligns nothing: its page is the state itself, and
    // gpu_model_runner.py sets the block to max_model_len so that a request holds one block
    // (mamba_block_size = max_model_len; the KV-size log counts num_blocks x max_model_len).
    f.block_size = f.max_model_len;
    f.mamba_page_bytes = f.mamba_state_bytes;
    f.mamba_pages_per_request = 1;
    return;
  }
  // FullAttentionSpec of one token: K and V of this rank's heads; an MLA layer's
  // (MLAAttentionSpec) one latent of kv_lora_rank + qk_rope_head_dim on every rank, aligned to
  // 64 tokens, 128 for CUTLASS MLA (config.py HybridAttentionMambaModelConfig; Kimi Linear at
  // TP 2 on RTX 3090s: 960-token blocks, vllm issue #28228's 75,840 tokens).
  const std::int64_t token_page =
      f.use_mla ? (a.mla.kv_lora_rank + a.mla.qk_rope_head_dim) * f.kv_dtype_bytes
                : 2 * std::max<std::int64_t>(1, a.num_key_value_heads / tp) * a.head_dim *
                      f.kv_dtype_bytes;
  const bool wide = rules.hybrid_blackwell_alignment && gpu.compute_capability_major == 10 &&
                    a.head_dim == 256 && f.attention_backend == "FLASHINFER";
  const std::int64_t alignment = f.use_mla ? (f.attention_backend == "CUTLASS_MLA" ? 128 : 64)
                                 : wide    ? 32
                                           : 16;
  const std::int64_t block = alignment * cdiv(f.mamba_state_bytes, alignment * token_page);
  if (f.block_size < block) f.block_size = block;
  f.mamba_page_bytes = f.block_size * token_page;
  // MambaSpec.max_memory_usage_bytes: "align" mode (--enable-prefix-caching) keeps a
  // request's running state and its last block's checkpoint, two pages; otherwise one. A real
  // Qwen3.5-27B start-up of April 2026 without the flag (vllm issue #40691: 290,864 tokens,
  // 33.04x at 32,768) holds one page per request, so the default is taken as one. Each
  // speculative token adds a page (num_speculative_blocks, layers/mamba/abstract.py
  // get_kv_cache_spec).
  f.mamba_pages_per_request =
      (rules.hybrid_prefix_caching_align && flags.enable_prefix_caching_given ? 2 : 1) + num_spec;
}

// NVIDIA ModelOpt's formats (vllm quantization/modelopt.py), whose checkpoints name the KV
// cache dtype they were calibrated for.
bool is_modelopt(QuantMethod m) {
  return m == QuantMethod::kModelOptFp8 || m == QuantMethod::kModelOptFp8PerChannel ||
         m == QuantMethod::kModelOptNvfp4;
}

}  // namespace

ModelFacts resolve_model_facts(const Architecture& a, const EngineFlags& flags, const GpuSpec& gpu,
                               const VersionRules& rules, int tp, bool allow_long_max_model_len,
                               Diagnostics& diags) {
  ModelFacts f;
  const std::int64_t derived = derived_max_model_len(a);
  f.max_model_len = derived;
  if (flags.max_model_len) {
    if (*flags.max_model_len > derived && !allow_long_max_model_len) {
      // vllm config/model.py _get_and_verify_max_len (without VLLM_ALLOW_LONG_MAX_MODEL_LEN).
      diags.error(*flags.raw.location("--max-model-len"),
                  "User-specified max_model_len (" + std::to_string(*flags.max_model_len) +
                      ") is greater than the derived max_model_len (" + std::to_string(derived) +
                      " from the model's config.json). vLLM refuses it unless "
                      "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set.");
    }
    f.max_model_len = *flags.max_model_len;
  } else if (rules.longrope_defaults_to_original_length &&
             a.rope_scaling.type == RopeType::kLongRope &&
             a.rope_scaling.original_max_position_embeddings > 0) {
    // vllm PR #27431: the default length is the one the short factors cover.
    f.max_model_len = a.rope_scaling.original_max_position_embeddings;
  }

  // vllm config/model.py _get_and_verify_dtype: --dtype auto serves the checkpoint's dtype,
  // a float32 checkpoint in float16 (UNCONFIRMED for releases that prefer bfloat16).
  const std::string& d = flags.dtype;
  if (d == "half" || d == "float16") {
    f.served_dtype = DType::kFloat16;
  } else if (d == "bfloat16") {
    f.served_dtype = DType::kBFloat16;
  } else if (d == "float" || d == "float32") {
    f.served_dtype = DType::kFloat32;
  } else {
    f.served_dtype = a.dtype == DType::kFloat32 ? DType::kFloat16 : a.dtype;
  }
  f.served_dtype_name = torch_dtype_name(f.served_dtype);

  // vllm utils/torch_utils.py STR_DTYPE_TO_TORCH_DTYPE: fp8 caches are uint8 (1 byte);
  // "auto" is the model dtype.
  const std::string& kv = flags.kv_cache_dtype;
  if (kv == "fp8" || kv == "fp8_e4m3" || kv == "fp8_e5m2") {
    f.kv_dtype_bytes = 1;
    f.kv_cache_dtype = kv;
  } else if (kv == "bfloat16" || kv == "float16") {
    f.kv_dtype_bytes = 2;
    f.kv_cache_dtype = kv;
  } else if (rules.auto_kv_from_modelopt_checkpoint && a.quantization.kv_cache_fp8 &&
             is_modelopt(a.quantization.method)) {
    f.kv_dtype_bytes = 1;
    f.kv_cache_dtype = "auto (fp8_e4m3: the checkpoint's kv_cache_quant_algo)";
  } else {
    f.kv_dtype_bytes = element_size(f.served_dtype).value();
    f.kv_cache_dtype = "auto (" + f.served_dtype_name + ")";
  }

  // vllm platforms/cuda.py get_attn_backend_cls and check_and_update_config: MLA takes
  // FlashMLA on Hopper (block size forced to 64) and CUTLASS MLA on Blackwell (forced to
  // 128), Triton MLA elsewhere; other models take FlashAttention, FlashInfer on datacenter
  // Blackwell (compute capability 10).
  // CacheConfig.DEFAULT_BLOCK_SIZE is 16.
  f.use_mla = a.attention == AttentionKind::kMla;
  const int major = gpu.compute_capability_major;
  f.block_size = flags.block_size.value_or(16);
  if (f.use_mla) {
    if (major == 9) {
      f.attention_backend = "FLASHMLA";
      f.block_size = 64;
    } else if (major == 10) {
      f.attention_backend = "CUTLASS_MLA";
      f.block_size = 128;
    } else {
      f.attention_backend = "TRITON_MLA";
    }
  } else if (a.family == ArchitectureFamily::kGemma4 &&
             std::max(a.global_head_dim, a.head_dim) > 256) {
    // model_executor/models/config.py Gemma4Config.verify_and_update_config (v0.19): heads wider
    // than 256 take the Triton backend, 16-token blocks.
    f.attention_backend = "TRITON_ATTN";
  } else {
    f.attention_backend = major == 10 ? "FLASHINFER" : "FLASH_ATTN";
  }
  if (f.use_mla && a.mla.sparse_indexer()) {
    // v1/attention/backends/mla/flashmla_sparse.py FlashMLASparseBackend: 64-token blocks.
    // config/cache.py: an fp8 cache of a DSA model is fp8_ds_mla, 656 bytes a token (512 fp8
    // latent values, 4 float32 scales, 64 bfloat16 RoPE values); DeepSeek-V3.2's "auto" is
    // fp8_ds_mla before v0.11.1. The indexer keys: models/deepseek_v2.py
    // DeepseekV32IndexerCache, uint8 whatever the KV dtype.
    f.attention_backend = "FLASHMLA_SPARSE";
    f.block_size = 64;
    const bool fp8 = kv.starts_with("fp8") || (kv == "auto" && rules.dsa_auto_kv_fp8 &&
                                               a.hf_architecture == "DeepseekV32ForCausalLM");
    if (fp8) {
      f.kv_cache_dtype = "fp8_ds_mla";
      f.kv_dtype_bytes = 1;
      f.dsa_latent_token_bytes =
          a.mla.kv_lora_rank + a.mla.kv_lora_rank / 128 * 4 + a.mla.qk_rope_head_dim * 2;
    } else {
      f.dsa_latent_token_bytes = (a.mla.kv_lora_rank + a.mla.qk_rope_head_dim) * f.kv_dtype_bytes;
    }
    f.dsa_indexer_token_bytes = a.mla.index_key_bytes();
  }
  if (a.family == ArchitectureFamily::kDeepseekV4) {
    // deepseek_v4_attention.py DeepseekV4MLAAttention.__init__: an fp8 cache becomes DeepSeek's
    // fp8_ds_mla ("auto" fails its assertion, which the plan reports); the sparse SWA backend
    // sets 256-token blocks ("Setting kv cache block size to 256 for DEEPSEEK_SPARSE_SWA
    // backend").
    f.attention_backend = "DEEPSEEK_SPARSE_SWA";
    f.block_size = 256;
    f.kv_dtype_bytes = 1;
    if (kv.starts_with("fp8")) f.kv_cache_dtype = "fp8_ds_mla";
    // DeepseekV4Indexer: the ratio-4 layers' sparse indexer, whose keys are fp8 with a float32
    // scale per 128 values, as DeepSeek-V3.2's.
    f.dsa_indexer_token_bytes = a.mla.index_key_bytes();
  }
  if (a.linear.present()) align_hybrid_block_size(a, flags, gpu, rules, tp, f);
  return f;
}

bool on_transformers_backend(const Architecture& a) {
  return a.hf_architecture == "SmolLM3ForCausalLM";
}

std::vector<KvLayerSpec> kv_layer_specs(const Architecture& a, const ModelFacts& facts, int tp,
                                        LayerRange layers) {
  std::vector<KvLayerSpec> out;
  for (std::int64_t l = layers.start; l < layers.end; ++l) {
    KvLayerSpec s;
    s.block_size = facts.block_size;
    s.dtype_bytes = facts.kv_dtype_bytes;
    // A NemotronH MLP layer holds no cache.
    if (a.layer_types[static_cast<size_t>(l)] == LayerAttention::kNone) continue;
    if (a.is_linear_layer(l)) {
      // vllm layers/mamba/abstract.py MambaBase.get_kv_cache_spec: the state padded to the
      // attention page (mamba_page_size_padded), its block the attention block ("align").
      s.kind = KvLayerKind::kMamba;
      s.num_kv_heads = 0;
      s.mamba_page_bytes = facts.mamba_page_bytes;
      s.mamba_pages_per_request = facts.mamba_pages_per_request;
    } else if (facts.dsa_latent_token_bytes > 0) {
      // A DSA layer's two caches, each one byte-wide "head" of the token's bytes: the latent
      // (as below) and the indexer's keys (deepseek_v2.py DeepseekV32IndexerCache
      // get_kv_cache_spec: an MLAAttentionSpec of 132 uint8).
      s.kind = KvLayerKind::kMla;
      s.num_kv_heads = 1;
      s.dtype_bytes = 1;
      s.head_size = facts.dsa_latent_token_bytes;
      out.push_back(s);
      s.head_size = facts.dsa_indexer_token_bytes;
    } else if (facts.use_mla) {
      // vllm layers/attention/mla_attention.py get_kv_cache_spec: one latent "head" of
      // kv_lora_rank + qk_rope_head_dim, replicated on every TP rank.
      s.kind = KvLayerKind::kMla;
      s.num_kv_heads = 1;
      s.head_size = a.mla.kv_lora_rank + a.mla.qk_rope_head_dim;
    } else {
      // vllm config/model.py get_num_kv_heads: max(1, total // tp); Gemma 4's full-attention
      // layers their own head size and KV heads (gemma4.py Gemma4Attention), V cached beside K.
      s.num_kv_heads = std::max<std::int64_t>(1, a.layer_kv_heads(l) / tp);
      s.head_size = a.layer_head_dim(l);
      s.head_size_v = a.layer_head_dim(l);
      // vllm config/vllm.py (PR #21761): chunked local attention (Llama 4) turns the hybrid
      // KV-cache manager off, and kv_cache_utils.py unify_hybrid_kv_cache_specs then budgets
      // its layers as full attention.
      if (a.is_sliding_layer(l) && !a.chunked_attention) {
        s.kind = KvLayerKind::kSlidingWindow;
        s.sliding_window = a.sliding_window;
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace gpumem::vllm
