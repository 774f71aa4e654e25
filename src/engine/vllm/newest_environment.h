// The variables of vLLM's envs.py (the newest readable copy: a v0.30-era mirror of main,
// GeometricAGI/vllm 0783b7e9) beyond those environment.cc lists: the ones read for something
// other than GPU memory, accepted, and the ones whose memory effect gpumem does not model,
// refused unless they hold vLLM's default. A launch command of a newer release is then read
// whole: none of its VLLM_ variables is unknown.
#ifndef GPUMEM_ENGINE_VLLM_NEWEST_ENVIRONMENT_H_
#define GPUMEM_ENGINE_VLLM_NEWEST_ENVIRONMENT_H_

#include <span>

#include "engine/environment_table.h"

namespace gpumem::vllm {

// The rules, each citing vllm envs.py for what the variable does.
std::span<const EnvRule> newest_environment_rules();

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_NEWEST_ENVIRONMENT_H_
