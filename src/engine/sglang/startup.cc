#include "engine/sglang/startup.h"

#include <algorithm>
#include <set>

#include "core/python_format.h"
#include "engine/sglang/graph_capture.h"
#include "engine/sglang/log_lines.h"
#include "engine/startup_helpers.h"
#include "runtime/fact_ids.h"

namespace gpumem::sglang {
namespace {

// One rank's start-up. Members hold what SGLang keeps between steps.
class RankStartup {
 public:
  RankStartup(const Plan& plan, const StartupConstants& k, RankEnv& env)
      : p_(plan),
        k_(k),
        env_(env),
        pp_rank_(plan.pp_rank_of(env.rank)),
        stage_(plan.stages[static_cast<size_t>(pp_rank_)]) {
    RankGroups groups = rank_groups(env.rank, plan.tp, plan.pp, plan.replicas);
    tp_group_ = std::move(groups.tp);
    pp_group_ = std::move(groups.pp);
  }

  void run() {
    if (!step("context", &RankStartup::context)) return;
    if (!step("distributed", &RankStartup::distributed)) return;
    if (!step("free_memory", &RankStartup::free_memory)) return;
    if (!step("weights", &RankStartup::weights)) return;
    const bool draft = p_.draft.has_value();
    const bool draft_first = draft && p_.rules.draft_counted_in_kv_sizing;
    if (draft_first && !step("draft_weights", &RankStartup::draft_weights)) return;
    if (!step("kv_cache", &RankStartup::kv_cache)) return;
    if (draft_first && !draft_setup()) return;
    if (!step("cublas", &RankStartup::cublas)) return;
    if (!step("attention_backend", &RankStartup::attention_backend)) return;
    if (!p_.flags.disable_cuda_graph && !step("cuda_graphs", &RankStartup::cuda_graphs)) return;
    if (draft && !draft_first) {
      if (!step("draft_weights", &RankStartup::draft_weights)) return;
      if (!draft_setup()) return;
    }
    if (draft && !p_.flags.disable_cuda_graph &&
        !step("draft_cuda_graphs", &RankStartup::draft_cuda_graphs)) {
      return;
    }
    step("ready", &RankStartup::ready);
  }

 private:
  bool step(std::string_view name, Status (RankStartup::*body)()) {
    return run_step(env_, name, this, body);
  }

  // speculative/eagle_worker.py EAGLEWorker.__init__: the draft runner allocates its KV pool,
  // then the worker hands the draft the target's embedding (and head), freeing its own.
  bool draft_setup() {
    if (!step("draft_kv_cache", &RankStartup::draft_kv_cache)) return false;
    return draft_replaced_.empty() ||
           step("draft_shares_target_embedding", &RankStartup::draft_shares_target_embedding);
  }

  // sglang v0.5.9 utils/common.py get_available_gpu_memory: empty_cache, then cudaMemGetInfo
  // free; with `distributed`, the float32 MIN over the world.
  Result<Bytes> available(bool distributed, bool empty_cache = true) {
    if (empty_cache) env_.allocator.empty_cache();
    const Bytes free = env_.device.mem_get_info().free;
    if (!distributed) return free;
    return env_.comm.min_over_world(free, /*as_float32=*/true);
  }
  Result<EngineGiB> available_gib(bool distributed, bool empty_cache = true) {
    Result<Bytes> b = available(distributed, empty_cache);
    if (!b.ok()) return b.status();
    return to_engine_gib(*b);
  }

  Status allocate(Bytes size, Category c) {
    if (size.value() == 0) return {};
    return env_.allocator.allocate(size, c).status();
  }

  Status context() {
    GPUMEM_RETURN_IF_ERROR(env_.device.init_context());
    before_distributed_ = to_engine_gib(env_.device.mem_get_info().free);
    return {};
  }

  Status distributed() {
    // sglang v0.5.9 parallel_state.py initialize_model_parallel: the TP group's PyNccl
    // communicator and its warm-up all-reduce of torch.zeros(1) (pynccl.py __init__), then
    // the custom all-reduce; the PP group has its own PyNccl communicator. A group of one
    // rank creates neither.
    // pynccl.py PyNcclCommunicator.__init__ runs ncclCommInitRank on a new
    // torch.cuda.Stream(): the process's first side stream creates PyTorch's stream pool.
    if (p_.tp > 1 || p_.pp > 1) {
      GPUMEM_RETURN_IF_ERROR(env_.device.use_pytorch_resource(PytorchResource::kStreamPool));
    }
    if (p_.tp > 1) {
      Result<CommunicatorId> c = env_.comm.create_communicator(tp_group_, p_.nccl);
      if (!c.ok()) return c.status();
      tp_comm_ = *c;
      GPUMEM_RETURN_IF_ERROR(pynccl_warm_up(env_, tp_comm_));
    }
    if (p_.custom_all_reduce.enabled) {
      GPUMEM_RETURN_IF_ERROR(
          create_custom_all_reduce(env_.device, env_.comm, env_.allocator, tp_group_));
    }
    if (p_.pp > 1) {
      Result<CommunicatorId> c = env_.comm.create_communicator(pp_group_, p_.nccl);
      if (!c.ok()) return c.status();
      GPUMEM_RETURN_IF_ERROR(pynccl_warm_up(env_, *c));
    }
    return {};
  }

  Status free_memory() {
    // sglang v0.5.9 model_runner.py init_torch_distributed: F is the world MIN.
    Result<EngineGiB> f = available_gib(env_.world_size > 1);
    if (!f.ok()) return f.status();
    Result<EngineGiB> local = available_gib(false);
    if (!local.ok()) return local.status();
    f_sim_ = *f;
    f_ = p_.observed.free_before_weights ? to_engine_gib(*p_.observed.free_before_weights) : *f;
    env_.log(log_init_distributed_end(engine_gib(before_distributed_.value() - local->value())));
    env_.fact({std::string(fact_id::kFreeBeforeWeights), "F (free before weights, world MIN)",
               to_bytes(f_)});
    // TP memory imbalance check: min_per_gpu_memory < local_gpu_memory * 0.9.
    if (p_.tp > 1 && !p_.observed.free_before_weights && f_.value() < local->value() * 0.9) {
      const std::string msg =
          "The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
          "min_per_gpu_memory=" +
          python_float_repr(f_.value()) +
          ", local_gpu_memory=" + python_float_repr(local->value()) +
          ", local_gpu_memory * 0.9=" + python_float_repr(local->value() * 0.9);
      if (p_.env.tp_memory_imbalance_is_error) return engine_error("RuntimeError: " + msg);
      env_.log("WARNING: " + msg);
    }
    return {};
  }

  Status weights() {
    // sglang v0.5.9 model_runner.py load_model: both readings local, after empty_cache.
    Result<EngineGiB> before = available_gib(false);
    if (!before.ok()) return before.status();
    env_.log(log_load_weight_begin(*before));
    // sglang v0.5.9 model_loader/loader.py DefaultModelLoader.load_model builds the model on
    // the GPU (set_default_torch_dtype, `with target_device`): its buffers are initialised
    // by ATen kernels there (rotary_embedding.py _compute_cos_sin_cache), the first of the
    // process at TP = PP = 1.
    GPUMEM_RETURN_IF_ERROR(env_.device.use_pytorch_resource(PytorchResource::kAtenModule));
    GPUMEM_RETURN_IF_ERROR(env_.load_weights(stage_.weights));
    Result<EngineGiB> after = available_gib(false);
    if (!after.ok()) return after.status();
    weight_usage_ = engine_gib(before->value() - after->value());
    env_.log(log_load_weight_end(p_.model.hf_architecture, p_.served_dtype, *after, weight_usage_,
                                 p_.rules));
    env_.fact({std::string(fact_id::kWeightsLogicalBytes), "weights allocated (logical)",
               resident_bytes(tensors_of(stage_.weights))});
    if (p_.flags.cpu_offload_gb > 0) {
      // weights/cpu_offload.h: this rank's pipeline stage keeps its own layers' share.
      env_.fact(
          {"weights_offloaded_to_cpu", "weights offloaded to CPU memory", stage_.offloaded_to_cpu});
    }
    return {};
  }

  Status draft_weights() {
    Result<EngineGiB> before = available_gib(false);
    if (!before.ok()) return before.status();
    env_.log(log_load_weight_begin(*before));
    GPUMEM_RETURN_IF_ERROR(env_.load_weights(stage_.draft_weights, draft_replaced_));
    Result<EngineGiB> after = available_gib(false);
    if (!after.ok()) return after.status();
    env_.log(log_load_weight_end(p_.draft->hf_architecture, p_.served_dtype, *after,
                                 engine_gib(before->value() - after->value()), p_.rules));
    return {};
  }

  static Bytes to_bytes(EngineGiB g) { return truncate_to_bytes(g); }
  // model_runner.py profile_max_num_token: rest = A - F x (1 - mem_fraction_static).
  static constexpr std::string_view kKeptBack = "F x (1 - mem_fraction_static)";

  // The KV tensors of a pool of `tokens` rows (plus the padding page) for `g`.
  Status allocate_kv_pool(const KvGeometry& g, std::int64_t tokens, std::int64_t swa_tokens,
                          Bytes& k_size, Bytes& v_size) {
    const std::int64_t rows = tokens + p_.facts.page_size;
    if (g.mla) {
      // memory_pool.py MLATokenToKVPool: one [rows, 1, kv_cache_dim] buffer per layer.
      const Bytes per_layer = bytes(rows * mla_row_bytes(g));
      const Bytes layer_bytes = g.fp4 ? bytes(rows * cell_size(g) / g.layers) : per_layer;
      for (std::int64_t l = 0; l < g.layers; ++l) {
        GPUMEM_RETURN_IF_ERROR(allocate(layer_bytes, Category::kKvCache));
      }
      k_size = layer_bytes * g.layers;
      if (g.index_key_bytes > 0) {
        // NSATokenToKVPool.__init__: then one uint8 indexer key buffer per layer; its
        // get_kv_size_bytes (the logged KV size) counts them.
        const Bytes index_bytes = bytes(index_buffer_bytes(g, tokens, p_.facts.page_size));
        for (std::int64_t l = 0; l < g.layers; ++l) {
          GPUMEM_RETURN_IF_ERROR(allocate(index_bytes, Category::kKvCache));
        }
        k_size += index_bytes * g.layers;
      }
      return {};
    }
    // memory_pool.py MHATokenToKVPool._create_buffers: every layer's K, then every V.
    auto pool = [&](std::int64_t layers, std::int64_t pool_rows, std::int64_t heads,
                    std::int64_t hd, std::int64_t vhd) -> Status {
      Bytes k = bytes(pool_rows * heads * hd * g.kv_element_size);
      Bytes v = bytes(pool_rows * heads * vhd * g.kv_element_size);
      if (g.fp4) {
        // MHATokenToKVPoolFP4: packed halves plus one scale byte per 16 elements.
        k = bytes(pool_rows * heads * hd / 2 + pool_rows * heads * hd / 16);
        v = bytes(pool_rows * heads * vhd / 2 + pool_rows * heads * vhd / 16);
      }
      for (std::int64_t l = 0; l < layers; ++l) {
        GPUMEM_RETURN_IF_ERROR(allocate(k, Category::kKvCache));
      }
      for (std::int64_t l = 0; l < layers; ++l) {
        GPUMEM_RETURN_IF_ERROR(allocate(v, Category::kKvCache));
      }
      k_size += k * layers;
      v_size += v * layers;
      return {};
    };
    if (g.hybrid_swa) {
      // swa_memory_pool.py SWAKVPool: a sliding-window pool and a full-attention pool.
      GPUMEM_RETURN_IF_ERROR(pool(g.swa_layers, swa_tokens + p_.facts.page_size, g.swa_kv_heads,
                                  g.swa_head_dim, g.swa_v_head_dim));
      return pool(g.full_layers, rows, g.kv_heads, g.head_dim, g.v_head_dim);
    }
    return pool(g.layers, rows, g.kv_heads, g.head_dim, g.v_head_dim);
  }

  Status kv_cache() {
    // sglang v0.5.9 model_runner_kv_cache_mixin.py profile_max_num_token / init_memory.
    Result<EngineGiB> a = available_gib(env_.world_size > 1);
    if (!a.ok()) return a.status();
    EngineGiB a_used = *a;
    if (p_.observed.free_after_weights) {
      a_used = to_engine_gib(*p_.observed.free_after_weights);
    } else if (p_.observed.weight_load_usage) {
      a_used = engine_gib(f_.value() - to_engine_gib(*p_.observed.weight_load_usage).value());
    } else if (p_.observed.free_before_weights) {
      // F pinned alone: what the simulated weights took comes off the pinned F.
      a_used = engine_gib(f_.value() - (f_sim_.value() - a->value()));
    }
    std::int64_t cell = cell_size(stage_.kv);
    if (p_.draft && p_.rules.draft_counted_in_kv_sizing) {
      // sglang v0.5.14 pool_configurator.py: cell *= 1 + draft_layers / target_layers
      cell = static_cast<std::int64_t>(static_cast<double>(cell) *
                                       (1.0 + static_cast<double>(p_.draft->num_hidden_layers) /
                                                  static_cast<double>(stage_.kv.layers)));
    }
    // The plan refuses stages without layers; a zero cell here would divide by zero below.
    if (cell <= 0) return internal_error("the KV cache of this stage has no bytes per token");
    const double mfs = p_.args.mem_fraction_static;
    EngineGiB rest = profile_rest(f_, a_used, mfs);
    const bool hybrid = p_.mamba.layers > 0;
    if (hybrid) {
      // model_runner_kv_cache_mixin.py handle_max_mamba_cache: the state slots leave rest first.
      MambaBudgetInputs m;
      m.full_memory_ratio = p_.flags.mamba_full_memory_ratio;
      m.max_mamba_cache_size = p_.flags.max_mamba_cache_size;
      m.max_running_requests = p_.flags.max_running_requests;
      m.disable_radix_cache = p_.flags.disable_radix_cache;
      m.attention_dp_size = p_.flags.enable_dp_attention ? p_.flags.dp_size : 1;
      const MambaBudget budget = handle_max_mamba_cache(rest, p_.mamba.per_request(), m);
      mamba_slots_ = budget.max_mamba_cache_size;
      rest = budget.rest;
    }
    const std::int64_t profiled = floor_div(truncate_to_bytes(rest).value(), cell);
    PoolInputs in;
    in.profiled_tokens = profiled;
    in.context_len = p_.facts.context_len;
    in.max_running_requests = p_.args.max_running_requests;
    in.max_total_tokens = p_.flags.max_total_tokens;
    in.page_size = p_.facts.page_size;
    const SpeculativeSettings& spec = p_.args.speculative;
    if (p_.rules.eagle_token_headroom && !spec.algorithm.empty()) {
      in.eagle_tokens_per_request = spec.num_steps * spec.eagle_topk + spec.num_draft_tokens;
    }
    in.extra_request_row = p_.rules.req_pool_extra_row;
    PoolSizing sizing = size_pools(in);
    if (hybrid) {
      // init_memory_pool: the request pool holds no more requests than the state slots allow.
      const std::int64_t per_request = mamba_slots_per_request(
          p_.flags.disable_radix_cache, p_.flags.mamba_scheduler_strategy == "extra_buffer");
      sizing.max_num_reqs = std::min(sizing.max_num_reqs, mamba_slots_ / per_request);
      env_.fact(
          {"mamba_cache_per_req_bytes", "mamba_cache_per_req (bytes)", p_.mamba.per_request()});
      env_.fact({"max_mamba_cache_size", "max_mamba_cache_size (state slots)", mamba_slots_});
    }
    if (p_.pp > 1) {
      Result<std::int64_t> t = env_.comm.min_over_world(sizing.max_total_num_tokens);
      if (!t.ok()) return t.status();
      sizing.max_total_num_tokens = *t;
    }
    if (stage_.kv.hybrid_swa) {
      split_hybrid_swa(stage_.kv, p_.facts.page_size, p_.flags.swa_full_tokens_ratio, sizing);
    }
    env_.fact({std::string(fact_id::kFreeAfterWeights), "A (free after weights, world MIN)",
               to_bytes(a_used)});
    env_.fact({"kv_rest_gib", "rest (GiB)", rest.value()});
    env_.fact({std::string(fact_id::kKvBudgetBytes), "KV budget (rest)", to_bytes(rest)});
    env_.fact(
        {std::string(fact_id::kKvBudgetFreeBytes), "free after weights (A)", to_bytes(a_used)});
    env_.fact({std::string(fact_id::kKvKeptBack), "kept back from A", std::string(kKeptBack)});
    env_.fact({std::string(fact_id::kKvCellBytes), "cell_size (bytes per token)", cell});
    env_.fact({"profiled_tokens", "profiled tokens", profiled});
    if (sizing.max_total_num_tokens <= 0) {
      // One token needs `cell` bytes of `rest`: what A lacks for that.
      env_.fact({std::string(fact_id::kShortfallBytes), "A short of one KV token",
                 bytes(cell) - to_bytes(rest)});
      return engine_error("RuntimeError: " + not_enough_memory_message(mfs));
    }
    tokens_ = sizing.max_total_num_tokens;
    swa_tokens_ = sizing.swa_tokens;
    req_rows_ = sizing.max_num_reqs;

    // memory_pool.py ReqToTokenPool: int32 [rows, context_len + 4 + draft tokens].
    const std::int64_t extra =
        4 + (p_.args.speculative.algorithm.empty() ? 0 : p_.args.speculative.num_draft_tokens);
    GPUMEM_RETURN_IF_ERROR(
        allocate(bytes(req_rows_ * (p_.facts.context_len + extra) * 4), Category::kKvCache));
    if (hybrid) GPUMEM_RETURN_IF_ERROR(allocate_mamba_pool());
    Bytes k_size;
    Bytes v_size;
    GPUMEM_RETURN_IF_ERROR(allocate_kv_pool(stage_.kv, tokens_, swa_tokens_, k_size, v_size));
    if (stage_.kv.mla) {
      env_.log(log_kv_allocated_mla(tokens_, k_size, p_.facts.kv_cache_dtype, p_.rules));
    } else {
      env_.log(log_kv_allocated_mha(tokens_, k_size, v_size, p_.facts.kv_cache_dtype, p_.rules));
    }
    // allocator.py TokenToKVPoolAllocator: free_pages int64 (pages when page_size > 1); SWA
    // adds the full-to-swa index mapping.
    const std::int64_t pages = tokens_ / p_.facts.page_size;
    GPUMEM_RETURN_IF_ERROR(allocate(bytes(pages * 8), Category::kKvCache));
    if (stage_.kv.hybrid_swa) {
      GPUMEM_RETURN_IF_ERROR(
          allocate(bytes((tokens_ + p_.facts.page_size) * 8), Category::kKvCache));
    }
    // model_runner.py initialize: max_running_requests.
    const std::int64_t dp = p_.flags.enable_dp_attention ? p_.flags.dp_size : 1;
    max_running_ = max_running_requests(tokens_, p_.args.max_running_requests, dp, req_rows_);
    env_.fact({std::string(fact_id::kKvTokens), "max_total_num_tokens", tokens_});
    env_.fact({std::string(fact_id::kKvBytes), "K size + V size", k_size + v_size});
    if (stage_.kv.hybrid_swa)
      env_.fact({std::string(fact_id::kSwaKvTokens), "swa tokens", swa_tokens_});
    env_.fact({"req_to_token_rows", "req_to_token rows", req_rows_});
    env_.fact({std::string(fact_id::kMaxRunningRequests), "max_running_requests", max_running_});
    // Not logged by SGLang: requests of the full context length the pool holds at once.
    env_.fact({std::string(fact_id::kMaxConcurrency), "max_total_num_tokens / context_len",
               static_cast<double>(tokens_) / static_cast<double>(p_.facts.context_len)});
    Result<EngineGiB> after = available_gib(false);
    if (!after.ok()) return after.status();
    env_.log(log_memory_pool_end(*after));
    return {};
  }

  // memory_pool.py HybridReqToTokenPool.__init__ after its req_to_token: MambaPool's conv and
  // temporal states of every linear layer for K + 1 slots (slot 0 pads), its int64 free
  // slots, then the int32 request-to-slot mapping.
  Status allocate_mamba_pool() {
    const MambaStateShape& m = p_.mamba;
    const Bytes conv = bytes(m.layers * (mamba_slots_ + 1) * m.conv_bytes);
    const Bytes ssm = bytes(m.layers * (mamba_slots_ + 1) * m.ssm_bytes);
    GPUMEM_RETURN_IF_ERROR(allocate(conv, Category::kKvCache));
    GPUMEM_RETURN_IF_ERROR(allocate(ssm, Category::kKvCache));
    GPUMEM_RETURN_IF_ERROR(allocate(bytes(mamba_slots_ * 8), Category::kKvCache));
    env_.log(log_mamba_allocated(mamba_slots_, conv, ssm));
    env_.fact({"mamba_state_bytes", "conv + ssm state", conv + ssm});
    return allocate(bytes(req_rows_ * 4), Category::kKvCache);
  }

  Status draft_kv_cache() {
    // speculative/eagle_worker.py: the draft runner's pool has the target's token count.
    Bytes k_size;
    Bytes v_size;
    GPUMEM_RETURN_IF_ERROR(allocate_kv_pool(stage_.draft_kv, tokens_, 0, k_size, v_size));
    if (stage_.draft_kv.mla) {
      env_.log(log_kv_allocated_mla(tokens_, k_size, p_.facts.kv_cache_dtype, p_.rules));
    } else {
      env_.log(log_kv_allocated_mha(tokens_, k_size, v_size, p_.facts.kv_cache_dtype, p_.rules));
    }
    env_.fact(
        {"draft_kv_cell_bytes", "draft cell_size (bytes per token)", cell_size(stage_.draft_kv)});
    return {};
  }

  // deepseek_v2.py set_embed_and_head (llama.py set_embed for an EAGLE-3 head): the draft's
  // own tensors are deleted, then torch.cuda.empty_cache().
  Status draft_shares_target_embedding() {
    for (BlockHandle b : draft_replaced_) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
    draft_replaced_.clear();
    env_.allocator.empty_cache();
    return {};
  }

  Status cublas() {
    // sglang v0.5.9 model_runner.py init_cublas: one small fp16 matmul creates the cuBLAS
    // handle and PyTorch's workspace for the current stream.
    GPUMEM_RETURN_IF_ERROR(env_.device.load_library("cublas"));
    return allocate(cublas_workspace(), Category::kWorkspace);
  }

  Bytes cublas_workspace() const { return k_.cublas.for_gpu(p_.gpu); }

  Status attention_backend() {
    // sglang v0.5.9 model_runner.py init_attention_backend: the backend's own buffers.
    const std::string& b = p_.facts.attention_backend;
    if (b == "flashinfer") {
      Bytes ws = k_.flashinfer_workspace;
      // sglang v0.5.9 layers/attention/flashinfer_backend.py FlashInferAttnBackend.__init__:
      // the larger workspace for Qwen2ForCausalLM, Qwen3ForCausalLM and MiMoForCausalLM only
      // (not Qwen3MoeForCausalLM).
      if (p_.model.family == ArchitectureFamily::kQwen2 ||
          p_.model.family == ArchitectureFamily::kQwen3) {
        ws = k_.flashinfer_workspace_qwen;
      }
      if (p_.flags.enable_deterministic_inference) ws = k_.flashinfer_workspace_deterministic;
      if (p_.env.flashinfer_workspace_size) ws = *p_.env.flashinfer_workspace_size;
      GPUMEM_RETURN_IF_ERROR(allocate(ws, Category::kWorkspace));
      for (int i = 0; i < k_.flashinfer_wrappers; ++i) {
        GPUMEM_RETURN_IF_ERROR(allocate(k_.flashinfer_int_workspace, Category::kWorkspace));
      }
      // kv_indptr / qo_indptr of req pool rows + 1 (int32).
      GPUMEM_RETURN_IF_ERROR(allocate(bytes((req_rows_ + 1) * 4 * 2), Category::kWorkspace));
    } else if (b == "trtllm_mha") {
      GPUMEM_RETURN_IF_ERROR(allocate(k_.trtllm_mha_workspace, Category::kWorkspace));
    } else if (b == "trtllm_mla") {
      GPUMEM_RETURN_IF_ERROR(allocate(k_.trtllm_mla_workspace, Category::kWorkspace));
    } else if (b == "nsa") {
      // layers/attention/nsa_backend.py NativeSparseAttnBackend.__init__ (read at 005e8bf):
      // the FlashInfer global workspace (SGLANG_FLASHINFER_WORKSPACE_SIZE) on compute
      // capability 10 and up or with the trtllm decode kernel, and an int32 arange of 16,384.
      if (p_.gpu.compute_capability_major >= 10 || p_.facts.nsa_decode_backend == "trtllm") {
        GPUMEM_RETURN_IF_ERROR(
            allocate(p_.env.flashinfer_workspace_size.value_or(k_.flashinfer_workspace),
                     Category::kWorkspace));
      }
      GPUMEM_RETURN_IF_ERROR(allocate(bytes(16384 * 4), Category::kWorkspace));
    }
    // model_runner.py init_attention_backend: HybridLinearAttnBackend wraps the full-attention
    // backend and the Gated DeltaNet kernels, which allocate nothing here.
    if (p_.mamba.layers > 0)
      env_.log("Using hybrid linear attention backend for hybrid GDN models.");
    return {};
  }

  Status allocate_buffers(const std::vector<GraphBuffer>& buffers) {
    for (const GraphBuffer& b : buffers)
      GPUMEM_RETURN_IF_ERROR(allocate(b.bytes, Category::kGraphs));
    return {};
  }

  // hybrid_linear_attn_backend.py MambaAttnBackendBase.init_cuda_graph_state: for every batch
  // size 1..max_bs, int32 state indices [bs], query start offsets [bs + 1] and three
  // speculative-tree tensors [bs, 1]; then the decode and verify start offsets [max_bs + 1].
  Status allocate_linear_attention_graph_state(std::int64_t max_bs) {
    for (std::int64_t bs = 1; bs <= max_bs; ++bs) {
      GPUMEM_RETURN_IF_ERROR(allocate(bytes(bs * 4), Category::kGraphs));
      GPUMEM_RETURN_IF_ERROR(allocate(bytes((bs + 1) * 4), Category::kGraphs));
      for (int i = 0; i < 3; ++i)
        GPUMEM_RETURN_IF_ERROR(allocate(bytes(bs * 4), Category::kGraphs));
    }
    for (int i = 0; i < 2; ++i) {
      GPUMEM_RETURN_IF_ERROR(allocate(bytes((max_bs + 1) * 4), Category::kGraphs));
    }
    return {};
  }

  Status cuda_graphs() {
    // sglang v0.5.9 model_runner.py init_device_graphs and cuda_graph_runner.py.
    Result<EngineGiB> before = available_gib(false);
    if (!before.ok()) return before.status();
    capture_bs_ = p_.rules.generated_capture_list
                      ? batch_sizes_to_capture(p_.args.cuda_graph_bs, req_rows_)
                      : fixed_list_to_capture(p_.args.cuda_graph_bs, p_.args.capture_max_bs,
                                              p_.rules.capture_list_pr6201, req_rows_);
    const GraphKind kind{!p_.args.speculative.algorithm.empty(), p_.graph.tokens_per_bs,
                         capture_bs_};
    env_.log(log_capture_begin(*before, kind, p_.rules));
    env_.fact({"cuda_graph_batch_sizes", "cuda graph batch sizes", capture_bs_});
    if (capture_bs_.empty()) return {};
    GraphShape shape = p_.graph;
    shape.max_bs = capture_bs_.back();
    const bool spec = !p_.args.speculative.algorithm.empty();
    GPUMEM_RETURN_IF_ERROR(allocate_buffers(graph_static_buffers(p_.model, p_.facts, shape, spec)));
    if (p_.mamba.layers > 0)
      GPUMEM_RETURN_IF_ERROR(allocate_linear_attention_graph_state(shape.max_bs));
    // A GEMM on the capture stream gets its own cuBLAS workspace (per handle and stream).
    GPUMEM_RETURN_IF_ERROR(allocate(cublas_workspace(), Category::kWorkspace));
    pool_ = env_.allocator.create_pool();
    GraphCapture capture(p_, k_.kernels, env_, tp_group_, tp_comm_, pool_, stage_.offloaded_layers);
    std::set<std::uint64_t> registered;
    GPUMEM_RETURN_IF_ERROR(capture.capture(capture_bs_, p_.graph.tokens_per_bs, p_.model,
                                           stage_.layers, p_.model.vocab_size,
                                           pp_rank_ == p_.pp - 1, registered));
    GPUMEM_RETURN_IF_ERROR(capture.register_buffers(registered));
    Result<EngineGiB> after = available_gib(false);
    if (!after.ok()) return after.status();
    const EngineGiB usage = engine_gib(before->value() - after->value());
    env_.log(log_capture_end(usage, *after, kind, p_.rules));
    env_.fact({std::string(fact_id::kCudaGraphBytes), "capture mem usage (free-memory delta)",
               to_bytes(usage)});
    return {};
  }

  Status draft_cuda_graphs() {
    // speculative/eagle_worker.py: draft decode (num_steps > 1) and draft extend runners,
    // captured into the same global pool as the target's graphs.
    const Architecture& d = *p_.draft;
    const SpeculativeSettings& s = p_.args.speculative;
    std::vector<std::int64_t> sizes = capture_bs_;
    if (sizes.empty()) return {};
    GraphShape shape = p_.graph;
    shape.max_bs = sizes.back();
    GraphCapture capture(p_, k_.kernels, env_, tp_group_, tp_comm_, pool_);
    const LayerRange layers{0, d.num_hidden_layers};
    std::set<std::uint64_t> registered;
    const std::int64_t draft_vocab = d.draft_vocab_size > 0 ? d.draft_vocab_size : d.vocab_size;
    if (s.num_steps > 1) {
      shape.tokens_per_bs = s.eagle_topk;
      GPUMEM_RETURN_IF_ERROR(allocate_buffers(graph_static_buffers(d, p_.facts, shape, false)));
      for (std::int64_t step = 0; step + 1 < s.num_steps; ++step) {
        GPUMEM_RETURN_IF_ERROR(
            capture.capture(sizes, s.eagle_topk, d, layers, draft_vocab, true, registered));
      }
    }
    shape.tokens_per_bs = s.num_draft_tokens;
    GPUMEM_RETURN_IF_ERROR(allocate_buffers(graph_static_buffers(d, p_.facts, shape, false)));
    GPUMEM_RETURN_IF_ERROR(
        capture.capture(sizes, s.num_draft_tokens, d, layers, draft_vocab, true, registered));
    return capture.register_buffers(registered);
  }

  Status ready() {
    // scheduler.py: the summary line reads free memory without emptying the cache.
    Result<EngineGiB> avail = available_gib(false, /*empty_cache=*/false);
    if (!avail.ok()) return avail.status();
    env_.log(log_summary(tokens_, p_.args.chunked_prefill_size, p_.flags.max_prefill_tokens,
                         max_running_, p_.facts.context_len, *avail, p_.rules));
    env_.fact({std::string(fact_id::kFreeAtReady), "available_gpu_mem at ready", to_bytes(*avail)});
    return {};
  }

  const Plan& p_;
  const StartupConstants& k_;
  RankEnv& env_;
  const int pp_rank_;
  const StagePlan& stage_;
  std::vector<int> tp_group_;
  std::vector<int> pp_group_;
  CommunicatorId tp_comm_;
  EngineGiB before_distributed_;
  EngineGiB f_;
  EngineGiB f_sim_;
  EngineGiB weight_usage_;
  std::int64_t tokens_ = 0;
  std::int64_t swa_tokens_ = 0;
  std::int64_t req_rows_ = 0;
  std::int64_t mamba_slots_ = 0;
  std::int64_t max_running_ = 0;
  std::vector<std::int64_t> capture_bs_;
  PoolId pool_;
  // The draft's own embedding (and head) blocks, until the target's replace them.
  std::vector<BlockHandle> draft_replaced_;
};

}  // namespace

RankProgram startup_program(const Plan& plan, const StartupConstants& constants) {
  return [&plan, &constants](RankEnv& env) { RankStartup(plan, constants, env).run(); };
}

}  // namespace gpumem::sglang
