// Facts about a GPU's driver that the simulated device needs and no catalog states exactly.
//
// Every field is a constant that calibration (model/calibration, fitted from probe traces)
// may replace; the defaults below are the best public figures, each with its source. A
// formula never uses a literal for one of these.
#ifndef GPUMEM_SIM_DEVICE_CONSTANTS_H_
#define GPUMEM_SIM_DEVICE_CONSTANTS_H_

#include <map>
#include <string>

#include "core/units.h"

namespace gpumem {

struct DeviceConstants {
  // nvidia-smi memory.total minus CUDA's total, when the GPU catalog has no CUDA total.
  // 640 MiB on RTX PRO 6000 (ggml-org/llama.cpp PR #23604: 97887 vs 97247 MiB).
  Bytes default_driver_reserve = mib(640);

  // CUDA context (lazy loading) = base + per_thread_slot × SMs × max resident threads/SM.
  // cuda-memory-facts.md §1.2: six public reports give 2.0–2.15 KiB per thread slot.
  Bytes context_base = bytes(0);
  Bytes context_per_thread_slot = bytes(2048);

  // cudaMalloc: requests above `small_alloc_limit` take whole pages of `page_size`
  // (PyTorch PR #17120: "allocations larger than 1MB are now always page-aligned", 2 MiB
  // pages since Pascal); smaller ones are rounded to `small_alloc_granule` and packed into
  // shared pages. Measured on H200 x2, driver 580.159.04 (reports/probe/h200x2/facts/
  // malloc.json): 4096 x 256 B take one 2 MiB page, 4 KiB to 1 MiB cost their size, 1 MiB + 1 B
  // and 2 MiB take 2 MiB, 2 MiB + 1 B takes 4 MiB; assumed for other GPUs.
  Bytes page_size = mib(2);
  Bytes small_alloc_limit = mib(1);
  Bytes small_alloc_granule = bytes(512);

  // cudaIpcOpenMemHandle maps the exporter's pages; no local copy (CUDA Programming Guide,
  // "Interprocess Communication"). Any per-mapping cost is for calibration to find.
  Bytes ipc_open_cost = bytes(0);

  // Graph executable memory at instantiation: "CUDA graph consumes around 10KB per kernel
  // node" (NVIDIA/cccl PR #3768). The driver takes it from a process-wide pool that grows in
  // `graph_exec_chunk` steps (H200 facts graphs.json: 10,000 nodes of a 1 KiB-parameter
  // kernel took 24 MiB at cudaGraphInstantiate, 1,000 nodes fit in the chunk already held).
  // The pool holds one chunk from context creation on, counted in the context's size (the
  // same facts: 1,000 nodes took no new memory; vLLM's first estimate capture on the probe
  // took 2 MiB less than a fresh chunk would). `graph_exec_base` is charged per graph.
  Bytes graph_exec_base = bytes(0);
  Bytes graph_exec_per_node = bytes(10'240);
  Bytes graph_exec_chunk = mib(2);
  Bytes graph_exec_held_at_start = mib(2);

  // Kernels and handle state a library loads into the context on first use, by library.
  // cuBLAS: UNCONFIRMED (cuda-memory-facts.md §6); measured by the probe.
  std::map<std::string, Bytes, std::less<>> library_load = {{"cublas", mib(0)}};

  // What a PyTorch process takes beyond a raw CUDA one, outside its caching allocator, each
  // once, at its first use (src/probe/torch/README.md). Zero here: gpumem-probe's raw
  // process and every GPU without a PyTorch calibration; a `probe: torch` calibration file
  // gives them (model/calibration/h200-sxm-141gb-torch.yaml, H200 with PyTorch 2.11).
  //  * pytorch_stream_pool: the pool of streams, at the first side stream or process-group
  //    communicator (Device::use_pytorch_resource; a graph capture's stream is one).
  //  * pytorch_aten_module: the ATen kernel module, at the first ATen kernel
  //    (Device::use_pytorch_resource; a first capture's generator seed fill is one).
  //  * pytorch_first_capture: the first capture's two generator tensors, in a small segment
  //    of their own that is never freed.
  //  * pytorch_first_kernel: the module of a first kernel launched before the ATen module is
  //    in (the torch probe's stand-in kernel); nothing once the ATen module is in.
  Bytes pytorch_stream_pool = bytes(0);
  Bytes pytorch_aten_module = bytes(0);
  Bytes pytorch_first_capture = bytes(0);
  Bytes pytorch_first_kernel = bytes(0);
  // Whether the engine program's named first uses (Device::use_pytorch_resource) are made.
  // false only to check a torch-probe replay of a gpumem.ops.v1 trace, exported before the
  // programs named them: there the first capture created both (calib/replayed_decisions.h).
  bool pytorch_uses_named = true;
  friend bool operator==(const DeviceConstants&, const DeviceConstants&) = default;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_DEVICE_CONSTANTS_H_
