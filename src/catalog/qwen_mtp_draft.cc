#include "catalog/qwen_mtp_draft.h"

namespace gpumem {

Result<Architecture> qwen_mtp_draft(const Architecture& target) {
  if (!target.is_qwen_hybrid()) {
    return invalid_input(target.hf_architecture + " is not a Qwen hybrid with an MTP block");
  }
  // vllm qwen3_5_mtp.py Qwen3_5MultiTokenPredictor.__init__ builds mtp_num_hidden_layers
  // layers, qwen3_next_mtp.py num_nextn_predict_layers, each 1 where the config has none
  // (Qwen3-Next's has none); the drafts of more are not modelled.
  const std::int64_t layers =
      target.num_nextn_predict_layers == 0 ? 1 : target.num_nextn_predict_layers;
  if (layers != 1) {
    return invalid_input(target.name + " has " + std::to_string(layers) +
                         " MTP layers (mtp_num_hidden_layers); gpumem models a checkpoint with "
                         "one");
  }
  Architecture d = target;
  d.name = target.name + " MTP block";
  d.nextn_checkpoint_layer = 0;  // mtp.layers.0
  d.num_hidden_layers = 1;
  d.num_nextn_predict_layers = 0;
  // Qwen3NextMultiTokenPredictor / Qwen3_5MultiTokenPredictor: layer_type="full_attention".
  d.layer_types.assign(1, LayerAttention::kFull);
  // The layer's MLP follows the target's rule for layer 0 (qwen3_next.py reads the layer
  // index from the prefix mtp.layers.0): experts in the MoE models, the dense MLP of
  // Qwen3.5's dense ones.
  // The draft serves text: the target's vision tower stays the target's.
  d.vision = VisionTower{};
  return d;
}

}  // namespace gpumem
