#include "engine/vllm/startup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/ipc_sharing.h"
#include "engine/startup_helpers.h"
#include "engine/vllm/forward_pass.h"
#include "engine/vllm/log_lines.h"
#include "runtime/fact_ids.h"

namespace gpumem::vllm {
namespace {

// v1/worker/workspace.py: sub-requests of a workspace are 256-byte aligned.
std::int64_t round256(std::int64_t b) { return (b + 255) / 256 * 256; }

// One rank's start-up. Members hold what vLLM's worker keeps between steps.
class RankStartup {
 public:
  RankStartup(const Plan& plan, const StartupConstants& k, RankEnv& env)
      : p_(plan),
        k_(k),
        env_(env),
        pp_rank_(plan.pp_rank_of(env.rank)),
        stage_(plan.stages[static_cast<size_t>(pp_rank_)]),
        last_stage_(pp_rank_ == plan.pp - 1) {
    RankGroups groups = rank_groups(env.rank, plan.tp, plan.pp, plan.dp);
    tp_group_ = std::move(groups.tp);
    pp_group_ = std::move(groups.pp);
    dp_group_ = std::move(groups.dp);
    ep_group_ = std::move(groups.stage_across_replicas);
  }

  void run() {
    if (!step("context", &RankStartup::context)) return;
    // vllm v1/worker/gpu_worker.py init_device: the snapshot moved after the distributed
    // init in PR #25359 ("ensuring consistent NCCL memory accounting").
    if (p_.rules.snapshot_after_distributed) {
      if (!step("distributed", &RankStartup::distributed)) return;
      if (!step("memory_snapshot", &RankStartup::memory_snapshot)) return;
    } else {
      if (!step("memory_snapshot", &RankStartup::memory_snapshot)) return;
      if (!step("distributed", &RankStartup::distributed)) return;
    }
    if (!step("model_runner", &RankStartup::model_runner)) return;
    if (!step("weights", &RankStartup::weights)) return;
    if (!step("profile_run", &RankStartup::profile_run)) return;
    if (p_.estimate_cudagraphs && !step("cuda_graph_estimate", &RankStartup::cuda_graph_estimate)) {
      return;
    }
    if (!step("kv_cache", &RankStartup::kv_cache)) return;
    if (!p_.args.capture_sizes.empty() && !step("cuda_graphs", &RankStartup::cuda_graphs)) return;
    step("sampler_warmup", &RankStartup::sampler_warmup);
  }

 private:
  bool step(std::string_view name, Status (RankStartup::*body)()) {
    return run_step(env_, name, this, body);
  }

  Result<BlockHandle> allocate(Bytes size, Category c) { return env_.allocator.allocate(size, c); }
  Status allocate_kept(Bytes size, Category c) { return allocate(size, c).status(); }
  Status free(BlockHandle h) { return env_.allocator.free(h); }

  Status context() {
    if (!p_.runner.warning.empty()) env_.log(p_.runner.warning);
    return env_.device.init_context();
  }

  Result<CommunicatorId> pynccl(const std::vector<int>& group) {
    Result<CommunicatorId> c = env_.comm.create_communicator(group, p_.nccl);
    if (!c.ok()) return c.status();
    GPUMEM_RETURN_IF_ERROR(pynccl_warm_up(env_, *c));
    return *c;
  }

  Status distributed() {
    // vllm distributed/parallel_state.py initialize_model_parallel: the TP group (PyNccl,
    // then symmetric memory and custom all-reduce, cuda_communicator.py), the PP group, the
    // DP group, and for MoE models the EP group over the TP ranks of every DP rank ("Don't
    // create EP group for dense models" in the v0.21 source; whether older releases built
    // it for dense models too is UNCONFIRMED); a group of one rank creates no communicator.
    // A dense model's DP ranks are independent engines, each with DP = 1 (v1/engine/core.py
    // run_engine_core), so only a MoE model has DP and EP groups across them.
    if (p_.tp > 1) {
      Result<CommunicatorId> c = pynccl(tp_group_);
      if (!c.ok()) return c.status();
      tp_comm_ = *c;
      GPUMEM_RETURN_IF_ERROR(create_all_reduce_buffers(env_.device, env_.comm, env_.allocator,
                                                       tp_group_, p_.all_reduce));
    }
    if (p_.pp > 1) GPUMEM_RETURN_IF_ERROR(pynccl(pp_group_).status());
    const bool moe = p_.model.moe.num_experts > 0;
    if (moe && p_.dp > 1) GPUMEM_RETURN_IF_ERROR(pynccl(dp_group_).status());
    if (moe && ep_group_.size() > 1) GPUMEM_RETURN_IF_ERROR(pynccl(ep_group_).status());
    // Every forward from here on reduces over the TP communicator.
    forward_.emplace(p_, k_.activations, env_, tp_comm_);
    return {};
  }

  Status memory_snapshot() {
    // gpu_worker.py init_device: "Using V2 Model Runner" after the distributed init, then
    // gc.collect(); empty_cache(); MemorySnapshot(); request_memory().
    if (p_.runner.v2) env_.log("Using V2 Model Runner");
    env_.allocator.empty_cache();
    const MemInfo m = env_.device.mem_get_info();
    init_free_ = m.free;
    total_ = m.total;
    init_non_torch_ = m.total - m.free - env_.allocator.memory_reserved();
    requested_ = requested_memory(total_, p_.args.gpu_memory_utilization, p_.rules);
    env_.fact(
        {std::string(fact_id::kInitSnapshotFree), "free memory at the init snapshot", init_free_});
    env_.fact({std::string(fact_id::kRequestedMemory),
               "requested memory (total x gpu_memory_utilization)",
               bytes(static_cast<std::int64_t>(requested_))});
    const std::string error =
        budget_error(init_free_, total_, p_.args.gpu_memory_utilization, env_.local_rank, p_.rules);
    if (!error.empty()) {
      env_.fact({std::string(fact_id::kShortfallBytes), "budget above free memory",
                 bytes(static_cast<std::int64_t>(std::ceil(requested_))) - init_free_});
      return engine_error(error);
    }
    return {};
  }

  Status model_runner() {
    // v1/worker/gpu_model_runner.py GPUModelRunner.__init__ and v1/worker/gpu_input_batch.py
    // InputBatch: persistent GPU buffers sized by max_num_batched_tokens and max_num_seqs,
    // one block table of cdiv(max_model_len, block_size) entries per request.
    const std::int64_t tokens = p_.args.max_num_batched_tokens;
    const std::int64_t reqs = p_.args.max_num_seqs;
    const std::int64_t blocks_per_req =
        (p_.args.max_model_len + p_.facts.block_size - 1) / p_.facts.block_size;
    constexpr std::int64_t kSamplingParams = 7;  // temperature, top_p, top_k, 3 penalties, seed
    // vllm v0.10.2 v1/worker/gpu_model_runner.py GPUModelRunner.__init__: the buffers are
    // torch.zeros on the GPU, a fill: the process's first ATen kernel when no PyNccl warm-up
    // ran one (TP = PP = 1).
    GPUMEM_RETURN_IF_ERROR(env_.device.use_pytorch_resource(PytorchResource::kAtenModule));
    if (p_.draft) {
      // v1/spec_decode/eagle.py EagleProposer.__init__ (built first, for EAGLE-3 and MTP):
      // input_ids, positions, hidden_states, arange over max(max_num_seqs + 1, tokens),
      // inputs_embeds, and the device half of backup_next_token_ids. The v0.10 layout is read
      // from copies of that era's eagle.py only.
      const std::int64_t row = p_.draft->hidden_size * element_size(p_.facts.served_dtype).value();
      for (Bytes b :
           {bytes(tokens * 4), bytes(tokens * 8), bytes(tokens * row),
            bytes(std::max(reqs + 1, tokens) * 4), bytes(tokens * row), bytes(reqs * 4)}) {
        GPUMEM_RETURN_IF_ERROR(allocate_kept(b, Category::kOther));
      }
    }
    for (Bytes b :
         {bytes(tokens * 4), bytes(tokens * 8), bytes((reqs + 1) * 4), bytes(reqs * 4),
          bytes(reqs * blocks_per_req * 4), bytes(tokens * 8), bytes(reqs * kSamplingParams * 4)}) {
      GPUMEM_RETURN_IF_ERROR(allocate_kept(b, Category::kOther));
    }
    if (p_.encoder) {
      // ... and, for a model that takes multimodal inputs, inputs_embeds: the language
      // model's input rows, in the model dtype.
      GPUMEM_RETURN_IF_ERROR(allocate_kept(
          bytes(tokens * p_.model.hidden_size * element_size(p_.facts.served_dtype).value()),
          Category::kOther));
    }
    return {};
  }

  Status weights() {
    // gpu_model_runner.py load_model under DeviceMemoryProfiler: the torch-allocated
    // increase, the EAGLE draft included.
    const Bytes before = env_.allocator.memory_allocated();
    if (p_.facts.dsa_indexer_token_bytes > 0) {
      // models/deepseek_v2.py DeepseekV2Model.__init__: the layers' shared int32 top-k index
      // buffer, max_num_batched_tokens x index_topk, built with the model.
      const Bytes topk = bytes(p_.args.max_num_batched_tokens * p_.model.mla.index_topk * 4);
      GPUMEM_RETURN_IF_ERROR(allocate_kept(topk, Category::kOther));
      env_.fact({"dsa_topk_indices_bytes", "sparse attention top-k index buffer", topk});
    }
    if (p_.model.csa.present() && last_stage_) {
      // models/deepseek_v4.py DeepseekV4Model.__init__, on the last stage: the hc_mult streams
      // before the head, kept for an MTP draft (max_num_batched_tokens x hc_mult x hidden in
      // the model dtype), allocated with or without a draft (PR #50312 later guards it).
      const Bytes streams =
          bytes(p_.args.max_num_batched_tokens * p_.model.csa.hc_mult * p_.model.hidden_size) *
          element_size(p_.facts.served_dtype).value();
      GPUMEM_RETURN_IF_ERROR(allocate_kept(streams, Category::kOther));
      env_.fact({"mtp_hidden_buffer_bytes", "pre-head hidden streams kept for MTP", streams});
    }
    GPUMEM_RETURN_IF_ERROR(env_.load_weights(stage_.weights));
    GPUMEM_RETURN_IF_ERROR(env_.load_weights(stage_.draft_weights));
    const Bytes measured = env_.allocator.memory_allocated() - before;
    weights_ = p_.observed.model_loading.value_or(measured);
    free_after_weights_ = env_.device.mem_get_info().free;
    env_.fact({std::string(fact_id::kWeightsLogicalBytes), "weights allocated (logical)",
               resident_bytes(tensors_of(stage_.weights)) +
                   resident_bytes(tensors_of(stage_.draft_weights))});
    env_.fact({std::string(fact_id::kWeightsBytes), "model_memory_usage", weights_});
    if (p_.flags.cpu_offload_gb > 0) {
      // weights/cpu_offload.h: this rank's pipeline stage keeps its own layers' share.
      env_.fact(
          {"weights_offloaded_to_cpu", "weights offloaded to CPU memory", stage_.offloaded_to_cpu});
    }
    env_.log(log_model_loading(weights_, p_.rules));
    return {};
  }

  Bytes cublas_workspace() const { return k_.cublas.for_gpu(p_.gpu); }

  Status profile_run() {
    // gpu_worker.py memory_profiling: gc, empty_cache, reset_peak_memory_stats, then
    // profile_run (gpu_model_runner.py): a forward of max_num_batched_tokens tokens spread
    // over min(max_num_seqs, tokens) requests, and the dummy sampler.
    env_.allocator.empty_cache();
    env_.allocator.reset_peak_stats();
    const Bytes before_peak = env_.allocator.max_memory_allocated();
    // The first GEMM loads cuBLAS and takes PyTorch's workspace for the stream; FlashInfer
    // allocates its workspace at the first metadata build.
    GPUMEM_RETURN_IF_ERROR(env_.device.load_library("cublas"));
    GPUMEM_RETURN_IF_ERROR(allocate_kept(cublas_workspace(), Category::kWorkspace));
    if (p_.facts.attention_backend == "FLASHINFER") {
      GPUMEM_RETURN_IF_ERROR(allocate_kept(k_.flashinfer_workspace, Category::kWorkspace));
    }
    std::vector<BlockHandle> encoder_cache;
    if (p_.encoder) {
      env_.log(log_encoder_cache(p_.encoder->budget, p_.encoder->items, p_.encoder->modality));
      const Bytes before_encoder = env_.allocator.memory_allocated();
      GPUMEM_RETURN_IF_ERROR(forward_->encoder_forward(*p_.encoder, encoder_cache));
      env_.fact({"encoder_items", "dummy items the encoder profile runs", p_.encoder->items});
      env_.fact({"encoder_peak_bytes", "encoder forward's peak above what was allocated before it",
                 env_.allocator.max_memory_allocated() - before_encoder});
      env_.fact({"encoder_held_bytes", "dummy pixel values and encoder outputs held",
                 env_.allocator.memory_allocated() - before_encoder});
    }
    if (p_.facts.dsa_indexer_token_bytes > 0) GPUMEM_RETURN_IF_ERROR(sparse_indexer_profile());
    GPUMEM_RETURN_IF_ERROR(forward_->dummy_run_with_sampler(p_.args.max_num_batched_tokens));
    for (BlockHandle b : encoder_cache) GPUMEM_RETURN_IF_ERROR(free(b));
    const Bytes measured = env_.allocator.max_memory_allocated() - before_peak;
    peak_increase_ = p_.observed.activation_peak.value_or(measured);
    env_.fact({std::string(fact_id::kActivationPeakBytes), "torch peak increase (activation peak)",
               peak_increase_});
    if (!p_.estimate_cudagraphs) finish_profiling();
    return {};
  }

  // The sparse-attention indexer in the profile's first layer (layers/sparse_attn_indexer.py,
  // its dummy-run branch), before the forward's own activations: what it holds at once is
  // taken, and what it frees raises the peak only where the forward's own peak is lower.
  Status sparse_indexer_profile() {
    const std::int64_t len = p_.args.max_model_len;
    if (p_.model.csa.present()) {
      GPUMEM_RETURN_IF_ERROR(deepseek_v4_workspace());
    } else if (p_.rules.dsa_persistent_workspace) {
      // v1/worker/workspace.py: one buffer for the largest request, kept. The indexer's
      // prefill keys for get_max_prefill_buffer_size = 40 x max_model_len tokens (fp8 values
      // and float32 scales) and the radix top-k's 1 MiB (5036.40 MiB at 1,000,000: vllm
      // #55221); with an fp8 cache, FlashMLA sparse's bfloat16 prefill copy of 5 x
      // max_model_len latent rows.
      const std::int64_t tokens = 40 * len;
      std::int64_t workspace = round256(tokens * 128) + round256(tokens * 4) + (1 << 20);
      if (p_.facts.kv_cache_dtype == "fp8_ds_mla") {
        workspace = std::max<std::int64_t>(workspace, 5 * len * 576 * 2);
      }
      GPUMEM_RETURN_IF_ERROR(allocate_kept(bytes(workspace), Category::kWorkspace));
      env_.fact({"dsa_workspace_bytes", "sparse attention workspace", bytes(workspace)});
    } else {
      // Before the workspace manager: 2 x max_model_len rows of 132-byte keys and the
      // contiguous copies of their fp8 values and scales, freed after the layer.
      Result<BlockHandle> keys = allocate(bytes(2 * len * 264), Category::kActivations);
      if (!keys.ok()) return keys.status();
      GPUMEM_RETURN_IF_ERROR(free(*keys));
    }
    if (p_.rules.dsa_profiles_logits_budget) {
      Result<BlockHandle> logits = allocate(bytes(512LL << 20), Category::kActivations);
      if (!logits.ok()) return logits.status();
      GPUMEM_RETURN_IF_ERROR(free(*logits));
    }
    return {};
  }

  // DeepSeek-V4's dummy run takes one grow-only buffer from the workspace manager
  // (v1/worker/workspace.py) for the largest request: each compressed layer's bfloat16 gather
  // of 4 chunks x (max_model_len / ratio + window + max_num_batched_tokens) latents of 512
  // (deepseek_v4_attention.py PREFILL_CHUNK_SIZE), and the ratio-4 indexer's prefill keys for
  // 40 x max_model_len / 4 tokens (fp8 keys, float32 scales, the radix top-k's 1 MiB;
  // sparse_attn_indexer.py). The buffer is kept.
  Status deepseek_v4_workspace() {
    const Architecture& a = p_.model;
    const std::int64_t len = p_.args.max_model_len;
    std::int64_t smallest_ratio = 0;
    for (std::int64_t l = stage_.layers.start; l < stage_.layers.end; ++l) {
      const std::int64_t r = a.csa.ratio(l);
      if (r > 1 && (smallest_ratio == 0 || r < smallest_ratio)) smallest_ratio = r;
    }
    const std::int64_t compressed =
        smallest_ratio > 0 ? (len + smallest_ratio - 1) / smallest_ratio : 0;
    const std::int64_t rows = compressed + a.sliding_window + p_.args.max_num_batched_tokens;
    std::int64_t workspace = round256(4 * rows * a.head_dim * 2);
    if (smallest_ratio == 4) {
      const std::int64_t keys = 40 * len / 4;
      workspace =
          std::max(workspace, round256(keys * a.mla.index_head_dim) +
                                  round256(keys * a.mla.index_head_dim / 128 * 4) + (1 << 20));
    }
    GPUMEM_RETURN_IF_ERROR(allocate_kept(bytes(workspace), Category::kWorkspace));
    env_.fact({"dsa_workspace_bytes", "sparse attention workspace", bytes(workspace)});
    return {};
  }

  // memory_profiling's exit: gc, empty_cache, the after snapshot; non-torch memory grown
  // since the init snapshot.
  void finish_profiling() {
    env_.allocator.empty_cache();
    const MemInfo m = env_.device.mem_get_info();
    const Bytes non_torch = m.total - m.free - env_.allocator.memory_reserved();
    non_torch_ = p_.observed.non_torch_memory.value_or(non_torch - init_non_torch_);
    env_.fact({"non_torch_bytes", "non-torch increase", non_torch_});
  }

  // The estimate's result for both runners: pinned or measured, logged (V1 only) and the
  // profile ended.
  Status finish_estimate(Bytes measured, std::int64_t pages_of_doubt, bool log_it) {
    estimate_ = p_.observed.cuda_graph_estimate.value_or(measured);
    if (!p_.observed.cuda_graph_estimate) estimate_doubt_ = k_.free_memory_page * pages_of_doubt;
    if (log_it) env_.log(log_estimated_cudagraph_memory(estimate_));
    env_.fact({"cuda_graph_estimate_bytes", "cuda graph estimate", estimate_});
    finish_profiling();
    return {};
  }

  void estimate_sample_fact(bool is_full, std::int64_t size, Bytes sample) {
    env_.fact(
        {fmt::format("cuda_graph_estimate_sample_{}_size_{}", is_full ? "full" : "piecewise", size),
         fmt::format("cuda graph estimate sample ({}, size {})", is_full ? "FULL" : "PIECEWISE",
                     size),
         sample});
  }

  Result<std::vector<BlockHandle>> minimal_kv_cache(std::int64_t blocks) {
    std::vector<BlockHandle> minimal;
    for (Bytes page : stage_.kv.tensor_pages) {
      Result<BlockHandle> t = allocate(page * blocks, Category::kKvCache);
      if (!t.ok()) return t.status();
      minimal.push_back(*t);
    }
    return minimal;
  }

  Status v2_cuda_graph_estimate() {
    // v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory (PR #53306, v0.29.0; the
    // two-sample form the upstream diff of PR #57865 shows): a minimal KV cache of
    // min(max_num_seqs, max_cudagraph_capture_size) blocks; in a throwaway pool every
    // PIECEWISE graph and the two largest FULL ones, measured as one free-memory delta; the
    // other FULL graphs cost the second sample each (at least 1 MiB). Nothing is logged.
    const std::int64_t blocks = std::max<std::int64_t>(
        std::min(p_.args.max_num_seqs, p_.args.max_cudagraph_capture_size), 1);
    Result<std::vector<BlockHandle>> minimal = minimal_kv_cache(blocks);
    if (!minimal.ok()) return minimal.status();
    const PoolId pool = env_.allocator.create_pool();
    env_.allocator.empty_cache();
    const Bytes start_free = env_.device.mem_get_info().free;
    int captures = 0;
    Capture ignored;
    const std::vector<std::int64_t>& pw = p_.args.piecewise_sizes;
    for (auto it = pw.rbegin(); it != pw.rend(); ++it, ++captures) {
      GPUMEM_RETURN_IF_ERROR(forward_->capture_size(*it, false, pool, ignored));
    }
    const std::vector<std::int64_t>& full = p_.args.full_sizes;
    std::vector<Bytes> samples;
    for (size_t i = 0; i < std::min<size_t>(2, full.size()); ++i, ++captures) {
      const std::int64_t size = full[full.size() - 1 - i];
      const Bytes before = env_.device.mem_get_info().free;
      GPUMEM_RETURN_IF_ERROR(forward_->capture_size(size, true, pool, ignored));
      samples.push_back(before - env_.device.mem_get_info().free);
      estimate_sample_fact(true, size, samples.back());
    }
    const Bytes measured = start_free - env_.device.mem_get_info().free;
    for (int i = 0; i < captures; ++i) GPUMEM_RETURN_IF_ERROR(env_.allocator.release_pool(pool));
    for (BlockHandle t : *minimal) GPUMEM_RETURN_IF_ERROR(free(t));
    // _extrapolate_full_graph_memory: the first FULL sample once, the second for every other.
    Bytes full_estimate;
    Bytes sampled;
    for (Bytes b : samples) sampled += b;
    if (!samples.empty()) {
      full_estimate =
          samples[0] + std::max(samples.size() > 1 ? samples[1] : bytes(0), k_.min_graph_estimate) *
                           static_cast<std::int64_t>(full.size() - 1);
    }
    const Bytes estimate = std::max(measured - sampled + full_estimate, bytes(0));
    return finish_estimate(
        estimate, 1 + static_cast<std::int64_t>(full.empty() ? 0 : full.size() - 1), false);
  }

  Status cuda_graph_estimate() {
    if (p_.runner.v2) return v2_cuda_graph_estimate();
    // gpu_model_runner.py profile_cudagraph_memory, inside memory_profiling: a minimal KV
    // cache of max_cudagraph_capture_size blocks, the two largest graphs of each mode in a
    // temporary pool, then all of it released.
    Result<std::vector<BlockHandle>> minimal = minimal_kv_cache(p_.args.max_cudagraph_capture_size);
    if (!minimal.ok()) return minimal.status();
    const std::vector<std::int64_t>& pw = p_.args.piecewise_sizes;
    const std::vector<std::int64_t>& full = p_.args.full_sizes;
    env_.log(log_profiling_cudagraph_memory(
        static_cast<std::int64_t>(pw.size()), pw.empty() ? 0 : pw.back(),
        static_cast<std::int64_t>(full.size()), full.empty() ? 0 : full.back()));
    const PoolId pool = env_.allocator.create_pool();
    env_.allocator.empty_cache();
    int captures = 0;
    Bytes first_max;
    Bytes per_graph_total;
    std::int64_t pages_of_doubt = 1;  // the first capture's sample
    for (bool is_full : {false, true}) {
      const std::vector<std::int64_t>& sizes = is_full ? full : pw;
      if (sizes.empty()) continue;
      std::vector<Bytes> samples;
      for (size_t i = 0; i < std::min<size_t>(2, sizes.size()); ++i) {
        const Bytes before = env_.device.mem_get_info().free;
        Capture ignored;
        GPUMEM_RETURN_IF_ERROR(
            forward_->capture_size(sizes[sizes.size() - 1 - i], is_full, pool, ignored));
        ++captures;
        samples.push_back(before - env_.device.mem_get_info().free);
        // Each sample is multiplied by the mode's remaining captures, so one 2 MiB page more
        // or less moves the estimate by (n - 1) x 2 MiB; the samples are kept for `check`.
        estimate_sample_fact(is_full, sizes[sizes.size() - 1 - i], samples.back());
      }
      // "FULL and PIECEWISE graphs share the global pool ... Take the max".
      first_max = std::max(first_max, samples.front());
      const Bytes per_graph =
          std::max(samples.size() > 1 ? samples[1] : bytes(0), k_.min_graph_estimate);
      per_graph_total += per_graph * static_cast<std::int64_t>(sizes.size() - 1);
      pages_of_doubt += static_cast<std::int64_t>(sizes.size() - 1);
    }
    for (int i = 0; i < captures; ++i) GPUMEM_RETURN_IF_ERROR(env_.allocator.release_pool(pool));
    for (BlockHandle t : *minimal) GPUMEM_RETURN_IF_ERROR(free(t));
    return finish_estimate(first_max + per_graph_total, pages_of_doubt, true);
  }

  Status kv_cache() {
    const KvCacheLayout& kv = stage_.kv;
    Bytes available;
    if (p_.flags.kv_cache_memory_bytes) {
      // gpu_worker.py determine_available_memory: the override skips profiling's result.
      available = bytes(*p_.flags.kv_cache_memory_bytes);
      env_.log(log_kv_cache_memory_override(init_free_, available, p_.rules));
    } else {
      const Bytes charged = p_.charge_cudagraph_estimate ? estimate_ : bytes(0);
      available = p_.observed.kv_cache_memory.value_or(
          available_kv_cache_memory(requested_, {weights_, peak_increase_, non_torch_, charged}));
      env_.log(log_available_kv_cache_memory(available, p_.rules));
      if (estimate_ > bytes(0)) {
        env_.log(
            p_.charge_cudagraph_estimate
                ? log_cudagraph_estimate_note(p_.args.gpu_memory_utilization, estimate_, total_)
                : log_cudagraph_estimate_hint(p_.args.gpu_memory_utilization, estimate_, total_));
      }
    }
    available_ = available;
    env_.fact({std::string(fact_id::kKvBytes), "available KV cache memory", available});
    env_.fact({std::string(fact_id::kKvBudgetBytes), "KV budget", available});
    env_.fact(
        {std::string(fact_id::kKvBudgetFreeBytes), "free after weights", free_after_weights_});
    // gpu_worker.py determine_available_memory: requested - (weights + activation peak +
    // non-torch + graph estimate); what is free beyond total x utilization is never offered.
    env_.fact({std::string(fact_id::kKvKeptBack), "kept back from the free memory",
               std::string("above total x gpu_memory_utilization, activation peak, non-torch "
                           "memory") +
                   (p_.charge_cudagraph_estimate ? ", CUDA-graph estimate" : "")});
    // What the KV cache inherits from the estimate's page rounding; `gpumem check` widens
    // this step's tolerance by it.
    if (estimate_doubt_ > bytes(0) && p_.charge_cudagraph_estimate &&
        !p_.observed.kv_cache_memory) {
      env_.fact(
          {fact_id::step_uncertainty("kv_cache"), "uncertainty of step kv_cache", estimate_doubt_});
    }
    if (p_.facts.mamba_state_bytes > 0 && !p_.model.attention_free()) {
      // The hybrid alignment's two lines (printed once the block size is known); a model
      // without attention aligns nothing.
      env_.log(log_hybrid_block_size(p_.facts.block_size));
      if (p_.facts.mamba_page_bytes != p_.facts.mamba_state_bytes) {
        env_.log(log_mamba_page_padding(p_.facts.mamba_state_bytes, p_.facts.mamba_page_bytes));
      }
    }
    env_.fact({"kv_page_bytes", "page size (bytes per layer and block)", kv.page});
    env_.fact({"kv_layers_per_group", "KV tensors (layers per group)", kv.group_size});
    // kv_cache_utils.py get_kv_cache_configs: per worker the checks, the groups, the
    // block count; then the MIN over workers.
    std::int64_t max_model_len = p_.args.max_model_len;
    if (p_.flags.max_model_len_auto && available > bytes(0)) {
      // _auto_fit_max_model_len: the model's length when one request of it fits, else the
      // longest that does on every worker; the engine core sends it to the workers.
      Result<std::int64_t> fitted = env_.comm.min_over_world(estimate_max_model_len(
          available, kv, p_.args.max_model_len, p_.args.max_num_batched_tokens));
      if (!fitted.ok()) return fitted.status();
      if (*fitted > 0) {
        env_.log(log_auto_fit(p_.args.max_model_len, *fitted, available));
        max_model_len = std::min(*fitted, p_.args.max_model_len);
      }
      env_.fact(
          {std::string(fact_id::kMaxModelLenFitted), "max_model_len (auto-fit)", max_model_len});
    }
    const Bytes one_request =
        max_memory_per_request(kv, max_model_len, p_.args.max_num_batched_tokens);
    if (available <= bytes(0)) {
      env_.fact({std::string(fact_id::kShortfallBytes), "KV memory short of one request",
                 one_request - available});
      return engine_error(no_available_memory_error());
    }
    const std::string too_small = not_enough_kv_cache_error(
        available, kv, max_model_len, p_.args.max_num_batched_tokens, p_.rules);
    if (!too_small.empty()) {
      env_.fact({std::string(fact_id::kShortfallBytes), "KV memory short of one request",
                 one_request - available});
      return engine_error(too_small);
    }
    for (const KvPadding& pad : kv.paddings) env_.log(log_padding_layers(pad.added, pad.layers));
    std::int64_t blocks = num_blocks(available, kv);
    if (p_.flags.num_gpu_blocks_override) {
      env_.log(log_num_gpu_blocks_override(blocks, *p_.flags.num_gpu_blocks_override));
      blocks = *p_.flags.num_gpu_blocks_override;
    }
    env_.fact({"kv_blocks_rank", "num_blocks (this rank)", blocks});
    Result<std::int64_t> min_blocks = env_.comm.min_over_world(blocks);
    if (!min_blocks.ok()) return min_blocks.status();
    num_blocks_ = *min_blocks;
    const std::int64_t tokens = logged_token_count(num_blocks_, kv, max_model_len,
                                                   p_.args.max_num_batched_tokens, p_.rules);
    const double concurrency =
        max_concurrency(num_blocks_, kv, max_model_len, p_.args.max_num_batched_tokens);
    env_.fact({std::string(fact_id::kKvBlocks), "num_gpu_blocks (MIN over ranks)", num_blocks_});
    env_.fact({std::string(fact_id::kKvTokens), "GPU KV cache size (tokens)", tokens});
    env_.fact({std::string(fact_id::kMaxConcurrency), "maximum concurrency", concurrency});
    // The scheduler runs at most max_num_seqs requests at once (vllm config/scheduler.py).
    env_.fact({std::string(fact_id::kMaxRunningRequests), "max_num_seqs", p_.args.max_num_seqs});
    env_.log(log_kv_cache_size(tokens));
    env_.log(log_max_concurrency(max_model_len, concurrency));
    // gpu_model_runner.py initialize_kv_cache -> _check_and_update_cudagraph_mode, before the
    // tensors are allocated: full graphs decode every running sequence with a state block of
    // its own.
    if (p_.rules.mamba_blocks_bound_max_num_seqs && p_.facts.mamba_state_bytes > 0 &&
        !p_.args.full_sizes.empty() && p_.args.max_num_seqs > num_blocks_) {
      return engine_error(mamba_blocks_below_max_num_seqs_error(p_.args.max_num_seqs, num_blocks_));
    }
    // gpu_model_runner.py _allocate_kv_cache_tensors: torch.zeros(size, dtype=int8) per
    // KVCacheTensor, each page x num_blocks.
    for (Bytes page : kv.tensor_pages) {
      GPUMEM_RETURN_IF_ERROR(allocate_kept(page * num_blocks_, Category::kKvCache));
    }
    return {};
  }

  // custom_all_reduce.py register_graph_buffers: every captured input's base allocation is
  // exported and opened by each peer.
  Status register_graph_buffers(const Capture& capture) {
    if (!p_.all_reduce.custom.enabled) return {};
    env_.log(log_registering_graph_addresses(capture.custom_calls));
    for (std::uint64_t base : capture.bases) {
      GPUMEM_RETURN_IF_ERROR(open_peer_handles(env_.device, env_.comm, tp_group_, DevicePtr{base}));
    }
    return {};
  }

  Status cuda_graphs() {
    // gpu_model_runner.py capture_model: empty_cache, the free-memory reading, PIECEWISE
    // then FULL graphs each largest first into one global pool ("the smaller shapes can
    // reuse the memory pool allocated for the large shapes"), the second reading; the
    // custom all-reduce registration on leaving graph_capture.
    env_.allocator.empty_cache();
    const Bytes start_free = env_.device.mem_get_info().free;
    const PoolId pool = env_.allocator.create_pool();
    Capture capture;
    for (bool is_full : {false, true}) {
      const std::vector<std::int64_t>& sizes =
          is_full ? p_.args.full_sizes : p_.args.piecewise_sizes;
      if (sizes.empty()) continue;
      env_.log(log_capturing(is_full, static_cast<std::int64_t>(sizes.size())));
      for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
        GPUMEM_RETURN_IF_ERROR(forward_->capture_size(*it, is_full, pool, capture));
      }
    }
    graph_memory_ = start_free - env_.device.mem_get_info().free;
    GPUMEM_RETURN_IF_ERROR(register_graph_buffers(capture));
    env_.log(log_graph_capturing_finished(graph_memory_));
    env_.allocator.empty_cache();
    env_.fact({std::string(fact_id::kCudaGraphBytes),
               "cuda graph memory (free-memory delta of the capture)", graph_memory_});
    if (p_.charge_cudagraph_estimate && estimate_ > bytes(0)) {
      env_.log(log_graph_pool_memory(graph_memory_, estimate_));
    }
    return {};
  }

  Status sampler_warmup() {
    if (!p_.flags.kv_cache_memory_bytes) {
      MemorySummary s;
      s.init_free = init_free_;
      s.total = total_;
      s.gpu_memory_utilization = p_.args.gpu_memory_utilization;
      s.requested = requested_;
      s.weights = weights_;
      s.peak_activation = peak_increase_;
      s.non_torch = non_torch_;
      s.cuda_graph = graph_memory_;
      s.available_kv_cache = available_;
      s.redundancy = k_.suggestion_redundancy;
      env_.log(log_memory_summary(s));
    }
    // gpu_worker.py compile_or_warm_up_model: "Warm up sampler and preallocate memory buffer
    // for logits and other sampling related tensors of max possible shape" on the last PP
    // rank, after the capture so that empty_cache does not release them.
    if (!last_stage_) return {};
    return forward_->dummy_run_with_sampler(
        std::min(p_.args.max_num_seqs, p_.args.max_num_batched_tokens));
  }

  const Plan& p_;
  const StartupConstants& k_;
  RankEnv& env_;
  const int pp_rank_;
  const StagePlan& stage_;
  const bool last_stage_;
  std::vector<int> tp_group_;
  std::vector<int> pp_group_;
  std::vector<int> dp_group_;
  std::vector<int> ep_group_;
  CommunicatorId tp_comm_;
  std::optional<ForwardPass> forward_;
  Bytes init_free_;
  Bytes total_;
  Bytes init_non_torch_;
  double requested_ = 0;
  Bytes weights_;
  Bytes free_after_weights_;
  Bytes peak_increase_;
  Bytes non_torch_;
  Bytes estimate_;
  Bytes estimate_doubt_;
  Bytes available_;
  Bytes graph_memory_;
  std::int64_t num_blocks_ = 0;
};

}  // namespace

RankProgram startup_program(const Plan& plan, const StartupConstants& constants) {
  return [&plan, &constants](RankEnv& env) { RankStartup(plan, constants, env).run(); };
}

}  // namespace gpumem::vllm
