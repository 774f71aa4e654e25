// The draft a checkpoint's own MTP layer makes (DeepSeek-V3/V3.2, GLM-4.5, GLM-5): SGLang's
// --speculative-algorithm NEXTN and vLLM's MTP method (vllm deepseek_mtp.py, glm4_moe_mtp.py)
// build the same modules from it; the names below are SGLang's.
//
// SGLang rewrites NEXTN to EAGLE and, for the DeepSeek and GLM models that ship an MTP layer,
// takes the model itself as the draft when no draft path is given (sglang v0.5.9
// server_args.py _handle_speculative_decoding). The draft's ModelConfig renames the
// architecture to its NextN class (configs/model_config.py _config_draft_model), which builds
// one decoder layer (always an MoE layer) behind an embedding, two input norms and an
// unquantized eh_proj, and a head (models/deepseek_nextn.py, glm4_moe_nextn.py). Its own
// embedding and head are freed when the EAGLE worker hands it the target's
// (speculative/eagle_worker.py set_embed_and_head). Its KV pool has one layer
// (model_runner.py: num_nextn_predict_layers layers for a draft worker).
#ifndef GPUMEM_CATALOG_NEXTN_DRAFT_H_
#define GPUMEM_CATALOG_NEXTN_DRAFT_H_

#include <optional>
#include <string>

#include "catalog/architecture.h"
#include "core/status.h"

namespace gpumem {

// The NextN class SGLang builds the MTP draft of `hf_architecture` with; none for an
// architecture whose MTP draft gpumem does not model.
std::optional<std::string> nextn_architecture(const std::string& hf_architecture);

// The draft of `checkpoint` (the target, or a model with MTP layers given as the draft):
// one MoE decoder layer that loads model.layers.<n>. Fails, in SGLang's words where it has
// them, for an architecture without a NextN class or a checkpoint without exactly one MTP
// layer.
Result<Architecture> nextn_draft(const Architecture& checkpoint);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_NEXTN_DRAFT_H_
