#include "weights/checkpoint_tensors.h"

#include <algorithm>
#include <numeric>

#include "weights/checkpoint_builder.h"
#include "weights/decoder_norms.h"
#include "weights/deepseek_v4_checkpoint.h"

namespace gpumem {

Status CheckpointBuilder::build() {
  if (a_.is_draft_head()) {
    return invalid_input(a_.hf_architecture +
                         ": the checkpoint layout of an EAGLE-3 draft head is not derived");
  }
  // Llama 4's and Mistral 3's files name the text model under language_model. (Llama 4's
  // experts are stored fused); their layouts are not derived.
  // Granite 4.0-H's files fuse each layer's experts (block_sparse_moe.input_linear) and name
  // the mixer and shared MLP after HF's modules; that layout is not derived either.
  // NemotronH's MoE routers are float32 in some published files and bfloat16 in others
  // (vllm PR #34582); their dtype is not derived. Jamba's files were renamed when the model
  // moved into transformers (feed_forward/moe, pre_ff/pre_moe_layernorm, b/B_layernorm) and
  // no published index pins which names a checkpoint holds.
  if (a_.family == ArchitectureFamily::kLlama4 || a_.vision.kind == VisionKind::kPixtral ||
      a_.family == ArchitectureFamily::kGraniteHybrid || a_.family == ArchitectureFamily::kJamba ||
      (a_.family == ArchitectureFamily::kNemotronH && a_.moe.num_experts > 0)) {
    return invalid_input(a_.hf_architecture + ": the checkpoint layout is not derived");
  }
  // HF Mamba2ForCausalLM and MambaForCausalLM keep the decoder under backbone.
  const bool backbone = a_.attention_free();
  add(backbone ? "backbone.embeddings.weight" : "model.embed_tokens.weight",
      {a_.vocab_size, a_.hidden_size}, dtype_);
  for (std::int64_t i = 0; i < a_.num_hidden_layers; ++i) {
    GPUMEM_RETURN_IF_ERROR(layer((backbone ? "backbone.layers." : "model.layers.") + str(i), i));
  }
  decoder_norm(backbone ? "backbone.norm_f" : "model.norm");
  if (!a_.tie_word_embeddings) add("lm_head.weight", {a_.vocab_size, a_.hidden_size}, dtype_);
  if (a_.lm_head_bias) add("lm_head.bias", {a_.vocab_size}, dtype_);
  if (a_.is_qwen_hybrid()) {
    if (a_.num_nextn_predict_layers > 0) GPUMEM_RETURN_IF_ERROR(qwen3_next_mtp());
  } else {
    for (std::int64_t k = 0; k < a_.num_nextn_predict_layers; ++k) {
      GPUMEM_RETURN_IF_ERROR(mtp_layer(a_.num_hidden_layers + k));
    }
  }
  if (a_.vision.present()) GPUMEM_RETURN_IF_ERROR(vision_tower());
  std::sort(out_.begin(), out_.end(),
            [](const CheckpointTensor& x, const CheckpointTensor& y) { return x.name < y.name; });
  return Status::ok_status();
}

void CheckpointBuilder::add(const std::string& name, std::vector<std::int64_t> shape, DType dtype) {
  const std::int64_t n =
      std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
  out_.push_back(
      {name, std::move(shape), std::string(safetensors_dtype(dtype)), element_size(dtype) * n});
}

void CheckpointBuilder::norm(const std::string& module, std::int64_t size) {
  add(module + ".weight", {size}, norm_dtype_);
}

// HF PhimoeDecoderLayer / PhimoeModel: nn.LayerNorm (weight and bias) where other families
// keep an RMSNorm.
void CheckpointBuilder::decoder_norm(const std::string& module) {
  if (a_.layer_norm_bias) return layer_norm(module, a_.hidden_size);
  norm(module, a_.hidden_size);
}

// One nn.Linear of the checkpoint: `module` is its HF name (the quantization's module
// patterns are matched against it).
Status CheckpointBuilder::linear(const std::string& module, std::int64_t out, std::int64_t in,
                                 bool bias) {
  const Quantization& q = a_.quantization;
  const bool converted = q.method != QuantMethod::kMxfp4 && q.converts(module);
  switch (converted ? q.method : QuantMethod::kNone) {
    case QuantMethod::kNone:
    case QuantMethod::kMxfp4:
      add(module + ".weight", {out, in}, dtype_);
      break;
    case QuantMethod::kFp8Block:
      // DeepSeek-V3 / Qwen3-FP8 checkpoints: e4m3 weight, a scale_inv per block.
      add(module + ".weight", {out, in}, DType::kFloat8E4M3);
      add(module + ".weight_scale_inv", {ceil_div(out, q.block_n), ceil_div(in, q.block_k)},
          scale_dtype_);
      break;
    case QuantMethod::kModelOptFp8:
      // ModelOpt FP8 export: scalar float32 weight and input scales per linear.
      add(module + ".weight", {out, in}, DType::kFloat8E4M3);
      add(module + ".weight_scale", {}, DType::kFloat32);
      add(module + ".input_scale", {}, DType::kFloat32);
      break;
    case QuantMethod::kModelOptFp8PerChannel:
      add(module + ".weight", {out, in}, DType::kFloat8E4M3);
      add(module + ".weight_scale", {out}, DType::kFloat32);
      break;
    case QuantMethod::kCompressedTensorsWna16: {
      // compressed-tensors pack_quantized compressor: int32 words of 32/num_bits values,
      // a scale per group along the input, and the unpacked shape: torch.tensor(shape), int64,
      // but int32 in Moonshot's Kimi-K2-Thinking and Kimi-K2.5 files (an audit of their shard
      // headers reproduces both published totals with it).
      const bool moonshot = a_.model_type.starts_with("kimi_k2");
      const std::int64_t pack = 32 / q.num_bits;
      const std::int64_t group = q.group_size > 0 ? q.group_size : in;
      if (in % pack != 0 || in % group != 0) {
        return invalid_input(module + ": input size " + str(in) +
                             " does not split into the pack factor " + str(pack) +
                             " and group size " + str(group));
      }
      add(module + ".weight_packed", {out, in / pack}, DType::kInt32);
      add(module + ".weight_scale", {out, in / group}, dtype_);
      add(module + ".weight_shape", {2}, moonshot ? DType::kInt32 : DType::kInt64);
      break;
    }
    case QuantMethod::kAwq:
    case QuantMethod::kGptq: {
      // AutoAWQ GEMM: qweight [in, out / pack] packed along the output; GPTQ: qweight
      // [in / pack, out] packed along the input and a g_idx per input. Both: int32 zero
      // points packed along the output and a scale per group and output, in the model dtype.
      const std::int64_t pack = 32 / q.num_bits;
      const std::int64_t group = q.group_size > 0 ? q.group_size : in;
      if (in % pack != 0 || out % pack != 0 || in % group != 0) {
        return invalid_input(module + ": " + str(out) + " x " + str(in) +
                             " does not split into the pack factor " + str(pack) +
                             " and group size " + str(group));
      }
      const bool awq = q.method == QuantMethod::kAwq;
      add(module + ".qweight",
          awq ? std::vector<std::int64_t>{in, out / pack}
              : std::vector<std::int64_t>{in / pack, out},
          DType::kInt32);
      add(module + ".qzeros", {in / group, out / pack}, DType::kInt32);
      add(module + ".scales", {in / group, out}, dtype_);
      if (!awq) add(module + ".g_idx", {in}, DType::kInt32);
      break;
    }
    case QuantMethod::kCompressedTensorsW8a8:
      // NaiveQuantizationCompressor: the 8-bit weight as is; its scale per row or per
      // tensor in the module's dtype; a static input scale.
      add(module + ".weight", {out, in}, q.float_weights ? DType::kFloat8E4M3 : DType::kInt8);
      add(module + ".weight_scale",
          q.per_tensor_scale ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{out, 1},
          dtype_);
      if (q.activation_scales) add(module + ".input_scale", {1}, dtype_);
      break;
    case QuantMethod::kFbgemmFp8:
      // transformers' FbgemmFp8Linear saves its activation bound too, in a shape not
      // recorded here.
      return invalid_input(module + ": the layout of an fbgemm_fp8 checkpoint is not derived");
    case QuantMethod::kBitsAndBytes4:
      // bitsandbytes QuantState.as_dict(packed=True): besides the tensors, each module
      // stores quant_state.bitsandbytes__<type>, a uint8 tensor of JSON whose length
      // depends on the printed offset, so the file's bytes are not derived.
      return invalid_input(module + ": the layout of a bitsandbytes checkpoint is not derived");
    case QuantMethod::kFp8PerTensor:
      // AutoFP8: the e4m3 weight, a 0-dim float32 weight scale, a static input scale.
      add(module + ".weight", {out, in}, DType::kFloat8E4M3);
      add(module + ".weight_scale", {}, DType::kFloat32);
      if (q.activation_scales) add(module + ".input_scale", {}, DType::kFloat32);
      break;
    case QuantMethod::kModelOptNvfp4:
    case QuantMethod::kCompressedTensorsNvfp4: {
      // ModelOpt's NVFP4 export and compressed-tensors' NVFP4PackedCompressor: E2M1 pairs
      // in uint8, an e4m3 scale per 16 inputs, float32 global scales (compressed-tensors
      // stores them as one-element tensors, ModelOpt as scalars).
      const bool modelopt = q.method == QuantMethod::kModelOptNvfp4;
      if (in % q.group_size != 0) {
        return invalid_input(module + ": input size " + str(in) +
                             " is not a multiple of the NVFP4 group size 16");
      }
      const std::vector<std::int64_t> global =
          modelopt ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{1};
      add(module + (modelopt ? ".weight" : ".weight_packed"), {out, in / 2}, DType::kUInt8);
      add(module + ".weight_scale", {out, in / q.group_size}, DType::kFloat8E4M3);
      add(module + (modelopt ? ".weight_scale_2" : ".weight_global_scale"), global,
          DType::kFloat32);
      if (q.activation_scales) {
        add(module + (modelopt ? ".input_scale" : ".input_global_scale"), global, DType::kFloat32);
      }
      break;
    }
  }
  if (bias) add(module + ".bias", {out}, dtype_);
  return Status::ok_status();
}

// Layer `layer`'s attention (-1: the architecture's own head geometry, as MTP layers have).
Status CheckpointBuilder::attention(const std::string& p, std::int64_t layer) {
  if (a_.attention == AttentionKind::kMla) return mla(p);
  const std::int64_t h = a_.hidden_size;
  const std::int64_t head_dim = layer >= 0 ? a_.layer_head_dim(layer) : a_.head_dim;
  const std::int64_t q = a_.num_attention_heads * head_dim;
  const std::int64_t kv =
      (layer >= 0 ? a_.layer_kv_heads(layer) : a_.num_key_value_heads) * head_dim;
  if (a_.global_head_dim > 0) {
    // HF Gemma4TextAttention: q/k/v (no v_proj on a k_eq_v full layer), o_proj, q_norm and
    // k_norm per head (v_norm has no weight).
    const bool no_v = a_.attention_k_eq_v && layer >= 0 && !a_.is_sliding_layer(layer);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".q_proj", q, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".k_proj", kv, h, false));
    if (!no_v) GPUMEM_RETURN_IF_ERROR(linear(p + ".v_proj", kv, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".o_proj", h, q, false));
    norm(p + ".q_norm", head_dim);
    norm(p + ".k_norm", head_dim);
    return Status::ok_status();
  }
  if (a_.family == ArchitectureFamily::kPhi3) {
    // HF Phi3Attention: one fused qkv_proj.
    GPUMEM_RETURN_IF_ERROR(linear(p + ".qkv_proj", q + 2 * kv, h, a_.qkv_bias));
    return linear(p + ".o_proj", h, q, a_.o_proj_bias);
  }
  // Qwen3-Next's q_proj holds a gate row beside each query row (attn_output_gate).
  GPUMEM_RETURN_IF_ERROR(linear(p + ".q_proj", a_.attn_output_gate ? 2 * q : q, h, a_.qkv_bias));
  GPUMEM_RETURN_IF_ERROR(linear(p + ".k_proj", kv, h, a_.qkv_bias));
  GPUMEM_RETURN_IF_ERROR(linear(p + ".v_proj", kv, h, a_.qkv_bias));
  GPUMEM_RETURN_IF_ERROR(
      linear(p + ".o_proj", h, a_.num_attention_heads * a_.v_head_dim, a_.o_proj_bias));
  if (a_.qk_norm_per_layer) {
    // MiniMax-M2 (qk_norm_type per_layer): one weight over all heads of q, one over k; Cohere's
    // [heads, head_dim], the same count.
    norm(p + ".q_norm", q);
    norm(p + ".k_norm", kv);
  } else if (a_.qk_norm) {
    norm(p + ".q_norm", a_.head_dim);
    norm(p + ".k_norm", a_.head_dim);
  }
  if (a_.attention_sinks) add(p + ".sinks", {a_.num_attention_heads}, dtype_);
  return Status::ok_status();
}

Status CheckpointBuilder::mla(const std::string& p) {
  const MlaConfig& m = a_.mla;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t heads = a_.num_attention_heads;
  const std::int64_t qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank > 0) {
    GPUMEM_RETURN_IF_ERROR(linear(p + ".q_a_proj", m.q_lora_rank, h, false));
    norm(p + ".q_a_layernorm", m.q_lora_rank);
    GPUMEM_RETURN_IF_ERROR(linear(p + ".q_b_proj", heads * qk_head, m.q_lora_rank, false));
  } else {
    GPUMEM_RETURN_IF_ERROR(linear(p + ".q_proj", heads * qk_head, h, false));
  }
  GPUMEM_RETURN_IF_ERROR(
      linear(p + ".kv_a_proj_with_mqa", m.kv_lora_rank + m.qk_rope_head_dim, h, false));
  norm(p + ".kv_a_layernorm", m.kv_lora_rank);
  GPUMEM_RETURN_IF_ERROR(linear(p + ".kv_b_proj", heads * (m.qk_nope_head_dim + a_.v_head_dim),
                                m.kv_lora_rank, false));
  if (m.sparse_indexer()) GPUMEM_RETURN_IF_ERROR(indexer(p + ".indexer"));
  return linear(p + ".o_proj", h, heads * a_.v_head_dim, false);
}

// DeepSeek's inference/model.py Indexer: wq_b and wk quantized as the other linears,
// weights_proj kept in bfloat16 (no quant_config in either engine), k_norm a LayerNorm with
// weight and bias.
Status CheckpointBuilder::indexer(const std::string& p) {
  const MlaConfig& m = a_.mla;
  const std::int64_t width = m.index_n_heads * m.index_head_dim;
  GPUMEM_RETURN_IF_ERROR(linear(p + ".wq_b", width, m.q_lora_rank, false));
  GPUMEM_RETURN_IF_ERROR(linear(p + ".wk", m.index_head_dim, a_.hidden_size, false));
  add(p + ".k_norm.weight", {m.index_head_dim}, norm_dtype_);
  add(p + ".k_norm.bias", {m.index_head_dim}, norm_dtype_);
  add(p + ".weights_proj.weight", {m.index_n_heads, a_.hidden_size}, dtype_);
  return Status::ok_status();
}

Status CheckpointBuilder::gated_mlp(const std::string& p, std::int64_t width) {
  const std::int64_t h = a_.hidden_size;
  if (a_.family == ArchitectureFamily::kPhi3 || a_.family == ArchitectureFamily::kGlm4) {
    // HF Phi3MLP (Glm4MLP is one): one fused gate_up_proj.
    GPUMEM_RETURN_IF_ERROR(linear(p + ".gate_up_proj", 2 * width, h, false));
    return linear(p + ".down_proj", h, width, false);
  }
  if (!a_.gated_mlp) {
    // HF NemotronHMLP: up_proj and down_proj (relu2), no gate.
    GPUMEM_RETURN_IF_ERROR(linear(p + ".up_proj", width, h, false));
    return linear(p + ".down_proj", h, width, false);
  }
  GPUMEM_RETURN_IF_ERROR(linear(p + ".gate_proj", width, h, false));
  GPUMEM_RETURN_IF_ERROR(linear(p + ".up_proj", width, h, false));
  return linear(p + ".down_proj", h, width, false);
}

// The shared experts beside the routed ones, one gated MLP named `module`, when the model has
// them.
Status CheckpointBuilder::shared_experts(const std::string& module) {
  const std::int64_t width = a_.moe.shared_expert_intermediate_size;
  return width > 0 ? gated_mlp(module, width) : Status::ok_status();
}

// Mixtral's expert naming (MiniMax-M2 and Kimi Linear keep it): experts.{e}.w1 (gate), w2
// (down), w3 (up).
Status CheckpointBuilder::w1_w2_w3_experts(const std::string& mlp) {
  const std::int64_t h = a_.hidden_size;
  const std::int64_t w = a_.moe.moe_intermediate_size;
  for (std::int64_t e = 0; e < a_.moe.num_experts; ++e) {
    const std::string x = mlp + ".experts." + str(e);
    GPUMEM_RETURN_IF_ERROR(linear(x + ".w1", w, h, false));
    GPUMEM_RETURN_IF_ERROR(linear(x + ".w2", h, w, false));
    GPUMEM_RETURN_IF_ERROR(linear(x + ".w3", w, h, false));
  }
  return Status::ok_status();
}

Status CheckpointBuilder::experts(const std::string& mlp) {
  const MoeConfig& m = a_.moe;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t w = m.moe_intermediate_size;
  switch (a_.family) {
    case ArchitectureFamily::kMixtral:
    case ArchitectureFamily::kPhiMoe:
      // HF MixtralSparseMoeBlock (PhimoeSparseMoeBlock alike): experts.{e}.w1 (gate), w2
      // (down), w3 (up); gate before.
      GPUMEM_RETURN_IF_ERROR(linear(mlp + ".gate", m.num_experts, h, false));
      return w1_w2_w3_experts(mlp);
    case ArchitectureFamily::kMiniMaxM2:
      // MiniMax-M2 block_sparse_moe: the router (kept out of quantization by its
      // modules_to_not_convert "gate"), e_score_correction_bias, experts.{e}.w1/w2/w3.
      // UNCONFIRMED: the stored dtypes of gate (model dtype assumed) and bias (float32).
      add(mlp + ".gate.weight", {m.num_experts, h}, dtype_);
      if (m.router_correction_bias) {
        add(mlp + ".e_score_correction_bias", {m.num_experts}, DType::kFloat32);
      }
      return w1_w2_w3_experts(mlp);
    case ArchitectureFamily::kGptOss:
      return gpt_oss_experts(mlp);
    case ArchitectureFamily::kKimiLinear:
      // Kimi Linear's block_sparse_moe: gate.weight, gate.e_score_correction_bias (stored in
      // the model dtype), shared_experts as one MLP, experts.{e}.w1 (gate), w2 (down), w3 (up).
      add(mlp + ".gate.weight", {m.num_experts, h}, dtype_);
      add(mlp + ".gate.e_score_correction_bias", {m.num_experts}, dtype_);
      GPUMEM_RETURN_IF_ERROR(shared_experts(mlp + ".shared_experts"));
      return w1_w2_w3_experts(mlp);
    case ArchitectureFamily::kErnie45:
      // HF Ernie4_5_MoeSparseMoeBlock: a float32 gate and moe_statics' [1, experts] float32
      // bias, experts.{e}.gate/up/down_proj, shared_experts as one MLP.
      add(mlp + ".gate.weight", {m.num_experts, h}, DType::kFloat32);
      add(mlp + ".moe_statics.e_score_correction_bias", {1, m.num_experts}, DType::kFloat32);
      GPUMEM_RETURN_IF_ERROR(shared_experts(mlp + ".shared_experts"));
      break;
    case ArchitectureFamily::kDeepseekV2:
    case ArchitectureFamily::kDeepseekV3:
    case ArchitectureFamily::kGlm4Moe:
      // DeepseekV2MoE / DeepseekV3MoE / Glm4MoeMoE: the gate is a plain Parameter (never
      // quantized), with the float32 e_score_correction_bias of noaux_tc routing; shared experts
      // as one MLP.
      add(mlp + ".gate.weight", {m.num_experts, h}, dtype_);
      if (m.router_correction_bias) {
        add(mlp + ".gate.e_score_correction_bias", {m.num_experts}, DType::kFloat32);
      }
      GPUMEM_RETURN_IF_ERROR(shared_experts(mlp + ".shared_experts"));
      break;
    case ArchitectureFamily::kQwen2Moe:
    case ArchitectureFamily::kQwen3Next:
    case ArchitectureFamily::kQwen35:
      // Qwen2MoeSparseMoeBlock (and HF Qwen3NextSparseMoeBlock): gate, shared_expert (an MLP) and
      // shared_expert_gate
      // ([1, hidden]) are nn.Linear modules.
      GPUMEM_RETURN_IF_ERROR(linear(mlp + ".gate", m.num_experts, h, false));
      GPUMEM_RETURN_IF_ERROR(shared_experts(mlp + ".shared_expert"));
      GPUMEM_RETURN_IF_ERROR(linear(mlp + ".shared_expert_gate", 1, h, false));
      break;
    default:
      // Qwen3MoeSparseMoeBlock: gate is an nn.Linear.
      GPUMEM_RETURN_IF_ERROR(linear(mlp + ".gate", m.num_experts, h, false));
      break;
  }
  for (std::int64_t e = 0; e < m.num_experts; ++e) {
    GPUMEM_RETURN_IF_ERROR(gated_mlp(mlp + ".experts." + str(e), w));
  }
  return Status::ok_status();
}

// HF GptOssExperts as the MXFP4 checkpoint stores them: gate_up and down as E2M1 blocks of
// 32 values in 16 bytes with one E8M0 scale each, biases in the model dtype; the router
// with its bias.
Status CheckpointBuilder::gpt_oss_experts(const std::string& mlp) {
  const MoeConfig& m = a_.moe;
  const std::int64_t e = m.num_experts;
  const std::int64_t h = a_.hidden_size;
  const std::int64_t w = m.moe_intermediate_size;
  const std::string x = mlp + ".experts";
  if (a_.quantization.method == QuantMethod::kMxfp4 && !a_.quantization.not_converted.matches(x)) {
    add(x + ".gate_up_proj_blocks", {e, 2 * w, h / 32, 16}, DType::kUInt8);
    add(x + ".gate_up_proj_scales", {e, 2 * w, h / 32}, DType::kUInt8);
    add(x + ".down_proj_blocks", {e, h, w / 32, 16}, DType::kUInt8);
    add(x + ".down_proj_scales", {e, h, w / 32}, DType::kUInt8);
  } else {
    add(x + ".gate_up_proj", {e, h, 2 * w}, dtype_);
    add(x + ".down_proj", {e, w, h}, dtype_);
  }
  add(x + ".gate_up_proj_bias", {e, 2 * w}, dtype_);
  add(x + ".down_proj_bias", {e, h}, dtype_);
  add(mlp + ".router.weight", {e, h}, dtype_);
  add(mlp + ".router.bias", {e}, dtype_);
  return Status::ok_status();
}

std::string CheckpointBuilder::mlp_module(const std::string& prefix) const {
  const bool block_sparse =
      a_.family == ArchitectureFamily::kMixtral || a_.family == ArchitectureFamily::kMiniMaxM2 ||
      a_.family == ArchitectureFamily::kPhiMoe || a_.family == ArchitectureFamily::kKimiLinear;
  return prefix + (block_sparse ? ".block_sparse_moe" : ".mlp");
}

// HF Gemma4TextDecoderLayer with enable_moe_block: the router (proj, scale, per_expert_scale),
// the experts stored fused ([experts, 2 x width, hidden] and [experts, hidden, width]) and
// the three norms of the second branch, beside the dense MLP.
void CheckpointBuilder::gemma4_experts(const std::string& prefix) {
  const MoeConfig& m = a_.moe;
  const std::int64_t h = a_.hidden_size;
  add(prefix + ".router.proj.weight", {m.num_experts, h}, dtype_);
  add(prefix + ".router.scale", {h}, dtype_);
  add(prefix + ".router.per_expert_scale", {m.num_experts}, dtype_);
  add(prefix + ".experts.gate_up_proj", {m.num_experts, 2 * m.moe_intermediate_size, h}, dtype_);
  add(prefix + ".experts.down_proj", {m.num_experts, h, m.moe_intermediate_size}, dtype_);
  for (const char* n : {".post_feedforward_layernorm_1", ".post_feedforward_layernorm_2",
                        ".pre_feedforward_layernorm_2"}) {
    norm(prefix + n, h);
  }
}

Status CheckpointBuilder::decoder(const std::string& prefix, bool moe, bool linear_attention,
                                  std::int64_t layer) {
  if (linear_attention && a_.linear.kind == LinearKind::kKimiDelta) {
    GPUMEM_RETURN_IF_ERROR(kimi_delta_attention(prefix + ".self_attn"));
  } else {
    GPUMEM_RETURN_IF_ERROR(linear_attention ? gated_delta_net(prefix + ".linear_attn")
                                            : attention(prefix + ".self_attn", layer));
  }
  if (a_.layer_scalar) add(prefix + ".layer_scalar", {1}, dtype_);
  if (a_.moe_beside_mlp) {
    GPUMEM_RETURN_IF_ERROR(gated_mlp(prefix + ".mlp", a_.intermediate_size));
    if (moe) gemma4_experts(prefix);
  } else if (moe) {
    GPUMEM_RETURN_IF_ERROR(experts(mlp_module(prefix)));
  } else {
    GPUMEM_RETURN_IF_ERROR(gated_mlp(prefix + ".mlp", a_.intermediate_size));
  }
  const DecoderNorms norms = decoder_norms(a_);
  for (const std::string_view n : norms.decoder) decoder_norm(prefix + std::string(n));
  for (const std::string_view n : norms.sandwich) norm(prefix + std::string(n), a_.hidden_size);
  return Status::ok_status();
}

// HF modeling_decilm.py DeciLMDecoderLayer: self_attn and input_layernorm unless the
// attention is a no-op, mlp and post_attention_layernorm unless the FFN is one.
Status CheckpointBuilder::decilm_layer(const std::string& prefix, std::int64_t i) {
  if (a_.layer_types[static_cast<size_t>(i)] != LayerAttention::kNone) {
    GPUMEM_RETURN_IF_ERROR(attention(prefix + ".self_attn", i));
    decoder_norm(prefix + ".input_layernorm");
  }
  if (!a_.has_mlp(i)) return Status::ok_status();
  GPUMEM_RETURN_IF_ERROR(gated_mlp(prefix + ".mlp", a_.layer_intermediate_size(i)));
  decoder_norm(prefix + ".post_attention_layernorm");
  return Status::ok_status();
}

Status CheckpointBuilder::layer(const std::string& prefix, std::int64_t i) {
  if (a_.single_module_layers) return single_module_layer(prefix, i);
  if (a_.family == ArchitectureFamily::kDeciLM) return decilm_layer(prefix, i);
  return decoder(prefix, a_.is_moe_layer(i), a_.is_linear_layer(i), i);
}

// Qwen3-Next's MTP block (mtp.*): fc over [embedding, hidden] with its two input norms, full-
// attention MoE decoder layers and a final norm; it shares the model's embedding and head.
Status CheckpointBuilder::qwen3_next_mtp() {
  const std::int64_t h = a_.hidden_size;
  add("mtp.fc.weight", {h, 2 * h}, dtype_);
  norm("mtp.pre_fc_norm_embedding", h);
  norm("mtp.pre_fc_norm_hidden", h);
  for (std::int64_t k = 0; k < a_.num_nextn_predict_layers; ++k) {
    GPUMEM_RETURN_IF_ERROR(decoder("mtp.layers." + str(k), a_.moe.num_experts > 0));
  }
  norm("mtp.norm", h);
  return Status::ok_status();
}

// A multi-token-prediction layer as DeepSeek-V3 ships it (model.layers.<n>): its own
// embedding and head copies, the two input norms, eh_proj (never quantized) and a full MoE
// decoder layer.
Status CheckpointBuilder::mtp_layer(std::int64_t index) {
  const std::string p = "model.layers." + str(index);
  const std::int64_t h = a_.hidden_size;
  // GLM-5's MTP layer shares the model's embedding and head: its checkpoint has neither
  // (GLM-5.1 and GLM-5.1-FP8 tensor tables).
  const bool own_embedding = a_.hf_architecture != "GlmMoeDsaForCausalLM";
  if (own_embedding) add(p + ".embed_tokens.weight", {a_.vocab_size, h}, dtype_);
  norm(p + ".enorm", h);
  norm(p + ".hnorm", h);
  add(p + ".eh_proj.weight", {h, 2 * h}, dtype_);
  norm(p + ".shared_head.norm", h);
  if (own_embedding) add(p + ".shared_head.head.weight", {a_.vocab_size, h}, dtype_);
  return decoder(p, a_.moe.num_experts > 0);
}

void CheckpointBuilder::layer_norm(const std::string& module, std::int64_t size) {
  add(module + ".weight", {size}, dtype_);
  add(module + ".bias", {size}, dtype_);
}

std::string_view safetensors_dtype(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "F32";
    case DType::kBFloat16:
      return "BF16";
    case DType::kFloat16:
      return "F16";
    case DType::kFloat8E4M3:
      return "F8_E4M3";
    case DType::kUInt8:
      return "U8";
    case DType::kInt8:
      return "I8";
    case DType::kInt32:
      return "I32";
    case DType::kInt64:
      return "I64";
    case DType::kFloat8E8M0:
      return "F8_E8M0";
  }
  return "?";
}

Result<std::vector<CheckpointTensor>> checkpoint_tensors(const Architecture& a,
                                                         const CheckpointOptions& options) {
  if (a.family == ArchitectureFamily::kDeepseekV4) {
    Result<std::vector<CheckpointTensor>> v4 = deepseek_v4_checkpoint_tensors(a);
    if (v4.ok()) {
      std::sort(v4->begin(), v4->end(), [](const CheckpointTensor& x, const CheckpointTensor& y) {
        return x.name < y.name;
      });
    }
    return v4;
  }
  CheckpointBuilder b(a, options);
  GPUMEM_RETURN_IF_ERROR(b.build());
  return b.take();
}

CheckpointOptions checkpoint_options_from(const std::vector<SafetensorsTensor>& tensors) {
  CheckpointOptions o;
  const auto dtype_of = [](const std::string& name) -> std::optional<DType> {
    for (DType t : {DType::kFloat32, DType::kBFloat16, DType::kFloat16}) {
      if (safetensors_dtype(t) == name) return t;
    }
    return std::nullopt;
  };
  for (const SafetensorsTensor& t : tensors) {
    if (!o.storage_dtype && t.name.ends_with("embed_tokens.weight"))
      o.storage_dtype = dtype_of(t.dtype);
    if (!o.block_scale_dtype && t.name.ends_with(".weight_scale_inv")) {
      o.block_scale_dtype = dtype_of(t.dtype);
    }
  }
  return o;
}

Bytes checkpoint_bytes(const std::vector<CheckpointTensor>& tensors) {
  Bytes total = bytes(0);
  for (const CheckpointTensor& t : tensors) total += t.bytes;
  return total;
}

}  // namespace gpumem
