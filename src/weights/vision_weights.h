// The tensors one rank allocates for a multimodal model's vision side, built before the
// language model as SGLang builds them: Gemma 3's SigLIP tower and projector (gemma3_mm.py
// Gemma3ForConditionalGeneration.__init__, siglip.py SiglipVisionModel, read at 017f5d4 and
// 00347ba) and Qwen2.5-VL's ViT with its patch merger (qwen2_5_vl.py
// Qwen2_5_VisionTransformer, read at 013902a).
//
// A tower is tensor-parallel like a decoder layer: q/k/v and the MLP's first linears split
// their rows, the output projection and the MLP's last linear their inputs (keeping the whole
// bias), SigLIP's position embedding is a VocabParallelEmbedding; patch embeddings, norms and
// Gemma's projector are whole on every rank. Gemma 4's tower, which only vLLM serves, is HF's
// own module, whole and unquantized on every rank.
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
