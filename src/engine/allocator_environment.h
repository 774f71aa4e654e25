// PYTORCH_CUDA_ALLOC_CONF (and PYTORCH_ALLOC_CONF, its newer name) as the engine process's
// PyTorch reads it into its caching allocator's settings. Both engines hand their environment
// to PyTorch unchanged, so the reading is shared. The options the allocator model follows
// (src/alloc: expandable_segments, max_split_size_mb, max_non_split_rounding_mb) are read;
// those that only concern host memory or locking are accepted as having no effect on the GPU;
// those that change what the GPU holds in a way the model does not follow are refused by
// name; an option PyTorch does not know is refused as PyTorch refuses it.
#ifndef GPUMEM_ENGINE_ALLOCATOR_ENVIRONMENT_H_
#define GPUMEM_ENGINE_ALLOCATOR_ENVIRONMENT_H_

#include <span>
#include <string>
#include <string_view>

#include "alloc/allocator_config.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem {

struct AllocatorSettings {
  AllocatorConfig config;  // PyTorch's defaults unless a variable sets options
  std::string read_from;   // the variable read ("" for none), to compare a second one with
  std::string value;
};

// Reads `v` into `settings` when it is one of the allocator's variables (a bad value is an
// error at the value); returns false for any other variable.
bool read_allocator_variable(const EnvVar& v, AllocatorSettings& settings, Diagnostics& diags);

// The names `read_allocator_variable` reads.
std::span<const std::string_view> allocator_variables();

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ALLOCATOR_ENVIRONMENT_H_
