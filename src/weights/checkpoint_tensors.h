// The tensors a Hugging Face checkpoint of an architecture holds, by their checkpoint names,
// at full (unsharded) shapes and in the dtypes the files store them in.
//
// This is what a safetensors index's `total_size` sums (every tensor's bytes; headers are not
// counted) and what the shards' headers declare, so the two can be checked against each other:
// a model read from its config predicts its checkpoint to the byte, and a checkpoint at hand
// tells whether the prediction is right (checkpoint_check.h). Engines then build their own
// per-rank lists from the same architecture (rank_weights.h); this list is not an engine's.
//
// Covered: every decoder layer (attention, dense MLP or experts, router, norms), embeddings,
// final norm, an untied lm_head, and the multi-token-prediction layers a checkpoint ships
// (`num_nextn_predict_layers`: DeepSeek, GLM-4.x) and the vision towers of Gemma 3 (SigLIP and its
// projector) and Qwen2.5-VL (ViT and patch merger). Quantized linear layers hold what their
// method stores (block FP8 weights and float32 inverse scales, ModelOpt per-tensor scales,
// compressed-tensors packed int32 weights with group scales and shapes, MXFP4 blocks and
// E8M0 scales); embeddings, norms and routers stay in the model dtype, as do the modules a
// quantization config leaves unconverted. Architectures whose checkpoint layout gpumem does
// not derive (EAGLE-3 draft heads) are an error naming what is missing.
#ifndef GPUMEM_WEIGHTS_CHECKPOINT_TENSORS_H_
#define GPUMEM_WEIGHTS_CHECKPOINT_TENSORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/safetensors.h"
#include "core/status.h"
#include "core/units.h"

namespace gpumem {

struct CheckpointTensor {
  std::string name;  // "model.layers.0.self_attn.q_proj.weight"
  std::vector<std::int64_t> shape;
  std::string dtype;  // as safetensors writes it: "BF16", "F32", "F8_E4M3", "I32", "U8", ...
  Bytes bytes;

  friend bool operator==(const CheckpointTensor&, const CheckpointTensor&) = default;
};

// What a checkpoint stores that its config.json does not say. Unset, the config's reading is
// taken: tensors in its torch_dtype (float32 when absent, as Hugging Face reads it), block-FP8
// scales in float32 (DeepSeek-V3's format). Checkpoints differ: gpt-oss declares no
// torch_dtype and stores bfloat16; Qwen's FP8 checkpoints keep bfloat16 scale_inv. Where the
// safetensors headers are at hand they say (checkpoint_options_from).
struct CheckpointOptions {
  std::optional<DType> storage_dtype = std::nullopt;      // unquantized tensors
  std::optional<DType> block_scale_dtype = std::nullopt;  // block-FP8 weight_scale_inv
  std::optional<DType> norm_dtype = std::nullopt;         // the text model's norms
};

// The checkpoint's tensors, sorted by name.
Result<std::vector<CheckpointTensor>> checkpoint_tensors(const Architecture& a,
                                                         const CheckpointOptions& options = {});

// The options a checkpoint's tensors show: the dtype of its embedding, and of its first
// block-FP8 scale.
CheckpointOptions checkpoint_options_from(const std::vector<SafetensorsTensor>& tensors);

// Their bytes together: what the index's metadata.total_size says.
Bytes checkpoint_bytes(const std::vector<CheckpointTensor>& tensors);

// "BF16" for bfloat16, ...: a dtype as safetensors names it.
std::string_view safetensors_dtype(DType t);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_CHECKPOINT_TENSORS_H_
