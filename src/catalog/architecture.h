// A model's architecture: every fact about a checkpoint that an engine's memory model needs.
//
// An `Architecture` is read from a Hugging Face config.json (`load_hf_config`) or from a
// gpumem catalog entry (`load_architecture_file`, model/llm/<slug>.yaml, whose `config:`
// mapping holds the same keys with the same meanings). Field names follow Hugging Face;
// where HF spells one fact several ways per family (num_experts / n_routed_experts /
// num_local_experts) the field has one name here and the loader maps each spelling to it.
// Sizes are element counts (hidden size, vocabulary rows), not bytes: bytes only arise
// when an engine turns these into tensors of a dtype (src/weights).
//
// Invariants after loading: every count is positive where the architecture needs it,
// num_attention_heads is a multiple of num_key_value_heads, head_dim is known (all three are
// 0 for an attention-free kMamba stack, which has no attention layer),
// layer_types has one entry per layer, and `family` is one gpumem models. Everything that
// is not an error but is derived (head_dim from hidden/heads, per-family biases, layer kinds)
// is filled in, so consumers never re-derive HF defaults.
#ifndef GPUMEM_CATALOG_ARCHITECTURE_H_
#define GPUMEM_CATALOG_ARCHITECTURE_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/dtype.h"
#include "catalog/module_pattern.h"
#include "core/diagnostics.h"
#include "core/status.h"

namespace gpumem {

// The model classes gpumem knows how to build, by the HF `architectures[0]` that selects them.
enum class ArchitectureFamily : unsigned char {
  kLlama,        // LlamaForCausalLM, MistralForCausalLM
  kQwen2,        // Qwen2ForCausalLM
  kQwen3,        // Qwen3ForCausalLM
  kQwen3Moe,     // Qwen3MoeForCausalLM
  kMixtral,      // MixtralForCausalLM
  kDeepseekV2,   // DeepseekV2ForCausalLM (DeepSeek-V2, V2-Lite, V2.5)
  kDeepseekV3,   // DeepseekV3ForCausalLM (DeepSeek-V3/R1, Kimi-K2)
  kGlm4Moe,      // Glm4MoeForCausalLM
  kGptOss,       // GptOssForCausalLM
  kPhi3,         // Phi3ForCausalLM (Phi-3, Phi-3.5-mini, Phi-4): fused qkv and gate_up in files
  kGemma2,       // Gemma2ForCausalLM
  kGemma3,       // Gemma3ForConditionalGeneration, Gemma3ForCausalLM: the text model
  kLlamaEagle3,  // LlamaForCausalLMEagle3: an EAGLE-3 draft head
  kSeedOss,      // SeedOssForCausalLM (Seed-OSS-36B): Llama layout, q/k/v biases only
  kGranite,      // GraniteForCausalLM (Granite 3.x): Llama layout, scaling multipliers only
  kQwen2Moe,     // Qwen2MoeForCausalLM (Qwen1.5-MoE, Qwen2-57B-A14B): a gated shared expert
  kMiniMaxM2,    // MiniMaxM2ForCausalLM (MiniMax-M2, M2.1, M2.5): every layer MoE, no shared expert
  kQwen3Next,    // Qwen3NextForCausalLM: Gated DeltaNet layers among gated full attention, MoE
  kQwen35,       // Qwen3.5 (Qwen3_5*): Qwen3-Next's layers, dense or MoE, beside a Qwen3-VL ViT
  kNemotronH,    // NemotronHForCausalLM: one module per layer, Mamba-2, attention, MLP or MoE
  kLlama4,       // Llama4ForConditionalGeneration, Llama4ForCausalLM: the text model
  kPhiMoe,       // PhiMoEForCausalLM (Phi-3.5-MoE): Mixtral's experts, biased attention, LayerNorm
  kGraniteHybrid,  // GraniteMoeHybridForCausalLM (Granite 4.0-H): Mamba-2 or attention, experts
  kGlm4,           // Glm4ForCausalLM (GLM-4-0414, GLM-Z1): Llama's layout, four norms, half RoPE
  kJamba,          // JambaForCausalLM: Mamba-1 or attention (no RoPE), experts every other layer
  kGrok,           // Grok1ForCausalLM (Grok 2): Mixtral-like experts beside a dense residual MLP
  kOlmo2,  // Olmo2ForCausalLM, Olmo3ForCausalLM: Llama's layout, norms after attention and MLP
  // Ernie4_5_ForCausalLM, Ernie4_5_MoeForCausalLM (ERNIE 4.5): Llama's attention; the MoE
  // form DeepSeek-style experts with shared experts and a score-correction bias
  kErnie45,
  kExaone4,  // Exaone4ForCausalLM (EXAONE 4.0): per-head q/k norms, norms after attention and MLP
  // Gemma4ForConditionalGeneration, Gemma4ForCausalLM: Gemma 3's layout with full-attention
  // layers of their own head size and KV heads, optionally experts beside the dense MLP
  kGemma4,
  // KimiLinearForCausalLM (Kimi Linear): Kimi Delta Attention layers among MLA layers without
  // RoPE, DeepSeek-style experts
  kKimiLinear,
  // Mamba2ForCausalLM (Mamba-2 mixers), MambaForCausalLM and FalconMambaForCausalLM (Mamba-1):
  // attention-free stacks of one mixer and one norm per layer, under backbone.
  kMamba,
  // DeepseekV4ForCausalLM (DeepSeek-V4 Flash and Pro): compressed sparse attention beside a
  // sliding window, hyper-connected residual streams, hash-routed first layers
  // (CompressedAttention)
  kDeepseekV4,
  // CohereForCausalLM (Command R, R+, Aya), Cohere2ForCausalLM (Command R7B, Command A): attention
  // and MLP side by side after one weight-only LayerNorm, tied embeddings, no biases; Cohere 2
  // slides on three layers in four
  kCohere,
  // DeciLMForCausalLM (nemotron-nas: Llama-3.x-Nemotron Super and Ultra): Llama's blocks, each
  // layer's attention or MLP possibly a no-op, each MLP of its own width (block_configs)
  kDeciLM,
};

std::string_view family_name(ArchitectureFamily f);

enum class AttentionKind : unsigned char {
  kStandard,  // MHA/GQA/MQA: per-head K and V
  kMla,       // DeepSeek multi-head latent attention: one compressed latent per token
};

// kLinear: a Gated DeltaNet (Qwen3-Next), Mamba-2 (NemotronH) or Mamba-1 (Jamba) layer, which keeps
// a fixed-size recurrent state per request instead of keys and values per token. kNone: a NemotronH
// layer that holds an MLP only, or a DeciLM layer whose attention is a no-op.
enum class LayerAttention : unsigned char { kFull, kSliding, kLinear, kNone };

enum class RopeType : unsigned char {
  kNone,
  kDefault,
  kLinear,
  kDynamic,
  kLlama3,
  kYarn,
  kLongRope
};

struct RopeScaling {
  RopeType type = RopeType::kNone;
  double factor = 1.0;
  std::int64_t original_max_position_embeddings = 0;  // 0 when the config does not give it
  // Every numeric (and boolean, as 0/1) entry of the rope_scaling mapping, sorted by key.
  // Engines key shared cos/sin caches on the whole mapping; equal RopeScaling means equal key.
  std::vector<std::pair<std::string, double>> parameters;
  // mrope_section is given: multimodal rotary sections (Qwen2.5-VL, Qwen3-VL, Qwen3.5), which
  // the engines build as an MRotaryEmbedding.
  bool mrope = false;

  friend bool operator==(const RopeScaling&, const RopeScaling&) = default;
};

struct MlaConfig {
  std::int64_t q_lora_rank = 0;  // 0: queries projected directly (no q_a/q_b pair)
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  // DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightning indexer beside each MLA
  // layer scores every cached token with its own FP8 key and attends to the top index_topk.
  // 0 when the config has no index_topk (plain MLA).
  std::int64_t index_n_heads = 0;
  std::int64_t index_head_dim = 0;
  std::int64_t index_topk = 0;

  bool sparse_indexer() const { return index_topk > 0; }
  // Bytes one token's indexer key takes in either engine's cache: FP8 key plus one float32
  // scale per 128 values (sglang memory_pool.py NSATokenToKVPool.__init__; vllm
  // deepseek_v2.py Indexer.__init__ DeepseekV32IndexerCache(head_dim=132)).
  std::int64_t index_key_bytes() const { return index_head_dim + index_head_dim / 128 * 4; }

  friend bool operator==(const MlaConfig&, const MlaConfig&) = default;
};

struct MoeConfig {
  std::int64_t num_experts = 0;  // routed experts per MoE layer; 0 for a dense model
  std::int64_t experts_per_token = 0;
  std::int64_t moe_intermediate_size = 0;  // one routed expert's FFN width
  std::int64_t num_shared_experts = 0;
  std::int64_t shared_expert_intermediate_size = 0;  // all shared experts of a layer together
  bool shared_expert_gate = false;                   // Qwen2-MoE: a [1, hidden] sigmoid gate
  std::int64_t first_k_dense_replace = 0;            // layers [0, k) are dense
  std::int64_t moe_layer_freq = 1;                   // DeepSeek: MoE where layer % freq == 0
  std::int64_t decoder_sparse_step = 1;              // Qwen: MoE where (layer+1) % step == 0
  std::vector<std::int64_t> mlp_only_layers;         // Qwen: forced dense
  bool router_bias = false;                          // gpt-oss router Linear has a bias
  bool router_correction_bias = false;               // e_score_correction_bias (noaux_tc routing)
  bool router_float32 = false;  // GLM-4.7-Flash: both engines keep its router in float32
  bool expert_bias = false;     // gpt-oss experts have gate_up/down biases

  friend bool operator==(const MoeConfig&, const MoeConfig&) = default;
};

enum class QuantMethod : unsigned char {
  kNone,
  kFp8Block,                // quant_method fp8 + weight_block_size: fp32 scale per block
  kModelOptFp8,             // NVIDIA ModelOpt FP8: per-tensor weight and input scales
  kModelOptFp8PerChannel,   // ModelOpt FP8_PER_CHANNEL_PER_TOKEN: fp32 scale per out row
  kCompressedTensorsWna16,  // compressed-tensors pack-quantized INT weights, group scales
  kMxfp4,                   // MXFP4 experts: E2M1 pairs in uint8 + E8M0 scale per 32
  kAwq,                     // AutoAWQ GEMM: int32-packed weights, zero points, group scales
  kGptq,                    // GPTQ: int32-packed weights along K, zero points, scales, g_idx
  kModelOptNvfp4,           // ModelOpt NVFP4: E2M1 pairs in uint8, e4m3 scale per 16, globals
  kCompressedTensorsNvfp4,  // compressed-tensors nvfp4-pack-quantized: the same, other names
  kCompressedTensorsW8a8,   // compressed-tensors int-/float-quantized: 8-bit weights, fp32 scales
  kFp8PerTensor,            // quant_method fp8 without weight_block_size (AutoFP8): fp32 scalars
  kBitsAndBytes4,           // bitsandbytes load_in_4bit: nf4/fp4 pairs in uint8, absmax per 64
  kFbgemmFp8,               // fbgemm_fp8 (Meta's FP8 Llamas): e4m3 weights, fp32 scale per row
};

std::string_view quant_method_name(QuantMethod m);

// AWQ and GPTQ: an unset --quantization runs them as awq_marlin / gptq_marlin, while naming the
// method itself picks the engines' older kernels (sglang and vllm awq_marlin.py / gptq_marlin.py
// override_quantization_method); every other method runs the same either way.
bool named_method_skips_marlin(QuantMethod m);

struct Quantization {
  QuantMethod method = QuantMethod::kNone;
  std::int64_t block_n = 0;     // kFp8Block: output rows per scale block
  std::int64_t block_k = 0;     // kFp8Block: input columns per scale block
  std::int64_t num_bits = 0;    // kCompressedTensorsWna16, kAwq, kGptq
  std::int64_t group_size = 0;  // ... weights per scale along K; 0: one scale per channel
  bool desc_act = false;        // kGptq: activation order (g_idx sorts K)
  bool auto_round = false;      // kGptq: an Intel AutoRound export (quant_method auto-round)
  // NVFP4: the checkpoint quantizes activations too (W4A4) and ships their global scales;
  // W8A8 and per-tensor FP8: its activations are quantized statically, with a stored input
  // scale.
  bool activation_scales = false;
  bool float_weights = false;     // kCompressedTensorsW8a8: FP8 (e4m3) rather than INT8
  bool per_tensor_scale = false;  // kCompressedTensorsW8a8: one scale per tensor, not per row
  // kBitsAndBytes4 (bnb_4bit_use_double_quant): the absmax per block is itself quantized to
  // uint8, with a float32 absmax per 256 blocks, a code and an offset.
  bool double_quant = false;
  // Quantized by the engine from a model-dtype checkpoint (--quantization fp8: kFp8PerTensor,
  // WeightRules::online_fp8_per_module says when; --quantization bitsandbytes: kBitsAndBytes4,
  // module by module while loading).
  bool online = false;
  // Modules kept in the model dtype (modules_to_not_convert / ignore / exclude_modules).
  ModulePatternSet not_converted;
  // When not empty, the only modules quantized (AutoRound's block_name_to_quantize).
  ModulePatternSet only_converted;
  // The checkpoint ships FP8 KV-cache scales (ModelOpt kv_cache_quant_algo FP8,
  // compressed-tensors kv_cache_scheme): engines then default the KV cache to FP8.
  bool kv_cache_fp8 = false;

  // Whether the checkpoint module `module` (its Hugging Face name) is stored quantized.
  bool converts(std::string_view module) const {
    return method != QuantMethod::kNone && !not_converted.matches(module) &&
           (only_converted.empty() || only_converted.matches(module));
  }
  bool is_nvfp4() const {
    return method == QuantMethod::kModelOptNvfp4 || method == QuantMethod::kCompressedTensorsNvfp4;
  }

  friend bool operator==(const Quantization&, const Quantization&) = default;
};

enum class LinearKind : unsigned char {
  kGatedDeltaNet,  // Qwen3-Next, Qwen3.5
  kMamba2,         // NemotronH's Mamba-2 mixer
  kMamba1,         // Jamba's Mamba-1 mixer
  // Kimi Linear's Kimi Delta Attention: a Gated DeltaNet's state (heads x head dim squared, a
  // conv window over q, k and v) with separate q/k/v projections and convolutions, a low-rank
  // forget gate and output gate; its recurrent state is float32 in vLLM whatever the flags.
  kKimiDelta,
};

// The linear attention of a hybrid model: its projections, its causal convolution and the
// per-request state the engines keep for it. Every kind is read in Mamba-2's terms (the
// engines' Mamba2StateShape): a Gated DeltaNet's key heads are the groups, its key dim the
// state size, its value heads and dim the heads and head dim. A Mamba-1 mixer has no groups
// and a state per channel: its inner channels are heads of dim 1, so the conv window spans the
// inner width and the state is inner x state size, as mamba1_state_shape has them.
struct LinearAttentionConfig {
  LinearKind kind = LinearKind::kGatedDeltaNet;
  std::int64_t num_key_heads = 0;    // linear_num_key_heads; Mamba-2: n_groups; Mamba-1: 0
  std::int64_t num_value_heads = 0;  // linear_num_value_heads; Mamba-2: mamba_num_heads;
                                     // Mamba-1: the inner width (mamba_expand x hidden)
  std::int64_t key_head_dim = 0;     // linear_key_head_dim; Mamba-2: ssm_state_size
  std::int64_t value_head_dim = 0;   // linear_value_head_dim; Mamba-2: mamba_head_dim; Mamba-1: 1
  std::int64_t conv_kernel = 0;      // linear_conv_kernel_dim; Mamba-2: conv_kernel
  bool conv_bias = false;            // Mamba-2: use_conv_bias
  // mamba_ssm_dtype (Qwen3.5 configs: float32), which vLLM takes for the temporal state.
  std::optional<DType> ssm_dtype;
  // mamba_ssm_cache_dtype (Nemotron 3 configs: float32), which vLLM's NemotronH hook takes for
  // an "auto" --mamba-ssm-cache-dtype.
  std::optional<DType> ssm_cache_dtype;
  std::int64_t time_step_rank = 0;  // Mamba-1: mamba_dt_rank, the width of x_proj's dt part
  // Mamba-1: RMSNorms with weights over dt, B and C (Jamba); Falcon-Mamba's have none, and
  // plain Mamba normalizes nothing.
  bool dt_bc_norm_weights = false;

  bool present() const { return num_value_heads > 0; }
  std::int64_t key_dim() const { return num_key_heads * key_head_dim; }
  std::int64_t value_dim() const { return num_value_heads * value_head_dim; }
  // The channels of the causal convolution: q, k and v side by side.
  std::int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
  friend bool operator==(const LinearAttentionConfig&, const LinearAttentionConfig&) = default;
};

// DeepSeek-V4's attention and residual stream (DeepseekV4ForCausalLM's config): every layer
// attends over a sliding window of uncompressed keys (Architecture::sliding_window) and, where
// its compress ratio is 4 or 128, over keys that many tokens pool into one; ratio-4 layers also
// keep a lightning indexer (MlaConfig's index_* sizes) that picks index_topk pooled keys. A
// query is q_lora_rank wide before wq_b, a key one 512-wide latent (head_dim) of which
// qk_rope_head_dim rotate, and the output projection is grouped (o_groups low-rank wo_a
// blocks of o_lora_rank, then wo_b). The residual stream is hc_mult streams that learned
// hyper-connections mix around every sublayer.
struct CompressedAttention {
  // One per decoder layer, then one per MTP layer (0: the sliding window only).
  std::vector<std::int64_t> compress_ratios;
  std::int64_t hc_mult = 0;
  std::int64_t o_groups = 0;
  std::int64_t o_lora_rank = 0;
  std::int64_t num_hash_layers = 0;  // the first layers route by token id (a tid2eid table)
  double compress_rope_theta = 0.0;  // the RoPE base of the compressed layers

  bool present() const { return hc_mult > 0; }
  // The compress ratio of decoder layer `layer` (layers past the decoder are MTP layers).
  std::int64_t ratio(std::int64_t layer) const {
    return compress_ratios[static_cast<size_t>(layer)];
  }
  friend bool operator==(const CompressedAttention&, const CompressedAttention&) = default;
};

// The vision encoders gpumem models, by their layout.
enum class VisionKind : unsigned char {
  kNone,
  kSiglip,  // SigLIP (transformers SiglipVisionConfig) and Gemma 3's projector
  // Qwen2-VL's ViT (Qwen2VLVisionConfig): LayerNorms, a QuickGELU MLP of embed_dim x mlp_ratio,
  // full attention in every block, the patch merger
  kQwen2Vit,
  kQwen25Vit,  // Qwen2.5-VL's ViT (Qwen2_5_VLVisionConfig): gated MLPs, RMSNorms, patch merger
  kQwen3Vit,  // Qwen3-VL's ViT (Qwen3VLVisionConfig): LayerNorms, position table, deepstack mergers
  kLlama4Vit,  // Llama 4's ViT (Llama4VisionConfig): read so engines that build it can say so
  kPixtral,    // Mistral 3's Pixtral ViT (PixtralVisionConfig) and patch-merging projector
  kClip,       // LLaVA's CLIP ViT (CLIPVisionConfig) and its two-linear projector
  // Gemma 4's encoder (Gemma4VisionConfig): a patch projection, a two-axis position table,
  // gated MLPs, q/k norms, four norms a layer, and embed_vision's projection
  kGemma4Vit,
  // Kimi-K2.5's MoonViT (its vision_config's vt_* keys): a biased Conv2d patch embedding, a 2-D
  // position table, LayerNorm blocks of a fused biased wqkv, wo and a two-linear MLP, and the
  // patch-merger projector (a LayerNorm and two biased linears over merge^2 x width)
  kMoonVit,
  // GLM-4.1V's and GLM-4.5V's ViT (Glm4vVisionConfig): a biased Conv3d, a position table of
  // (image_size / patch_size)^2 rows, RMSNorms, gated MLPs of out_hidden_size, a Conv2d
  // downsample to out_hidden_size and a gated merger of intermediate_size
  kGlm4vVit,
};

// A multimodal checkpoint's vision tower and its projection into the language model, as its
// vision_config describes them. Absent (kind kNone) for text-only models.
struct VisionTower {
  VisionKind kind = VisionKind::kNone;
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t num_hidden_layers = 0;  // SigLIP num_hidden_layers, Qwen depth
  std::int64_t num_attention_heads = 0;
  std::int64_t num_channels = 0;  // SigLIP num_channels, Qwen in_chans
  std::int64_t patch_size = 0;
  std::int64_t image_size = 0;  // SigLIP: the fixed input resolution
  // Gemma 3: mm_tokens_per_image, a square number; Gemma 4: default_output_length, the most
  // soft tokens an image makes
  std::int64_t tokens_per_image = 0;
  std::int64_t temporal_patch_size = 0;  // Qwen: frames per patch
  // Qwen: patches merged per side into one token; Gemma 4: pooling_kernel_size
  std::int64_t spatial_merge_size = 0;
  std::int64_t window_size = 0;  // Qwen2.5-VL: a window attention's side, in pixels
  // Qwen: the merger's output width (Qwen2-VL's vision_config names it hidden_size, and its
  // width embed_dim); Llama 4 vision_output_dim
  std::int64_t out_hidden_size = 0;
  std::int64_t num_position_embeddings = 0;  // Qwen3-VL, Gemma 4 (per axis): position rows
  // MoonViT: the 2-D position table's rows and columns (init_pos_emb_height and _width)
  std::int64_t position_rows = 0;
  std::int64_t position_columns = 0;
  // Qwen3-VL: the blocks after which a deepstack merger taps the stream, ascending; one
  // merger each.
  std::vector<std::int64_t> deepstack_visual_indexes;
  std::int64_t projector_input_dim = 0;   // Llama 4: the pixel-shuffle adapter's output width
  std::int64_t projector_output_dim = 0;  // Llama 4: its second linear's width
  bool projector_bias = false;            // Mistral 3, LLaVA: multimodal_projector_bias
  bool qkv_bias = false;                  // GLM-4.1V/4.5V: attention_bias
  bool standardize = false;               // Gemma 4: std_bias and std_scale over the width
  // LLaVA: vision_feature_layer, one index or a list (negative counts from the last layer's
  // output), and whether vision_feature_select_strategy keeps the class token ("full").
  std::vector<std::int64_t> feature_layers;
  bool keep_class_token = false;
  // LLaVA-NeXT: image_grid_pinpoints as (height, width) pairs, flattened; empty for LLaVA.
  std::vector<std::int64_t> grid_pinpoints;

  bool present() const { return kind != VisionKind::kNone; }
  std::int64_t deepstack_mergers() const {
    return static_cast<std::int64_t>(deepstack_visual_indexes.size());
  }
  // SigLIP and GLM-4.1V/4.5V: patches of one image, the position embedding's rows.
  std::int64_t num_patches() const { return (image_size / patch_size) * (image_size / patch_size); }
  // LLaVA: the CLIP layers vLLM builds, up to the deepest feature layer (vllm llava.py
  // _get_num_hidden_layers: N + index + 1 for a negative index).
  std::int64_t clip_layers_built() const;
  friend bool operator==(const VisionTower&, const VisionTower&) = default;
};

struct Architecture {
  std::string name;             // catalog slug, or the config file's path
  std::string hf_architecture;  // architectures[0] as written in the config
  std::string model_type;
  ArchitectureFamily family = ArchitectureFamily::kLlama;
  DType dtype = DType::kFloat32;  // torch_dtype; HF treats an absent one as float32

  std::int64_t hidden_size = 0;
  std::int64_t num_hidden_layers = 0;
  std::int64_t num_attention_heads = 0;
  std::int64_t num_key_value_heads = 0;
  std::int64_t head_dim = 0;  // HF head_dim, else hidden_size / num_attention_heads
  // Gemma 4: the full-attention layers' head size (global_head_dim) and KV heads
  // (num_global_key_value_heads where attention_k_eq_v); 0 where they are the others'.
  std::int64_t global_head_dim = 0;
  std::int64_t num_global_key_value_heads = 0;
  // Gemma 4 (attention_k_eq_v): the full-attention layers' checkpoint has no v_proj; both
  // engines build the V slot and load k_proj into it, and cache V beside K.
  bool attention_k_eq_v = false;
  // Gemma 4 (enable_moe_block): experts, their router (proj, scale, per_expert_scale) and three
  // more norms beside the dense MLP, no shared expert.
  bool moe_beside_mlp = false;
  bool layer_scalar = false;           // Gemma 4: a one-element layer_scalar buffer in every layer
  std::int64_t v_head_dim = 0;         // MLA v_head_dim; head_dim otherwise
  std::int64_t intermediate_size = 0;  // dense MLP width (DeciLM: the widest layer's)
  // DeciLM: each layer's MLP width, 0 where the layer's FFN is a no-op; empty where every layer
  // has intermediate_size.
  std::vector<std::int64_t> layer_intermediate_sizes;
  std::int64_t vocab_size = 0;
  std::int64_t max_position_embeddings = 0;
  bool tie_word_embeddings = false;

  bool attention_bias = false;     // HF attention_bias as written (or its family default)
  bool qkv_bias = false;           // q/k/v projections carry a bias (Qwen2: always)
  bool o_proj_bias = false;        // output projection carries a bias
  bool qk_norm = false;            // RMSNorm on q and k (Qwen3, Gemma3: per head)
  bool qk_norm_per_layer = false;  // MiniMax-M2: q and k normalized over all heads, split over TP
  // OLMo 2: those whole-projection q/k norms are whole on every rank, which all-gathers its q
  // and k before normalizing them.
  bool qk_norm_replicated = false;
  // OLMo 2, EXAONE 4.0: no input norm; a norm after attention (post_attention_layernorm) and one
  // after the MLP (post_feedforward_layernorm).
  bool norms_after_sublayers = false;
  // Cohere: one norm (input_layernorm) before attention and MLP, which read it side by side.
  bool parallel_block = false;
  bool attention_sinks = false;  // gpt-oss: one learned sink logit per head
  bool sandwich_norms = false;   // Gemma 2 and 3, GLM-4-0414, Grok: two more norms, 4 per layer
  // Grok 2 (rope_type set): the rows of the scaled RoPE cache each attention layer builds for
  // itself beside the shared one, original_max_position_embeddings x scaling_factor; 0 otherwise.
  std::int64_t per_layer_rope_rows = 0;
  bool attn_output_gate = false;  // Qwen3-Next: q_proj also yields a sigmoid gate per head
  bool layer_norm_bias = false;   // PhiMoE: LayerNorms (weight and bias) in place of RMSNorms
  bool lm_head_bias = false;      // PhiMoE: the head carries a bias, vocab-sharded as its rows
  // NemotronH and kMamba: every layer holds one module (its layer type says which) and one
  // norm.
  bool single_module_layers = false;
  bool gated_mlp = true;  // false: up_proj and down_proj only (NemotronH's relu2 MLP)
  // Llama 4 (use_qk_norm): q and k L2-normalized on the RoPE layers; the checkpoint holds no
  // weight for it (whether an engine allocates one is WeightRules::llama4_qk_norm_weight).
  bool weightless_qk_norm = false;
  // Llama 4: every no_rope_interval-th layer ((layer + 1) % interval == 0) attends without
  // RoPE; Kimi Linear (mla_use_nope): 1, no layer has RoPE; 0 for every other family.
  std::int64_t no_rope_interval = 0;
  // Llama 4: the kSliding layers attend within fixed chunks of sliding_window tokens
  // (attention_chunk_size) rather than over a sliding window.
  bool chunked_attention = false;

  AttentionKind attention = AttentionKind::kStandard;
  MlaConfig mla;
  MoeConfig moe;

  std::int64_t sliding_window = 0;          // 0: no sliding-window layers
  std::vector<LayerAttention> layer_types;  // one per layer
  LinearAttentionConfig linear;             // the kLinear layers' shape; absent otherwise

  double rope_theta = 10000.0;
  double rope_local_base_freq = 0.0;  // Gemma3 sliding layers' base; 0 elsewhere
  double partial_rotary_factor = 1.0;
  std::int64_t rotary_dim = 0;  // int(partial_rotary_factor * head_dim); MLA: qk_rope_head_dim
  RopeScaling rope_scaling;

  // EAGLE-3 draft heads (family kLlamaEagle3).
  std::int64_t draft_vocab_size = 0;     // lm_head rows; equals vocab_size when not reduced
  std::int64_t eagle_fc_input_size = 0;  // 3 x the target's hidden size
  std::vector<std::int64_t> eagle_aux_layer_ids;

  std::int64_t num_nextn_predict_layers = 0;  // MTP layers in the checkpoint
  // A NextN (MTP) draft built from a checkpoint's MTP layer: the checkpoint layer its one
  // decoder layer loads (model.layers.<index>); -1 for every other architecture.
  std::int64_t nextn_checkpoint_layer = -1;

  VisionTower vision;       // multimodal checkpoints (Gemma 3, Qwen2.5-VL); absent otherwise
  CompressedAttention csa;  // DeepSeek-V4; absent otherwise

  Quantization quantization;

  bool is_moe_layer(std::int64_t layer) const;
  bool is_sliding_layer(std::int64_t layer) const;
  bool is_linear_layer(std::int64_t layer) const;
  // The layers of linear attention or SSM mixers, whose state is per request, not per token.
  std::int64_t linear_layer_count() const;
  // A layer's attention head size and KV heads (Gemma 4's full-attention layers differ).
  std::int64_t layer_head_dim(std::int64_t layer) const {
    return global_head_dim > 0 && !is_sliding_layer(layer) ? global_head_dim : head_dim;
  }
  std::int64_t layer_kv_heads(std::int64_t layer) const {
    return num_global_key_value_heads > 0 && !is_sliding_layer(layer) ? num_global_key_value_heads
                                                                      : num_key_value_heads;
  }
  bool uses_rope(std::int64_t layer) const {
    return no_rope_interval == 0 || (layer + 1) % no_rope_interval != 0;
  }
  // Whether a layer holds an MLP (or MoE): every layer, or NemotronH's MLP layers, or DeciLM's
  // layers whose FFN is not a no-op.
  bool has_mlp(std::int64_t layer) const;
  // A layer's dense MLP width: intermediate_size, or DeciLM's own width of that layer.
  std::int64_t layer_intermediate_size(std::int64_t layer) const {
    return layer_intermediate_sizes.empty() ? intermediate_size
                                            : layer_intermediate_sizes[static_cast<size_t>(layer)];
  }
  // Layers in [start, end) that attend over a KV cache (full or sliding), not linear ones.
  std::int64_t attention_layers(std::int64_t start, std::int64_t end) const;
  bool is_draft_head() const { return family == ArchitectureFamily::kLlamaEagle3; }
  bool is_nextn_draft() const { return nextn_checkpoint_layer >= 0; }
  // Qwen3-Next and Qwen3.5: Gated DeltaNet layers, gated attention, Qwen2-MoE-style blocks.
  bool is_qwen_hybrid() const {
    return family == ArchitectureFamily::kQwen3Next || family == ArchitectureFamily::kQwen35;
  }
  // Mamba stacks keep their modules under backbone. (embeddings, layers, norm_f).
  bool attention_free() const { return family == ArchitectureFamily::kMamba; }

  // Equal architectures have equal weights under equal layouts and rules (weights memoise
  // on this).
  friend bool operator==(const Architecture&, const Architecture&) = default;
};

// One value published for a model, with where it was read and how sure it is.
struct PublishedParams {
  std::string value;
  std::string source;
  std::string status;
};

// A catalog file: the architecture plus the provenance kept next to it.
struct ModelEntry {
  std::string slug;
  std::string model_id;  // as written: the repository id, possibly followed by a remark
  // Other repository ids (Hugging Face or ModelScope) that publish this very config.json.
  std::vector<std::string> aliases;
  // source key -> text; a list of texts is joined with "\n".
  std::vector<std::pair<std::string, std::string>> sources;
  PublishedParams published_params;
  std::string notes;
  Architecture architecture;

  // The repository ids a `model:` reference may give for this entry: model_id's first word
  // (when it is an `org/name` id) and the aliases.
  std::vector<std::string> repo_ids() const;
};

// Reads a Hugging Face config.json (or any YAML/JSON mapping with its keys). Keys gpumem does
// not use are ignored; missing, mistyped and impossible values are `file:line:col` errors in
// `diags`, and the Result then carries the same text. A `hf_quant_config.json` next to the
// file (NVIDIA ModelOpt exports) is read for the quantization when the config has none.
Result<Architecture> load_hf_config(const std::string& path, Diagnostics& diags);

// Interprets an already parsed config mapping; `file` is used in messages.
Result<Architecture> parse_hf_config(const std::string& file, const YAML::Node& config,
                                     std::string name, Diagnostics& diags);

// Reads model/llm/<slug>.yaml: strict top-level keys (see model/llm/README.md), the
// `config:` mapping read like a config.json.
Result<ModelEntry> load_model_entry(const std::string& path, Diagnostics& diags);
// The same, from the file's text; `file` names the entry (its stem is the slug).
Result<ModelEntry> parse_model_entry(const std::string& file, const std::string& text,
                                     Diagnostics& diags);
Result<Architecture> load_architecture_file(const std::string& path, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_ARCHITECTURE_H_
