#include "sim/sim_device.h"

#include <algorithm>
#include <cstring>

namespace gpumem {

SimDevice::SimDevice(const GpuSpec& gpu, const DeviceConstants& constants, Bytes preoccupied)
    : constants_(constants),
      total_(gpu.cuda_total.value_or(gpu.memory_total - constants.default_driver_reserve)),
      context_size_(constants.context_base +
                    constants.context_per_thread_slot * (gpu.sm_count * gpu.max_threads_per_sm)),
      used_(preoccupied),
      peak_(preoccupied),
      graph_exec_reserved_(constants.graph_exec_held_at_start) {}

void SimDevice::charge(Bytes b, Category c) {
  used_ += b;
  by_category_[static_cast<size_t>(c)] += b;
  if (used_ > peak_) peak_ = used_;
}

void SimDevice::release(Bytes b, Category c) {
  used_ -= b;
  by_category_[static_cast<size_t>(c)] -= b;
}

Status SimDevice::init_context() {
  if (context_created_) return {};
  if (used_ + context_size_ > total_) {
    last_failure_ = {context_size_, total_ - used_};
    return {StatusCode::kOutOfMemory, "CUDA context creation needs " + format_mib(context_size_) +
                                          ", " + format_mib(total_ - used_) + " free"};
  }
  context_created_ = true;
  charge(context_size_, Category::kContext);
  return {};
}

MemInfo SimDevice::mem_get_info() {
  // cudaMemGetInfo creates the context when there is none; a context that does not fit
  // leaves the reading as it was.
  (void)init_context();
  return {total_ - used_, total_};
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
      !small ? rounded : (rounded <= small_page_left_ ? bytes(0) : constants_.page_size);
  if (used_ + charged > total_) {
    last_failure_ = {charged, total_ - used_};
    return Status(StatusCode::kOutOfMemory, "cudaMalloc(" + format_bytes(size) +
                                                ") failed: out of memory, " +
                                                format_mib(total_ - used_) + " free");
  }
  if (small) {
    small_page_left_ =
        charged > bytes(0) ? constants_.page_size - rounded : small_page_left_ - rounded;
  }
  charge(charged, category);
  const std::uint64_t address = next_address_;
  next_address_ += static_cast<std::uint64_t>(round_up(size, constants_.page_size).value());
  allocations_.push_back(Allocation{address, charged, size, category, true});
  return DevicePtr{address};
}

SimDevice::Allocation* SimDevice::find_allocation(std::uint64_t address) {
  auto it = std::lower_bound(allocations_.begin(), allocations_.end(), address,
                             [](const Allocation& a, std::uint64_t x) { return a.address < x; });
  return it != allocations_.end() && it->address == address && it->live ? &*it : nullptr;
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
  if (used_ + constants_.ipc_open_cost > total_) {
    last_failure_ = {constants_.ipc_open_cost, total_ - used_};
    return Status(StatusCode::kOutOfMemory, "cudaIpcOpenMemHandle failed: out of memory");
  }
  charge(constants_.ipc_open_cost, Category::kCommunication);
  const std::uint64_t address = next_address_;
  next_address_ += static_cast<std::uint64_t>(round_up(handle.size, constants_.page_size).value());
  ipc_mappings_.emplace(address, constants_.ipc_open_cost);
  return DevicePtr{address};
}

void SimDevice::ipc_close(DevicePtr mapped) {
  auto it = ipc_mappings_.find(mapped.address);
  if (it == ipc_mappings_.end()) return;
  release(it->second, Category::kCommunication);
  ipc_mappings_.erase(it);
}

Status SimDevice::begin_graph_capture() {
  if (capturing_) return internal_error("graph capture begun twice");
  GPUMEM_RETURN_IF_ERROR(init_context());
  capturing_ = true;
  nodes_in_capture_ = 0;
  return {};
}

Status SimDevice::launch_kernel(std::span<const DevicePtr>, Bytes) {
  if (capturing_) ++nodes_in_capture_;
  return {};
}

Status SimDevice::launch_kernels(int count, Bytes) {
  if (capturing_) nodes_in_capture_ += count;
  return {};
}

Result<GraphId> SimDevice::end_graph_capture() {
  if (!capturing_) return internal_error("graph capture ended without a begin");
  capturing_ = false;
  const Bytes used = graph_exec_used_ + constants_.graph_exec_base +
                     constants_.graph_exec_per_node * nodes_in_capture_;
  const Bytes reserved =
      std::max(graph_exec_reserved_, round_up(used, constants_.graph_exec_chunk));
  const Bytes grow = reserved - graph_exec_reserved_;
  if (used_ + grow > total_) {
    last_failure_ = {grow, total_ - used_};
    return Status(StatusCode::kOutOfMemory, "cudaGraphInstantiate failed: out of memory");
  }
  charge(grow, Category::kGraphs);
  graph_exec_used_ = used;
  graph_exec_reserved_ = reserved;
  return GraphId{graphs_++};
}

Status SimDevice::charge_driver(Bytes size, Category category, std::string_view what) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  if (used_ + size > total_) {
    last_failure_ = {size, total_ - used_};
    return Status(StatusCode::kOutOfMemory, std::string(what) + " needs " + format_mib(size) +
                                                ", " + format_mib(total_ - used_) + " free");
  }
  charge(size, category);
  return {};
}

Status SimDevice::load_library(std::string_view library) {
  GPUMEM_RETURN_IF_ERROR(init_context());
  auto [it, inserted] = libraries_loaded_.emplace(std::string(library), true);
  if (!inserted) return {};
  auto cost = constants_.library_load.find(library);
  if (cost == constants_.library_load.end()) {
    return internal_error("no load cost known for library '" + std::string(library) + "'");
  }
  return charge_driver(cost->second, Category::kContext, "loading " + std::string(library));
}

}  // namespace gpumem
