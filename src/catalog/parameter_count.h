// How many parameters a checkpoint holds, counted the way model cards publish it.
//
// The count is over checkpoint tensors at their unpadded Hugging Face shapes (no vocabulary
// padding, no tensor-parallel replication, no quantization scales): embeddings, every
// decoder layer's attention, MLP or experts, router and norms, the final norm and an untied
// lm_head, and a multimodal model's vision tower with its projector. Multi-token-prediction layers
// (DeepSeek-V3's `num_nextn_predict_layers`) are left out, as DeepSeek's README counts the 671B
// main model without them. An EAGLE-3 draft head has no embedding of its own in its checkpoint
// (engines borrow the target's), so its count is fc + decoder layer + norms + its draft-vocabulary
// lm_head.
#ifndef GPUMEM_CATALOG_PARAMETER_COUNT_H_
#define GPUMEM_CATALOG_PARAMETER_COUNT_H_

#include <cstdint>

#include "catalog/architecture.h"

namespace gpumem {

std::int64_t parameter_count(const Architecture& a);

// Parameters of decoder layer `layer` alone (attention, MLP or experts, norms).
std::int64_t layer_parameter_count(const Architecture& a, std::int64_t layer);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_PARAMETER_COUNT_H_
