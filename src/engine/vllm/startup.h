// vLLM's start-up on one rank (V1 engine, one worker process per GPU), step by step, written
// once against the Device/Comm seams: the simulator runs it over simulated devices, the
// probe over real GPUs.
//
// Steps, in vLLM's order (v1/worker/gpu_worker.py Worker.init_device, load_model,
// determine_available_memory, compile_or_warm_up_model; v1/engine/core.py
// _initialize_kv_caches): context; distributed (PyNccl communicators and their warm-up,
// torch symmetric memory, custom all-reduce) and memory_snapshot (budget = total x util,
// checked against free memory) — the snapshot before distributed init until v0.10.x, after
// it from v0.11.0; model_runner (persistent input buffers); weights; profile_run (a
// max_num_batched_tokens forward and a dummy sampler, torch's allocated peak);
// [cuda_graph_estimate from v0.21.0: the two largest graphs of each mode captured into a
// temporary pool]; kv_cache (available memory, block count MIN over ranks, one int8 tensor
// per KV slot); cuda_graphs (PIECEWISE then FULL, largest first, one shared pool);
// sampler_warmup. Each rank records facts and the log lines vLLM would print.
#ifndef GPUMEM_ENGINE_VLLM_STARTUP_H_
#define GPUMEM_ENGINE_VLLM_STARTUP_H_

#include "engine/startup_helpers.h"
#include "engine/vllm/activation_model.h"
#include "engine/vllm/plan.h"
#include "runtime/rank_env.h"

namespace gpumem::vllm {

// Constants of the start-up that no vLLM source states exactly; calibration may replace them.
struct StartupConstants {
  ActivationConstants activations;
  // Allocated through the caching allocator by the first GEMM.
  CublasWorkspace cublas;
  // vllm v1/attention/backends/flashinfer.py FLASHINFER_WORKSPACE_BUFFER_SIZE, allocated by
  // the first attention-metadata build (the profile run).
  Bytes flashinfer_workspace = mib(256);
  // vllm v1/worker/gpu_model_runner.py profile_cudagraph_memory: "at least 1 MiB per graph
  // for driver overhead".
  Bytes min_graph_estimate = mib(1);
  // cudaMemGetInfo moves in the driver's 2 MiB pages, so each estimate sample can be one page
  // off; the estimate multiplies a mode's second sample by its remaining captures.
  Bytes free_memory_page = mib(2);
  // vllm v1/worker/gpu_worker.py compile_or_warm_up_model: the kv-cache-memory suggestion
  // keeps 150 MiB spare ("memory profiling may slightly underestimate").
  Bytes suggestion_redundancy = mib(150);
};

// The program every rank of `plan` runs. `plan` and `constants` must outlive its runs.
RankProgram startup_program(const Plan& plan, const StartupConstants& constants);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_STARTUP_H_
