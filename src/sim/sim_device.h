// A simulated GPU: the `Device` seam over a model of the driver's memory accounting.
//
// Capacity is CUDA's total (nvidia-smi's total minus the driver reserve). Memory is taken by
// other processes (`preoccupied`), by this process's context (created on first use, sized
// from the SM count), and by raw allocations rounded as the driver rounds them. Everything is
// exact integer bookkeeping, per category, with a high-water mark the ledger reads per step.
// Addresses are synthetic, unique and never reused, so a stale pointer is caught.
#ifndef GPUMEM_SIM_SIM_DEVICE_H_
#define GPUMEM_SIM_SIM_DEVICE_H_

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "device/device.h"
#include "sim/device_constants.h"

namespace gpumem {

class SimDevice final : public Device {
 public:
  SimDevice(const GpuSpec& gpu, const DeviceConstants& constants, Bytes preoccupied);

  Status init_context() override;
  MemInfo mem_get_info() override;
  Result<DevicePtr> malloc(Bytes size, Category category) override;
  void free(DevicePtr ptr) override;
  Result<IpcHandle> ipc_export(DevicePtr ptr) override;
  Result<DevicePtr> ipc_open(const IpcHandle& handle) override;
  void ipc_close(DevicePtr mapped) override;
  Status begin_graph_capture() override;
  Status launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) override;
  Status launch_kernels(int count, Bytes bytes_touched) override;
  Result<GraphId> end_graph_capture() override;
  Status load_library(std::string_view library) override;

  // Memory the driver takes for itself on behalf of a library, with no allocation to free:
  // kernels loaded into the context, a grown stack reservation. kOutOfMemory if it does not
  // fit.
  Status charge_driver(Bytes size, Category category, std::string_view what);

  bool capturing() const { return capturing_; }

  // What the driver charges for a raw allocation of `size`.
  Bytes footprint(Bytes size) const;

  Bytes total() const { return total_; }
  Bytes used() const { return used_; }  // includes other processes' memory
  Bytes used_by(Category c) const { return by_category_[static_cast<size_t>(c)]; }
  Bytes peak_used() const { return peak_; }
  void reset_peak() { peak_ = used_; }

  // The last allocation that did not fit, for the ledger's OOM record.
  struct FailedRequest {
    Bytes requested;
    Bytes free;
  };
  const FailedRequest& last_failure() const { return last_failure_; }

 private:
  void charge(Bytes b, Category c);
  void release(Bytes b, Category c);

  const DeviceConstants constants_;
  Bytes total_;
  Bytes context_size_;
  bool context_created_ = false;
  Bytes used_;
  Bytes peak_;
  std::array<Bytes, kCategoryCount> by_category_{};

  struct Allocation {
    std::uint64_t address;
    Bytes footprint;
    Bytes size;
    Category category;
    bool live;
  };
  // The live allocation at `address`; null when there is none.
  Allocation* find_allocation(std::uint64_t address);
  // Every allocation made, by address: addresses only grow, so a new one goes at the end,
  // and a freed one stays as a tombstone (live = false) rather than shifting the rest —
  // a start-up makes thousands of cudaMallocs and empty_cache frees them in bulk.
  std::vector<Allocation> allocations_;
  std::unordered_map<std::uint64_t, Bytes> ipc_mappings_;
  std::uint64_t next_address_ = 1ULL << 40;

  // Small cudaMallocs share pages: what is left of the page they are packed into.
  Bytes small_page_left_;
  // Graph executables: what instantiated graphs use of the driver's pool, and the pool.
  Bytes graph_exec_used_;
  Bytes graph_exec_reserved_;

  bool capturing_ = false;
  int nodes_in_capture_ = 0;
  int graphs_ = 0;
  std::unordered_map<std::string, bool> libraries_loaded_;
  FailedRequest last_failure_{bytes(0), bytes(0)};
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_SIM_DEVICE_H_
