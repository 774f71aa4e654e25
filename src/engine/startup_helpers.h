// What both engines' start-up programs do alike, written once.
//
//  * engine_error: a Status for the engine's own refusal (a finding, like running out of
//    memory: the ledger records it and the start-up stops).
//  * run_step: one step of a rank's program, as RankEnv::step, for a member function.
//  * rank_groups: the TP and PP groups of a rank. Both engines lay ranks out replica-major,
//    then pipeline stage, then TP rank (sglang v0.5.9 managers/data_parallel_controller.py
//    starts each DP replica as its own TP x PP world at a rank offset; vllm v0.21
//    distributed/parallel_state.py initialize_model_parallel reshapes all ranks as
//    (DP, PP, TP)). So the groups are the same function for both: a replica base, then the
//    stage's TP ranks and the TP rank's stages; and, across replicas, vLLM's DP and EP
//    groups.
//  * pynccl_warm_up: PyNccl's warm-up all-reduce of torch.zeros(1), a 4-byte float32 tensor
//    from PyTorch's allocator, freed (cached) afterwards (sglang v0.5.9 and vllm v0.21
//    distributed/device_communicators/pynccl.py PyNcclCommunicator.__init__); zeros fills
//    it with an ATen kernel, the process's first where TP or PP > 1.
//  * CublasWorkspace: PyTorch's cuBLAS workspace per (handle, stream), ":4096:2:16:8" =
//    8,519,680 B, 32 MiB on Hopper and Blackwell (pytorch aten/src/ATen/cuda/
//    CublasHandlePool.cpp parseChosenWorkspaceSize; cuda-memory-facts.md §6).
#ifndef GPUMEM_ENGINE_STARTUP_HELPERS_H_
#define GPUMEM_ENGINE_STARTUP_HELPERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "core/status.h"
#include "core/units.h"
#include "runtime/rank_env.h"

namespace gpumem {

inline Status engine_error(std::string message) {
  return {StatusCode::kEngineError, std::move(message)};
}

// Runs `(self->*body)()` as the step `name`; false when it did not end ok, so a program
// writes `if (!run_step(env_, "weights", this, &RankStartup::weights)) return;`.
template <typename Startup>
bool run_step(RankEnv& env, std::string_view name, Startup* self, Status (Startup::*body)()) {
  return env.step(name, [&] { return (self->*body)(); }).ok();
}

struct RankGroups {
  std::vector<int> tp;  // the ranks of this rank's TP group, in TP order
  std::vector<int> pp;  // the ranks of this rank's pipeline, in stage order
  std::vector<int> dp;  // the ranks at this rank's stage and TP rank, one per replica
  // Every replica's TP ranks of this rank's stage, replica by replica: vLLM's EP group
  // (vllm v0.21 parallel_state.py initialize_model_parallel, DP x TP per stage).
  std::vector<int> stage_across_replicas;
};

RankGroups rank_groups(int rank, int tp, int pp, int replicas);

Status pynccl_warm_up(RankEnv& env, CommunicatorId comm);

struct CublasWorkspace {
  Bytes size = bytes(8'519'680);
  Bytes size_sm90 = mib(32);  // compute capability 9.0 and later
  Bytes for_gpu(const GpuSpec& gpu) const {
    return gpu.compute_capability_major >= 9 ? size_sm90 : size;
  }
};

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_STARTUP_HELPERS_H_
