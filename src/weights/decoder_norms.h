// The norms of one decoder layer, by their module names, as both the engines' model files and
// the HF checkpoints name them: which the family keeps (a parallel block's one input norm,
// OLMo 2's and EXAONE 4's norms after each sublayer, the usual pair, and the sandwich norms of
// Gemma 2/3 and GLM-4). The checkpoint list (checkpoint_tensors.h) and a rank's list
// (rank_weights.h) both read it, so the two cannot disagree on a layer's norms.
#ifndef GPUMEM_WEIGHTS_DECODER_NORMS_H_
#define GPUMEM_WEIGHTS_DECODER_NORMS_H_

#include <string_view>
#include <vector>

#include "catalog/architecture.h"

namespace gpumem {

struct DecoderNorms {
  // Norms of the decoder's own kind (an RMSNorm, or a LayerNorm where the family's norms
  // have biases), appended to the layer's prefix.
  std::vector<std::string_view> decoder;
  // Sandwich norms around attention and MLP: plain RMSNorms of the hidden size.
  std::vector<std::string_view> sandwich;
};

// The norms of a decoder layer of `a` (Grok's four and nemotron-nas' per-block ones aside).
DecoderNorms decoder_norms(const Architecture& a);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_DECODER_NORMS_H_
