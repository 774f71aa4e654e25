// Phi-3.5-MoE from a Hugging Face config (PhiMoEForCausalLM, model_type phimoe): Mixtral's
// routed experts beside attention projections and a head that carry biases, and LayerNorms
// (weight and bias) where other families keep RMSNorms, read into an Architecture.
//
// SGLang's phimoe.py (a port of vLLM's, PR #7907) and vLLM's phimoe.py build the same modules
// only where the config asks for what vLLM hard-codes: biased q/k/v and o projections, an untied
// head. A config on which they would build different models is refused at its key, as is a
// sliding window narrower than the context, which vLLM applies to every layer and SGLang to none.
#ifndef GPUMEM_CATALOG_HF_PHIMOE_H_
#define GPUMEM_CATALOG_HF_PHIMOE_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// Reads num_local_experts and num_experts_per_tok (the experts' width is intermediate_size) and
// checks attention_bias, tie_word_embeddings and sliding_window. Expects the common keys
// (hidden size, layers, attention_bias, tie_word_embeddings, max_position_embeddings) read.
void parse_phimoe(const ConfigMap& text, Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_PHIMOE_H_
