// SGLang's CUDA-graph capture on one rank (sglang v0.5.9 cuda_graph_runner.py), for the
// target model and for an EAGLE draft: per batch size, largest first, the eager warm-ups and
// the captured forward, whose activations go to the one graph pool all captures share;
// activations are allocated and freed layer by layer, every layer's all-reduces go through
// the custom kernel or PyNccl, and the custom all-reduce then registers the buffers the
// captured graphs read. With --cpu-offload-gb, each forward of a layer whose parameters live
// in CPU memory first copies them to the GPU and drops the copies when the layer returns
// (weights/cpu_offload.h). The start-up program (startup.h) runs it in its cuda_graphs and
// draft_cuda_graphs steps.
#ifndef GPUMEM_ENGINE_SGLANG_GRAPH_CAPTURE_H_
#define GPUMEM_ENGINE_SGLANG_GRAPH_CAPTURE_H_

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "engine/sglang/graph_model.h"
#include "engine/sglang/plan.h"
#include "runtime/rank_env.h"
#include "weights/cpu_offload.h"

namespace gpumem::sglang {

class GraphCapture {
 public:
  // Everything must outlive the capture; `pool` is the graph pool all captures share;
  // `weight_copies` are the offloaded parameters each forward copies back, by layer.
  GraphCapture(const Plan& plan, const GraphKernelCounts& kernels, RankEnv& env,
               const std::vector<int>& tp_group, CommunicatorId tp_comm, PoolId pool,
               std::span<const OffloadedLayer> weight_copies = {});

  // One graph per batch size in `sizes` (ascending), captured largest first, over `layers`
  // of `arch` with `tokens_per_bs` tokens per request; `with_head` adds the final norm and
  // logits over `vocab` rows. Adds to `registered_bases` the base allocations of the custom
  // all-reduce inputs the graphs captured. The capture's log lines are written, as far as it
  // got, even when it fails. Run through env.run_memoized (runtime/memoized_run.h) when its
  // requests read no address: no custom all-reduce, TP 1.
  Status capture(const std::vector<std::int64_t>& sizes, std::int64_t tokens_per_bs,
                 const Architecture& arch, LayerRange layers, std::int64_t vocab, bool with_head,
                 std::set<std::uint64_t>& registered_bases);

  // custom_all_reduce.py register_graph_buffers: the IPC handle of every distinct base
  // allocation the captured all-reduces read is exchanged, and each peer opens it.
  Status register_buffers(const std::set<std::uint64_t>& bases);

 private:
  Status warm_up_twice(const Architecture& arch, const GraphShape& shape, std::int64_t first_layer,
                       std::int64_t last_layer, std::int64_t tokens, std::int64_t vocab,
                       bool with_head);
  Status forward(const Architecture& arch, const GraphShape& shape, std::int64_t first_layer,
                 std::int64_t last_layer, std::int64_t tokens, std::int64_t vocab, bool with_head,
                 std::set<std::uint64_t>* registered);
  Status all_reduce(BlockHandle input, Bytes size, std::set<std::uint64_t>* registered);
  // The captures themselves; `free` receives the free memory after each batch size's graph.
  Status capture_all(const std::vector<std::int64_t>& sizes, std::int64_t tokens_per_bs,
                     const Architecture& arch, LayerRange layers, std::int64_t vocab,
                     bool with_head, std::set<std::uint64_t>& registered_bases, FreeReadings& free);

  const Plan& plan_;
  const GraphKernelCounts& kernels_;
  RankEnv& env_;
  const std::vector<int>& tp_group_;
  const CommunicatorId tp_comm_;
  const PoolId pool_;
  const std::span<const OffloadedLayer> weight_copies_;
};

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_GRAPH_CAPTURE_H_
