// SGLang behind the EngineModel interface (engine/engine_model.h): the plan, the start-up
// program, the flags and environment it reads, and the fit-advice knobs
// (--mem-fraction-static, --cuda-graph-max-bs).
#ifndef GPUMEM_ENGINE_SGLANG_ENGINE_H_
#define GPUMEM_ENGINE_SGLANG_ENGINE_H_

#include "engine/engine_model.h"

namespace gpumem::sglang {

const EngineModel& engine_model();

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_ENGINE_H_
