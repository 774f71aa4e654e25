// What a piece of GPU memory is for, as the ledger reports it.
#ifndef GPUMEM_DEVICE_CATEGORY_H_
#define GPUMEM_DEVICE_CATEGORY_H_

#include <array>
#include <cstddef>
#include <string_view>

namespace gpumem {

enum class Category : unsigned char {
  kContext,        // CUDA context, loaded kernels, driver-internal per-process state
  kCommunication,  // NCCL communicators, custom all-reduce and other IPC buffers
  kWeights,        // model parameters and buffers built with the model (RoPE caches)
  kKvCache,        // KV pool, req_to_token, token allocator arrays
  kGraphs,         // CUDA-graph static buffers, graph memory pool, graph executables
  kWorkspace,      // cuBLAS/cuBLASLt and attention-backend workspaces
  kActivations,    // transient tensors of a forward pass
  kOther,
};

inline constexpr std::size_t kCategoryCount = 8;

inline constexpr std::array<std::string_view, kCategoryCount> kCategoryNames = {
    "context", "communication", "weights", "kv", "graphs", "workspace", "activations", "other"};

constexpr std::string_view category_name(Category c) {
  return kCategoryNames[static_cast<std::size_t>(c)];
}

}  // namespace gpumem

#endif  // GPUMEM_DEVICE_CATEGORY_H_
