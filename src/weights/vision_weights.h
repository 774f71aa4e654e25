// The tensors one rank allocates for a multimodal model's vision side: Gemma 3's SigLIP
// tower and its projector into the language model, built before the language model as
// SGLang v0.5.9 builds them (gemma3_mm.py Gemma3ForConditionalGeneration.__init__,
// siglip.py SiglipVisionModel, read at 017f5d4 and 00347ba).
//
// The tower is tensor-parallel like a decoder layer: q/k/v and fc1 split their rows, the
// output projection and fc2 their inputs (keeping the whole bias), the position embedding is
// a VocabParallelEmbedding; patch embedding, layer norms and the projector are whole on
// every rank.
#ifndef GPUMEM_WEIGHTS_VISION_WEIGHTS_H_
#define GPUMEM_WEIGHTS_VISION_WEIGHTS_H_

#include "core/status.h"
#include "weights/tensor_list.h"

namespace gpumem {

// Appends the vision tower and projector of `ctx.arch` (which must have one); shapes the
// engine cannot split are errors worded as its assertions.
Status add_vision_tower(TensorList& list, const BuildContext& ctx, PostLoadSteps& post_load);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_VISION_WEIGHTS_H_
