// The draft a Qwen hybrid's own MTP block makes: Qwen3-Next, Qwen3.5 and Qwen3.6.
//
// Their checkpoints carry an MTP block beside the decoder (mtp.fc, mtp.layers.0.*, three
// norms), which vLLM's MTP method builds as the draft (vllm models/qwen3_next_mtp.py
// Qwen3NextMTP, qwen3_5_mtp.py Qwen3_5MTP): an embedding, a fc from [embedding, hidden]
// (2 x hidden) to hidden, one decoder layer forced to full attention whatever the target's
// layer pattern, the norms, and a head. The draft is the target's architecture cut to that
// one layer, marked as a NextN-style draft so that the weight builder lays out the MTP
// block instead of a decoder.
#ifndef GPUMEM_CATALOG_QWEN_MTP_DRAFT_H_
#define GPUMEM_CATALOG_QWEN_MTP_DRAFT_H_

#include "catalog/architecture.h"
#include "core/status.h"

namespace gpumem {

// The MTP draft of a Qwen hybrid (is_qwen_hybrid()); fails for another architecture or a
// checkpoint whose config does not give exactly one MTP layer (mtp_num_hidden_layers).
Result<Architecture> qwen_mtp_draft(const Architecture& target);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_QWEN_MTP_DRAFT_H_
