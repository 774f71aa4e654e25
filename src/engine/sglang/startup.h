// SGLang's start-up on one rank, step by step, written once against the Device/Comm seams:
// the simulator runs it over simulated devices, the probe over real GPUs.
//
// Steps, in SGLang v0.5.9's order (model_runner.py ModelRunner.__init__/initialize, then the
// scheduler's draft worker): context, distributed (PyNccl communicators, custom all-reduce),
// free_memory (F), weights, [draft_weights from v0.5.14], kv_cache (A, T, pools), cublas,
// attention_backend, cuda_graphs, [draft_weights, draft_kv_cache, draft_cuda_graphs up to
// v0.5.13], ready. Each rank records facts (F, A, cell size, token counts, batch sizes) and
// the log lines SGLang would print. The graph steps capture through graph_capture.h.
#ifndef GPUMEM_ENGINE_SGLANG_STARTUP_H_
#define GPUMEM_ENGINE_SGLANG_STARTUP_H_

#include "engine/sglang/plan.h"
#include "engine/startup_helpers.h"
#include "runtime/rank_env.h"

namespace gpumem::sglang {

// Constants of the start-up that no SGLang source states and calibration may replace.
struct StartupConstants {
  GraphKernelCounts kernels;
  CublasWorkspace cublas;
  // FlashInfer: one global workspace (sglang v0.5.9 environ.py SGLANG_FLASHINFER_WORKSPACE_SIZE,
  // 384 MiB; 512 MiB for Qwen2/Qwen3; 2048 MiB deterministic) and an 8 MiB int workspace per
  // wrapper (flashinfer prefill/decode wrappers), three wrappers by default (UNCONFIRMED).
  Bytes flashinfer_workspace = mib(384);
  Bytes flashinfer_workspace_qwen = mib(512);
  Bytes flashinfer_workspace_deterministic = mib(2048);
  Bytes flashinfer_int_workspace = mib(8);
  int flashinfer_wrappers = 3;
  // sglang v0.5.9 trtllm_mha_backend.py / trtllm_mla_backend.py workspaces.
  Bytes trtllm_mha_workspace = mib(512);
  Bytes trtllm_mla_workspace = mib(150);
};

// The program every rank of `plan` runs. `plan` and `constants` must outlive its runs.
RankProgram startup_program(const Plan& plan, const StartupConstants& constants);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_STARTUP_H_
