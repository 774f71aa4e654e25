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

// `v`, which the config's `key` gives as a Mamba mixer's dimension (an inner width, a state, a
// rank, a kernel, a head count); above 65,536 (Falcon-Mamba 7B's inner width is 8,192,
// Jamba-1.5-Large's 16,384) it is an error at `key` and 0, so that the state's and the
// projections' byte counts stay far inside 64 bits.
std::int64_t bounded_mamba_dimension(const ConfigMap& text, std::string_view key, std::int64_t v);

// Reads the whole text model of a kMamba config (sizes, mixer, embeddings' tie, context
// length); `a.family`, `a.hf_architecture` and `a.dtype` are already set.
void parse_mamba_stack(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_MAMBA_H_
