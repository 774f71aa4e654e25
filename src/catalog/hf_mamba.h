// Attention-free Mamba stacks from a Hugging Face config: Mamba2ForCausalLM (Mamba-Codestral;
// transformers Mamba2Config: num_heads, head_dim, n_groups, state_size, conv_kernel, expand)
// and MambaForCausalLM / FalconMambaForCausalLM (transformers MambaConfig and
// FalconMambaConfig: intermediate_size, state_size, conv_kernel, time_step_rank). Every layer
// is one mixer and one norm, read into an Architecture whose layers are all kLinear, with no
// attention heads and no MLP.
#ifndef GPUMEM_CATALOG_HF_MAMBA_H_
#define GPUMEM_CATALOG_HF_MAMBA_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads the whole text model of a kMamba config (sizes, mixer, embeddings' tie, context
// length); `a.family`, `a.hf_architecture` and `a.dtype` are already set.
void parse_mamba_stack(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_MAMBA_H_
