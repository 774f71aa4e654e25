// What SGLang's CUDA-graph capture allocates, as tensor lists the start-up program replays
// through the caching allocator (and the probe through real CUDA):
//
//  * static buffers a graph runner allocates before capture (sglang v0.5.9
//    model_executor/input_buffers.py GraphInputBuffers.create, and the attention backend's
//    init_cuda_graph_state);
//  * the activations of one captured decode forward for a batch size, layer by layer, which
//    are served from the graph's private pool and freed inside it — so the pool ends up the
//    high-water mark of the largest batch, smaller batches reusing it;
//  * the kernel nodes a captured forward records, which size the graph executable.
//
// SGLang estimates none of this (research/sglang-memory.md §5.5): the activation shapes
// below are gpumem's model of a decode step of each architecture family, the same shapes
// the probe allocates on real GPUs, and the per-layer kernel counts are constants that
// calibration may replace.
#ifndef GPUMEM_ENGINE_SGLANG_GRAPH_MODEL_H_
#define GPUMEM_ENGINE_SGLANG_GRAPH_MODEL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"
#include "core/units.h"
#include "engine/sglang/model_facts.h"

namespace gpumem::sglang {

struct GraphBuffer {
  std::string name;
  Bytes bytes;
};

// A buffer live during a forward, allocated in list order and freed at the end of its layer
// (or, for the head's tensors, at the end of the forward).
struct ActivationTensor {
  std::string_view name;  // a literal: a forward builds these lists thousands of times
  Bytes bytes;
  bool layer_scoped = true;  // freed at the end of its layer; false: lives to the forward's end
};

struct GraphShape {
  std::int64_t max_bs = 0;
  std::int64_t tokens_per_bs = 1;  // speculative target verify: num_draft_tokens
  int attention_tp = 1;
  int tp = 1;
  int moe_tp = 1;
  int ep = 1;
  friend bool operator==(const GraphShape&, const GraphShape&) = default;
};

// Static buffers of a decode (or target-verify) graph runner.
std::vector<GraphBuffer> graph_static_buffers(const Architecture& a, const ModelFacts& facts,
                                              const GraphShape& shape, bool speculative);

// Per-layer activations of a captured forward over `tokens` tokens on one rank.
std::vector<ActivationTensor> layer_activations(const Architecture& a, const ModelFacts& facts,
                                                const GraphShape& shape, std::int64_t layer,
                                                std::int64_t tokens);
// Activations after the last layer: final norm and the logits (local, then gathered).
std::vector<ActivationTensor> head_activations(const Architecture& a, const GraphShape& shape,
                                               std::int64_t tokens, std::int64_t vocab);

// Kernel launches one decoder layer records, by family (calibration constant).
struct GraphKernelCounts {
  int dense_layer = 12;  // norms, qkv, rope, attention, o_proj, gate_up, act, down, adds
  int moe_layer = 20;    // plus router, top-k, fused-MoE GEMMs and their shuffles
  int mla_extra = 6;     // MLA: q/kv down and up projections and absorbed BMMs
  int head = 6;          // final norm, lm_head, gather, logits copy
  friend bool operator==(const GraphKernelCounts&, const GraphKernelCounts&) = default;
};
int kernels_per_layer(const Architecture& a, std::int64_t layer, const GraphKernelCounts& k);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_GRAPH_MODEL_H_
