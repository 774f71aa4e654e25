#include "engine/sglang/graph_capture.h"

#include <algorithm>

#include "engine/ipc_sharing.h"
#include "engine/sglang/custom_all_reduce.h"
#include "engine/sglang/log_lines.h"

namespace gpumem::sglang {

GraphCapture::GraphCapture(const Plan& plan, const GraphKernelCounts& kernels, RankEnv& env,
                           const std::vector<int>& tp_group, CommunicatorId tp_comm, PoolId pool,
                           std::span<const OffloadedLayer> weight_copies)
    : plan_(plan),
      kernels_(kernels),
      env_(env),
      tp_group_(tp_group),
      tp_comm_(tp_comm),
      pool_(pool),
      weight_copies_(weight_copies) {}

namespace {

// Everything a capture's requests are a function of (runtime/memoized_run.h): its
// arguments, and what of the plan and constants GraphCapture reads.
struct CaptureKey {
  std::vector<std::int64_t> sizes;
  std::int64_t tokens_per_bs;
  Architecture arch;
  LayerRange layers;
  std::int64_t vocab;
  bool with_head;
  GraphShape graph;
  ModelFacts facts;
  int tp;
  bool custom_all_reduce;
  GraphKernelCounts kernels;
  std::uint64_t pool;
  std::vector<OffloadedLayer> weight_copies;
  friend bool operator==(const CaptureKey&, const CaptureKey&) = default;
};

// The offloaded parameters layer `layer` copies back, in ascending `copies`; nullptr for none.
const std::vector<Bytes>* copies_of(std::span<const OffloadedLayer> copies, std::int64_t layer) {
  const auto it =
      std::lower_bound(copies.begin(), copies.end(), layer,
                       [](const OffloadedLayer& l, std::int64_t index) { return l.layer < index; });
  return it != copies.end() && it->layer == layer ? &it->tensors : nullptr;
}

}  // namespace

Status GraphCapture::capture(const std::vector<std::int64_t>& sizes, std::int64_t tokens_per_bs,
                             const Architecture& arch, LayerRange layers, std::int64_t vocab,
                             bool with_head, std::set<std::uint64_t>& registered_bases) {
  FreeReadings free;
  Status s;
  if (plan_.tp == 1 && !plan_.custom_all_reduce.enabled) {
    const RunKeyOf<CaptureKey> key(
        CaptureKey{sizes, tokens_per_bs, arch, layers, vocab, with_head, plan_.graph, plan_.facts,
                   plan_.tp, plan_.custom_all_reduce.enabled, kernels_, pool_.value,
                   std::vector<OffloadedLayer>(weight_copies_.begin(), weight_copies_.end())});
    s = env_.run_memoized(
        key,
        [&](FreeReadings& r) {
          return capture_all(sizes, tokens_per_bs, arch, layers, vocab, with_head, registered_bases,
                             r);
        },
        free);
  } else {
    s = capture_all(sizes, tokens_per_bs, arch, layers, vocab, with_head, registered_bases, free);
  }
  // cuda_graph_runner.py capture: the progress bar's description per batch size, largest
  // first, free memory read without emptying the cache.
  for (size_t i = 0; i < free.size(); ++i) {
    env_.log(log_capturing_batch(sizes[sizes.size() - 1 - i], to_engine_gib(free[i])));
  }
  return s;
}

Status GraphCapture::capture_all(const std::vector<std::int64_t>& sizes, std::int64_t tokens_per_bs,
                                 const Architecture& arch, LayerRange layers, std::int64_t vocab,
                                 bool with_head, std::set<std::uint64_t>& registered_bases,
                                 FreeReadings& free) {
  const std::int64_t first_layer = layers.start;
  const std::int64_t last_layer = layers.end;
  GraphShape shape = plan_.graph;
  // sglang v0.5.9 distributed/parallel_state.py graph_capture: the captures run on a new
  // torch.cuda.Stream(), PyTorch's first side stream at TP = PP = 1.
  GPUMEM_RETURN_IF_ERROR(env_.device.use_pytorch_resource(PytorchResource::kStreamPool));
  for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
    const std::int64_t tokens = *it * tokens_per_bs;
    if (plan_.facts.attention_backend == "nsa") {
      // nsa_backend.py init_forward_metadata_capture_cuda_graph (read at 005e8bf): each
      // captured size keeps its own int32 table of 64-token pages, [tokens, context / 64].
      const std::int64_t pages = (plan_.facts.context_len + 63) / 64;
      Result<BlockHandle> table =
          env_.allocator.allocate(bytes(tokens * pages * 4), Category::kGraphs);
      if (!table.ok()) return table.status();
    }
    // cuda_graph_runner.py capture_one_batch_size: two eager runs before capturing.
    GPUMEM_RETURN_IF_ERROR(
        warm_up_twice(arch, shape, first_layer, last_layer, tokens, vocab, with_head));
    GPUMEM_RETURN_IF_ERROR(env_.allocator.begin_allocate_to_pool(pool_));
    Status s = env_.device.begin_graph_capture();
    if (s.ok()) {
      s = forward(arch, shape, first_layer, last_layer, tokens, vocab, with_head,
                  &registered_bases);
    }
    if (s.ok()) s = env_.device.end_graph_capture().status();
    Status end = env_.allocator.end_allocate_to_pool(pool_);
    GPUMEM_RETURN_IF_ERROR(s);
    GPUMEM_RETURN_IF_ERROR(end);
    free.push_back(env_.device.mem_get_info().free);
  }
  return {};
}

// Two eager forwards. When the first made no new segment on any rank, every request it
// made was served from cached blocks and freed again, so the free blocks are as they
// were (neighbours merge back): the second makes the same requests against the same
// blocks and leaves everything as it found it, so it is not replayed. The ranks agree
// first, because a forward's all-reduces are collectives.
Status GraphCapture::warm_up_twice(const Architecture& arch, const GraphShape& shape,
                                   std::int64_t first_layer, std::int64_t last_layer,
                                   std::int64_t tokens, std::int64_t vocab, bool with_head) {
  const std::int64_t segments = env_.allocator.stats().device_mallocs;
  GPUMEM_RETURN_IF_ERROR(
      forward(arch, shape, first_layer, last_layer, tokens, vocab, with_head, nullptr));
  const bool grew = env_.allocator.stats().device_mallocs != segments;
  Result<std::int64_t> none_grew = env_.comm.min_over_world(grew ? 0 : 1);
  if (!none_grew.ok()) return none_grew.status();
  if (*none_grew == 1) return {};
  return forward(arch, shape, first_layer, last_layer, tokens, vocab, with_head, nullptr);
}

// One forward over `tokens` tokens: activations allocated and freed layer by layer (only
// the first layer of each kind, MoE or dense with the same offloaded parameters, allocates:
// later ones repeat its pattern exactly), the layer's kernels, and its two all-reduces.
// `registered` collects the base allocations of custom all-reduce inputs captured into a graph.
Status GraphCapture::forward(const Architecture& arch, const GraphShape& shape,
                             std::int64_t first_layer, std::int64_t last_layer, std::int64_t tokens,
                             std::int64_t vocab, bool with_head,
                             std::set<std::uint64_t>* registered) {
  const Bytes hidden = bytes(tokens * arch.hidden_size * 2);
  std::vector<BlockHandle> persistent;
  for (int i = 0; i < 2; ++i) {  // hidden states and residual
    Result<BlockHandle> h = env_.allocator.allocate(hidden, Category::kActivations);
    if (!h.ok()) return h.status();
    persistent.push_back(*h);
  }
  // The kinds of layer replayed so far: MoE or not, and the parameters it copies back.
  std::vector<std::pair<bool, const std::vector<Bytes>*>> replayed;
  for (std::int64_t layer = first_layer; layer < last_layer; ++layer) {
    const bool moe = arch.is_moe_layer(layer);
    const std::vector<Bytes>* copies = copies_of(weight_copies_, layer);
    const auto same_kind = [&](const std::pair<bool, const std::vector<Bytes>*>& r) {
      return r.first == moe && (r.second == copies ||
                                (r.second != nullptr && copies != nullptr && *r.second == *copies));
    };
    if (std::none_of(replayed.begin(), replayed.end(), same_kind)) {
      // sglang v0.5.9 utils/offloader.py OffloaderV1.maybe_offload_to_cpu: the wrapped forward
      // copies the module's state to the GPU (v.to(device), one tensor each; a no-op for those
      // still there) and calls it with functional_call; the copies die when it returns.
      std::vector<BlockHandle> weights;
      for (size_t i = 0; copies != nullptr && i < copies->size(); ++i) {
        Result<BlockHandle> h = env_.allocator.allocate((*copies)[i], Category::kActivations);
        if (!h.ok()) return h.status();
        weights.push_back(*h);
      }
      std::vector<BlockHandle> live;
      for (const ActivationTensor& t : layer_activations(arch, plan_.facts, shape, layer, tokens)) {
        Result<BlockHandle> h = env_.allocator.allocate(t.bytes, Category::kActivations);
        if (!h.ok()) return h.status();
        live.push_back(*h);
      }
      for (BlockHandle h : live) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(h));
      for (BlockHandle h : weights) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(h));
      replayed.emplace_back(moe, copies);
    }
    GPUMEM_RETURN_IF_ERROR(
        env_.device.launch_kernels(kernels_per_layer(arch, layer, kernels_), hidden));
    for (int reduce = 0; reduce < 2 && plan_.tp > 1; ++reduce) {
      GPUMEM_RETURN_IF_ERROR(all_reduce(persistent[0], hidden, registered));
    }
  }
  if (with_head) {
    std::vector<BlockHandle> live;
    for (const ActivationTensor& t : head_activations(arch, shape, tokens, vocab)) {
      Result<BlockHandle> h = env_.allocator.allocate(t.bytes, Category::kActivations);
      if (!h.ok()) return h.status();
      live.push_back(*h);
    }
    GPUMEM_RETURN_IF_ERROR(env_.device.launch_kernels(kernels_.head, hidden));
    for (BlockHandle h : live) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(h));
  }
  for (BlockHandle h : persistent) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(h));
  return {};
}

// sglang v0.5.9 parallel_state.py GroupCoordinator.all_reduce: the custom kernel when it
// is on and the input fits its 8 MiB buffer, else PyNccl.
Status GraphCapture::all_reduce(BlockHandle input, Bytes size,
                                std::set<std::uint64_t>* registered) {
  const CustomAllReduceSizes car;
  if (plan_.custom_all_reduce.enabled && size <= car.max_size) {
    if (registered != nullptr) {
      Result<BaseAllocation> base = env_.allocator.base_allocation(input);
      if (!base.ok()) return base.status();
      registered->insert(base->base.address);
    }
    return env_.device.launch_kernel({}, size);
  }
  Result<DevicePtr> p = env_.allocator.address(input);
  if (!p.ok()) return p.status();
  return env_.comm.all_reduce(tp_comm_, *p, size);
}

Status GraphCapture::register_buffers(const std::set<std::uint64_t>& bases) {
  if (!plan_.custom_all_reduce.enabled) return {};
  for (std::uint64_t base : bases) {
    GPUMEM_RETURN_IF_ERROR(open_peer_handles(env_.device, env_.comm, tp_group_, DevicePtr{base}));
  }
  return {};
}

}  // namespace gpumem::sglang
