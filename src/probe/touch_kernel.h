// The probe's stand-in for an engine's kernels: one small kernel that reads and writes a
// bounded number of bytes of each buffer it is given.
//
// Inside a stream capture one launch is one kernel node of the graph, which is what the
// graph-executable measurements count; outside a capture it really runs, so buffers the
// engine model allocated are touched (their pages are really in use). The kernel XORs every
// byte with `salt`, which callers pass as 0: data stays unchanged, but the compiler cannot
// drop the read or the write.
#ifndef GPUMEM_PROBE_TOUCH_KERNEL_H_
#define GPUMEM_PROBE_TOUCH_KERNEL_H_

#include <cuda_runtime_api.h>

namespace gpumem::probe {

// Kernel parameters travel by value (1 KiB here, well under CUDA's 4 KiB parameter limit),
// so a captured node needs no device-side argument buffer.
inline constexpr int kTouchMaxBuffers = 64;

struct TouchArgs {
  unsigned char* ptr[kTouchMaxBuffers];
  unsigned long long len[kTouchMaxBuffers];
  int count;
  unsigned char salt;
};
static_assert(sizeof(TouchArgs) == 1032, "the facts README quotes the parameter size");

// Launches the kernel once on `stream`; returns the launch's error (cudaGetLastError).
cudaError_t launch_touch_kernel(const TouchArgs& args, cudaStream_t stream);

// A kernel without parameters and without work, one thread: the smallest possible graph node,
// against which the per-node cost of the touch kernel's 1 KiB of parameters shows.
cudaError_t launch_null_kernel(cudaStream_t stream);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_TOUCH_KERNEL_H_
