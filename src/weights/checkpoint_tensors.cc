#include "weights/checkpoint_tensors.h"

#include <algorithm>
#include <numeric>

#include "weights/deepseek_v4_checkpoint.h"

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class CheckpointBuilder {
 public:
  CheckpointBuilder(const Architecture& a, const CheckpointOptions& o)
      : a_(a),
        dtype_(o.storage_dtype.value_or(a.dtype)),
        scale_dtype_(o.block_scale_dtype.value_or(DType::kFloat32)),
        norm_dtype_(o.norm_dtype.value_or(dtype_)) {}

  Status build() {
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
        a_.family == ArchitectureFamily::kGraniteHybrid ||
        a_.family == ArchitectureFamily::kJamba ||
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

  std::vector<CheckpointTensor> take() { return std::move(out_); }

 private:
  void add(const std::string& name, std::vector<std::int64_t> shape, DType dtype) {
    const std::int64_t n =
        std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
    out_.push_back(
        {name, std::move(shape), std::string(safetensors_dtype(dtype)), element_size(dtype) * n});
  }

  void norm(const std::string& module, std::int64_t size) {
    add(module + ".weight", {size}, norm_dtype_);
  }

  // HF PhimoeDecoderLayer / PhimoeModel: nn.LayerNorm (weight and bias) where other families
  // keep an RMSNorm.
  void decoder_norm(const std::string& module) {
    if (a_.layer_norm_bias) return layer_norm(module, a_.hidden_size);
    norm(module, a_.hidden_size);
  }

  // One nn.Linear of the checkpoint: `module` is its HF name (the quantization's module
  // patterns are matched against it).
  Status linear(const std::string& module, std::int64_t out, std::int64_t in, bool bias) {
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
          add(module + (modelopt ? ".input_scale" : ".input_global_scale"), global,
              DType::kFloat32);
        }
        break;
      }
    }
    if (bias) add(module + ".bias", {out}, dtype_);
    return Status::ok_status();
  }

  // Layer `layer`'s attention (-1: the architecture's own head geometry, as MTP layers have).
  Status attention(const std::string& p, std::int64_t layer = -1) {
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

  Status mla(const std::string& p) {
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
  Status indexer(const std::string& p) {
    const MlaConfig& m = a_.mla;
    const std::int64_t width = m.index_n_heads * m.index_head_dim;
    GPUMEM_RETURN_IF_ERROR(linear(p + ".wq_b", width, m.q_lora_rank, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".wk", m.index_head_dim, a_.hidden_size, false));
    add(p + ".k_norm.weight", {m.index_head_dim}, norm_dtype_);
    add(p + ".k_norm.bias", {m.index_head_dim}, norm_dtype_);
    add(p + ".weights_proj.weight", {m.index_n_heads, a_.hidden_size}, dtype_);
    return Status::ok_status();
  }

  Status gated_mlp(const std::string& p, std::int64_t width) {
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

  // Mixtral's expert naming (MiniMax-M2 and Kimi Linear keep it): experts.{e}.w1 (gate), w2
  // (down), w3 (up).
  Status w1_w2_w3_experts(const std::string& mlp) {
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

  Status experts(const std::string& mlp) {
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
        if (m.shared_expert_intermediate_size > 0) {
          GPUMEM_RETURN_IF_ERROR(
              gated_mlp(mlp + ".shared_experts", m.shared_expert_intermediate_size));
        }
        return w1_w2_w3_experts(mlp);
      case ArchitectureFamily::kErnie45:
        // HF Ernie4_5_MoeSparseMoeBlock: a float32 gate and moe_statics' [1, experts] float32
        // bias, experts.{e}.gate/up/down_proj, shared_experts as one MLP.
        add(mlp + ".gate.weight", {m.num_experts, h}, DType::kFloat32);
        add(mlp + ".moe_statics.e_score_correction_bias", {1, m.num_experts}, DType::kFloat32);
        if (m.shared_expert_intermediate_size > 0) {
          GPUMEM_RETURN_IF_ERROR(
              gated_mlp(mlp + ".shared_experts", m.shared_expert_intermediate_size));
        }
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
        if (m.shared_expert_intermediate_size > 0) {
          GPUMEM_RETURN_IF_ERROR(
              gated_mlp(mlp + ".shared_experts", m.shared_expert_intermediate_size));
        }
        break;
      case ArchitectureFamily::kQwen2Moe:
      case ArchitectureFamily::kQwen3Next:
      case ArchitectureFamily::kQwen35:
        // Qwen2MoeSparseMoeBlock (and HF Qwen3NextSparseMoeBlock): gate, shared_expert (an MLP) and
        // shared_expert_gate
        // ([1, hidden]) are nn.Linear modules.
        GPUMEM_RETURN_IF_ERROR(linear(mlp + ".gate", m.num_experts, h, false));
        if (m.shared_expert_intermediate_size > 0) {
          GPUMEM_RETURN_IF_ERROR(
              gated_mlp(mlp + ".shared_expert", m.shared_expert_intermediate_size));
        }
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
  Status gpt_oss_experts(const std::string& mlp) {
    const MoeConfig& m = a_.moe;
    const std::int64_t e = m.num_experts;
    const std::int64_t h = a_.hidden_size;
    const std::int64_t w = m.moe_intermediate_size;
    const std::string x = mlp + ".experts";
    if (a_.quantization.method == QuantMethod::kMxfp4 &&
        !a_.quantization.not_converted.matches(x)) {
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

  std::string mlp_module(const std::string& prefix) const {
    const bool block_sparse =
        a_.family == ArchitectureFamily::kMixtral || a_.family == ArchitectureFamily::kMiniMaxM2 ||
        a_.family == ArchitectureFamily::kPhiMoe || a_.family == ArchitectureFamily::kKimiLinear;
    return prefix + (block_sparse ? ".block_sparse_moe" : ".mlp");
  }

  // HF Qwen3NextGatedDeltaNet (and Qwen3_5GatedDeltaNet): the projections, the depthwise conv1d
  // ([channels, 1, kernel]), dt_bias and A_log per value head, the gated norm and out_proj; all
  // stored in the checkpoint dtype.
  Status gated_delta_net(const std::string& p) {
    const LinearAttentionConfig& g = a_.linear;
    const std::int64_t h = a_.hidden_size;
    if (a_.family == ArchitectureFamily::kQwen35) {
      // HF Qwen3_5GatedDeltaNet stores q/k/v, z, b and a apart.
      GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_qkv", 2 * g.key_dim() + g.value_dim(), h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_z", g.value_dim(), h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_b", g.num_value_heads, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_a", g.num_value_heads, h, false));
    } else {
      GPUMEM_RETURN_IF_ERROR(
          linear(p + ".in_proj_qkvz", 2 * g.key_dim() + 2 * g.value_dim(), h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj_ba", 2 * g.num_value_heads, h, false));
    }
    add(p + ".conv1d.weight", {g.conv_dim(), 1, g.conv_kernel}, dtype_);
    add(p + ".dt_bias", {g.num_value_heads}, dtype_);
    add(p + ".A_log", {g.num_value_heads}, dtype_);
    norm(p + ".norm", g.value_head_dim);
    return linear(p + ".out_proj", h, g.value_dim(), false);
  }

  // Kimi Linear's KimiDeltaAttention as its checkpoint stores it (vllm layers/kda.py names):
  // q/k/v projections and their depthwise convolutions ([channels, 1, kernel]), the low-rank
  // forget and output gates, b_proj, A_log ([1, 1, heads, 1]) and dt_bias in float32 (the
  // published total_size of Kimi-Linear-48B-A3B holds exactly these two in float32), o_norm,
  // o_proj.
  Status kimi_delta_attention(const std::string& p) {
    const LinearAttentionConfig& g = a_.linear;
    const std::int64_t h = a_.hidden_size;
    const std::int64_t width = g.value_dim();
    const std::int64_t d = g.value_head_dim;
    for (const char* x : {"q", "k", "v"}) {
      GPUMEM_RETURN_IF_ERROR(linear(p + "." + x + "_proj", width, h, false));
      add(p + "." + x + "_conv1d.weight", {width, 1, g.conv_kernel}, dtype_);
    }
    for (const char* x : {".f", ".g"}) {
      GPUMEM_RETURN_IF_ERROR(linear(p + x + "_a_proj", d, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + x + "_b_proj", width, d, false));
    }
    GPUMEM_RETURN_IF_ERROR(linear(p + ".b_proj", g.num_value_heads, h, false));
    add(p + ".A_log", {1, 1, g.num_value_heads, 1}, DType::kFloat32);
    add(p + ".dt_bias", {width}, DType::kFloat32);
    norm(p + ".o_norm", d);
    return linear(p + ".o_proj", h, width, false);
  }

  // HF NemotronHMamba2Mixer: in_proj (z, x, B, C, dt), the depthwise conv1d with its bias,
  // A_log, D and dt_bias per head, the gated norm and out_proj.
  Status mamba2_mixer(const std::string& p) {
    const LinearAttentionConfig& g = a_.linear;
    const std::int64_t h = a_.hidden_size;
    const std::int64_t conv_dim = g.value_dim() + 2 * g.num_key_heads * g.key_head_dim;
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".in_proj", g.value_dim() + conv_dim + g.num_value_heads, h, false));
    add(p + ".conv1d.weight", {conv_dim, 1, g.conv_kernel}, dtype_);
    if (g.conv_bias) add(p + ".conv1d.bias", {conv_dim}, dtype_);
    for (const char* n : {".A_log", ".D", ".dt_bias"}) add(p + n, {g.num_value_heads}, dtype_);
    norm(p + ".norm", g.value_dim());
    return linear(p + ".out_proj", h, g.value_dim(), false);
  }

  // HF MambaMixer: in_proj (x and z), the depthwise conv1d with its bias, x_proj (dt, B, C),
  // dt_proj with its bias, A_log [inner, state], D and out_proj; Jamba's dt/B/C norms aside.
  Status mamba1_mixer(const std::string& p) {
    const LinearAttentionConfig& g = a_.linear;
    const std::int64_t h = a_.hidden_size;
    const std::int64_t inner = g.value_dim();
    GPUMEM_RETURN_IF_ERROR(linear(p + ".in_proj", 2 * inner, h, false));
    add(p + ".conv1d.weight", {inner, 1, g.conv_kernel}, dtype_);
    if (g.conv_bias) add(p + ".conv1d.bias", {inner}, dtype_);
    GPUMEM_RETURN_IF_ERROR(
        linear(p + ".x_proj", g.time_step_rank + 2 * g.key_head_dim, inner, false));
    GPUMEM_RETURN_IF_ERROR(linear(p + ".dt_proj", inner, g.time_step_rank, true));
    add(p + ".A_log", {inner, g.key_head_dim}, dtype_);
    add(p + ".D", {inner}, dtype_);
    return linear(p + ".out_proj", h, inner, false);
  }

  // A NemotronH or Mamba layer ("backbone.layers.<i>"): one mixer (Mamba, attention or MLP) and
  // its norm.
  Status single_module_layer(const std::string& prefix, std::int64_t i) {
    const std::string mixer = prefix + ".mixer";
    if (a_.is_linear_layer(i) && a_.linear.kind == LinearKind::kMamba1) {
      GPUMEM_RETURN_IF_ERROR(mamba1_mixer(mixer));
    } else if (a_.is_linear_layer(i)) {
      GPUMEM_RETURN_IF_ERROR(mamba2_mixer(mixer));
    } else if (a_.has_mlp(i)) {
      GPUMEM_RETURN_IF_ERROR(gated_mlp(mixer, a_.intermediate_size));
    } else {
      GPUMEM_RETURN_IF_ERROR(attention(mixer));
    }
    norm(prefix + ".norm", a_.hidden_size);
    return Status::ok_status();
  }

  // HF Gemma4TextDecoderLayer with enable_moe_block: the router (proj, scale, per_expert_scale),
  // the experts stored fused ([experts, 2 x width, hidden] and [experts, hidden, width]) and
  // the three norms of the second branch, beside the dense MLP.
  void gemma4_experts(const std::string& prefix) {
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

  Status decoder(const std::string& prefix, bool moe, bool linear_attention = false,
                 std::int64_t layer = -1) {
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
    if (a_.parallel_block) {
      // HF CohereDecoderLayer: input_layernorm only (a LayerNorm without bias).
      decoder_norm(prefix + ".input_layernorm");
      return Status::ok_status();
    }
    if (a_.norms_after_sublayers) {
      // HF Olmo2DecoderLayer, Exaone4DecoderLayer: post_attention_layernorm and
      // post_feedforward_layernorm only.
      decoder_norm(prefix + ".post_attention_layernorm");
      decoder_norm(prefix + ".post_feedforward_layernorm");
      return Status::ok_status();
    }
    decoder_norm(prefix + ".input_layernorm");
    decoder_norm(prefix + ".post_attention_layernorm");
    if (a_.sandwich_norms) {
      // HF Glm4DecoderLayer: post_self_attn_layernorm and post_mlp_layernorm.
      const bool glm = a_.family == ArchitectureFamily::kGlm4;
      norm(prefix + (glm ? ".post_self_attn_layernorm" : ".pre_feedforward_layernorm"),
           a_.hidden_size);
      norm(prefix + (glm ? ".post_mlp_layernorm" : ".post_feedforward_layernorm"), a_.hidden_size);
    }
    return Status::ok_status();
  }

  // HF modeling_decilm.py DeciLMDecoderLayer: self_attn and input_layernorm unless the
  // attention is a no-op, mlp and post_attention_layernorm unless the FFN is one.
  Status decilm_layer(const std::string& prefix, std::int64_t i) {
    if (a_.layer_types[static_cast<size_t>(i)] != LayerAttention::kNone) {
      GPUMEM_RETURN_IF_ERROR(attention(prefix + ".self_attn", i));
      decoder_norm(prefix + ".input_layernorm");
    }
    if (!a_.has_mlp(i)) return Status::ok_status();
    GPUMEM_RETURN_IF_ERROR(gated_mlp(prefix + ".mlp", a_.layer_intermediate_size(i)));
    decoder_norm(prefix + ".post_attention_layernorm");
    return Status::ok_status();
  }

  Status layer(const std::string& prefix, std::int64_t i) {
    if (a_.single_module_layers) return single_module_layer(prefix, i);
    if (a_.family == ArchitectureFamily::kDeciLM) return decilm_layer(prefix, i);
    return decoder(prefix, a_.is_moe_layer(i), a_.is_linear_layer(i), i);
  }

  // Qwen3-Next's MTP block (mtp.*): fc over [embedding, hidden] with its two input norms, full-
  // attention MoE decoder layers and a final norm; it shares the model's embedding and head.
  Status qwen3_next_mtp() {
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
  Status mtp_layer(std::int64_t index) {
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

  // HF SiglipVisionModel without its head (Gemma 3's vision_tower) and
  // Gemma3MultiModalProjector, all in the model dtype.
  Status vision_tower() {
    switch (a_.vision.kind) {
      case VisionKind::kQwen2Vit:
      case VisionKind::kQwen25Vit:
        return qwen2_vit();
      case VisionKind::kGemma4Vit:
        return gemma4_vit();
      case VisionKind::kMoonVit:
        return moon_vit();
      case VisionKind::kGlm4vVit:
        return glm4v_vit();
      case VisionKind::kQwen3Vit:
        return qwen3_vit();
      default:
        return siglip();
    }
  }

  void layer_norm(const std::string& module, std::int64_t size) {
    add(module + ".weight", {size}, dtype_);
    add(module + ".bias", {size}, dtype_);
  }

  // HF Qwen3VLVisionModel ("model.visual."): a biased Conv3d, the position table, blocks of two
  // LayerNorms, qkv, proj, linear_fc1 and linear_fc2 (all biased), the merger and the deepstack
  // mergers (each a LayerNorm and two biased linears over merge^2 x width).
  Status qwen3_vit() {
    const VisionTower& v = a_.vision;
    const std::int64_t h = v.hidden_size;
    const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::string t = "model.visual.";
    add(t + "patch_embed.proj.weight",
        {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
    add(t + "patch_embed.proj.bias", {h}, dtype_);
    add(t + "pos_embed.weight", {v.num_position_embeddings, h}, dtype_);
    for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
      const std::string b = t + "blocks." + str(i);
      layer_norm(b + ".norm1", h);
      layer_norm(b + ".norm2", h);
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.linear_fc1", v.intermediate_size, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.linear_fc2", h, v.intermediate_size, true));
    }
    for (std::int64_t m = -1; m < v.deepstack_mergers(); ++m) {
      const std::string p = m < 0 ? t + "merger" : t + "deepstack_merger_list." + str(m);
      layer_norm(p + ".norm", m < 0 ? h : merged);
      GPUMEM_RETURN_IF_ERROR(linear(p + ".linear_fc1", merged, merged, true));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".linear_fc2", v.out_hidden_size, merged, true));
    }
    return Status::ok_status();
  }

  // HF Qwen2_5_VisionTransformer ("visual."): the Conv3d patch embedding, blocks of two
  // RMSNorms, a fused biased qkv, proj and the gated MLP, and the patch merger. Qwen2-VL's
  // (Qwen2VisionTransformerPretrainedModel) has LayerNorms and a biased fc1/fc2 MLP instead.
  Status qwen2_vit() {
    const VisionTower& v = a_.vision;
    const bool qwen2 = v.kind == VisionKind::kQwen2Vit;
    const std::int64_t h = v.hidden_size;
    const std::int64_t merged = h * v.spatial_merge_size * v.spatial_merge_size;
    const auto vit_norm = [&](const std::string& module) {
      if (qwen2) {
        layer_norm(module, h);
      } else {
        norm(module, h);
      }
    };
    add("visual.patch_embed.proj.weight",
        {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
    for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
      const std::string b = "visual.blocks." + str(i);
      vit_norm(b + ".norm1");
      vit_norm(b + ".norm2");
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, true));
      if (qwen2) {
        GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.fc1", v.intermediate_size, h, true));
        GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.fc2", h, v.intermediate_size, true));
        continue;
      }
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.gate_proj", v.intermediate_size, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.up_proj", v.intermediate_size, h, true));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.down_proj", h, v.intermediate_size, true));
    }
    vit_norm("visual.merger.ln_q");
    GPUMEM_RETURN_IF_ERROR(linear("visual.merger.mlp.0", merged, merged, true));
    return linear("visual.merger.mlp.2", v.out_hidden_size, merged, true);
  }

  // HF Gemma4VisionModel ("vision_tower."): the patch projection and the two-axis position
  // table, per layer q/k/v/o and the gated MLP (each a ".linear" of a clippable linear), q/k
  // norms per head and four norms; std_bias and std_scale; embed_vision's projection.
  Status gemma4_vit() {
    const VisionTower& v = a_.vision;
    const std::int64_t h = v.hidden_size;
    const std::int64_t i = v.intermediate_size;
    const std::string t = "vision_tower.";
    add(t + "patch_embedder.input_proj.weight", {h, v.num_channels * v.patch_size * v.patch_size},
        dtype_);
    add(t + "patch_embedder.position_embedding_table", {2, v.num_position_embeddings, h}, dtype_);
    for (std::int64_t l = 0; l < v.num_hidden_layers; ++l) {
      const std::string p = t + "encoder.layers." + str(l);
      for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".o_proj"}) {
        GPUMEM_RETURN_IF_ERROR(linear(p + ".self_attn" + proj + ".linear", h, h, false));
      }
      norm(p + ".self_attn.q_norm", h / v.num_attention_heads);
      norm(p + ".self_attn.k_norm", h / v.num_attention_heads);
      GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.gate_proj.linear", i, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.up_proj.linear", i, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.down_proj.linear", h, i, false));
      for (const char* n : {".input_layernorm", ".post_attention_layernorm",
                            ".pre_feedforward_layernorm", ".post_feedforward_layernorm"}) {
        norm(p + n, h);
      }
    }
    if (v.standardize) {
      add(t + "std_bias", {h}, dtype_);
      add(t + "std_scale", {h}, dtype_);
    }
    return linear("embed_vision.embedding_projection", a_.hidden_size, h, false);
  }

  // Kimi-K2.5 ("vision_tower.", "mm_projector."): the biased patch Conv2d, pos_emb [rows,
  // columns, width]; blocks of wqkv, wo, mlp.fc0 and mlp.fc1 (all biased) and LayerNorms norm0
  // and norm1; final_layernorm; the projector's pre_norm and proj.0 / proj.2.
  Status moon_vit() {
    const VisionTower& v = a_.vision;
    const std::int64_t h = v.hidden_size;
    const std::int64_t m = h * v.spatial_merge_size * v.spatial_merge_size;
    const std::string t = "vision_tower.";
    add(t + "patch_embed.proj.weight", {h, v.num_channels, v.patch_size, v.patch_size}, dtype_);
    add(t + "patch_embed.proj.bias", {h}, dtype_);
    add(t + "patch_embed.pos_emb.weight", {v.position_rows, v.position_columns, h}, dtype_);
    // The text model's quantization (compressed-tensors INT4, targets "Linear") leaves these
    // linears in the model dtype: the published files hold them in bfloat16.
    const auto dense = [&](const std::string& module, std::int64_t out, std::int64_t in) {
      add(module + ".weight", {out, in}, dtype_);
      add(module + ".bias", {out}, dtype_);
    };
    for (std::int64_t l = 0; l < v.num_hidden_layers; ++l) {
      const std::string b = t + "encoder.blocks." + str(l);
      dense(b + ".wqkv", 3 * h, h);
      dense(b + ".wo", h, h);
      dense(b + ".mlp.fc0", v.intermediate_size, h);
      dense(b + ".mlp.fc1", h, v.intermediate_size);
      layer_norm(b + ".norm0", h);
      layer_norm(b + ".norm1", h);
    }
    layer_norm(t + "encoder.final_layernorm", h);
    layer_norm("mm_projector.pre_norm", h);
    dense("mm_projector.proj.0", m, m);
    dense("mm_projector.proj.2", v.out_hidden_size, m);
    return Status::ok_status();
  }

  // HF Glm4vVisionModel ("model.visual."): the biased Conv3d, the position table,
  // post_conv_layernorm; blocks of RMSNorms norm1 and norm2, qkv (biased with attention_bias),
  // proj and the gated MLP of out_hidden_size; post_layernorm, the biased Conv2d downsample,
  // and the merger: proj, post_projection_norm (a LayerNorm) and its gated MLP of
  // intermediate_size, all linears without biases.
  Status glm4v_vit() {
    const VisionTower& v = a_.vision;
    const std::int64_t h = v.hidden_size;
    const std::int64_t o = v.out_hidden_size;
    const std::string t = "model.visual.";
    add(t + "patch_embed.proj.weight",
        {h, v.num_channels, v.temporal_patch_size, v.patch_size, v.patch_size}, dtype_);
    add(t + "patch_embed.proj.bias", {h}, dtype_);
    add(t + "embeddings.position_embedding.weight", {v.num_patches(), h}, dtype_);
    norm(t + "post_conv_layernorm", h);
    for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
      const std::string b = t + "blocks." + str(i);
      norm(b + ".norm1", h);
      norm(b + ".norm2", h);
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.qkv", 3 * h, h, v.qkv_bias));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".attn.proj", h, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.gate_proj", o, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.up_proj", o, h, false));
      GPUMEM_RETURN_IF_ERROR(linear(b + ".mlp.down_proj", h, o, false));
    }
    norm(t + "post_layernorm", h);
    add(t + "downsample.weight", {o, h, v.spatial_merge_size, v.spatial_merge_size}, dtype_);
    add(t + "downsample.bias", {o}, dtype_);
    GPUMEM_RETURN_IF_ERROR(linear(t + "merger.proj", o, o, false));
    layer_norm(t + "merger.post_projection_norm", o);
    GPUMEM_RETURN_IF_ERROR(linear(t + "merger.gate_proj", v.intermediate_size, o, false));
    GPUMEM_RETURN_IF_ERROR(linear(t + "merger.up_proj", v.intermediate_size, o, false));
    return linear(t + "merger.down_proj", o, v.intermediate_size, false);
  }

  Status siglip() {
    const VisionTower& v = a_.vision;
    const std::string t = "vision_tower.vision_model";
    add(t + ".embeddings.patch_embedding.weight",
        {v.hidden_size, v.num_channels, v.patch_size, v.patch_size}, dtype_);
    add(t + ".embeddings.patch_embedding.bias", {v.hidden_size}, dtype_);
    add(t + ".embeddings.position_embedding.weight", {v.num_patches(), v.hidden_size}, dtype_);
    for (std::int64_t i = 0; i < v.num_hidden_layers; ++i) {
      const std::string p = t + ".encoder.layers." + str(i);
      for (const char* n : {".layer_norm1", ".layer_norm2"}) {
        add(p + n + ".weight", {v.hidden_size}, dtype_);
        add(p + n + ".bias", {v.hidden_size}, dtype_);
      }
      for (const char* proj : {".q_proj", ".k_proj", ".v_proj", ".out_proj"}) {
        GPUMEM_RETURN_IF_ERROR(linear(p + ".self_attn" + proj, v.hidden_size, v.hidden_size, true));
      }
      GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.fc1", v.intermediate_size, v.hidden_size, true));
      GPUMEM_RETURN_IF_ERROR(linear(p + ".mlp.fc2", v.hidden_size, v.intermediate_size, true));
    }
    add(t + ".post_layernorm.weight", {v.hidden_size}, dtype_);
    add(t + ".post_layernorm.bias", {v.hidden_size}, dtype_);
    add("multi_modal_projector.mm_input_projection_weight", {v.hidden_size, a_.hidden_size},
        dtype_);
    add("multi_modal_projector.mm_soft_emb_norm.weight", {v.hidden_size}, dtype_);
    return Status::ok_status();
  }

  const Architecture& a_;
  const DType dtype_;
  const DType scale_dtype_;
  const DType norm_dtype_;
  std::vector<CheckpointTensor> out_;
};

}  // namespace

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
