// What a PyTorch process creates once, on first use, outside its caching allocator — the
// memory by which an engine's process differs from a raw CUDA program doing the same
// allocations (src/probe/torch/README.md, measured one fact per fresh process on an H200
// with PyTorch 2.11: reports/probe/h200x1/torch-facts).
//
//  * kStreamPool: PyTorch's pool of CUDA streams, created in full by the process's first
//    side stream (torch.cuda.Stream(), a capture's stream) or the first NCCL communicator of
//    a process group; later streams take nothing.
//  * kAtenModule: the ATen kernel module, loaded (lazy module loading) by the first launch of
//    nearly any ATen kernel (fill, zero, copy with a cast, arange, …); later families take
//    nothing.
//
// The engine programs say where their engine first does each (Device::use_pytorch_resource);
// the device knows what it costs. A raw CUDA process (gpumem-probe) has neither.
#ifndef GPUMEM_DEVICE_PYTORCH_RESOURCE_H_
#define GPUMEM_DEVICE_PYTORCH_RESOURCE_H_

#include <string_view>

namespace gpumem {

enum class PytorchResource { kStreamPool, kAtenModule };
inline constexpr int kPytorchResourceCount = 2;

// "stream_pool", "aten": how operation traces name them (src/opstrace/README.md).
constexpr std::string_view pytorch_resource_name(PytorchResource r) {
  return r == PytorchResource::kStreamPool ? "stream_pool" : "aten";
}

}  // namespace gpumem

#endif  // GPUMEM_DEVICE_PYTORCH_RESOURCE_H_
