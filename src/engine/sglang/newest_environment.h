// The variables of SGLang's environ.py registry (class Envs at 0003215c, the v0.5.2x line)
// beyond those environment.cc lists: the ones read for something other than GPU memory,
// accepted, and the ones whose memory effect gpumem does not model, refused unless they hold
// SGLang's default. A launch command of a newer release is then read whole: none of its
// SGLANG_ variables is unknown.
#ifndef GPUMEM_ENGINE_SGLANG_NEWEST_ENVIRONMENT_H_
#define GPUMEM_ENGINE_SGLANG_NEWEST_ENVIRONMENT_H_

#include <span>

#include "engine/environment_table.h"

namespace gpumem::sglang {

// The rules, each citing sglang environ.py for what the variable does.
std::span<const EnvRule> newest_environment_rules();

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_NEWEST_ENVIRONMENT_H_
