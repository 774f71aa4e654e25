// The MoE blocks of a rank's weights: routers, shared experts and each quantization's expert layout
// (rank_builder.h).
#include "weights/linear_attention_weights.h"
#include "weights/linear_weights.h"
#include "weights/moe_weights.h"
#include "weights/rank_builder.h"

namespace gpumem {

// sglang nemotron_h.py NemotronHMoE.__init__ (PR #12690): the float32 router and its
// e_score_correction_bias, the non-gated experts, then the shared experts as a TP-sharded
// non-gated MLP; vllm nemotron_h.py builds the shared experts before the experts
// (WeightRules::nemotron_shared_experts_first).
Status ModelBuilder::nemotron_moe(const std::string& mixer) {
  const Architecture& a = ctx_.arch;
  deepseek_gate(mixer);
  const auto shared = [&]() -> Status {
    if (a.moe.shared_expert_intermediate_size == 0) return Status::ok_status();
    return add_dense_mlp(list_, ctx_, mixer + ".shared_experts", mixer + ".shared_experts",
                         a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_);
  };
  if (ctx_.rules.nemotron_shared_experts_first) GPUMEM_RETURN_IF_ERROR(shared());
  GPUMEM_RETURN_IF_ERROR(experts(mixer));
  return ctx_.rules.nemotron_shared_experts_first ? Status::ok_status() : shared();
}

// vllm gemma4.py Gemma4DecoderLayer with enable_moe_block: the dense MLP, then the router
// (Gemma4Router: scale [hidden] and proj, a replicated linear without quantization), the
// experts (Gemma4MoE: per_expert_scale [experts] and FusedMoE, no shared expert) and the
// three norms of the experts' branch.
Status ModelBuilder::gemma4_feed_forward(std::int64_t i, const std::string& prefix,
                                         const std::string& checkpoint) {
  const Architecture& a = ctx_.arch;
  GPUMEM_RETURN_IF_ERROR(add_dense_mlp(list_, ctx_, prefix + ".mlp", checkpoint + ".mlp",
                                       a.intermediate_size, ctx_.layout.tp_size, post_load_));
  if (!a.is_moe_layer(i)) return Status::ok_status();
  list_.add(prefix + ".router.scale", {a.hidden_size}, ctx_.dtype);
  linear_router(prefix + ".router.proj", false);
  list_.add(prefix + ".moe.per_expert_scale", {a.moe.num_experts}, ctx_.dtype);
  GPUMEM_RETURN_IF_ERROR(experts(prefix + ".moe"));
  for (const char* n : {".post_feedforward_layernorm_1", ".post_feedforward_layernorm_2",
                        ".pre_feedforward_layernorm_2"}) {
    add_norm(list_, ctx_, prefix + n + ".weight", a.hidden_size);
  }
  return Status::ok_status();
}

// sglang granitemoehybrid.py (vLLM's alike): block_sparse_moe (GraniteMoeMoE: the gate, a
// ReplicatedLinear without quantization, then the experts) when the config has experts, then
// shared_mlp (GraniteMoeSharedMLP: a TP-sharded gated MLP) when it has a shared width.
Status ModelBuilder::granite_feed_forward(const std::string& prefix) {
  const Architecture& a = ctx_.arch;
  if (a.moe.num_experts > 0) {
    linear_router(prefix + ".block_sparse_moe.gate", false);
    GPUMEM_RETURN_IF_ERROR(experts(prefix + ".block_sparse_moe"));
  }
  if (a.moe.shared_expert_intermediate_size == 0) return Status::ok_status();
  return add_dense_mlp(list_, ctx_, prefix + ".shared_mlp", prefix + ".shared_mlp",
                       a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_);
}

Status ModelBuilder::experts(const std::string& mlp) {
  const Architecture& a = ctx_.arch;
  const ParallelLayout& l = ctx_.layout;
  const std::int64_t total =
      a.moe.num_experts + (fuses_shared_experts(a, l, ctx_.rules) ? a.moe.num_shared_experts : 0);
  // sglang v0.5.9 deepseek_v2.py DeepseekV2MoE / qwen3_moe.py Qwen3MoeSparseMoeBlock
  if (l.tp_size > a.moe.num_experts) {
    return invalid_input("Tensor parallel size " + str(l.tp_size) +
                         " is greater than the number of experts " + str(a.moe.num_experts) + ".");
  }
  // sglang v0.5.9 fused_moe_triton/layer.py FusedMoE.__init__: experts split over EP,
  // each expert's width over the MoE TP group
  const int moe_tp = moe_tp_size(l);
  if (total % l.ep_size != 0 || a.moe.moe_intermediate_size % moe_tp != 0) {
    return invalid_input(mlp + ".experts: " + str(total) + " experts of width " +
                         str(a.moe.moe_intermediate_size) + " do not split over ep_size " +
                         str(l.ep_size) + " and MoE tensor-parallel size " + str(moe_tp));
  }
  return add_fused_moe(list_, ctx_,
                       {mlp + ".experts", total / l.ep_size, a.moe.moe_intermediate_size / moe_tp,
                        moe_tp, a.moe.expert_bias, a.gated_mlp},
                       post_load_);
}

// Router of DeepSeek-style MoE: sglang v0.5.9 deepseek_v2.py MoEGate.__init__ (weight in
// the default dtype, float32 e_score_correction_bias); glm4_moe.py Glm4MoeGate likewise,
// and vLLM's GLM router in float32 (WeightRules::float32_glm_router).
void ModelBuilder::deepseek_gate(const std::string& mlp) {
  const Architecture& a = ctx_.arch;
  const bool ernie = a.family == ArchitectureFamily::kErnie45;
  const bool float32 =
      a.moe.router_float32 ||
      (a.family == ArchitectureFamily::kGlm4Moe && ctx_.rules.float32_glm_router) ||
      (ernie && ctx_.rules.float32_ernie_router);
  list_.add(mlp + ".gate.weight", {a.moe.num_experts, a.hidden_size},
            float32 ? DType::kFloat32 : ctx_.dtype);
  if (!a.moe.router_correction_bias) return;
  if (ernie && !float32) {
    list_.add(mlp + ".gate.e_score_correction_bias", {1, a.moe.num_experts}, ctx_.dtype);
  } else {
    list_.add(mlp + ".gate.e_score_correction_bias", {a.moe.num_experts}, DType::kFloat32);
  }
}

// Routers built as ReplicatedLinear without quantization (qwen3_moe.py, mixtral.py,
// gpt_oss.py): weight [experts, hidden] and, for gpt-oss, a bias.
void ModelBuilder::linear_router(const std::string& name, bool bias) {
  const Architecture& a = ctx_.arch;
  list_.add(name + ".weight", {a.moe.num_experts, a.hidden_size}, ctx_.dtype);
  if (bias) list_.add(name + ".bias", {a.moe.num_experts}, ctx_.dtype);
}

Status ModelBuilder::moe_block(const std::string& mlp) {
  const Architecture& a = ctx_.arch;
  switch (a.family) {
    case ArchitectureFamily::kQwen3Moe:
      // sglang v0.5.9 qwen3_moe.py Qwen3MoeSparseMoeBlock.__init__: experts, then gate
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      linear_router(mlp + ".gate", false);
      return Status::ok_status();
    case ArchitectureFamily::kMixtral:
    case ArchitectureFamily::kPhiMoe:
      // sglang v0.5.9 mixtral.py MixtralMoE.__init__ (vLLM-derived) and phimoe.py
      // PhiMoE.__init__: gate, then experts
      linear_router(mlp + ".gate", false);
      return experts(mlp);
    case ArchitectureFamily::kGrok:
      // sglang grok.py Grok1MoE.__init__: the gate, a float32 ReplicatedLinear without
      // quantization, then the experts
      list_.add(mlp + ".gate.weight", {a.moe.num_experts, a.hidden_size}, DType::kFloat32);
      return experts(mlp);
    case ArchitectureFamily::kGptOss:
      // sglang v0.5.9 gpt_oss.py GptOssSparseMoeBlock.__init__: experts, then router
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      linear_router(mlp + ".router", a.moe.router_bias);
      return Status::ok_status();
    case ArchitectureFamily::kQwen2Moe:
    case ArchitectureFamily::kQwen3Next:
    case ArchitectureFamily::kQwen35:
      // sglang (read at 0115497) qwen2_moe.py Qwen2MoeSparseMoeBlock.__init__: experts, the
      // unquantized router, the shared expert as a TP-sharded MLP, and shared_expert_gate, a
      // plain torch.nn.Linear(hidden, 1) in the default dtype (vLLM's: a ReplicatedLinear)
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      linear_router(mlp + ".gate", false);
      if (a.moe.shared_expert_intermediate_size > 0) {
        GPUMEM_RETURN_IF_ERROR(
            add_dense_mlp(list_, ctx_, mlp + ".shared_expert", mlp + ".shared_expert",
                          a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_));
      }
      list_.add(mlp + ".shared_expert_gate.weight", {1, a.hidden_size}, ctx_.dtype);
      return Status::ok_status();
    case ArchitectureFamily::kLlama4:
      // sglang llama4.py Llama4MoE.__init__ (vLLM's alike): the router a ReplicatedLinear
      // without quantization, the experts, then the shared expert, a TP-sharded LlamaMLP of
      // the experts' width with no gate of its own
      linear_router(mlp + ".router", false);
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      return add_dense_mlp(list_, ctx_, mlp + ".shared_expert", mlp + ".shared_expert",
                           a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_);
    case ArchitectureFamily::kMiniMaxM2:
      // sglang (read at 01b5f57) minimax_m2.py MiniMaxM2MoE.__init__: the float32
      // e_score_correction_bias, the experts, then the gate as a float32 ReplicatedLinear
      // without quantization (vLLM's the same)
      if (a.moe.router_correction_bias) {
        list_.add(mlp + ".e_score_correction_bias", {a.moe.num_experts}, DType::kFloat32);
      }
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      list_.add(mlp + ".gate.weight", {a.moe.num_experts, a.hidden_size}, DType::kFloat32);
      return Status::ok_status();
    case ArchitectureFamily::kKimiLinear:
      // vllm kimi_linear.py KimiMoE.__init__ (sglang's alike): the gate, a ReplicatedLinear
      // without quantization, its e_score_correction_bias (torch.empty: the model dtype), the
      // experts, then the shared experts as a TP-sharded MLP.
      linear_router(mlp + ".gate", false);
      list_.add(mlp + ".gate.e_score_correction_bias", {a.moe.num_experts}, ctx_.dtype);
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      if (a.moe.shared_expert_intermediate_size == 0) return Status::ok_status();
      return add_dense_mlp(list_, ctx_, mlp + ".shared_experts", mlp + ".shared_experts",
                           a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_);
    case ArchitectureFamily::kDeepseekV2:
    case ArchitectureFamily::kDeepseekV3:
    case ArchitectureFamily::kGlm4Moe:
    case ArchitectureFamily::kErnie45: {
      // sglang ernie4.py Ernie4Moe.__init__ likewise (its shared experts a DeepseekV2MLP).
      // sglang v0.5.9 deepseek_v2.py DeepseekV2MoE.__init__ / glm4_moe.py
      // Glm4MoeSparseMoeBlock.__init__: gate, experts, then the shared experts as a
      // TP-sharded MLP unless fused into the experts
      deepseek_gate(mlp);
      GPUMEM_RETURN_IF_ERROR(experts(mlp));
      if (a.moe.num_shared_experts == 0 || fuses_shared_experts(a, ctx_.layout, ctx_.rules)) {
        return Status::ok_status();
      }
      return add_dense_mlp(list_, ctx_, mlp + ".shared_experts", mlp + ".shared_experts",
                           a.moe.shared_expert_intermediate_size, ctx_.layout.tp_size, post_load_);
    }
    default:
      return internal_error("no MoE block for " + a.hf_architecture);
  }
}

}  // namespace gpumem
