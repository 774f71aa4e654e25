// What a vLLM forward allocates, as tensor lists the start-up program replays through the
// caching allocator (and the probe through real CUDA): the transient activations of one
// decoder layer over n tokens, the logits of the sampled rows, and the sampler's tensors.
//
// vLLM measures, rather than computes, the activation peak: profile_run runs a forward of
// max_num_batched_tokens tokens and a dummy sampler, and reads torch's allocated peak
// (research/vllm-trtllm-memory.md §1.4). gpumem's model of that forward is the list below:
// each tensor is freed right after the tensor its `free_after` names is allocated (its last
// use, as torch.compile's generated code and eager PyTorch both release it), or at the end
// of the layer. The tensor shapes follow vLLM's layers; which tensors are live together, the
// sampler's working set and the kernel counts of captured graphs are constants calibration
// may replace (`ActivationConstants`).
#ifndef GPUMEM_ENGINE_VLLM_ACTIVATION_MODEL_H_
#define GPUMEM_ENGINE_VLLM_ACTIVATION_MODEL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "catalog/architecture.h"
#include "core/units.h"

namespace gpumem::vllm {

struct ActivationConstants {
  // Float32 [requests, vocab] tensors the dummy sampler holds at once: the logits cast to
  // float32 and the probabilities FlashInfer samples from (vllm v1/sample/sampler.py,
  // v1/sample/ops/topk_topp_sampler.py). UNCONFIRMED: calibration replaces it.
  int sampler_float32_vocab_tensors = 2;
  // vllm envs.py VLLM_FUSED_MOE_CHUNK_SIZE: fused_moe works on at most this many tokens.
  std::int64_t fused_moe_chunk_tokens = 32768;
  // Kernel nodes one captured decoder layer records (graph executables), attention's own
  // kernels apart: PIECEWISE graphs leave attention out, FULL graphs record it.
  int dense_layer_kernels = 9;
  int moe_layer_kernels = 16;
  int mla_extra_kernels = 6;
  int attention_kernels = 2;
  int final_norm_kernels = 1;
};

// How one rank's layers are sharded.
struct ForwardShape {
  int tp = 1;
  int moe_tp = 1;  // tp x dp / ep: 1 with expert parallelism, which keeps whole experts
  // Data-parallel ranks whose tokens a MoE layer gathers: vLLM's default all-to-all
  // (allgather_reducescatter) all-gathers every DP rank's tokens before the experts.
  int moe_dp = 1;
};

struct Activation {
  std::string name;
  Bytes bytes;
  int free_after = -1;  // index in the same list; -1: freed at the end of the layer
};

// Builds an activation list: `add` appends a tensor, `dies_after` marks when earlier ones die.
class ActivationList {
 public:
  int add(std::string name, std::int64_t elements, std::int64_t element_bytes) {
    out_.push_back({std::move(name), bytes(elements * element_bytes), -1});
    return static_cast<int>(out_.size()) - 1;
  }
  // `tensor` is freed right after `other` is allocated.
  void dies_after(int tensor, int other) { out_[static_cast<size_t>(tensor)].free_after = other; }
  void dies_after(std::initializer_list<int> tensors, int other) {
    for (int t : tensors) dies_after(t, other);
  }
  std::vector<Activation> take() { return std::move(out_); }

 private:
  std::vector<Activation> out_;
};

// The transient tensors of decoder layer `layer` over `tokens` tokens on one rank;
// `element_bytes` is the served dtype's size.
std::vector<Activation> layer_activations(const Architecture& a, const ForwardShape& shape,
                                          std::int64_t layer, std::int64_t tokens,
                                          std::int64_t element_bytes, const ActivationConstants& k);

// compute_logits for `requests` rows: the rank's slice of the padded vocabulary, then the
// all-gathered logits (TP > 1) (vllm layers/logits_processor.py, vocab padded to 64).
std::vector<Activation> logits_activations(const Architecture& a, const ForwardShape& shape,
                                           std::int64_t requests, std::int64_t element_bytes);

// The dummy sampler run's float32 tensors over `requests` rows of the vocabulary.
std::vector<Activation> sampler_activations(const Architecture& a, std::int64_t requests,
                                            const ActivationConstants& k);

// Kernel nodes a captured layer records; `with_attention` for FULL graphs.
int layer_kernels(const Architecture& a, std::int64_t layer, bool with_attention,
                  const ActivationConstants& k);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ACTIVATION_MODEL_H_
