#include "sim/sim_device.h"

#include <algorithm>
#include <cstring>

namespace gpumem {

Bytes cuda_total_memory(const GpuSpec& gpu, const DeviceConstants& constants) {
  return gpu.cuda_total.value_or(gpu.memory_total - constants.default_driver_reserve);
}

SimDevice::SimDevice(const GpuSpec& gpu, const DeviceConstants& constants, Bytes preoccupied)
    : constants_(constants) {
  state_.total = cuda_total_memory(gpu, constants);
  state_.context_size = constants.context_base +
                        constants.context_per_thread_slot * (gpu.sm_count * gpu.max_threads_per_sm);
  state_.used = preoccupied;
  state_.peak = preoccupied;
  state_.graph_exec_reserved = constants.graph_exec_held_at_start;
}

void SimDevice::charge(Bytes b, Category c) {
  state_.used += b;
  state_.by_category[static_cast<size_t>(c)] += b;
  if (state_.used > state_.peak) state_.peak = state_.used;
}

void SimDevice::release(Bytes b, Category c) {
  state_.used -= b;
  state_.by_category[static_cast<size_t>(c)] -= b;
}

Status SimDevice::init_context() {
  if (state_.context_created) return {};
  if (state_.used + state_.context_size > state_.total) {
    state_.last_failure = {state_.context_size, state_.total - state_.used};
    return {StatusCode::kOutOfMemory, "CUDA context creation needs " +
                                          format_mib(state_.context_size) + ", " +
                                          format_mib(state_.total - state_.used) + " free"};
  }
  state_.context_created = true;
  charge(state_.context_size, Category::kContext);
  return {};
}

MemInfo SimDevice::mem_get_info() {
  // cudaMemGetInfo creates the context when there is none; a context that does not fit
  // leaves the reading as it was.
  (void)init_context();
  return {state_.total - state_.used, state_.total};
}

Bytes SimDevice::footprint(Bytes size) const {
  if (size > constants_.small_alloc_limit) return round_up(size, constants_.page_size);
  return round_up(size, constants_.small_alloc_granule);
}

// A new page is charged only when a small allocation does not fit the open one. Pages are
// not returned when their allocations are freed: the start-ups gpumem models free none.

Result<DevicePtr> SimDevice::malloc(Bytes size, Category category) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  if (size <= bytes(0)) return internal_error("cudaMalloc of " + format_bytes(size));
  const bool small = size <= constants_.small_alloc_limit;
  const Bytes rounded = footprint(size);
  const Bytes charged =
      !small ? rounded : (rounded <= state_.small_page_left ? bytes(0) : constants_.page_size);
  if (state_.used + charged > state_.total) {
    state_.last_failure = {charged, state_.total - state_.used};
    return Status(StatusCode::kOutOfMemory, "cudaMalloc(" + format_bytes(size) +
                                                ") failed: out of memory, " +
                                                format_mib(state_.total - state_.used) + " free");
  }
  if (small) {
    state_.small_page_left =
        charged > bytes(0) ? constants_.page_size - rounded : state_.small_page_left - rounded;
  }
  charge(charged, category);
  const std::uint64_t address = state_.next_address;
  state_.next_address += static_cast<std::uint64_t>(round_up(size, constants_.page_size).value());
  state_.allocations.push_back(Allocation{address, charged, size, category, true});
  return DevicePtr{address};
}

SimDevice::Allocation* SimDevice::find_allocation(std::uint64_t address) {
  auto it = std::lower_bound(state_.allocations.begin(), state_.allocations.end(), address,
                             [](const Allocation& a, std::uint64_t x) { return a.address < x; });
  return it != state_.allocations.end() && it->address == address && it->live ? &*it : nullptr;
}

void SimDevice::free(DevicePtr ptr) {
  Allocation* a = find_allocation(ptr.address);
  if (a == nullptr) return;
  release(a->footprint, a->category);
  a->live = false;
}

Result<IpcHandle> SimDevice::ipc_export(DevicePtr ptr) {
  const Allocation* a = find_allocation(ptr.address);
  if (a == nullptr) return internal_error("cudaIpcGetMemHandle of an unknown pointer");
  IpcHandle h;
  std::memcpy(h.bytes.data(), &ptr.address, sizeof ptr.address);
  h.size = a->size;
  return h;
}

Result<DevicePtr> SimDevice::ipc_open(const IpcHandle& handle) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  if (state_.used + constants_.ipc_open_cost > state_.total) {
    state_.last_failure = {constants_.ipc_open_cost, state_.total - state_.used};
    return Status(StatusCode::kOutOfMemory, "cudaIpcOpenMemHandle failed: out of memory");
  }
  charge(constants_.ipc_open_cost, Category::kCommunication);
  const std::uint64_t address = state_.next_address;
  state_.next_address +=
      static_cast<std::uint64_t>(round_up(handle.size, constants_.page_size).value());
  state_.ipc_mappings.emplace(address, constants_.ipc_open_cost);
  return DevicePtr{address};
}

void SimDevice::ipc_close(DevicePtr mapped) {
  auto it = state_.ipc_mappings.find(mapped.address);
  if (it == state_.ipc_mappings.end()) return;
  release(it->second, Category::kCommunication);
  state_.ipc_mappings.erase(it);
}

Status SimDevice::begin_graph_capture() {
  if (state_.capturing) return internal_error("graph capture begun twice");
  GPUMEM_RETURN_IF_ERROR(init_context());
  if (!state_.captured_before) {
    // PyTorch's first capture_begin: the capture's side stream, and the seed fill of the
    // generator tensors it allocates, an ATen kernel (torch-facts, src/probe/torch/README.md).
    GPUMEM_RETURN_IF_ERROR(create_pytorch_resource(PytorchResource::kStreamPool));
    GPUMEM_RETURN_IF_ERROR(create_pytorch_resource(PytorchResource::kAtenModule));
    GPUMEM_RETURN_IF_ERROR(charge_driver(constants_.pytorch_first_capture, Category::kContext,
                                         "PyTorch's generator tensors at the first capture"));
  }
  state_.captured_before = true;
  state_.capturing = true;
  state_.nodes_in_capture = 0;
  return {};
}

Status SimDevice::launch_kernel(std::span<const DevicePtr>, Bytes) { return launch_kernels(1, {}); }

Status SimDevice::launch_kernels(int count, Bytes) {
  const bool aten = state_.pytorch_resources[static_cast<size_t>(PytorchResource::kAtenModule)];
  if (count > 0 && !state_.launched_before && !aten) {
    GPUMEM_RETURN_IF_ERROR(charge_driver(constants_.pytorch_first_kernel, Category::kContext,
                                         "the first kernel's module"));
  }
  state_.launched_before = state_.launched_before || count > 0;
  if (state_.capturing) state_.nodes_in_capture += count;
  return {};
}

Result<GraphId> SimDevice::end_graph_capture() {
  if (!state_.capturing) return internal_error("graph capture ended without a begin");
  state_.capturing = false;
  const Bytes used = state_.graph_exec_used + constants_.graph_exec_base +
                     constants_.graph_exec_per_node * state_.nodes_in_capture;
  const Bytes reserved =
      std::max(state_.graph_exec_reserved, round_up(used, constants_.graph_exec_chunk));
  const Bytes grow = reserved - state_.graph_exec_reserved;
  if (state_.used + grow > state_.total) {
    state_.last_failure = {grow, state_.total - state_.used};
    return Status(StatusCode::kOutOfMemory, "cudaGraphInstantiate failed: out of memory");
  }
  charge(grow, Category::kGraphs);
  state_.graph_exec_used = used;
  state_.graph_exec_reserved = reserved;
  return GraphId{state_.graphs++};
}

Status SimDevice::charge_driver(Bytes size, Category category, std::string_view what) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  if (state_.used + size > state_.total) {
    state_.last_failure = {size, state_.total - state_.used};
    return Status(StatusCode::kOutOfMemory, std::string(what) + " needs " + format_mib(size) +
                                                ", " + format_mib(state_.total - state_.used) +
                                                " free");
  }
  charge(size, category);
  return {};
}

Status SimDevice::load_library(std::string_view library) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  auto [it, inserted] = state_.libraries_loaded.emplace(std::string(library), true);
  if (!inserted) return {};
  auto cost = constants_.library_load.find(library);
  if (cost == constants_.library_load.end()) {
    return internal_error("no load cost known for library '" + std::string(library) + "'");
  }
  return charge_driver(cost->second, Category::kContext, "loading " + std::string(library));
}

Status SimDevice::use_pytorch_resource(PytorchResource resource) {
  return constants_.pytorch_uses_named ? create_pytorch_resource(resource) : Status{};
}

Status SimDevice::create_pytorch_resource(PytorchResource resource) {
  bool& created = state_.pytorch_resources[static_cast<size_t>(resource)];
  if (created) return {};
  const bool stream_pool = resource == PytorchResource::kStreamPool;
  GPUMEM_RETURN_IF_ERROR(charge_driver(
      stream_pool ? constants_.pytorch_stream_pool : constants_.pytorch_aten_module,
      Category::kContext, stream_pool ? "PyTorch's pool of streams" : "PyTorch's ATen module"));
  created = true;
  return {};
}

}  // namespace gpumem
