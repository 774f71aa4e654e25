// The variables of the libraries every engine process loads, beyond environment_table.cc's
// shared rules: NCCL's documented variables (docs/userguide/source/env.rst at 0186f08d, NCCL
// 2.31-2.32), and the CUDA, PyTorch, Triton, FlashInfer and hub variables users put in front
// of launch commands. Each is accepted with what it does, or refused with the memory effect
// gpumem does not model, unless it holds the library's default.
#ifndef GPUMEM_ENGINE_LIBRARY_ENVIRONMENT_H_
#define GPUMEM_ENGINE_LIBRARY_ENVIRONMENT_H_

#include <span>

#include "engine/environment_table.h"

namespace gpumem {

// The rules, each citing the document or source file it comes from.
std::span<const EnvRule> library_environment_rules();

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_LIBRARY_ENVIRONMENT_H_
