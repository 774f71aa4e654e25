// Llama 4's text model from a Hugging Face config (Llama4TextConfig, under text_config for
// Llama4ForConditionalGeneration): which layers are MoE, the two FFN widths, the chunked-attention
// and NoPE layers, and its weightless q/k norm, read into an Architecture.
//
// Llama 4 interleaves MoE layers (routed experts of intermediate_size beside one shared expert of
// the same width, a replicated router) with dense ones of intermediate_size_mlp; three layers in
// four attend with RoPE within chunks of attention_chunk_size tokens, every fourth globally without
// RoPE. Where SGLang and vLLM read a field differently (SGLang hard-codes the NoPE interval and
// treats interleave_moe_layer_step 0 as all-MoE, vLLM as all-dense), a config on which they would
// build different models is refused at its key.
#ifndef GPUMEM_CATALOG_HF_LLAMA4_H_
#define GPUMEM_CATALOG_HF_LLAMA4_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads num_local_experts, num_experts_per_tok, intermediate_size(_mlp),
// interleave_moe_layer_step (and checks moe_layers against it), no_rope_layers,
// attention_chunk_size and use_qk_norm. Expects hidden, layer and head counts already read.
void parse_llama4(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_LLAMA4_H_
