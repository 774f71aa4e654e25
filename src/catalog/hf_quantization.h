// The quantization block of a Hugging Face config: quantization_config in config.json
// (FP8, ModelOpt, compressed-tensors, MXFP4) or hf_quant_config.json's "quantization"
// mapping (NVIDIA ModelOpt exports), read into an Architecture's `Quantization`.
#ifndef GPUMEM_CATALOG_HF_QUANTIZATION_H_
#define GPUMEM_CATALOG_HF_QUANTIZATION_H_

#include "catalog/architecture.h"
#include "catalog/config_map.h"

namespace gpumem {

// config.json's quantization_config; an unmodelled method is an error at its key.
void parse_quantization(const ConfigMap& m, Quantization& q);
// NVIDIA ModelOpt's block, as hf_quant_config.json's "quantization" mapping or flattened
// into config.json's quantization_config.
void parse_modelopt(const ConfigMap& m, Quantization& q);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_QUANTIZATION_H_
