#include "probe/touch_kernel.h"

namespace gpumem::probe {
namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kBytesPerThreadTarget = 16;
constexpr int kMaxBlocks = 1024;

__global__ void touch(TouchArgs args) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long first =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int b = 0; b < args.count; ++b) {
    unsigned char* p = args.ptr[b];
    for (unsigned long long i = first; i < args.len[b]; i += stride) p[i] ^= args.salt;
  }
}

__global__ void null_kernel() {}

}  // namespace

cudaError_t launch_null_kernel(cudaStream_t stream) {
  null_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_touch_kernel(const TouchArgs& args, cudaStream_t stream) {
  unsigned long long longest = 0;
  for (int b = 0; b < args.count; ++b) longest = args.len[b] > longest ? args.len[b] : longest;
  unsigned long long blocks =
      (longest + kThreads * kBytesPerThreadTarget - 1) / (kThreads * kBytesPerThreadTarget);
  if (blocks < 1) blocks = 1;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  touch<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace gpumem::probe
