#include "calib/parameters.h"

namespace gpumem {
namespace {

NcclKernelImage* image_for(NcclConstants& n, int arch) {
  for (int i = 0; i < n.kernel_image_count; ++i) {
    if (n.kernel_images[static_cast<size_t>(i)].arch == arch)
      return &n.kernel_images[static_cast<size_t>(i)];
  }
  return nullptr;
}

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> kParameters = {
      {"context", "CUDA context of a process, at its first CUDA call",
       [](const SimulationConstants& c) { return c.device.context_base; },
       [](SimulationConstants& c, Bytes v) {
         c.device.context_base = v;
         c.device.context_per_thread_slot = bytes(0);
       },
       mib(16)},
      {"cublas_load", "cuBLAS handle and kernels loaded into the context (first GEMM)",
       [](const SimulationConstants& c) { return c.device.library_load.at("cublas"); },
       [](SimulationConstants& c, Bytes v) { c.device.library_load["cublas"] = v; }, mib(16), false,
       true},
      {"graph_exec_per_node", "graph executable memory per kernel node, at instantiation",
       [](const SimulationConstants& c) { return c.device.graph_exec_per_node; },
       [](SimulationConstants& c, Bytes v) { c.device.graph_exec_per_node = v; }, bytes(1024),
       false, true},
      {"nccl_kernel_image_sm90",
       "NCCL device code in the context of the first communicator (sm_90)",
       [](const SimulationConstants& c) {
         SimulationConstants copy = c;
         NcclKernelImage* i = image_for(copy.nccl, 90);
         return i != nullptr ? i->size : bytes(0);
       },
       [](SimulationConstants& c, Bytes v) {
         if (NcclKernelImage* i = image_for(c.nccl, 90)) i->size = v;
       },
       mib(16), false, true},
      {"nccl_launch_stack_per_thread", "kernel stack per resident thread of NCCL's first launch",
       [](const SimulationConstants& c) { return c.nccl.launch_stack_per_thread; },
       [](SimulationConstants& c, Bytes v) { c.nccl.launch_stack_per_thread = v; }, bytes(64),
       false, true},
      {"pytorch_stream_pool", "PyTorch's pool of streams, at the first side stream",
       [](const SimulationConstants& c) { return c.device.pytorch_stream_pool; },
       [](SimulationConstants& c, Bytes v) { c.device.pytorch_stream_pool = v; }, mib(16), true},
      {"pytorch_aten_module", "PyTorch's ATen kernel module, at the first ATen kernel",
       [](const SimulationConstants& c) { return c.device.pytorch_aten_module; },
       [](SimulationConstants& c, Bytes v) { c.device.pytorch_aten_module = v; }, mib(16), true},
      {"pytorch_first_capture", "the generator tensors of a PyTorch process's first capture",
       [](const SimulationConstants& c) { return c.device.pytorch_first_capture; },
       [](SimulationConstants& c, Bytes v) { c.device.pytorch_first_capture = v; }, mib(2), true},
      {"pytorch_first_kernel", "the module of a first kernel launched before the ATen module",
       [](const SimulationConstants& c) { return c.device.pytorch_first_kernel; },
       [](SimulationConstants& c, Bytes v) { c.device.pytorch_first_kernel = v; }, mib(2), true},
  };
  return kParameters;
}

}  // namespace

std::span<const Parameter> calibration_parameters() { return parameters(); }

const Parameter* find_parameter(std::string_view name) {
  for (const Parameter& p : parameters()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> parameter_names() {
  std::vector<std::string> out;
  for (const Parameter& p : parameters()) out.emplace_back(p.name);
  return out;
}

void fold_context(SimulationConstants& c, const GpuSpec& gpu) {
  c.device.context_base = c.device.context_base + c.device.context_per_thread_slot *
                                                      (gpu.sm_count * gpu.max_threads_per_sm);
  c.device.context_per_thread_slot = bytes(0);
}

}  // namespace gpumem
