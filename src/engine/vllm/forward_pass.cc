#include "engine/vllm/forward_pass.h"

#include <algorithm>

namespace gpumem::vllm {

ForwardPass::ForwardPass(const Plan& plan, const ActivationConstants& constants, RankEnv& env,
                         CommunicatorId tp_comm)
    : p_(plan),
      k_(constants),
      env_(env),
      stage_(plan.stages[static_cast<size_t>(plan.pp_rank_of(env.rank))]),
      last_stage_(plan.pp_rank_of(env.rank) == plan.pp - 1),
      element_bytes_(element_size(plan.facts.served_dtype).value()),
      tp_comm_(tp_comm) {}

// Replays activations: each freed right after the tensor its free_after names; the rest
// are freed at the end, or handed back in `survivors`.
Status ForwardPass::replay(const std::vector<Activation>& list,
                           std::vector<BlockHandle>* survivors) {
  std::vector<BlockHandle> handles(list.size());
  std::vector<bool> freed(list.size(), false);
  for (size_t i = 0; i < list.size(); ++i) {
    Result<BlockHandle> h = env_.allocator.allocate(list[i].bytes, Category::kActivations);
    if (!h.ok()) return h.status();
    handles[i] = *h;
    for (size_t j = 0; j < i; ++j) {
      if (!freed[j] && list[j].free_after == static_cast<int>(i)) {
        GPUMEM_RETURN_IF_ERROR(env_.allocator.free(handles[j]));
        freed[j] = true;
      }
    }
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (freed[i]) continue;
    if (survivors != nullptr) {
      survivors->push_back(handles[i]);
    } else {
      GPUMEM_RETURN_IF_ERROR(env_.allocator.free(handles[i]));
    }
  }
  return {};
}

// vllm distributed/device_communicators/cuda_communicator.py CudaCommunicator.all_reduce:
// custom all-reduce below its max size, then symmetric memory below its own, else PyNccl.
Status ForwardPass::all_reduce(BlockHandle input, Bytes size, Capture* capture) {
  const AllReducePlan& ar = p_.all_reduce;
  if (ar.custom.enabled && size < ar.custom.max_size) {
    if (capture != nullptr) {
      Result<BaseAllocation> base = env_.allocator.base_allocation(input);
      if (!base.ok()) return base.status();
      capture->bases.insert(base->base.address);
      ++capture->custom_calls;
    }
    return env_.device.launch_kernel({}, size);
  }
  if (ar.symm_mem.enabled && size < ar.symm_mem.max_size) {
    return env_.device.launch_kernel({}, size);
  }
  Result<DevicePtr> ptr = env_.allocator.address(input);
  if (!ptr.ok()) return ptr.status();
  return env_.comm.all_reduce(tp_comm_, *ptr, size);
}

// One forward over `tokens` tokens through this stage: the residual stream's two buffers,
// each layer kind's transient tensors (later layers of a kind repeat the first's pattern
// exactly, so only the first allocates), every layer's kernels and two all-reduces, and
// the final norm on the last stage. `out` is the output hidden states, for the caller to
// free.
Status ForwardPass::forward(std::int64_t tokens, bool attention_kernels, Capture* capture,
                            BlockHandle& out) {
  const Architecture& a = p_.model;
  const Bytes hidden = bytes(tokens * a.hidden_size * element_bytes_);
  Result<BlockHandle> h = env_.allocator.allocate(hidden, Category::kActivations);
  if (!h.ok()) return h.status();
  // A multimodal model's forward starts from the runner's inputs_embeds buffer
  // (gpu_model_runner.py _dummy_run with supports_mm_inputs): the first layer's residual is
  // that buffer, so only the normalised stream is new.
  std::optional<BlockHandle> residual;
  if (!p_.encoder) {
    Result<BlockHandle> r = env_.allocator.allocate(hidden, Category::kActivations);
    if (!r.ok()) return r.status();
    residual = *r;
  }
  bool dense_done = false;
  bool moe_done = false;
  for (std::int64_t layer = stage_.layers.start; layer < stage_.layers.end; ++layer) {
    bool& done = a.is_moe_layer(layer) ? moe_done : dense_done;
    if (!done) {
      GPUMEM_RETURN_IF_ERROR(
          replay(layer_activations(a, p_.shape, layer, tokens, element_bytes_, k_), nullptr));
      done = true;
    }
    GPUMEM_RETURN_IF_ERROR(
        env_.device.launch_kernels(layer_kernels(a, layer, attention_kernels, k_), hidden));
    for (int reduce = 0; reduce < 2 && p_.tp > 1; ++reduce) {
      GPUMEM_RETURN_IF_ERROR(all_reduce(*h, hidden, capture));
    }
  }
  if (residual) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*residual));
  out = *h;
  if (last_stage_) {
    Result<BlockHandle> norm = env_.allocator.allocate(hidden, Category::kActivations);
    if (!norm.ok()) return norm.status();
    GPUMEM_RETURN_IF_ERROR(env_.device.launch_kernels(k_.final_norm_kernels, hidden));
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*h));
    out = *norm;
  }
  return {};
}

// gpu_model_runner.py _dummy_sampler_run: the sampled rows' hidden states, their logits
// and the sampler's tensors, live together, then freed.
Status ForwardPass::logits_and_sampler(std::int64_t requests) {
  std::vector<BlockHandle> live;
  Result<BlockHandle> rows = env_.allocator.allocate(
      bytes(requests * p_.model.hidden_size * element_bytes_), Category::kActivations);
  if (!rows.ok()) return rows.status();
  live.push_back(*rows);
  GPUMEM_RETURN_IF_ERROR(
      replay(logits_activations(p_.model, p_.shape, requests, element_bytes_), &live));
  GPUMEM_RETURN_IF_ERROR(replay(sampler_activations(p_.model, requests, k_), &live));
  for (BlockHandle b : live) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
  return {};
}

Status ForwardPass::dummy_run_with_sampler(std::int64_t tokens) {
  BlockHandle out;
  GPUMEM_RETURN_IF_ERROR(forward(tokens, true, nullptr, out));
  if (last_stage_) {
    GPUMEM_RETURN_IF_ERROR(logits_and_sampler(std::min(p_.args.max_num_seqs, tokens)));
  }
  return env_.allocator.free(out);
}

Status ForwardPass::capture_size(std::int64_t tokens, bool full, PoolId pool, Capture& capture) {
  BlockHandle out;
  GPUMEM_RETURN_IF_ERROR(forward(tokens, full, nullptr, out));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(out));
  // vllm v0.10.2 distributed/parallel_state.py graph_capture: the captures run on a new
  // torch.cuda.Stream(), the process's first side stream (PyNccl keeps the current one).
  GPUMEM_RETURN_IF_ERROR(env_.device.use_pytorch_resource(PytorchResource::kStreamPool));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.begin_allocate_to_pool(pool));
  Status s = env_.device.begin_graph_capture();
  if (s.ok()) s = forward(tokens, full, &capture, out);
  if (s.ok()) s = env_.allocator.free(out);
  if (s.ok()) s = env_.device.end_graph_capture().status();
  Status end = env_.allocator.end_allocate_to_pool(pool);
  GPUMEM_RETURN_IF_ERROR(s);
  return end;
}

}  // namespace gpumem::vllm
