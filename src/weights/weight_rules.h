// Engine conventions that decide which tensors a rank allocates for a model.
//
// These differ between engines and versions (and a few between GPUs), so they are data
// rather than code. The defaults are SGLang v0.5.9 on a CUDA GPU of compute capability 9.0
// (Hopper) with default server arguments; each carries the source it was read from.
// Calibration or an engine model for another version changes fields here, never the
// builders in rank_weights.cc.
#ifndef GPUMEM_WEIGHTS_WEIGHT_RULES_H_
#define GPUMEM_WEIGHTS_WEIGHT_RULES_H_

#include <cstdint>

#include "catalog/dtype.h"
#include "weights/parallel_layout.h"

namespace gpumem {

// NVFP4 weights as an engine keeps them on a GPU (the FP4 GEMM kernel each one runs).
enum class Nvfp4Layout : unsigned char {
  // Blackwell CUTLASS / FlashInfer: the block scales are swizzled into a padded copy of
  // [ceil128(rows), ceil4(columns / 16)] that replaces the loaded one (vLLM from PR #23379,
  // 0.10.2; SGLang's compressed-tensors NVFP4).
  kSwizzledScales,
  // ... the swizzled copy is kept beside the loaded scales (vLLM before 0.10.2; SGLang's
  // ModelOpt NVFP4, modelopt_quant.py ModelOptFp4LinearMethod weight_scale_interleaved).
  kSwizzledBesideRaw,
  // Before Blackwell: weight-only Marlin FP4 (vllm quantization/utils/marlin_utils_fp4.py
  // prepare_fp4_layer_for_marlin): weights and scales repacked for 64-row tiles, a
  // workspace per layer, the activation scales freed.
  kMarlin,
};

struct WeightRules {
  // The engine that builds the tensors, as its errors name it ("SGLang", "vLLM").
  const char* engine = "SGLang";
  // sglang v0.5.9 layers/vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE: embedding
  // and lm_head rows are padded to a multiple of this, then split over TP.
  std::int64_t vocab_padding = 64;

  // sglang v0.5.9 configs/model_config.py _get_and_verify_dtype: a checkpoint whose config
  // declares float32 (or no torch_dtype) is served in float16 under --dtype auto.
  DType float32_checkpoint_dtype = DType::kFloat16;

  // sglang v0.5.9 layers/rotary_embedding.py RotaryEmbedding.__init__: on CUDA the
  // cos_sin_cache stays float32 "for numerical stability".
  DType rope_cache_dtype = DType::kFloat32;
  // Positions an MRotaryEmbedding's cos_sin_cache holds per max_position (vLLM: 4).
  std::int64_t mrope_cache_factor = 1;
  // The model runs on the engine's Transformers backend (vLLM's SmolLM3): its rotary embedding
  // is transformers' own, an inv_freq buffer of rotary_dim / 2 float32 values, with cos and sin
  // computed per forward instead of cached.
  bool transformers_rope = false;

  // sglang v0.5.9 deepseek_v2.py determine_num_fused_shared_experts: unless
  // --disable-shared-experts-fusion, DeepSeek-V3/R1 (256 routed + 1 shared expert, no EP)
  // folds the shared expert into the routed FusedMoE as one more expert.
  bool shared_experts_fusion = true;

  // GLM-4.5/4.6's router: sglang v0.5.9 glm4_moe.py Glm4MoeGate keeps its weight in the
  // model dtype; vllm glm4_moe.py Glm4MoE.__init__ (read at 002d607) builds it as an
  // nn.Linear in float32, beside the float32 e_score_correction_bias both engines keep.
  bool float32_glm_router = false;
  // ERNIE 4.5's router: sglang ernie4.py MoEGate keeps the weight and a [1, experts]
  // e_score_correction_bias in the model dtype; vllm ernie45_moe.py a float32
  // ReplicatedLinear and a float32 [experts] bias.
  bool float32_ernie_router = false;

  // sglang v0.5.9 deepseek_v2.py DeepseekV2ForCausalLM.post_load_weights: after loading,
  // kv_b_proj is split into contiguous bfloat16 copies w_kc and w_vc (FP8 block weights are
  // dequantized first) that stay allocated next to kv_b_proj.
  bool mla_absorbed_copies = true;

  // sglang v0.5.9 layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights: experts'
  // intermediate size per rank is padded to this multiple (32 with triton_kernels on
  // Hopper; 64 on SM100; 256 with the FlashInfer MXFP4 kernel, which also pads hidden).
  std::int64_t mxfp4_intermediate_multiple = 32;
  std::int64_t mxfp4_hidden_multiple = 1;
  // vllm layers/quantization/mxfp4.py process_weights_after_loading, Triton backend (Hopper):
  // utils/mxfp4_utils.py _swizzle_mxfp4 replaces the weights with triton_kernels' Hopper
  // value layout (padded to its 16 x 64 tile only) and adds the scales in its Hopper scale
  // layout (rows padded to 2 x num_warps(8) x 2 x 8 = 256, groups to 2) while the loaded
  // scales stay; the biases are replaced by float32 copies.
  bool mxfp4_triton_layout = false;

  // sglang v0.5.9 gpt_oss.py GptOssAttention: sinks are bfloat16, float32 only with the
  // trtllm_mha attention backend.
  DType attention_sinks_dtype = DType::kBFloat16;

  // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2RMSNormTP.__init__: with fewer KV heads than
  // attention ranks, each rank's k_norm keeps one whole head (head_dim); vLLM's
  // MiniMaxText01RMSNormTP keeps num_key_value_heads x head_dim / tp.
  bool per_layer_k_norm_whole_heads = true;

  // sglang v0.5.9 layers/quantization/marlin_utils.py marlin_make_workspace: each Marlin
  // MoE layer keeps an int32 workspace of (SM count x 4) entries. A fact of the GPU: the
  // default is an H100 SXM's 132 SMs; callers set it from the GPU catalog.
  std::int64_t device_sm_count = 132;
  std::int64_t marlin_blocks_per_sm = 4;
  // ... and each Marlin linear layer (awq_marlin, gptq_marlin) one of SM count x 1 entries
  // (marlin_make_workspace's default max_blocks_per_sm; vLLM's marlin_make_workspace_new).
  std::int64_t marlin_linear_blocks_per_sm = 1;
  // vllm model_executor/kernels/linear/__init__.py choose_mp_linear_kernel: on compute
  // capability 9.0 a symmetric GPTQ linear runs on MacheteLinearKernel (ahead of Marlin in
  // _POSSIBLE_KERNELS), which keeps g_idx and the zero points and needs no workspace. SGLang
  // always takes Marlin (gptq.py GPTQMarlinLinearMethod).
  bool gptq_machete = false;
  // ... and where neither Machete nor Marlin takes the layer, ExllamaLinearKernel (last in
  // _POSSIBLE_KERNELS) does for an output a multiple of the pack factor, when the activations
  // are float16 (vLLM serving --dtype float16); SGLang has no such fallback.
  bool gptq_exllama_fallback = false;

  // vllm compressed_tensors.py: below compute capability 8.9 (no FP8 tensor cores) a W8A8
  // FP8 checkpoint runs as CompressedTensorsW8A16Fp8 on Marlin
  // (utils/marlin_utils_fp8.py prepare_fp8_layer_for_marlin).
  bool fp8_marlin = false;
  // sglang quantization/fp8.py Fp8LinearMethod.process_weights_after_loading: with CUTLASS FP8
  // a per-tensor FP8 checkpoint's scales become one float32 per output row
  // (convert_to_channelwise); vllm fp8.py requantizes the fused parts to one scalar instead.
  bool fp8_per_tensor_channelwise = true;
  // vllm model_loader/bitsandbytes_loader.py _dequantize_dq (PR #19742, v0.9.2): a
  // double-quantized checkpoint's absmax becomes float32 once loaded, its nested state freed;
  // sglang's loader (adapted from vLLM v0.6.3) keeps the nested state.
  bool bnb_dequantized_absmax = false;
  // Online FP8 (--quantization fp8 on a model-dtype checkpoint): vllm PR #31914 (merged January
  // 2026, taken as 0.15) creates each linear on the meta device and quantizes it as soon as
  // its weights are loaded; before it vLLM, and SGLang still, load the whole model in the model
  // dtype and quantize in process_weights_after_loading.
  bool online_fp8_per_module = false;
  // fbgemm_fp8's modules_to_not_convert: vllm fbgemm_fp8.py (from PR #18002, v0.9.0) skips a
  // fused linear when all its shards are listed (is_layer_skipped with the model's
  // packed_modules_mapping); sglang fpgemm_fp8.py compares the fused name itself, which
  // Hugging Face lists never hold, so fused linears are always quantized there.
  bool fbgemm_fused_names_literal = true;

  // sglang v0.5.9 speculative/eagle_worker.py EAGLEWorker.__init__: a draft's own embedding
  // (and a NextN draft's head) is freed when the worker hands it the target's, after the
  // draft's KV pool is allocated (kReleasedLater); vllm models/llama_eagle3.py frees it while
  // the draft loads (PR #19033).
  bool draft_embedding_freed_after_kv = true;
  // A NextN (MTP) draft's own head: SGLang frees it for the target's (set_embed_and_head);
  // vllm DeepSeekMTP / Glm4MoeMTP compute logits through shared_head.head, which the proposer
  // kept until PR #34385 (merged 2026-02-11) pointed it at the target's lm_head.
  bool nextn_head_shared = true;

  // Llama 4's q/k norm on RoPE layers: sglang llama4.py Llama4Attention builds an
  // RMSNorm(head_dim) with a weight; vllm llama4.py an RMSNorm with has_weight=False.
  bool llama4_qk_norm_weight = true;

  // GLM-4-0414's q/k/v biases: sglang (read at 0673f44) glm4.py Glm4Attention builds them
  // whatever the config says (newer copies take attention_bias, default true: the release is
  // not pinned; at most 0.8 MB on GLM-4-32B); vllm glm4.py follows attention_bias.
  bool glm4_qkv_bias_always = true;

  // Gemma 3's text model: sglang v0.5.9 gemma3_causal.py Gemma3TextModel (read at 038c87d)
  // keeps a plain nn.Embedding of the whole vocabulary on every rank, two HF rotary modules'
  // float32 inv_freq buffers, and default RoPE on every layer; vllm gemma3.py Gemma3Model
  // (read at 004dc92) a VocabParallelEmbedding split over TP, a scalar `normalizer` buffer,
  // and the config's rope_scaling on the global layers (Gemma3Attention).
  bool gemma3_hf_text_model = true;

  // NemotronH's MoE layers: sglang nemotron_h.py NemotronHMoE builds the experts before the
  // shared experts, vllm nemotron_h.py the shared experts first.
  bool nemotron_shared_experts_first = false;

  // vllm qwen3_vl.py Qwen3VLForConditionalGeneration.__init__ (read in its 2026 copies): with
  // the vision tower built, one zeroed [max_num_batched_tokens, text hidden] buffer per
  // deepstack level, created with the model on the GPU; SGLang keeps none (0 rows).
  std::int64_t deepstack_buffer_rows = 0;

  // What an engine makes of an NVFP4 checkpoint's e4m3 block scales after loading.
  Nvfp4Layout nvfp4_layout = Nvfp4Layout::kSwizzledBesideRaw;

  // Which pipeline stages take the layers left over by num_layers % pp_size
  // (parallel_layout.h; SGLang's rule by default).
  PpPartition pp_partition = PpPartition::kExtraOnLastStages;

  friend bool operator==(const WeightRules&, const WeightRules&) = default;
};

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_WEIGHT_RULES_H_
