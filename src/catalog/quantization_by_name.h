// The quantizations a checkpoint's name states, as the quantization_config such checkpoints
// publish.
//
// Quantized checkpoints are published under their base model's name with a word added:
// "Qwen2.5-72B-Instruct-GPTQ-Int4", "DeepSeek-V3-0324-AWQ", "Qwen3-30B-A3B.w4a16",
// "Qwen3.6-35B-A3B-NVFP4". When only the name is at hand (a log that names the checkpoint, no
// config.json to read), the word says the method, and the quantization_config most checkpoints
// of that word publish says the rest: AutoAWQ's and GPTQ's 4-bit group-128 defaults, the
// 128 x 128 blocks of the FP8 checkpoints Qwen and DeepSeek publish, llm-compressor's
// W4A16/W8A8 schemes, ModelOpt's NVFP4 groups of 16. Each is a guess about files not read, so
// its user (explain) keeps it only where a logged figure confirms it, and says so.
#ifndef GPUMEM_CATALOG_QUANTIZATION_BY_NAME_H_
#define GPUMEM_CATALOG_QUANTIZATION_BY_NAME_H_

#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"

namespace gpumem {

struct NamedQuantization {
  std::string label;        // "GPTQ 4-bit, group 128 (the GPTQ exports' defaults)"
  std::string config_json;  // the quantization_config assumed, as JSON
};

// The quantizations the words of `checkpoint_name` (its last path component, split at '-',
// '_' and '.', any case) name, most common first; empty when no word names one.
std::vector<NamedQuantization> quantizations_in_name(std::string_view checkpoint_name);

// `base` with `q`'s quantization_config read as config.json's would be, in place of any
// quantization the base ships with, its vision tower (if any) kept in the model dtype; an error
// where the method does not apply to it.
Result<Architecture> with_named_quantization(const Architecture& base, const NamedQuantization& q);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_QUANTIZATION_BY_NAME_H_
