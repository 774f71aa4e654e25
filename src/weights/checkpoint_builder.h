// Builds the tensor list of a Hugging Face checkpoint (checkpoint_tensors.h) module by module,
// as the HF modeling files name and shape them: the decoder's attention, MLP and expert
// variants, norms, MTP layers (checkpoint_tensors.cc), the linear-attention and Mamba mixers
// (checkpoint_mixers.cc) and the vision towers (checkpoint_vision.cc). Internal to the three.
#ifndef GPUMEM_WEIGHTS_CHECKPOINT_BUILDER_H_
#define GPUMEM_WEIGHTS_CHECKPOINT_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {

// One architecture's checkpoint, built by build() and taken once.
class CheckpointBuilder {
 public:
  CheckpointBuilder(const Architecture& a, const CheckpointOptions& o)
      : a_(a),
        dtype_(o.storage_dtype.value_or(a.dtype)),
        scale_dtype_(o.block_scale_dtype.value_or(DType::kFloat32)),
        norm_dtype_(o.norm_dtype.value_or(dtype_)) {}

  // Every tensor of the architecture, or why its layout is not derived.
  Status build();

  std::vector<CheckpointTensor> take() { return std::move(out_); }

 private:
  void add(const std::string& name, std::vector<std::int64_t> shape, DType dtype);
  void norm(const std::string& module, std::int64_t size);
  void decoder_norm(const std::string& module);
  Status linear(const std::string& module, std::int64_t out, std::int64_t in, bool bias);
  Status attention(const std::string& p, std::int64_t layer = -1);
  Status mla(const std::string& p);
  Status indexer(const std::string& p);
  Status gated_mlp(const std::string& p, std::int64_t width);
  Status shared_experts(const std::string& module);
  Status w1_w2_w3_experts(const std::string& mlp);
  Status experts(const std::string& mlp);
  Status gpt_oss_experts(const std::string& mlp);
  std::string mlp_module(const std::string& prefix) const;
  void gemma4_experts(const std::string& prefix);
  Status decoder(const std::string& prefix, bool moe, bool linear_attention = false,
                 std::int64_t layer = -1);
  Status decilm_layer(const std::string& prefix, std::int64_t i);
  Status layer(const std::string& prefix, std::int64_t i);
  Status qwen3_next_mtp();
  Status mtp_layer(std::int64_t index);
  // Linear-attention and state-space mixers (checkpoint_mixers.cc).
  Status gated_delta_net(const std::string& p);
  Status kimi_delta_attention(const std::string& p);
  Status mamba2_mixer(const std::string& p);
  Status mamba1_mixer(const std::string& p);
  Status single_module_layer(const std::string& prefix, std::int64_t i);
  // Vision towers and their projectors (checkpoint_vision.cc).
  Status vision_tower();
  void layer_norm(const std::string& module, std::int64_t size);
  Status qwen3_vit();
  Status qwen2_vit();
  Status gemma4_vit();
  Status moon_vit();
  Status glm4v_vit();
  Status siglip();

  const Architecture& a_;
  const DType dtype_;
  const DType scale_dtype_;
  const DType norm_dtype_;
  std::vector<CheckpointTensor> out_;

  static std::string str(std::int64_t v) { return std::to_string(v); }
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
};

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_CHECKPOINT_BUILDER_H_
