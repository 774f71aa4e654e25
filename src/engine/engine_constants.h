// The constants each engine's start-up program takes (allocation sizes no source states
// exactly, fitted by calibration): one member per engine model, defaults as published.
#ifndef GPUMEM_ENGINE_ENGINE_CONSTANTS_H_
#define GPUMEM_ENGINE_ENGINE_CONSTANTS_H_

#include "engine/sglang/startup.h"
#include "engine/vllm/startup.h"

namespace gpumem {

struct EngineConstants {
  sglang::StartupConstants sglang;
  vllm::StartupConstants vllm;
};

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ENGINE_CONSTANTS_H_
