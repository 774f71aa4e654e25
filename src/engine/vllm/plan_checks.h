// The launches of a vLLM plan that gpumem refuses, and why: each check returns the reason
// (empty when the launch can be modelled) or reports it at the flag that asks for it, so that
// plan.cc reads as the order of vLLM's own start-up decisions.
#ifndef GPUMEM_ENGINE_VLLM_PLAN_CHECKS_H_
#define GPUMEM_ENGINE_VLLM_PLAN_CHECKS_H_

#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "engine/vllm/plan.h"

namespace gpumem::vllm {

// Why vLLM's profile of the tower (encoder_profile.h) cannot be modelled for this launch.
std::string vit_profile_refusal(const Plan& p);
// Why the encoder outputs the profile keeps (p.encoder, once planned) cannot be modelled.
std::string encoder_outputs_refusal(const Plan& p);

// Why a DeepSeek Sparse Attention model (DeepSeek-V3.2, GLM-5) cannot be modelled.
std::string sparse_attention_refusal(const Plan& p);

// Why DeepSeek-V4 cannot be modelled for this launch.
std::string deepseek_v4_refusal(const Plan& p);

// Why a launch of a release after v0.21 cannot be modelled: a memory change of that release
// which gpumem does not model, for the model or runner of `p`; empty when it can.
std::string newer_release_refusal(const Plan& p);

// Why the backend --model-impl names cannot be modelled for this model: the Transformers
// backend's layers, fusions and activation peaks are the transformers model's own.
std::string model_impl_refusal(const Plan& p);

// Reports --attention-backend and VLLM_ATTENTION_BACKEND where they name another backend than
// the one vLLM chooses itself for this model and GPU (p.facts), which gpumem models: another
// has its own workspaces and KV-cache block constraints.
void refuse_other_attention_backend(const Plan& p, Diagnostics& diags);

// Why --cpu-offload-gb cannot be modelled for this launch (weights/cpu_offload.h).
std::string cpu_offload_refusal(const Plan& p);

// Why --disable-hybrid-kv-cache-manager cannot be modelled for a stage whose KV layers are
// `layers`: empty when they are all of one kind and shape, where it changes nothing.
std::string hybrid_kv_manager_refusal(const Plan& p, const std::vector<KvLayerSpec>& layers);

// Data parallelism above 1 outside what gpumem models, reported at --data-parallel-size.
void refuse_unmodelled_data_parallelism(const Plan& p, Diagnostics& diags);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_PLAN_CHECKS_H_
