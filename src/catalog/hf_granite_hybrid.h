// IBM Granite 4.0 hybrids from a Hugging Face config (GraniteMoeHybridForCausalLM, model_type
// granitemoehybrid): which layers are Mamba-2 and which attend, the Mamba-2 mixer's shape, and
// the feed-forward of every layer (routed experts of intermediate_size behind a replicated gate,
// and a shared gated MLP of shared_intermediate_size; either may be absent), read into an
// Architecture.
//
// SGLang reads these configs through a config class of its own whose defaults differ from
// transformers' (mamba_n_heads 64 vs 128, mamba_d_state 128 vs 256, every sixth layer attending
// vs none, ...), so the keys whose defaults differ are required rather than defaulted.
#ifndef GPUMEM_CATALOG_HF_GRANITE_HYBRID_H_
#define GPUMEM_CATALOG_HF_GRANITE_HYBRID_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads layer_types, the mamba_* keys, num_local_experts, num_experts_per_tok and
// shared_intermediate_size. Expects hidden size and layer count
// already read.
void parse_granite_hybrid(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_GRANITE_HYBRID_H_
