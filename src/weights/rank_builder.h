// Builds one rank's weight list (rank_weights.h) module by module, in the order the engine
// allocates them: embeddings, decoder layers (attention, MLP, experts, norms, RoPE caches),
// head, MTP drafts (rank_weights.cc); the Mamba, hybrid and nemotron-nas layers
// (rank_hybrid_layers.cc); the MoE blocks, routers and expert layouts (rank_moe_layers.cc).
// Internal to the three.
#ifndef GPUMEM_WEIGHTS_RANK_BUILDER_H_
#define GPUMEM_WEIGHTS_RANK_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "core/status.h"
#include "weights/layer_weights.h"
#include "weights/rank_weights.h"
#include "weights/tensor_list.h"

namespace gpumem {

// One rank's weights of one architecture, built by build() (or a draft's, by build_nextn /
// build_qwen_mtp) and taken once.
class ModelBuilder {
 public:
  ModelBuilder(const Architecture& a, const ParallelLayout& l, const WeightRules& rules)
      : ctx_{a, l, rules, parameter_dtype(a, rules)},
        list_(static_cast<size_t>(a.num_hidden_layers) * 24 + 16) {}

  Status build();
  Status build_nextn(const RopeSpec& target_rope);
  Status build_qwen_mtp(const RopeSpec& target_rope);
  std::vector<WeightTensor> take() { return list_.take(); }

 private:
  void run_post_load();
  Status embedding(int& first_norm);
  Status lm_head();
  void decoder_norm(const std::string& module);
  RopeSpec layer_rope(std::int64_t i) const;
  // The module that holds the decoder: vllm mamba2.py and mamba.py keep theirs under backbone.
  std::string root() const { return ctx_.arch.attention_free() ? "backbone" : "model"; }
  Status layer(std::int64_t i, const std::string& prefix, const std::string& checkpoint);
  // Mamba, hybrid and nemotron-nas layers (rank_hybrid_layers.cc).
  Status single_module_layer(std::int64_t i);
  Status jamba_layer(std::int64_t i, const std::string& prefix);
  Status decilm_layer(std::int64_t i, const std::string& prefix);
  // MoE blocks, routers and experts (rank_moe_layers.cc).
  Status nemotron_moe(const std::string& mixer);
  Status gemma4_feed_forward(std::int64_t i, const std::string& prefix,
                             const std::string& checkpoint);
  Status granite_feed_forward(const std::string& prefix);
  Status experts(const std::string& mlp);
  void deepseek_gate(const std::string& mlp);
  void linear_router(const std::string& name, bool bias);
  Status moe_block(const std::string& mlp);

  BuildContext ctx_;
  TensorList list_;
  RopeCaches ropes_;
  PostLoadSteps model_post_load_;
  PostLoadSteps post_load_;

  static std::string str(std::int64_t v) { return std::to_string(v); }
  // The decoder-layer module holding the MLP or experts, as the engine and HF name it.
  static std::string mlp_name(const Architecture& a, std::int64_t layer);
};

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_RANK_BUILDER_H_
