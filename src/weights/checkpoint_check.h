// Checking the tensors derived from a config.json (checkpoint_tensors.h) against the ones a
// checkpoint's safetensors headers declare: same names, shapes and dtypes, nothing more or
// less. Agreement means the weights gpumem lays out per rank come from the checkpoint's real
// tensors; any difference means the derivation does not describe this checkpoint, and is
// reported tensor by tensor rather than passed over.
#ifndef GPUMEM_WEIGHTS_CHECKPOINT_CHECK_H_
#define GPUMEM_WEIGHTS_CHECKPOINT_CHECK_H_

#include <string>
#include <vector>

#include "catalog/safetensors.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {

// One line per tensor that differs, in name order: "x: in the checkpoint only", "x: derived
// from config.json only", "x: the checkpoint has BF16 [8, 4], config.json gives F32 [8, 4]".
std::vector<std::string> checkpoint_differences(const std::vector<CheckpointTensor>& derived,
                                                const SafetensorsCheckpoint& checkpoint);

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_CHECKPOINT_CHECK_H_
