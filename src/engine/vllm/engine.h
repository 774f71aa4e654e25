// vLLM (V1 engine) behind the EngineModel interface (engine/engine_model.h): the plan, the
// start-up program, the flags and environment it reads, and the fit-advice knobs
// (--gpu-memory-utilization; --max-cudagraph-capture-size, --cuda-graph-sizes before
// v0.11.1).
#ifndef GPUMEM_ENGINE_VLLM_ENGINE_H_
#define GPUMEM_ENGINE_VLLM_ENGINE_H_

#include "engine/engine_model.h"

namespace gpumem::vllm {

const EngineModel& engine_model();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ENGINE_H_
